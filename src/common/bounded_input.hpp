#pragma once
// Reading what a user hands us, within bounds: a file's size (a space named /dev/zero must not exhaust memory) and
// JSON's nesting depth (nlohmann's dump and every recursive walk over a parsed value recurse once per level, so a
// file of 100,000 '[' must be refused while parsing, before anything walks it).
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "common/error.hpp"

namespace mpgemm {

// Every JSON file mpgemm reads (spaces, shape lists, exported tables, parameters stored in the database) is a few
// levels deep; 64 leaves room and stays far from any stack limit.
inline constexpr std::size_t kMaxJsonDepth = 64;

// Spaces, shape lists and exported tables are kilobytes to a few megabytes; 64 MiB refuses /dev/zero or a wrong
// file in a fraction of a second.
inline constexpr std::uintmax_t kMaxInputFileBytes = 64ull << 20;

// A user's file could not be read whole: missing, a folder, unreadable, or larger than the bound. what() is one
// line naming the file.
class InputFileError : public Error {
 public:
  InputFileError(std::string file, std::string why);
  const std::string& file() const { return file_; }
  const std::string& why() const { return why_; }

 private:
  std::string file_;
  std::string why_;
};

// The whole of `path`, refusing a folder, an unreadable file and one longer than `max_bytes` (read up to one byte
// past the bound, so a device or FIFO that never ends is refused too). `what` names the file for the message
// ("space file", "shape file").
std::string read_bounded_file(const std::filesystem::path& path, std::string_view what,
                              std::uintmax_t max_bytes = kMaxInputFileBytes);

// The byte offset of the first '[' or '{' that opens a value nested deeper than `max_depth` (the root is level 1),
// strings skipped; npos when there is none. Exact on valid JSON and on the valid part nlohmann reads before a
// syntax error, so it finds where parse_json_bounded stopped.
std::size_t json_too_deep_at(std::string_view text, std::size_t max_depth = kMaxJsonDepth);

// nlohmann's parse (nlohmann::json, or nlohmann::ordered_json for readers that keep the file's order), refusing
// values nested deeper than `max_depth` with a nlohmann::json::parse_error (id 101, byte = 1 + the offset where
// the limit was passed, like nlohmann's own), so callers that report parse errors with a position report this one
// the same way.
template <class Json = nlohmann::json>
Json parse_json_bounded(std::string_view text, std::size_t max_depth = kMaxJsonDepth);
extern template nlohmann::json parse_json_bounded<nlohmann::json>(std::string_view, std::size_t);
extern template nlohmann::ordered_json parse_json_bounded<nlohmann::ordered_json>(std::string_view, std::size_t);

// A user's text as a message quotes it (a key, an argument, a parser's complaint): control characters escaped
// (a newline as \n, byte 1 as \x01) and cut to at most `max_chars` bytes ending in "...", so the message stays one
// short line.
std::string text_excerpt(std::string_view text, std::size_t max_chars = 40);

// Text from a file or a database (a hostname, a device name, a message quoting them) as one line for a terminal:
// control characters escaped as text_excerpt does them, nothing cut. No stored newline splits a message and no
// escape sequence reaches the terminal raw.
std::string printable_text(std::string_view text);

// A value as a message quotes it: its JSON, cut the same way ("[1,2,3,4,...").
std::string json_excerpt(const nlohmann::json& j, std::size_t max_chars = 40);

}  // namespace mpgemm
