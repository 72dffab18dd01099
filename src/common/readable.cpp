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
using Kind = ReadObstacle::Kind;

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

std::optional<ReadObstacle> read_obstacle(const fs::path& path) {
  if (path.empty()) return ReadObstacle{Kind::empty_path, {}, 0};
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) {
    const int error = errno;
    if (error == ENOENT) return ReadObstacle{Kind::missing, {}, error};
    if (error != ENOTDIR && error != EACCES) return ReadObstacle{Kind::other, {}, error};
    const Kind kind = error == ENOTDIR ? Kind::through_a_file : Kind::folder_not_enterable;
    // Which folder of the path is to blame: the first one that is a file, or may not be entered.
    for (const fs::path& folder : folders_of(path)) {
      struct stat f {};
      if (::stat(folder.c_str(), &f) != 0) break;  // past the culprit: its parent could not be entered
      if (kind == Kind::through_a_file && !S_ISDIR(f.st_mode)) return ReadObstacle{kind, folder, error};
      if (kind == Kind::folder_not_enterable && S_ISDIR(f.st_mode) && ::access(folder.c_str(), X_OK) != 0)
        return ReadObstacle{kind, folder, error};
    }
    return ReadObstacle{kind, {}, error};
  }
  if (S_ISDIR(st.st_mode)) return ReadObstacle{Kind::names_a_folder, {}, 0};
  if (!S_ISREG(st.st_mode)) return ReadObstacle{Kind::not_a_regular_file, {}, 0};  // before an open that may block
  if (::access(path.c_str(), R_OK) != 0) {
    const int error = errno;
    return ReadObstacle{error == EACCES ? Kind::file_not_readable : Kind::other, {}, error};
  }
  return std::nullopt;
}

std::string describe(const ReadObstacle& o, std::string_view noun) {
  switch (o.kind) {
    case Kind::empty_path:
      return "the path is empty";
    case Kind::missing:
      return "no such file";
    case Kind::through_a_file:
      return o.folder.empty() ? std::string("a folder of the path is a file")
                              : fmt::format("{} is a file, not a folder", o.folder.string());
    case Kind::folder_not_enterable:
      return o.folder.empty() ? std::string("permission denied")
                              : fmt::format("permission denied: the folder {} may not be entered", o.folder.string());
    case Kind::names_a_folder:
      return fmt::format("it is a folder, not a {}", noun);
    case Kind::not_a_regular_file:
      return fmt::format("it is not a regular file (a FIFO, a socket or a device), not a {}", noun);
    case Kind::file_not_readable:
      return fmt::format("permission denied: the {} may not be read", noun);
    case Kind::other:
      return system_words(o.error);
  }
  return "it cannot be read";
}

std::optional<std::string> why_not_readable(const fs::path& path, std::string_view noun) {
  if (auto o = read_obstacle(path)) return describe(*o, noun);
  return std::nullopt;
}

bool opens_like_no_file(const fs::path& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && (S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode));
}

void require_readable_file(const fs::path& path, std::string_view noun) {
  if (auto why = why_not_readable(path, noun)) throw Error(fmt::format("cannot read {}: {}", path.string(), *why));
}

}  // namespace mpgemm
