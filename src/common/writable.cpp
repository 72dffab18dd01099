#include "common/writable.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>

#include <fmt/format.h>

#include "common/error.hpp"

namespace mpgemm {

std::optional<WriteObstacle> write_obstacle(const std::filesystem::path& path, MissingFolders folders) {
  namespace fs = std::filesystem;
  using Kind = WriteObstacle::Kind;
  std::error_code ec;
  if (path.empty()) return WriteObstacle{Kind::empty_path, {}};
  if (fs::is_directory(path, ec) || !path.has_filename()) return WriteObstacle{Kind::names_a_folder, {}};
  if (fs::exists(path, ec)) {
    if (access(path.c_str(), W_OK) == 0) return std::nullopt;
    return WriteObstacle{Kind::file_read_only, {}};
  }
  // The folder it goes in; a relative name without one goes in the working folder.
  const auto folder_of = [](const fs::path& p) { return p.has_parent_path() ? p.parent_path() : fs::path("."); };
  fs::path folder = folder_of(path);
  if (folders == MissingFolders::create)
    while (!fs::exists(folder, ec) && folder != folder_of(folder)) folder = folder_of(folder);
  if (!fs::exists(folder, ec)) return WriteObstacle{Kind::folder_missing, folder};
  if (!fs::is_directory(folder, ec)) return WriteObstacle{Kind::not_a_folder, folder};
  if (access(folder.c_str(), W_OK) != 0) return WriteObstacle{Kind::folder_read_only, folder};
  return std::nullopt;
}

std::string describe(const WriteObstacle& o, std::string_view noun) {
  using Kind = WriteObstacle::Kind;
  switch (o.kind) {
    case Kind::empty_path:
      return "the path is empty";
    case Kind::names_a_folder:
      return fmt::format("it is a folder, not a {}", noun);
    case Kind::file_read_only:
      return fmt::format("the {} is not writable", noun);
    case Kind::folder_missing:
      return fmt::format("the folder {} does not exist", o.folder.string());
    case Kind::not_a_folder:
      return fmt::format("{} is not a folder", o.folder.string());
    case Kind::folder_read_only:
      return fmt::format("the folder {} is not writable", o.folder.string());
  }
  return "it cannot be written";
}

std::optional<std::string> why_not_writable(const std::filesystem::path& path, MissingFolders folders) {
  if (auto o = write_obstacle(path, folders)) return describe(*o);
  return std::nullopt;
}

void require_writable_output(const std::filesystem::path& path) {
  if (auto why = why_not_writable(path, MissingFolders::fail))
    throw Error(fmt::format("cannot write {}: {}", path.string(), *why));
}

bool same_file(const std::filesystem::path& a, const std::filesystem::path& b) {
  std::error_code ec;
  const bool same = std::filesystem::equivalent(a, b, ec);
  return !ec && same;
}

bool is_sqlite_file(const std::filesystem::path& path) {
  static constexpr char kHeader[16] = {'S', 'Q', 'L', 'i', 't', 'e', ' ', 'f', 'o', 'r', 'm', 'a', 't', ' ', '3', '\0'};
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) return false;
  std::ifstream in(path, std::ios::binary);
  char head[sizeof kHeader] = {};
  return in.read(head, sizeof head) && std::memcmp(head, kHeader, sizeof head) == 0;
}

void require_not_an_input(const std::filesystem::path& output, std::initializer_list<InputFile> inputs) {
  for (const InputFile& in : inputs)
    if (same_file(output, in.path))
      throw OutputRefused(
          fmt::format("cannot write {}: it is {} {}, which this command reads; choose another output file",
                      output.string(), in.role, in.path.string()));
}

std::optional<std::filesystem::path> database_of_side_file(const std::filesystem::path& path) {
  const std::string name = path.filename().string();
  for (std::string_view suffix : {"-wal", "-shm", "-journal"}) {
    if (name.size() <= suffix.size() || !name.ends_with(suffix)) continue;
    std::filesystem::path db = path;
    db.replace_filename(name.substr(0, name.size() - suffix.size()));
    std::error_code ec;
    if (std::filesystem::is_regular_file(db, ec)) return db;
  }
  return std::nullopt;
}

void require_not_a_side_file(const std::filesystem::path& output) {
  if (auto db = database_of_side_file(output))
    throw OutputRefused(
        fmt::format("cannot write {}: it is a side file SQLite keeps beside the database {} (its -wal, -shm or "
                    "-journal), and writing it would lose that database's rows; choose another output file",
                    output.string(), db->string()));
}

void require_safe_output(const std::filesystem::path& output, std::initializer_list<InputFile> inputs) {
  require_writable_output(output);
  require_not_an_input(output, inputs);
  require_not_a_side_file(output);
  if (is_sqlite_file(output))
    throw OutputRefused(fmt::format(
        "cannot write {}: it is an SQLite database (a results database?), which a text output never replaces; "
        "choose another output file",
        output.string()));
}

namespace {

// The permissions a new file gets from open(..., 0666): 0666 less the umask. Read from /proc where it is shown,
// so the process-wide umask is never changed while other threads may create files.
mode_t new_file_mode() {
  std::ifstream status("/proc/self/status");
  for (std::string line; std::getline(status, line);)
    if (line.starts_with("Umask:")) return 0666 & ~static_cast<mode_t>(std::stoul(line.substr(6), nullptr, 8));
  const mode_t mask = umask(0);
  umask(mask);
  return 0666 & ~mask;
}

[[noreturn]] void cannot_write(const std::filesystem::path& path, int error) {
  throw Error(fmt::format("cannot write {}: {}", path.string(), std::strerror(error)));
}

// write(2) until all of `text` is out.
bool write_all(int fd, std::string_view text) {
  errno = 0;
  while (!text.empty()) {
    const ssize_t n = ::write(fd, text.data(), text.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    text.remove_prefix(static_cast<std::size_t>(n));
  }
  return true;
}

}  // namespace

void write_file_atomically(const std::filesystem::path& path, std::string_view text) {
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::path target = path;
  if (fs::is_symlink(path, ec)) {
    const fs::path resolved = fs::canonical(path, ec);
    if (!ec) target = resolved;
  }
  struct stat existing {};
  const bool exists = ::stat(target.c_str(), &existing) == 0;
  if (exists && !S_ISREG(existing.st_mode)) {
    // A device or a pipe has no folder to rename in: written in place.
    const int fd = ::open(target.c_str(), O_WRONLY | O_TRUNC | O_CLOEXEC);
    if (fd < 0) cannot_write(path, errno);
    const bool ok = write_all(fd, text);
    const int error = errno ? errno : EIO;
    ::close(fd);
    if (!ok) cannot_write(path, error);
    return;
  }
  const fs::path folder = target.has_parent_path() ? target.parent_path() : fs::path(".");
  std::string temp = (folder / ("." + target.filename().string() + ".tmp-XXXXXX")).string();
  const int fd = ::mkstemp(temp.data());
  if (fd < 0) cannot_write(path, errno);
  const mode_t mode = exists ? (existing.st_mode & 07777) : new_file_mode();
  int error = 0;
  if (!write_all(fd, text) || ::fchmod(fd, mode) != 0 || ::fsync(fd) != 0) error = errno ? errno : EIO;
  if (::close(fd) != 0 && error == 0) error = errno;
  if (error == 0 && ::rename(temp.c_str(), target.c_str()) != 0) error = errno;
  if (error != 0) {
    ::unlink(temp.c_str());
    cannot_write(path, error);
  }
}

}  // namespace mpgemm
