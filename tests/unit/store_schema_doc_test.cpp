// docs/schema.md documents the schema for sqlite3 users; this keeps its SQL block equal to the schema in the code.
// tools/gen_schema_doc.py regenerates the block from `mpgemm-query --schema`.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "store/schema.hpp"

TEST(SchemaDoc, MatchesSchemaSql) {
  const std::string path = std::string(MPGEMM_SOURCE_DIR) + "/docs/schema.md";
  std::ifstream in(path);
  ASSERT_TRUE(in.good()) << path << " cannot be read";
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string page = ss.str();
  const std::string begin = "<!-- schema:begin -->\n```sql\n", end = "```\n<!-- schema:end -->";
  auto b = page.find(begin);
  auto e = page.find(end);
  ASSERT_NE(b, std::string::npos) << path << " has no '<!-- schema:begin -->' marker followed by ```sql";
  ASSERT_NE(e, std::string::npos) << path << " has no ``` followed by '<!-- schema:end -->'";
  ASSERT_LT(b, e) << path << ": the schema markers are out of order";
  EXPECT_EQ(page.substr(b + begin.size(), e - b - begin.size()), mpgemm::schema_sql())
      << "docs/schema.md's schema block is stale: regenerate it with tools/gen_schema_doc.py";
}
