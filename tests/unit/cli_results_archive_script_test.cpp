// tools/results_archive.sh in a scratch git repository: archiving records a committed file in results/archived.tsv
// and removes it from the work tree; restoring brings the same bytes back from that commit, hidden from `git status`;
// what cannot be archived or restored is refused with the reason.
#include <gtest/gtest.h>

#include <fstream>

#include <fmt/format.h>

#include "support/run_command.hpp"

namespace mpgemm::testing {
namespace {

namespace fs = std::filesystem;

// A repository holding tools/results_archive.sh and two committed result files.
class ResultsArchive : public ::testing::Test {
 protected:
  void SetUp() override {
    if (run_command("git --version").exit_code != 0) GTEST_SKIP() << "no git on this machine";
    repo_ = fresh_dir("results_archive");
    fs::create_directories(repo_ / "tools");
    fs::create_directories(repo_ / "results/h200/v1");
    fs::copy_file(source("tools/results_archive.sh"), repo_ / "tools/results_archive.sh");
    std::ofstream(repo_ / "results/h200/v1/suite.db.xz", std::ios::binary) << std::string(
        "\xfd"
        "7zXZ\0\x01 data",
        12);
    std::ofstream(repo_ / "results/h200/v1/NOTES.md") << "notes\n";
    fs::create_directories(repo_ / "results/h200/v2");
    std::ofstream(repo_ / "results/h200/v2/only file.csv.xz") << "one\n";
    ASSERT_EQ(git("init -q && git add -A && git commit -qm first").exit_code, 0);
  }
  void TearDown() override {
    if (!repo_.empty()) fs::remove_all(repo_);
  }

  CommandResult git(const std::string& args) {
    return run_command(
        fmt::format("cd '{}' && export GIT_CONFIG_GLOBAL=/dev/null GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@t "
                    "GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@t && git {}",
                    repo_.string(), args));
  }
  // Runs the script from `folder` of the repository (its root by default), as a user would.
  CommandResult archive_tool(const std::string& args, const std::string& folder = ".") {
    return run_command(fmt::format("cd '{}/{}' && GIT_CONFIG_GLOBAL=/dev/null bash '{}/tools/results_archive.sh' {}",
                                   repo_.string(), folder, repo_.string(), args));
  }

  fs::path repo_;
};

TEST_F(ResultsArchive, ArchivedFileLeavesTheTreeAndComesBackByteForByte) {
  const std::string bytes = read_file(repo_ / "results/h200/v1/suite.db.xz");
  const auto a = archive_tool("archive results/h200/v1/suite.db.xz");
  ASSERT_EQ(a.exit_code, 0) << a.output;
  EXPECT_FALSE(fs::exists(repo_ / "results/h200/v1/suite.db.xz"));
  const std::string index = read_file(repo_ / "results/archived.tsv");
  EXPECT_EQ(index.rfind("path\tbytes\tsha256\tcommit\nresults/h200/v1/suite.db.xz\t12\t", 0), 0u) << index;
  ASSERT_EQ(git("commit -qm archive").exit_code, 0);
  EXPECT_EQ(git("ls-files results").output,
            "results/archived.tsv\nresults/h200/v1/NOTES.md\nresults/h200/v2/only file.csv.xz\n");

  const auto r = archive_tool("restore results/h200");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("restored results/h200/v1/suite.db.xz"), std::string::npos) << r.output;
  EXPECT_EQ(read_file(repo_ / "results/h200/v1/suite.db.xz"), bytes);
  EXPECT_EQ(git("status --porcelain").output, "") << "a restored file is no untracked file a device call carries";
  EXPECT_NE(archive_tool("list").output.find("present"), std::string::npos);
  EXPECT_NE(archive_tool("restore").output.find("present  results/h200/v1/suite.db.xz"), std::string::npos);
  std::ofstream(repo_ / "results/h200/v1/suite.db.xz", std::ios::app) << "x";
  EXPECT_NE(archive_tool("list").output.find("changed"), std::string::npos) << "present is checked, not assumed";
}

TEST_F(ResultsArchive, PathsAreTakenFromTheFolderTheCommandRunsIn) {
  // From a subfolder, with a relative path holding a space; then by absolute path.
  const auto a = archive_tool("archive 'only file.csv.xz'", "results/h200/v2");
  ASSERT_EQ(a.exit_code, 0) << a.output;
  const auto b = archive_tool(fmt::format("archive '{}/results/h200/v1/suite.db.xz'", repo_.string()), "results");
  ASSERT_EQ(b.exit_code, 0) << b.output;
  ASSERT_EQ(git("commit -qm archive").exit_code, 0);
  const std::string index = read_file(repo_ / "results/archived.tsv");
  EXPECT_NE(index.find("\nresults/h200/v2/only file.csv.xz\t4\t"), std::string::npos) << index;
  EXPECT_NE(index.find("\nresults/h200/v1/suite.db.xz\t12\t"), std::string::npos) << index;

  const auto again = archive_tool("archive 'v2/only file.csv.xz'", "results/h200");
  EXPECT_EQ(again.exit_code, 1);
  EXPECT_NE(again.output.find("archived already"), std::string::npos) << again.output;

  // Restoring only v2's file (git rm took its emptied folder), named from the folder above.
  const auto r = archive_tool("restore v2/", "results/h200");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(read_file(repo_ / "results/h200/v2/only file.csv.xz"), "one\n");
  EXPECT_FALSE(fs::exists(repo_ / "results/h200/v1/suite.db.xz")) << r.output;
  const auto none = archive_tool("restore results/h200/v3");
  EXPECT_EQ(none.exit_code, 1);
  EXPECT_NE(none.output.find("nothing in results/archived.tsv under results/h200/v3"), std::string::npos)
      << none.output;
}

TEST_F(ResultsArchive, AFolderIsRefusedAndTheIndexLeftAlone) {
  // v2 holds one tracked file: the folder is still no file.
  const auto r = archive_tool("archive results/h200/v2");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.output.find("is not one tracked file"), std::string::npos) << r.output;
  EXPECT_TRUE(fs::exists(repo_ / "results/h200/v2/only file.csv.xz"));
  EXPECT_EQ(read_file(repo_ / "results/archived.tsv"), "path\tbytes\tsha256\tcommit\n");
}

TEST_F(ResultsArchive, UncommittedOrUntrackedFilesAreRefused) {
  std::ofstream(repo_ / "results/h200/v1/NOTES.md", std::ios::app) << "more\n";
  const auto changed = archive_tool("archive results/h200/v1/NOTES.md");
  EXPECT_EQ(changed.exit_code, 1);
  EXPECT_NE(changed.output.find("differs from HEAD"), std::string::npos) << changed.output;
  std::ofstream(repo_ / "results/new.db.xz") << "x";
  const auto untracked = archive_tool("archive results/new.db.xz");
  EXPECT_EQ(untracked.exit_code, 1);
  EXPECT_NE(untracked.output.find("is not one tracked file"), std::string::npos) << untracked.output;
  EXPECT_TRUE(fs::exists(repo_ / "results/h200/v1/NOTES.md"));
}

TEST_F(ResultsArchive, ARestoreThatDoesNotMatchItsChecksumWritesNothing) {
  ASSERT_EQ(archive_tool("archive results/h200/v1/suite.db.xz").exit_code, 0);
  ASSERT_EQ(git("commit -qm archive").exit_code, 0);
  // The index's sha256 no longer matches what its commit holds.
  ASSERT_EQ(run_command(fmt::format("cd {} && sed -i 's/\\t[0-9a-f]\\{{64\\}}\\t/\\t{}\\t/' results/archived.tsv",
                                    repo_.string(), std::string(64, '0')))
                .exit_code,
            0);
  const auto r = archive_tool("restore");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("does not match its sha256"), std::string::npos) << r.output;
  EXPECT_FALSE(fs::exists(repo_ / "results/h200/v1/suite.db.xz"));
  EXPECT_FALSE(fs::exists(repo_ / "results/h200/v1/suite.db.xz.restoring"));
}

TEST_F(ResultsArchive, UsageErrorsSayWhatIsWrong) {
  EXPECT_EQ(archive_tool("archive").exit_code, 2);
  const auto none = archive_tool("restore");
  EXPECT_EQ(none.exit_code, 2);
  EXPECT_NE(none.output.find("nothing is archived"), std::string::npos) << none.output;
  const auto unknown = archive_tool("frobnicate");
  EXPECT_EQ(unknown.exit_code, 2);
  EXPECT_NE(unknown.output.find("unknown command frobnicate"), std::string::npos) << unknown.output;
  const auto help = archive_tool("--help");
  EXPECT_EQ(help.exit_code, 0);
  EXPECT_NE(help.output.find("Usage: tools/results_archive.sh archive FILE"), std::string::npos) << help.output;
  EXPECT_EQ(help.output.find("set -uo"), std::string::npos) << help.output;
}

}  // namespace
}  // namespace mpgemm::testing
