#pragma once
// Whether a file a command reads can be read, said in words before anything opens it: every reader asks here, so a
// missing file, an unreadable folder or a path through a file reads the same in every tool ("cannot read PATH:
// permission denied ..."), and no std::filesystem exception escapes as an internal error.
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

namespace mpgemm {

// Why a path cannot be opened as a file for reading.
struct ReadObstacle {
  enum class Kind {
    empty_path,            // ""
    missing,               // no such file (its folders may be missing too)
    through_a_file,        // a folder of the path is a file (ENOTDIR); `folder` names it when found
    folder_not_enterable,  // a folder of the path may not be entered (EACCES); `folder` names it when found
    names_a_folder,        // the path is a folder
    not_a_regular_file,    // a FIFO, a socket or a device: opening a FIFO waits for a writer, maybe forever
    file_not_readable,     // the file exists and may not be read
    other,                 // anything else the system says (`error`: the errno)
  };
  Kind kind;
  std::filesystem::path folder;  // for through_a_file and folder_not_enterable
  int error = 0;                 // the errno, for other
};

// What stands in the way of reading `path` as a file, or nothing. Checks only (stat and access): opens and changes
// nothing, and never throws.
std::optional<ReadObstacle> read_obstacle(const std::filesystem::path& path);

// The obstacle in words, `noun` naming what the file is: "no such file", "F is a file, not a folder", "permission
// denied: the folder F may not be entered", "it is a folder, not a database", ...
std::string describe(const ReadObstacle& obstacle, std::string_view noun = "file");

// read_obstacle, described; nothing when the path can be read.
std::optional<std::string> why_not_readable(const std::filesystem::path& path, std::string_view noun = "file");

// Whether opening `path` to read could wait forever or fail as no file does: a FIFO (open blocks until a writer
// comes) or a socket. Checked with stat before any open; false for anything else, a missing path included.
bool opens_like_no_file(const std::filesystem::path& path);

// Throws mpgemm::Error "cannot read PATH: why" when read_obstacle finds one.
void require_readable_file(const std::filesystem::path& path, std::string_view noun = "file");

}  // namespace mpgemm
