#include "common/bounded_input.hpp"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <system_error>
#include <vector>

#include <fmt/format.h>

namespace mpgemm {

InputFileError::InputFileError(std::string file, std::string why)
    : Error(fmt::format("{}: {}", file, why)), file_(std::move(file)), why_(std::move(why)) {}

std::string read_bounded_file(const std::filesystem::path& path, std::string_view what, std::uintmax_t max_bytes) {
  const std::string name = path.string();
  std::error_code ec;
  const std::filesystem::file_status st = std::filesystem::status(path, ec);
  if (ec || !std::filesystem::exists(st))
    throw InputFileError(name, fmt::format("cannot read the {}: {}", what,
                                           ec && ec != std::errc::no_such_file_or_directory ? ec.message()
                                                                                            : "no such file"));
  if (std::filesystem::is_directory(st))
    throw InputFileError(name, fmt::format("cannot read the {}: it is a folder", what));
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputFileError(name, fmt::format("cannot read the {}: {}", what, std::strerror(errno)));
  std::string text;
  std::vector<char> chunk(1 << 16);
  while (in) {
    in.read(chunk.data(), static_cast<std::streamsize>(chunk.size()));
    text.append(chunk.data(), static_cast<std::size_t>(in.gcount()));
    if (text.size() > max_bytes)
      throw InputFileError(name, fmt::format("the {} is larger than {} MiB (is it the right file?)", what,
                                             max_bytes >> 20));
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

}  // namespace

nlohmann::json parse_json_bounded(std::string_view text, std::size_t max_depth) {
  // The callback sees every event with its depth before the value is built; opening a container one level past
  // the bound stops the parse there. The offset is not known to the callback: the error names the bound, and
  // byte 0 says "the text as a whole".
  const auto bounded = [max_depth](int depth, nlohmann::json::parse_event_t event, nlohmann::json&) {
    if ((event == nlohmann::json::parse_event_t::object_start || event == nlohmann::json::parse_event_t::array_start) &&
        static_cast<std::size_t>(depth) >= max_depth)
      throw DepthError::make(0, max_depth);
    return true;
  };
  return nlohmann::json::parse(text.begin(), text.end(), bounded);
}

}  // namespace mpgemm
