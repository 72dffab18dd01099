#pragma once
// Whether a file a command reads can be read, said in words before anything opens it: every reader asks here, so a
// missing file, an unreadable folder or a path through a file reads the same in every tool ("cannot read PATH:
// permission denied ..."), and no std::filesystem exception escapes as an internal error.
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

namespace mpgemm {

// Why `path` cannot be opened as a file for reading, or nothing when it can. Checks only (stat and access): opens
// and changes nothing, and never throws. The reasons: "the path is empty", "no such file", "F is a file, not a
// folder" (a folder of the path is a file), "permission denied: the folder F may not be entered" (or "... the file
// may not be read"), "it is a folder, not a `noun`", or the system's words for anything else.
std::optional<std::string> why_not_readable(const std::filesystem::path& path, std::string_view noun = "file");

// Throws mpgemm::Error "cannot read PATH: why" when why_not_readable says why.
void require_readable_file(const std::filesystem::path& path, std::string_view noun = "file");

}  // namespace mpgemm
