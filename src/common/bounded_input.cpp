#include "common/bounded_input.hpp"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <system_error>
#include <vector>

#include <fmt/format.h>

#include "common/readable.hpp"

namespace mpgemm {

InputFileError::InputFileError(std::string file, std::string why)
    : Error(fmt::format("{}: {}", file, why)), file_(std::move(file)), why_(std::move(why)) {}

std::string read_bounded_file(const std::filesystem::path& path, std::string_view what, std::uintmax_t max_bytes) {
  const std::string name = path.string();
  std::error_code ec;
  const std::filesystem::file_status st = std::filesystem::status(path, ec);
  if (ec || !std::filesystem::exists(st))
    throw InputFileError(name,
                         fmt::format("cannot read the {}: {}", what,
                                     ec && ec != std::errc::no_such_file_or_directory ? ec.message() : "no such file"));
  if (std::filesystem::is_directory(st))
    throw InputFileError(name, fmt::format("cannot read the {}: it is a folder", what));
  // A FIFO's open waits for a writer, perhaps forever; a device such as /dev/zero is read within the bound below.
  if (opens_like_no_file(path))
    throw InputFileError(name, fmt::format("cannot read the {}: it is a FIFO or a socket, not a regular file", what));
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputFileError(name, fmt::format("cannot read the {}: {}", what, std::strerror(errno)));
  std::string text;
  std::vector<char> chunk(1 << 16);
  while (in) {
    in.read(chunk.data(), static_cast<std::streamsize>(chunk.size()));
    text.append(chunk.data(), static_cast<std::size_t>(in.gcount()));
    if (text.size() > max_bytes)
      throw InputFileError(name,
                           fmt::format("the {} is larger than {} MiB (is it the right file?)", what, max_bytes >> 20));
  }
  if (in.bad()) throw InputFileError(name, fmt::format("cannot read the {}: {}", what, std::strerror(errno)));
  return text;
}

namespace {

// nlohmann builds its parse_error only through a protected factory; a derived type reaches it.
struct DepthError : nlohmann::json::parse_error {
  static nlohmann::json::parse_error make(std::size_t byte, std::size_t max_depth) {
    return nlohmann::json::parse_error::create(
        101, byte, fmt::format("nesting deeper than {} levels (arrays and objects within one another)", max_depth),
        static_cast<const nlohmann::json*>(nullptr));
  }
};

// `text` cut to at most `max_chars` bytes, "..." included, and not inside a UTF-8 character.
std::string cut_to(std::string text, std::size_t max_chars) {
  if (text.size() <= max_chars) return text;
  std::size_t cut = max_chars < 3 ? 0 : max_chars - 3;
  while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0u) == 0x80u) --cut;
  text.resize(cut);
  return text + "...";
}

}  // namespace

std::size_t json_too_deep_at(std::string_view text, std::size_t max_depth) {
  std::size_t depth = 0;
  bool in_string = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (c == '\\') {
        ++i;  // the escaped character, '"' included
      } else if (c == '"') {
        in_string = false;
      }
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > max_depth) return i;
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
  return std::string_view::npos;
}

namespace {

// nlohmann's own DOM builder (what Json::parse uses) behind a SAX that counts the nesting: opening a container one
// level past the bound stops the parse there, before the value is built. Its parse callback would do the same in
// fewer lines, but nlohmann's callback builder scans the parent container after every object it closes: quadratic
// in a list of objects (200,000 shapes took 24 s).
template <class Json>
class BoundedDomSax {
 public:
  using number_integer_t = typename Json::number_integer_t;
  using number_unsigned_t = typename Json::number_unsigned_t;
  using number_float_t = typename Json::number_float_t;
  using string_t = typename Json::string_t;
  using binary_t = typename Json::binary_t;

  BoundedDomSax(Json& root, std::string_view text, std::size_t max_depth)
      : dom_(root, /*allow_exceptions=*/true), text_(text), max_depth_(max_depth) {}

  bool null() { return dom_.null(); }
  bool boolean(bool v) { return dom_.boolean(v); }
  bool number_integer(number_integer_t v) { return dom_.number_integer(v); }
  bool number_unsigned(number_unsigned_t v) { return dom_.number_unsigned(v); }
  bool number_float(number_float_t v, const string_t& s) { return dom_.number_float(v, s); }
  bool string(string_t& v) { return dom_.string(v); }
  bool binary(binary_t& v) { return dom_.binary(v); }
  bool start_object(std::size_t n) {
    enter();
    return dom_.start_object(n);
  }
  bool key(string_t& v) { return dom_.key(v); }
  bool end_object() {
    --depth_;
    return dom_.end_object();
  }
  bool start_array(std::size_t n) {
    enter();
    return dom_.start_array(n);
  }
  bool end_array() {
    --depth_;
    return dom_.end_array();
  }
  template <class Exception>
  bool parse_error(std::size_t position, const std::string& last_token, const Exception& ex) {
    return dom_.parse_error(position, last_token, ex);  // throws ex
  }

 private:
  // The SAX is not told the offset: the scan finds it, once, on failure.
  void enter() {
    if (++depth_ <= max_depth_) return;
    const std::size_t at = json_too_deep_at(text_, max_depth_);
    throw DepthError::make(at == std::string_view::npos ? 0 : at + 1, max_depth_);
  }

  nlohmann::detail::json_sax_dom_parser<Json> dom_;
  std::string_view text_;
  std::size_t max_depth_;
  std::size_t depth_ = 0;  // containers open
};

}  // namespace

template <class Json>
Json parse_json_bounded(std::string_view text, std::size_t max_depth) {
  Json root;
  BoundedDomSax<Json> sax(root, text, max_depth);
  Json::sax_parse(text.begin(), text.end(), &sax);  // strict: text after the value is an error, as in Json::parse
  return root;
}

template nlohmann::json parse_json_bounded<nlohmann::json>(std::string_view, std::size_t);
template nlohmann::ordered_json parse_json_bounded<nlohmann::ordered_json>(std::string_view, std::size_t);

std::string text_excerpt(std::string_view text, std::size_t max_chars) {
  std::string out;
  // Each byte shows as one or more: the first max_chars + 1 bytes decide whether the text must be cut.
  for (std::size_t i = 0; i < text.size() && out.size() <= max_chars; ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c == '\n') {
      out += "\\n";
    } else if (c == '\r') {
      out += "\\r";
    } else if (c == '\t') {
      out += "\\t";
    } else if (c < 0x20 || c == 0x7f) {
      out += fmt::format("\\x{:02x}", c);
    } else {
      out += static_cast<char>(c);
    }
  }
  return cut_to(std::move(out), max_chars);
}

std::string printable_text(std::string_view text) {
  return text_excerpt(text, std::string::npos);
}

std::string json_excerpt(const nlohmann::json& j, std::size_t max_chars) {
  return cut_to(j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace), max_chars);
}

}  // namespace mpgemm
