// The JSON position index: every value's pointer and line:column, keys, escapes, duplicates, byte offsets.
#include <gtest/gtest.h>

#include <string>

#include "common/error.hpp"
#include "space/json_locator.hpp"

namespace mpgemm {
namespace {

// Line 1 is "{", members start at column 3 of the following lines.
const std::string kText =
    "{\n"
    "  \"a\": [10, \"x\", {\"b\": null}],\n"
    "  \"c/d\": {\"e~f\": true, \"\\u0041\": -1.5e3},\n"
    "  \"\xC3\xA9t\xC3\xA9\": \"caf\xC3\xA9\", \"n\": []\n"
    "}\n";

TEST(SpaceLocator, IndexesEveryValueWithItsPointer) {
  JsonLocator loc = JsonLocator::scan(kText);
  EXPECT_EQ(loc.entries().size(), 11u);
  ASSERT_NE(loc.find(""), nullptr);
  EXPECT_EQ(loc.find("")->value, (TextPosition{1, 1}));
  EXPECT_FALSE(loc.find("")->key.has_value());

  ASSERT_NE(loc.find("/a"), nullptr);
  EXPECT_EQ(loc.find("/a")->value, (TextPosition{2, 8}));
  EXPECT_EQ(loc.find("/a")->key, (TextPosition{2, 3}));
  EXPECT_EQ(loc.find("/a")->value_offset, 9u);
  EXPECT_EQ(loc.find("/a/0")->value, (TextPosition{2, 9}));
  EXPECT_FALSE(loc.find("/a/0")->key.has_value());
  EXPECT_EQ(loc.find("/a/1")->value, (TextPosition{2, 13}));
  EXPECT_EQ(loc.find("/a/2")->value, (TextPosition{2, 18}));
  EXPECT_EQ(loc.find("/a/2/b")->value, (TextPosition{2, 24}));
  EXPECT_EQ(loc.find("/a/2/b")->key, (TextPosition{2, 19}));
  EXPECT_EQ(loc.find("/a/3"), nullptr);
}

TEST(SpaceLocator, EscapesKeysAsJsonPointerTokens) {
  JsonLocator loc = JsonLocator::scan(kText);
  ASSERT_NE(loc.find("/c~1d"), nullptr);  // '/' -> ~1
  EXPECT_EQ(loc.find("/c~1d")->value, (TextPosition{3, 10}));
  ASSERT_NE(loc.find("/c~1d/e~0f"), nullptr);  // '~' -> ~0
  EXPECT_EQ(loc.find("/c~1d/e~0f")->value, (TextPosition{3, 18}));
  ASSERT_NE(loc.find("/c~1d/A"), nullptr);  // "\u0041" is the key "A"
  EXPECT_EQ(loc.find("/c~1d/A")->key, (TextPosition{3, 24}));
  EXPECT_EQ(loc.find("/c~1d/A")->value, (TextPosition{3, 34}));
  EXPECT_EQ(json_pointer_token("a/b~c"), "a~1b~0c");
}

TEST(SpaceLocator, ColumnsCountCharactersNotBytes) {
  JsonLocator loc = JsonLocator::scan(kText);
  ASSERT_NE(loc.find("/\xC3\xA9t\xC3\xA9"), nullptr);
  EXPECT_EQ(loc.find("/\xC3\xA9t\xC3\xA9")->key, (TextPosition{4, 3}));
  EXPECT_EQ(loc.find("/\xC3\xA9t\xC3\xA9")->value, (TextPosition{4, 10}));
  EXPECT_EQ(loc.find("/n")->value, (TextPosition{4, 23}));  // after "café", whose é is two bytes
}

TEST(SpaceLocator, FindsTheNearestExistingAncestor) {
  JsonLocator loc = JsonLocator::scan(kText);
  std::string found;
  const JsonLocation* l = loc.find_nearest("/a/2/zz/0", &found);
  ASSERT_NE(l, nullptr);
  EXPECT_EQ(found, "/a/2");
  EXPECT_EQ(l->value, (TextPosition{2, 18}));
  EXPECT_EQ(loc.find_nearest("/nothing", &found)->value, (TextPosition{1, 1}));
  EXPECT_EQ(found, "");
  EXPECT_EQ(JsonLocator().find_nearest("/a"), nullptr);
}

TEST(SpaceLocator, ReportsDuplicateKeys) {
  JsonLocator loc = JsonLocator::scan("{\"p\": {\"x\": 1,\n \"y\": 2,\n \"x\": 3}}");
  ASSERT_EQ(loc.duplicate_keys().size(), 1u);
  const DuplicateKey& d = loc.duplicate_keys()[0];
  EXPECT_EQ(d.json_path, "/p/x");
  EXPECT_EQ(d.first, (TextPosition{1, 8}));
  EXPECT_EQ(d.second, (TextPosition{3, 2}));
  EXPECT_TRUE(JsonLocator::scan("[{\"x\": 1}, {\"x\": 2}]").duplicate_keys().empty());  // other objects
}

TEST(SpaceLocator, ConvertsByteOffsets) {
  std::string text = "ab\ncd\n\xC3\xA9x";
  EXPECT_EQ(position_at_offset(text, 0), (TextPosition{1, 1}));
  EXPECT_EQ(position_at_offset(text, 2), (TextPosition{1, 3}));  // the newline itself ends line 1
  EXPECT_EQ(position_at_offset(text, 3), (TextPosition{2, 1}));
  EXPECT_EQ(position_at_offset(text, 8), (TextPosition{3, 2}));  // 'x' after the two-byte é
  EXPECT_EQ(position_at_offset(text, 9), (TextPosition{3, 3}));  // end of text
  EXPECT_EQ(position_at_offset(text, 999), (TextPosition{3, 3}));
  EXPECT_EQ(position_at_offset("\xEF\xBB\xBF{}", 4), (TextPosition{1, 2}));  // a BOM takes no column
}

TEST(SpaceLocator, ScansDeepNestingInLinearTimeWithoutRecursion) {
  std::string deep = std::string(100000, '[') + "1" + std::string(100000, ']');
  JsonLocator loc = JsonLocator::scan(deep);
  EXPECT_EQ(loc.entries().size(), JsonLocator::kMaxDepth + 1);  // the root and the indexed levels below it
  std::string path;
  for (int i = 0; i < 3; ++i) path += "/0";
  EXPECT_EQ(loc.find(path)->value, (TextPosition{1, 4}));
}

TEST(SpaceLocator, InvalidTextIsAnError) {
  EXPECT_THROW(JsonLocator::scan("{\"a\" 1}"), Error);
  EXPECT_THROW(JsonLocator::scan("[1, 2"), Error);
  EXPECT_THROW(JsonLocator::scan("[1] 2"), Error);
}

}  // namespace
}  // namespace mpgemm
