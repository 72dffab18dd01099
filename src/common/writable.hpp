#pragma once
// Whether a file can be written before any work is spent on what goes into it.
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

namespace mpgemm {

// What the writer does about folders of the path that do not exist yet.
enum class MissingFolders {
  fail,    // a plain std::ofstream: the folder must exist
  create,  // the writer creates them (Store::open): the nearest existing folder must be writable
};

// Why a path cannot be written as a file.
struct WriteObstacle {
  enum class Kind {
    empty_path,        // ""
    names_a_folder,    // an existing folder, or a path ending in '/'
    file_read_only,    // the file exists and may not be written
    folder_missing,    // its folder does not exist (MissingFolders::fail)
    not_a_folder,      // the folder it would go in (or the nearest existing one) is a file
    folder_read_only,  // the folder it would be created in may not be written
  };
  Kind kind;
  std::filesystem::path folder;  // the folder concerned, for the three folder kinds
};

// What stands in the way of writing `path` as a file, or nothing. Checks only: creates and changes nothing.
std::optional<WriteObstacle> write_obstacle(const std::filesystem::path& path, MissingFolders folders);

// The obstacle in words, `noun` naming what the file is: "it is a folder, not a database file", "the folder F does
// not exist", ...
std::string describe(const WriteObstacle& obstacle, std::string_view noun = "file");

// write_obstacle, described; nothing when the path can be written.
std::optional<std::string> why_not_writable(const std::filesystem::path& path, MissingFolders folders);

// For a command's output file (std::ofstream: its folder must exist): throws mpgemm::Error "cannot write PATH: why"
// when write_obstacle finds one, before the command spends any work on what goes there.
void require_writable_output(const std::filesystem::path& path);

}  // namespace mpgemm
