// mpgemm-query --sql (issue 48, item 10): the rows printed as they come, byte for byte what report::print prints
// for the whole answer; a table too large to align refused before anything is printed; through the executable, a
// default time limit that --timeout changes, and an endless answer that streams.
#include <gtest/gtest.h>

#include <chrono>
#include <sstream>

#include <fmt/format.h>

#include "cli/sql_rows.hpp"
#include "common/error.hpp"
#include "store/store.hpp"
#include "support/run_command.hpp"

using namespace mpgemm;
using namespace mpgemm::testing;

namespace {

// Rows of every cell kind, text that needs quoting included; the column name repeats (JSON keys get suffixes).
report::Table sample(std::size_t rows) {
  report::Table t{{"i", "x", "text", "i"}, {}};
  for (std::size_t r = 0; r < rows; ++r)
    t.rows.push_back({std::int64_t(r), 0.1 * double(r),
                      r % 3 == 0 ? report::Cell{} : report::Cell{fmt::format("a, \"b\"\nline {}", r)},
                      std::int64_t(-1)});
  return t;
}

std::string streamed(const report::Table& t, report::Format format, std::size_t block) {
  std::ostringstream out;
  cli::SqlRowPrinter printer(format, out, block);
  printer.columns(t.columns);
  for (auto row : t.rows) printer.row(std::move(row));
  printer.finish();
  return out.str();
}

}  // namespace

TEST(CliSqlRows, StreamedOutputIsWhatTheWholeTablePrints) {
  for (auto format : {report::Format::csv, report::Format::json, report::Format::table, report::Format::markdown})
    for (std::size_t rows : {0, 1, 2, 6, 7, 8, 20})
      for (std::size_t block : {1, 7, 1000}) {
        SCOPED_TRACE(fmt::format("{} rows {} block {}", report::to_string(format), rows, block));
        EXPECT_EQ(streamed(sample(rows), format, block), report::render(sample(rows), format));
      }
}

// CSV and JSON are written a block at a time, before the query has finished.
TEST(CliSqlRows, CsvAndJsonAreWrittenAsTheRowsCome) {
  for (auto format : {report::Format::csv, report::Format::json}) {
    std::ostringstream out;
    cli::SqlRowPrinter printer(format, out, 3);
    printer.columns({"i"});
    for (std::int64_t i = 0; i < 3; ++i) printer.row({i});
    EXPECT_FALSE(out.str().empty()) << report::to_string(format);
  }
}

TEST(CliSqlRows, ATableTooLargeToAlignIsRefusedBeforeAnythingIsPrinted) {
  std::ostringstream out;
  cli::SqlRowPrinter printer(report::Format::table, out);
  printer.columns({"i"});
  std::string error;
  try {
    for (std::int64_t i = 0; i <= static_cast<std::int64_t>(cli::kMaxAlignedRows); ++i) printer.row({i});
  } catch (const Error& e) {
    error = e.what();
  }
  EXPECT_EQ(error,
            "the answer has more than 100000 rows or 64 MiB of text, too much to align as a table: use --format csv "
            "or --format json, which print the rows as they come, or add a LIMIT");
  EXPECT_EQ(out.str(), "");
}

namespace {
constexpr const char* kEndless = "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n) SELECT i FROM n";
}

TEST(CliSqlRows, AnEndlessQueryStopsAtTheTimeLimitWithOneLine) {
  const auto dir = fresh_dir("cli_sql_timeout");
  const auto db = dir / "r.db";
  { Store s = Store::open(db, Store::Mode::read_write); }
  const auto start = std::chrono::steady_clock::now();
  const auto r = run_command(fmt::format("{{ {} {} --sql \"{}\" --timeout 0.3 --format csv > {}; }}",
                                         bin("mpgemm-query"), db.string(), kEndless, (dir / "out.csv").string()));
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(30));
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_EQ(r.output, fmt::format("mpgemm-query: error: {}: query stopped: it ran past its time limit of 0.3 s "
                                  "(--timeout SECONDS changes it; 0: no limit)\n",
                                  db.string()));
  EXPECT_TRUE(read_file(dir / "out.csv").starts_with("i\n1\n2\n3\n"));  // what came before was printed
  // The default limit is in --help; the option is checked.
  EXPECT_NE(run_command(bin("mpgemm-query") + " --help").output.find("--timeout SECONDS"), std::string::npos);
  const auto bad = run_command(fmt::format("{} {} --sql 'SELECT 1' --timeout nan", bin("mpgemm-query"), db.string()));
  EXPECT_EQ(bad.exit_code, 2) << bad.output;
  const auto alone = run_command(fmt::format("{} {} runs --timeout 3", bin("mpgemm-query"), db.string()));
  EXPECT_EQ(alone.exit_code, 2) << alone.output;
  EXPECT_NE(alone.output.find("--timeout goes with --sql"), std::string::npos) << alone.output;
  std::filesystem::remove_all(dir);
}

// Buffered, an endless answer printed nothing and grew until bad_alloc; streamed, its first rows reach a reader
// at once, and the query ends when the reader goes away.
TEST(CliSqlRows, AnEndlessAnswerStreamsToAReaderThatStops) {
  const auto dir = fresh_dir("cli_sql_stream");
  const auto db = dir / "r.db";
  { Store s = Store::open(db, Store::Mode::read_write); }
  const auto start = std::chrono::steady_clock::now();
  const auto r =
      run_command(fmt::format("{} {} --sql \"{}\" --format csv | head -4", bin("mpgemm-query"), db.string(), kEndless));
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(20));
  EXPECT_TRUE(r.output.starts_with("i\n1\n2\n3\n")) << r.output.substr(0, 200);
  std::filesystem::remove_all(dir);
}
