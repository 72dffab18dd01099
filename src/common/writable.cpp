#include "common/writable.hpp"

#include <unistd.h>

#include <fmt/format.h>

namespace mpgemm {

std::optional<std::string> why_not_writable(const std::filesystem::path& path, MissingFolders folders) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (fs::is_directory(path, ec)) return std::string("it is a folder");
  if (fs::exists(path, ec))
    return access(path.c_str(), W_OK) == 0 ? std::nullopt : std::optional<std::string>("the file is not writable");
  fs::path folder = path.has_parent_path() ? path.parent_path() : fs::path(".");
  if (folders == MissingFolders::create)
    while (!fs::exists(folder, ec) && folder.has_parent_path() && folder.parent_path() != folder)
      folder = folder.parent_path();
  if (!fs::exists(folder, ec)) return fmt::format("the folder {} does not exist", folder.string());
  if (!fs::is_directory(folder, ec)) return fmt::format("{} is not a folder", folder.string());
  if (access(folder.c_str(), W_OK) != 0) return fmt::format("the folder {} is not writable", folder.string());
  return std::nullopt;
}

}  // namespace mpgemm
