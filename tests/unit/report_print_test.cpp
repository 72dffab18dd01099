#include <limits>
#include <sstream>

#include <gtest/gtest.h>

#include "common/error.hpp"
#include "report/table.hpp"

namespace mpgemm::report {
namespace {

// Text, integers, doubles (a time column and a plain one), and nulls; one text needs quoting everywhere.
Table sample() {
  Table t;
  t.columns = {"id", "name", "median_ms", "tflops"};
  t.rows.push_back({std::int64_t{1}, std::string("wmma_bm128"), 0.123456, 312.456789});
  t.rows.push_back({std::int64_t{12}, std::string("a|b, \"c\""), 10.5, std::monostate{}});
  t.rows.push_back({std::int64_t{-3}, std::monostate{}, std::monostate{}, 0.5});
  return t;
}

TEST(ReportFormat, NamesRoundTrip) {
  for (Format f : {Format::table, Format::csv, Format::json, Format::markdown})
    EXPECT_EQ(format_from_string(to_string(f)), f);
  EXPECT_EQ(format_from_string("md"), Format::markdown);
  EXPECT_EQ(format_from_string("xml"), std::nullopt);
  EXPECT_EQ(format_from_string("CSV"), std::nullopt);
}

TEST(ReportPrint, Table) {
  EXPECT_EQ(render(sample(), Format::table),
            "id  name        median_ms  tflops\n"
            "--  ----------  ---------  ------\n"
            " 1  wmma_bm128     0.1235   312.5\n"
            "12  a|b, \"c\"      10.5000       -\n"
            "-3  -                   -     0.5\n");
}

TEST(ReportPrint, TableTextLastColumnUnpaddedAndOneLine) {
  Table t{{"n", "log"}, {{std::int64_t{1}, std::string("line one\nline two")}, {std::int64_t{2}, std::string("x")}}};
  EXPECT_EQ(render(t, Format::table),
            "n  log\n"
            "-  -----------------\n"
            "1  line one line two\n"
            "2  x\n");
}

TEST(ReportPrint, TableCountsCharactersNotBytes) {
  Table t{{"name", "n"}, {{std::string("µs"), std::int64_t{1}}, {std::string("abc"), std::int64_t{22}}}};
  EXPECT_EQ(render(t, Format::table),
            "name   n\n"
            "----  --\n"
            "µs     1\n"
            "abc   22\n");
}

TEST(ReportPrint, Csv) {
  EXPECT_EQ(render(sample(), Format::csv),
            "id,name,median_ms,tflops\n"
            "1,wmma_bm128,0.123456,312.456789\n"
            "12,\"a|b, \"\"c\"\"\",10.5,\n"
            "-3,,,0.5\n");
}

TEST(ReportPrint, CsvQuotesLineBreaksAndHeaders) {
  Table t{{"a,b", "log"}, {{std::int64_t{1}, std::string("x\ny")}}};
  EXPECT_EQ(render(t, Format::csv), "\"a,b\",log\n1,\"x\ny\"\n");
}

TEST(ReportPrint, Json) {
  EXPECT_EQ(render(sample(), Format::json),
            R"([
  {
    "id": 1,
    "name": "wmma_bm128",
    "median_ms": 0.123456,
    "tflops": 312.456789
  },
  {
    "id": 12,
    "name": "a|b, \"c\"",
    "median_ms": 10.5,
    "tflops": null
  },
  {
    "id": -3,
    "name": null,
    "median_ms": null,
    "tflops": 0.5
  }
]
)");
}

TEST(ReportPrint, JsonEmptyDuplicateKeysAndNonFinite) {
  EXPECT_EQ(render(Table{{"a"}, {}}, Format::json), "[]\n");
  Table t{{"x", "x"}, {{std::numeric_limits<double>::quiet_NaN(), std::int64_t{2}}}};
  EXPECT_EQ(render(t, Format::json), "[\n  {\n    \"x\": null,\n    \"x_2\": 2\n  }\n]\n");
}

TEST(ReportPrint, Markdown) {
  EXPECT_EQ(render(sample(), Format::markdown),
            "|  id | name       | median_ms | tflops |\n"
            "| --: | ---------- | --------: | -----: |\n"
            "|   1 | wmma_bm128 |    0.1235 |  312.5 |\n"
            "|  12 | a\\|b, \"c\"  |   10.5000 |      - |\n"
            "|  -3 | -          |         - |    0.5 |\n");
}

TEST(ReportPrint, EmptyTableHasHeaderOnly) {
  Table t{{"id", "name"}, {}};
  EXPECT_EQ(render(t, Format::table), "id  name\n--  ----\n");
  EXPECT_EQ(render(t, Format::csv), "id,name\n");
  EXPECT_EQ(render(t, Format::markdown), "| id  | name |\n| --- | ---- |\n");
}

TEST(ReportPrint, RaggedRowIsAnError) {
  Table t{{"a", "b"}, {{std::int64_t{1}}}};
  std::ostringstream out;
  EXPECT_THROW(print(t, Format::csv, out), Error);
  EXPECT_TRUE(out.str().empty());
}

}  // namespace
}  // namespace mpgemm::report
