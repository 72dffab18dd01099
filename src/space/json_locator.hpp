#pragma once
// Where each value of a JSON text starts, keyed by its JSON pointer ("/parameters/BM/values/2").
// nlohmann::json keeps no source positions, so the space loader scans the text a second time with this (after
// nlohmann accepted it) to put file:line:column on every semantic error.
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace mpgemm {

// A place in a text. Both 1-based; a column counts characters (UTF-8 code points), not bytes.
struct TextPosition {
  int line = 1;
  int column = 1;
  friend bool operator==(const TextPosition&, const TextPosition&) = default;
};

// Where one JSON value sits in the text.
struct JsonLocation {
  TextPosition value;               // first character of the value ('{', '[', '"', digit, '-', t/f/n)
  std::size_t value_offset = 0;     // the same place as a byte offset into the text
  std::optional<TextPosition> key;  // the opening quote of the member's key; absent for array elements and root
};

// A key that appears twice in one object. nlohmann keeps only one of them, so the loader reports it.
struct DuplicateKey {
  std::string json_path;  // pointer of the member (the second occurrence)
  TextPosition first;     // key of the first occurrence
  TextPosition second;    // key of the second occurrence
};

// The byte at `offset` of `text` as a line and column; an offset past the end gives the position after the last
// character (where a truncated file ends). A UTF-8 byte order mark at the start takes no column.
TextPosition position_at_offset(std::string_view text, std::size_t offset);

// Escapes one reference token of a JSON pointer (RFC 6901): '~' -> "~0", '/' -> "~1".
std::string json_pointer_token(std::string_view key);

class JsonLocator {
 public:
  // Values nested deeper than this are not indexed; space files are about four levels deep.
  static constexpr std::size_t kMaxDepth = 64;

  JsonLocator() = default;

  // Scans a text that nlohmann::json has already parsed without error. Throws mpgemm::Error if the text is not
  // valid JSON after all (a bug: the two parsers disagree).
  static JsonLocator scan(std::string_view text);

  // The location of the value at `json_path` ("" is the root), or null if there is no such value.
  const JsonLocation* find(std::string_view json_path) const;

  // The value at `json_path`, or else at its nearest ancestor that exists; null only for an empty locator.
  // `found_path` receives the path actually found.
  const JsonLocation* find_nearest(std::string_view json_path, std::string* found_path = nullptr) const;

  const std::vector<DuplicateKey>& duplicate_keys() const { return duplicates_; }
  const std::unordered_map<std::string, JsonLocation>& entries() const { return index_; }

 private:
  friend class JsonScanner;
  std::unordered_map<std::string, JsonLocation> index_;
  std::vector<DuplicateKey> duplicates_;  // in text order
};

}  // namespace mpgemm
