#include "space/json_locator.hpp"

#include <algorithm>
#include <cstdint>

#include <fmt/format.h>

#include "common/error.hpp"

namespace mpgemm {

namespace {

bool has_bom(std::string_view text) {
  return text.starts_with("\xEF\xBB\xBF");
}

bool is_continuation_byte(char c) {
  return (static_cast<unsigned char>(c) & 0xC0u) == 0x80u;
}

void append_utf8(std::string& out, std::uint32_t cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

}  // namespace

TextPosition position_at_offset(std::string_view text, std::size_t offset) {
  offset = std::min(offset, text.size());
  std::size_t line_start = has_bom(text) ? 3 : 0;
  int line = 1;
  for (std::size_t i = line_start; i < offset; ++i) {
    if (text[i] == '\n') {
      ++line;
      line_start = i + 1;
    }
  }
  int column = 1;
  for (std::size_t i = line_start; i < offset; ++i)
    if (!is_continuation_byte(text[i])) ++column;
  return {line, column};
}

std::string json_pointer_token(std::string_view key) {
  std::string out;
  out.reserve(key.size());
  for (char c : key) {
    if (c == '~') {
      out += "~0";
    } else if (c == '/') {
      out += "~1";
    } else {
      out += c;
    }
  }
  return out;
}

// An iterative scanner (an explicit stack rather than recursion, so deep nesting that nlohmann accepted cannot
// overflow the call stack here).
class JsonScanner {
 public:
  explicit JsonScanner(std::string_view text) : text_(text), pos_(has_bom(text) ? 3 : 0), cursor_offset_(pos_) {}

  JsonLocator run() {
    std::string path;                 // pointer of the value about to be read
    std::optional<TextPosition> key;  // its key, when it is an object member
    while (true) {
      skip_ws();
      record(path, key);
      bool value_done = true;
      char c = peek();
      if (c == '{' || c == '[') {
        ++pos_;
        skip_ws();
        char close = c == '{' ? '}' : ']';
        if (peek() == close) {
          ++pos_;
        } else {
          stack_.push_back(Frame{c == '{', path, 0, {}});
          value_done = false;
          if (c == '[') {
            if (indexed()) path += "/0";
            key.reset();
          } else {
            read_key(path, key);
          }
        }
      } else if (c == '"') {
        read_string();
      } else {
        skip_scalar();
      }
      if (!value_done) continue;
      // After a complete value: close the containers it ends, then find the next value to read.
      bool next_found = false;
      while (!stack_.empty() && !next_found) {
        skip_ws();
        Frame& top = stack_.back();
        char sep = next();
        if (sep == ',') {
          if (top.object) {
            read_key(path, key);
          } else {
            ++top.count;
            if (indexed()) path = fmt::format("{}/{}", top.path, top.count);
            key.reset();
          }
          next_found = true;
        } else if (sep == (top.object ? '}' : ']')) {
          stack_.pop_back();
        } else {
          fail("',' or a closing bracket");
        }
      }
      if (next_found) continue;
      skip_ws();
      if (pos_ != text_.size()) fail("end of input");
      return std::move(out_);
    }
  }

 private:
  struct Frame {
    bool object;
    std::string path;
    std::size_t count;                                   // index of the current array element
    std::unordered_map<std::string, TextPosition> keys;  // members seen so far, for duplicate detection
  };

  // Offsets only grow while scanning, so positions are counted onward from the previous one: linear in the text
  // even when it is one long line.
  TextPosition position(std::size_t offset) {
    if (offset < cursor_offset_) {
      cursor_offset_ = has_bom(text_) ? 3 : 0;
      cursor_ = {};
    }
    for (; cursor_offset_ < offset; ++cursor_offset_) {
      if (text_[cursor_offset_] == '\n') {
        ++cursor_.line;
        cursor_.column = 1;
      } else if (!is_continuation_byte(text_[cursor_offset_])) {
        ++cursor_.column;
      }
    }
    return cursor_;
  }

  // Values nested deeper than JsonLocator::kMaxDepth are skipped (and their paths not built), so that a
  // pathological file costs linear time; errors inside them are reported at their deepest indexed ancestor.
  bool indexed() const { return stack_.size() <= JsonLocator::kMaxDepth; }

  void record(const std::string& path, const std::optional<TextPosition>& key) {
    if (!indexed()) return;
    out_.index_[path] = JsonLocation{position(pos_), pos_, key};
  }

  void read_key(std::string& path, std::optional<TextPosition>& key) {
    skip_ws();
    if (peek() != '"') fail("a string key");
    std::size_t key_offset = pos_;
    std::string name = read_string();
    skip_ws();
    if (next() != ':') fail("':'");
    if (!indexed()) return;
    TextPosition key_pos = position(key_offset);
    Frame& top = stack_.back();
    path = top.path + "/" + json_pointer_token(name);
    key = key_pos;
    auto [it, inserted] = top.keys.emplace(name, key_pos);
    if (!inserted) out_.duplicates_.push_back(DuplicateKey{path, it->second, key_pos});
  }

  std::string read_string() {
    ++pos_;  // opening quote
    std::string out;
    while (true) {
      char c = next();
      if (c == '"') return out;
      if (c != '\\') {
        out += c;
        continue;
      }
      char e = next();
      switch (e) {
        case 'b':
          out += '\b';
          break;
        case 'f':
          out += '\f';
          break;
        case 'n':
          out += '\n';
          break;
        case 'r':
          out += '\r';
          break;
        case 't':
          out += '\t';
          break;
        case 'u': {
          std::uint32_t cp = read_hex4();
          if (cp >= 0xD800 && cp < 0xDC00 && text_.substr(pos_, 2) == "\\u") {
            pos_ += 2;
            std::uint32_t low = read_hex4();
            cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
          }
          append_utf8(out, cp);
          break;
        }
        default:
          out += e;
          break;  // '"', '\\', '/'
      }
    }
  }

  std::uint32_t read_hex4() {
    std::uint32_t v = 0;
    for (int i = 0; i < 4; ++i) {
      char c = next();
      v <<= 4;
      if (c >= '0' && c <= '9') {
        v |= static_cast<std::uint32_t>(c - '0');
      } else if (c >= 'a' && c <= 'f') {
        v |= static_cast<std::uint32_t>(c - 'a' + 10);
      } else if (c >= 'A' && c <= 'F') {
        v |= static_cast<std::uint32_t>(c - 'A' + 10);
      } else {
        fail("a hex digit");
      }
    }
    return v;
  }

  // Numbers and true/false/null: nlohmann has checked their spelling, so this only finds where they end.
  void skip_scalar() {
    std::size_t start = pos_;
    while (pos_ < text_.size()) {
      char c = text_[pos_];
      if (c == ',' || c == '}' || c == ']' || c == ' ' || c == '\t' || c == '\n' || c == '\r') break;
      ++pos_;
    }
    if (pos_ == start) fail("a value");
  }

  void skip_ws() {
    while (pos_ < text_.size() &&
           (text_[pos_] == ' ' || text_[pos_] == '\t' || text_[pos_] == '\n' || text_[pos_] == '\r'))
      ++pos_;
  }

  char peek() const { return pos_ < text_.size() ? text_[pos_] : '\0'; }

  char next() {
    if (pos_ >= text_.size()) fail("more input");
    return text_[pos_++];
  }

  [[noreturn]] void fail(std::string_view expected) {
    TextPosition p = position(pos_);
    throw Error(fmt::format("JSON locator: expected {} at line {}, column {}", expected, p.line, p.column));
  }

  std::string_view text_;
  std::size_t pos_;
  std::size_t cursor_offset_;  // where position() last counted to
  TextPosition cursor_;        // the position at cursor_offset_
  std::vector<Frame> stack_;
  JsonLocator out_;
};

JsonLocator JsonLocator::scan(std::string_view text) {
  return JsonScanner(text).run();
}

const JsonLocation* JsonLocator::find(std::string_view json_path) const {
  auto it = index_.find(std::string(json_path));
  return it == index_.end() ? nullptr : &it->second;
}

const JsonLocation* JsonLocator::find_nearest(std::string_view json_path, std::string* found_path) const {
  std::string path(json_path);
  while (true) {
    if (const JsonLocation* loc = find(path)) {
      if (found_path) *found_path = path;
      return loc;
    }
    if (path.empty()) return nullptr;
    path.erase(path.rfind('/') == std::string::npos ? 0 : path.rfind('/'));
  }
}

}  // namespace mpgemm
