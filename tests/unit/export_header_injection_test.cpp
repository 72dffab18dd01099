// mpgemm-export --format cpp writes stored strings into code and comments: a database from elsewhere must not
// be able to put a line of its own into the header (issue 57, item 1). A device name holding a newline and
// "#error X" is escaped in the string literal and in the comment, so no line of the header starts with it; the
// database's file name reaches the first comment the same way; a NUL, which no C string can carry, is refused in
// one line. No GPU, no nvcc (tests/nvrtc/export_cpp_compile_test.cpp compiles such a header).
#include <filesystem>
#include <sstream>
#include <string>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "export/export_collect.hpp"
#include "export/export_cpp.hpp"
#include "support/export_fixture.hpp"
#include "support/old_database.hpp"
#include "support/run_command.hpp"
#include "support/store_fixture.hpp"

namespace mpgemm {
namespace {

namespace fs = std::filesystem;

// Every table that names the device, so the winners still join up under the new name.
constexpr const char* kTables[] = {"runs", "measurements", "cublas_timings", "cublaslt_timings", "reranks"};

// Renames the H200 of the export fixture to `sql_name` (an SQL expression) in every table.
void rename_h200(const fs::path& db, const std::string& sql_name) {
  std::string sql;
  for (const char* table : kTables)
    sql += fmt::format("UPDATE {} SET device_name = {} WHERE device_name = 'NVIDIA H200';", table, sql_name);
  testing::raw_exec(db, sql);
}

// The lines of `text` that a preprocessor would read as a directive the exporter did not write.
std::string planted_lines(const std::string& text) {
  std::istringstream in(text);
  std::string out;
  for (std::string line; std::getline(in, line);)
    if (line.find("#error") != std::string::npos && line.find_first_not_of(" \t") == line.find("#error"))
      out += line + "\n";
  return out;
}

// Single-quoted for the shell that runs the tool: a newline inside quotes is part of the word.
std::string quoted(const fs::path& p) {
  return "'" + p.string() + "'";
}

class ExportHeaderInjection : public testing::ExportDbTest {
 protected:
  testing::CommandResult export_cpp(const fs::path& db, const fs::path& out) {
    return testing::run_command(
        fmt::format("{} {} --format cpp -o {}", testing::bin("mpgemm-export"), quoted(db), quoted(out)));
  }
};

TEST_F(ExportHeaderInjection, ADeviceNameWithANewlineIsEscapedInLiteralsAndComments) {
  rename_h200(db_, "'NVIDIA H200' || char(10) || '#error X'");
  const fs::path header = dir_ / "winners.hpp";
  const auto r = export_cpp(db_, header);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const std::string text = testing::read_file(header);
  EXPECT_EQ(planted_lines(text), "");
  EXPECT_NE(text.find("{\"NVIDIA H200\\012#error X\", \"sm_90\""), std::string::npos) << text;  // the literal
  EXPECT_NE(text.find("    // NVIDIA H200\\x0a#error X 4096x4096x4096: "), std::string::npos) << text;
}

TEST_F(ExportHeaderInjection, QuotesBackslashesAndControlBytesCannotEndALiteralOrSpliceAComment) {
  // A quote and a backslash would end the literal; a backslash last on a comment line splices the next line in.
  rename_h200(db_, "'H200 \"x\\' || char(13) || char(27) || '[2J\\'");
  const fs::path header = dir_ / "winners.hpp";
  const auto r = export_cpp(db_, header);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const std::string text = testing::read_file(header);
  EXPECT_NE(text.find(R"({"H200 \"x\\\015\033[2J\\", )"), std::string::npos) << text;
  EXPECT_NE(text.find(R"(    // H200 "x\x5c\x0d\x1b[2J\x5c 4096x4096x4096: )"), std::string::npos) << text;
  EXPECT_EQ(text.find('\r'), std::string::npos);
  EXPECT_EQ(text.find('\x1b'), std::string::npos);
}

TEST_F(ExportHeaderInjection, TheDatabasesFileNameReachesTheFirstCommentEscaped) {
  const fs::path db = dir_ / "a\n#error Y\\";
  fs::rename(db_, db);
  const fs::path header = dir_ / "winners.hpp";
  const auto r = export_cpp(db, header);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const std::string text = testing::read_file(header);
  EXPECT_EQ(planted_lines(text), "");
  const std::string first = text.substr(0, text.find('\n'));
  EXPECT_NE(first.find(fmt::format("from {}/a\\x0a#error Y\\x5c; do not edit.", dir_.string())), std::string::npos)
      << first;
}

TEST_F(ExportHeaderInjection, ANulInADeviceNameIsRefusedInOneLine) {
  ExportTable table = collect_export(Store::open(db_, Store::Mode::read_only), ExportOptions{db_, std::nullopt});
  table.entries.front().device = std::string("NVIDIA H200\0x", 13);
  try {
    export_cpp_header(table);
    ADD_FAILURE() << "a NUL was exported";
  } catch (const ExportError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("holds a NUL byte"), std::string::npos) << what;
    EXPECT_EQ(what.find('\n'), std::string::npos) << what;
    EXPECT_EQ(what.find('\0'), std::string::npos);
  }
}

// The messages that quote stored device names stay one line.
TEST_F(ExportHeaderInjection, AMessageQuotingDeviceNamesStaysOneLine) {
  rename_h200(db_, "'NVIDIA H200' || char(10) || '#error X'");
  const auto r =
      testing::run_command(fmt::format("{} {} --device nothing --format cpp -o {}", testing::bin("mpgemm-export"),
                                       quoted(db_), quoted(dir_ / "winners.hpp")));
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_EQ(r.output.find('\n'), r.output.size() - 1) << r.output;
  EXPECT_NE(r.output.find("NVIDIA H200\\n#error X"), std::string::npos) << r.output;
}

}  // namespace
}  // namespace mpgemm
