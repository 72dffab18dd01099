// The README documents the schema for sqlite3 users; this keeps that text equal to the schema in the code.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "store/schema.hpp"

TEST(ReadmeSchema, MatchesSchemaSql) {
  std::ifstream in(std::string(MPGEMM_SOURCE_DIR) + "/README.md");
  ASSERT_TRUE(in.good());
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string readme = ss.str();
  const std::string begin = "<!-- schema:begin -->\n```sql\n", end = "```\n<!-- schema:end -->";
  auto b = readme.find(begin);
  auto e = readme.find(end);
  ASSERT_NE(b, std::string::npos);
  ASSERT_NE(e, std::string::npos);
  EXPECT_EQ(readme.substr(b + begin.size(), e - b - begin.size()), mpgemm::schema_sql())
      << "README.md's schema block is stale: regenerate it with build/bin/mpgemm-query --schema";
}
