// A user's --sql query within limits (issue 48, item 10): rows are handed on as SQLite produces them, a query
// stops once SQLite has worked on it for its time limit, and fts3_tokenizer() is refused like the other functions
// that reach the program's memory.
#include <algorithm>
#include <chrono>
#include <filesystem>
#include <string>
#include <thread>

#include <gtest/gtest.h>

#include "common/error.hpp"
#include "store/store.hpp"
#include "support/store_fixture.hpp"

namespace mpgemm {
namespace {

using namespace std::chrono_literals;

// An endless recursive CTE: SQLite never stops producing rows.
constexpr const char* kEndless = "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n) SELECT i FROM n";
// One that works for ever before its first row.
constexpr const char* kEndlessCount =
    "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n) SELECT count(*) FROM n";

class StoreQueryLimits : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = testing::per_test_dir();
    { Store created = Store::open(dir_ / "results.db", Store::Mode::read_write); }
  }
  void TearDown() override {
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }
  Store reader() const { return Store::open(dir_ / "results.db", Store::Mode::read_only); }

  std::string refusal(std::string_view sql) const {
    try {
      reader().query_sql(sql);
    } catch (const Error& e) {
      return e.what();
    }
    return "";
  }

  std::filesystem::path dir_;
};

struct Stop {};  // thrown by a row callback to end a query early

TEST_F(StoreQueryLimits, RowsArriveAsTheyAreProduced) {
  // An endless answer: buffered, it would never come back (10^8 rows took bad_alloc).
  const Store store = reader();
  std::vector<std::string> columns;
  std::vector<std::int64_t> seen;
  EXPECT_THROW(store.query_sql_rows(
                   kEndless, [&](const std::vector<std::string>& names) { columns = names; },
                   [&](std::vector<report::Cell>&& row) {
                     seen.push_back(std::get<std::int64_t>(row.at(0)));
                     if (seen.size() == 5) throw Stop{};
                   }),
               Stop);
  EXPECT_EQ(columns, std::vector<std::string>{"i"});
  EXPECT_EQ(seen, (std::vector<std::int64_t>{1, 2, 3, 4, 5}));
  // The connection is usable afterwards: the statement was finalized.
  EXPECT_EQ(store.query_sql("SELECT 7 AS x").rows.size(), 1u);
}

TEST_F(StoreQueryLimits, AQueryStopsAtItsTimeLimit) {
  const Store store = reader();
  for (const char* sql : {kEndless, kEndlessCount}) {
    SCOPED_TRACE(sql);
    const auto start = std::chrono::steady_clock::now();
    std::size_t rows = 0;
    try {
      store.query_sql_rows(
          sql, [](const std::vector<std::string>&) {}, [&](std::vector<report::Cell>&&) { ++rows; }, 200ms);
      ADD_FAILURE() << "an endless query ended";
    } catch (const QueryTimeLimit& e) {
      EXPECT_EQ(e.limit(), 200ms);
      EXPECT_STREQ(e.what(), "query stopped: it ran past its time limit of 0.2 s");
    }
    const auto took = std::chrono::steady_clock::now() - start;
    EXPECT_GE(took, 200ms);
    EXPECT_LT(took, 5s);
  }
  EXPECT_EQ(store.query_sql("SELECT 1").rows.size(), 1u);
}

// The limit counts SQLite's own time: a slow reader of the rows (a pager) is not stopped by it.
TEST_F(StoreQueryLimits, TimeSpentOnTheRowsIsNotTheQuerys) {
  const Store store = reader();
  std::size_t rows = 0;
  store.query_sql_rows(
      "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 4) SELECT i FROM n",
      [](const std::vector<std::string>&) {},
      [&](std::vector<report::Cell>&&) {
        ++rows;
        std::this_thread::sleep_for(60ms);
      },
      100ms);
  EXPECT_EQ(rows, 4u);  // 240 ms spent on the rows, a few microseconds in SQLite
}

TEST_F(StoreQueryLimits, FunctionsThatReachTheProgramsMemoryAreRefused) {
  // With one argument fts3_tokenizer returns the address of a tokenizer's C code; with two (this SQLite is built
  // with ENABLE_FTS3_TOKENIZER) it installs one from an address.
  for (const char* sql :
       {"SELECT fts3_tokenizer('simple')", "SELECT FTS3_Tokenizer('simple')",
        "SELECT fts3_tokenizer('mine', x'0000000000000000')", "SELECT hex(fts3_tokenizer('porter')) FROM runs"})
    EXPECT_TRUE(refusal(sql).starts_with("query refused: ")) << sql << " -> '" << refusal(sql) << "'";
  EXPECT_EQ(refusal("SELECT fts3_tokenizer('simple')"),
            "query refused: fts3_tokenizer() is not allowed (it reaches the program's memory or loads code)");
  EXPECT_EQ(refusal("SELECT load_extension('/tmp/x.so')"),
            "query refused: load_extension() is not allowed (it reaches the program's memory or loads code)");
  // Other functions still run.
  EXPECT_EQ(refusal("SELECT upper('a'), json_array(1, 2), abs(-3), count(*) FROM runs"), "");
}

// A value or a row too large to hold is refused, not grown until the allocation fails (two 1 GB values once grew
// mpgemm-query to 5.8 GB and ended in std::bad_alloc). Values and rows under the bounds still arrive.
TEST_F(StoreQueryLimits, AnEnormousValueOrRowIsRefusedInOneLine) {
  EXPECT_EQ(refusal("SELECT 1 AS a UNION ALL SELECT zeroblob(100000000)"),
            "query stopped: a value of row 2 is larger than 64 MiB");
  EXPECT_EQ(refusal("SELECT hex(zeroblob(40000000)) AS a"), "query stopped: a value of row 1 is larger than 64 MiB");
  EXPECT_EQ(refusal("SELECT hex(zeroblob(20000000)) AS a, hex(zeroblob(20000000)) AS b"),
            "query stopped: row 1 holds 80000000 bytes of text, more than 64 MiB");
  const auto t = reader().query_sql("SELECT hex(zeroblob(500000)) AS a, zeroblob(30000000) AS b");
  ASSERT_EQ(t.rows.size(), 1u);
  EXPECT_EQ(std::get<std::string>(t.rows[0][0]).size(), 1000000u);
  EXPECT_EQ(t.rows[0][1], report::Cell(std::string("<30000000 bytes>")));
}

}  // namespace
}  // namespace mpgemm
