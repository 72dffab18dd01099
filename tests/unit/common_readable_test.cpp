// why_not_readable / require_readable_file: every reason a file cannot be read, in the words every reader uses,
// and never a std::filesystem exception. Permission cases need a user that permissions stop: as root they run in a
// child process that has become nobody (root is not stopped by chmod 000).
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <functional>

#include "common/error.hpp"
#include "common/readable.hpp"
#include "support/run_command.hpp"

namespace mpgemm::testing {
namespace {

namespace fs = std::filesystem;

constexpr uid_t kNobody = 65534;

class Readable : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fresh_dir(std::string("readable_") + ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::permissions(dir_, fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec |
                              fs::perms::others_read | fs::perms::others_exec);
    std::ofstream(dir_ / "r.db") << "a file";
  }
  void TearDown() override {
    std::error_code ec;
    for (const auto& e : fs::recursive_directory_iterator(dir_, fs::directory_options::skip_permission_denied, ec))
      fs::permissions(e.path(), fs::perms::owner_all, fs::perm_options::add, ec);
    fs::permissions(dir_ / "locked", fs::perms::owner_all, ec);
    fs::remove_all(dir_, ec);
  }

  // What `reason` returns, computed by a user that file permissions stop: this process when it is not root, else
  // a child that has dropped to nobody.
  static std::string as_unprivileged(const std::function<std::string()>& reason) {
    if (::geteuid() != 0) return reason();
    int fds[2];
    if (::pipe(fds) != 0) return "pipe failed";
    const pid_t child = ::fork();
    if (child == 0) {
      ::close(fds[0]);
      int code = 1;
      if (::setgid(kNobody) == 0 && ::setuid(kNobody) == 0) {
        const std::string text = reason();
        code = ::write(fds[1], text.data(), text.size()) == static_cast<ssize_t>(text.size()) ? 0 : 1;
      }
      ::_exit(code);
    }
    ::close(fds[1]);
    std::string text;
    char buf[512];
    for (ssize_t n; (n = ::read(fds[0], buf, sizeof buf)) > 0;) text.append(buf, static_cast<std::size_t>(n));
    ::close(fds[0]);
    int status = 0;
    ::waitpid(child, &status, 0);
    return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? text : "the unprivileged child failed";
  }

  static std::string reason(const fs::path& p) { return why_not_readable(p, "database").value_or("readable"); }

  fs::path dir_;
};

TEST_F(Readable, AFileThatCanBeRead) {
  EXPECT_EQ(why_not_readable(dir_ / "r.db"), std::nullopt);
  EXPECT_NO_THROW(require_readable_file(dir_ / "r.db"));
}

TEST_F(Readable, MissingEmptyAndFolder) {
  EXPECT_EQ(reason(dir_ / "none.db"), "no such file");
  ASSERT_TRUE(read_obstacle(dir_ / "none.db"));
  EXPECT_EQ(read_obstacle(dir_ / "none.db")->kind, ReadObstacle::Kind::missing);  // what "if present" readers ask
  EXPECT_EQ(read_obstacle(dir_)->kind, ReadObstacle::Kind::names_a_folder);
  EXPECT_EQ(reason(dir_ / "no_folder" / "none.db"), "no such file");
  EXPECT_EQ(reason(""), "the path is empty");
  EXPECT_EQ(reason(dir_), "it is a folder, not a database");
}

// A folder of the path is a regular file (ENOTDIR): std::filesystem says "no such file" or throws; here the file
// is named.
TEST_F(Readable, AFolderOfThePathIsAFile) {
  const fs::path inside = dir_ / "r.db" / "x.db";
  EXPECT_EQ(reason(inside), (dir_ / "r.db").string() + " is a file, not a folder");
  EXPECT_EQ(read_obstacle(inside)->kind, ReadObstacle::Kind::through_a_file);
  EXPECT_EQ(read_obstacle(inside)->folder, dir_ / "r.db");
  EXPECT_EQ(reason(dir_ / "r.db" / "deeper" / "x.db"), (dir_ / "r.db").string() + " is a file, not a folder");
  try {
    require_readable_file(inside, "database");
    FAIL() << "no refusal";
  } catch (const std::filesystem::filesystem_error& e) {
    FAIL() << "a filesystem_error escaped: " << e.what();
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()),
              "cannot read " + inside.string() + ": " + (dir_ / "r.db").string() + " is a file, not a folder");
  }
}

// chmod 000 on the folder (the issue's case: query and export said "internal error: filesystem error: status:
// Permission denied", merge and replay "no such file").
TEST_F(Readable, AFolderThatMayNotBeEntered) {
  fs::create_directories(dir_ / "locked");
  std::ofstream(dir_ / "locked" / "r.db") << "a file";
  fs::permissions(dir_ / "locked", fs::perms::none);
  const fs::path db = dir_ / "locked" / "r.db";
  EXPECT_EQ(as_unprivileged([&] { return reason(db); }),
            "permission denied: the folder " + (dir_ / "locked").string() + " may not be entered");
  EXPECT_EQ(as_unprivileged([&] {
              try {
                require_readable_file(db, "database");
                return std::string("no refusal");
              } catch (const Error& e) {
                return std::string(e.what());
              } catch (const std::exception& e) {
                return std::string("not an mpgemm::Error: ") + e.what();
              }
            }),
            "cannot read " + db.string() + ": permission denied: the folder " + (dir_ / "locked").string() +
                " may not be entered");
}

TEST_F(Readable, AFileThatMayNotBeRead) {
  fs::permissions(dir_ / "r.db", fs::perms::none);
  EXPECT_EQ(as_unprivileged([&] { return reason(dir_ / "r.db"); }), "permission denied: the database may not be read");
}

// Issue 57, item 7: a FIFO's open waits for a writer; it is named before anything opens it, as is a device.
TEST_F(Readable, AFifoOrADeviceIsNotARegularFile) {
  ASSERT_EQ(::mkfifo((dir_ / "f.db").c_str(), 0600), 0);
  EXPECT_EQ(reason(dir_ / "f.db"), "it is not a regular file (a FIFO, a socket or a device), not a database");
  EXPECT_EQ(reason("/dev/null"), "it is not a regular file (a FIFO, a socket or a device), not a database");
  EXPECT_TRUE(opens_like_no_file(dir_ / "f.db"));
  EXPECT_FALSE(opens_like_no_file("/dev/zero"));  // read within kMaxInputFileBytes by read_bounded_file
  EXPECT_FALSE(opens_like_no_file(dir_ / "r.db"));
  EXPECT_FALSE(opens_like_no_file(dir_ / "missing"));
}

}  // namespace
}  // namespace mpgemm::testing
