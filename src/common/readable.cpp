#include "common/readable.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <iterator>
#include <vector>

#include <fmt/format.h>

#include "common/error.hpp"

namespace mpgemm {

namespace {

namespace fs = std::filesystem;

// The folders `path` goes through, outermost first ("a", "a/b" for "a/b/c"; "/", "/a" for "/a/c").
std::vector<fs::path> folders_of(const fs::path& path) {
  std::vector<fs::path> folders;
  fs::path prefix;
  for (auto it = path.begin(); it != path.end(); ++it) {
    if (std::next(it) == path.end()) break;  // the last component is the file itself
    prefix /= *it;
    folders.push_back(prefix);
  }
  return folders;
}

// The system's words for an errno, in lower case like the rest of a message ("Input/output error" -> "input/output
// error").
std::string system_words(int error) {
  std::string words = std::strerror(error);
  const auto upper = [&](std::size_t i) { return i < words.size() && words[i] >= 'A' && words[i] <= 'Z'; };
  if (upper(0) && !upper(1)) words[0] = static_cast<char>(words[0] - 'A' + 'a');  // an acronym stays as it is
  return words;
}

}  // namespace

std::optional<std::string> why_not_readable(const fs::path& path, std::string_view noun) {
  if (path.empty()) return std::string("the path is empty");
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) {
    const int error = errno;
    if (error == ENOENT) return std::string("no such file");
    // Which folder of the path is to blame, for the two errors that are a folder's: the first one that is a file
    // (ENOTDIR), or may not be entered (EACCES).
    for (const fs::path& folder : folders_of(path)) {
      struct stat f {};
      if (::stat(folder.c_str(), &f) != 0) break;  // past the culprit: its parent could not be entered
      if (error == ENOTDIR && !S_ISDIR(f.st_mode)) return fmt::format("{} is a file, not a folder", folder.string());
      if (error == EACCES && S_ISDIR(f.st_mode) && ::access(folder.c_str(), X_OK) != 0)
        return fmt::format("permission denied: the folder {} may not be entered", folder.string());
    }
    if (error == EACCES) return std::string("permission denied");
    if (error == ENOTDIR) return std::string("a folder of the path is a file");
    return system_words(error);
  }
  if (S_ISDIR(st.st_mode)) return fmt::format("it is a folder, not a {}", noun);
  if (::access(path.c_str(), R_OK) != 0) {
    const int error = errno;
    if (error == EACCES) return fmt::format("permission denied: the {} may not be read", noun);
    return system_words(error);
  }
  return std::nullopt;
}

void require_readable_file(const fs::path& path, std::string_view noun) {
  if (auto why = why_not_readable(path, noun)) throw Error(fmt::format("cannot read {}: {}", path.string(), *why));
}

}  // namespace mpgemm
