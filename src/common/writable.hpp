#pragma once
// Whether a file can be written before any work is spent on what goes into it.
#include <filesystem>
#include <optional>
#include <string>

namespace mpgemm {

// What the writer does about folders of the path that do not exist yet.
enum class MissingFolders {
  fail,    // a plain std::ofstream: the folder must exist
  create,  // the writer creates them (Store::open): the nearest existing folder must be writable
};

// Why `path` cannot be written as a file, in words for an error message ("it is a folder", "the file is not
// writable", "the folder F does not exist", ...), or nothing when it can. Checks only: creates and changes nothing.
std::optional<std::string> why_not_writable(const std::filesystem::path& path, MissingFolders folders);

}  // namespace mpgemm
