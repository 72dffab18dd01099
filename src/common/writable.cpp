#include "common/writable.hpp"

#include <unistd.h>

#include <fmt/format.h>

#include "common/error.hpp"

namespace mpgemm {

std::optional<WriteObstacle> write_obstacle(const std::filesystem::path& path, MissingFolders folders) {
  namespace fs = std::filesystem;
  using Kind = WriteObstacle::Kind;
  std::error_code ec;
  if (path.empty()) return WriteObstacle{Kind::empty_path, {}};
  if (fs::is_directory(path, ec) || !path.has_filename()) return WriteObstacle{Kind::names_a_folder, {}};
  if (fs::exists(path, ec)) {
    if (access(path.c_str(), W_OK) == 0) return std::nullopt;
    return WriteObstacle{Kind::file_read_only, {}};
  }
  // The folder it goes in; a relative name without one goes in the working folder.
  const auto folder_of = [](const fs::path& p) { return p.has_parent_path() ? p.parent_path() : fs::path("."); };
  fs::path folder = folder_of(path);
  if (folders == MissingFolders::create)
    while (!fs::exists(folder, ec) && folder != folder_of(folder)) folder = folder_of(folder);
  if (!fs::exists(folder, ec)) return WriteObstacle{Kind::folder_missing, folder};
  if (!fs::is_directory(folder, ec)) return WriteObstacle{Kind::not_a_folder, folder};
  if (access(folder.c_str(), W_OK) != 0) return WriteObstacle{Kind::folder_read_only, folder};
  return std::nullopt;
}

std::string describe(const WriteObstacle& o, std::string_view noun) {
  using Kind = WriteObstacle::Kind;
  switch (o.kind) {
    case Kind::empty_path:
      return "the path is empty";
    case Kind::names_a_folder:
      return fmt::format("it is a folder, not a {}", noun);
    case Kind::file_read_only:
      return fmt::format("the {} is not writable", noun);
    case Kind::folder_missing:
      return fmt::format("the folder {} does not exist", o.folder.string());
    case Kind::not_a_folder:
      return fmt::format("{} is not a folder", o.folder.string());
    case Kind::folder_read_only:
      return fmt::format("the folder {} is not writable", o.folder.string());
  }
  return "it cannot be written";
}

std::optional<std::string> why_not_writable(const std::filesystem::path& path, MissingFolders folders) {
  if (auto o = write_obstacle(path, folders)) return describe(*o);
  return std::nullopt;
}

void require_writable_output(const std::filesystem::path& path) {
  if (auto why = why_not_writable(path, MissingFolders::fail))
    throw Error(fmt::format("cannot write {}: {}", path.string(), *why));
}

}  // namespace mpgemm
