#pragma once
// Whether a file can be written before any work is spent on what goes into it, whether it may be (never over a
// command's own input, never over a database), and writing it so that a failure leaves the old file whole.
#include <filesystem>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>

#include "common/refusal.hpp"

namespace mpgemm {

// An output path refused for what it names: one of the command's own inputs, or a database a text output would
// replace. It is the command line that is wrong, not the machine (exit 2, like a bad option value); a path that
// cannot be written (a missing or read-only folder) is a plain Error.
class OutputRefused : public InputRefused {
 public:
  using InputRefused::InputRefused;
};

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

// One file a command reads, named for a message: {"the database", "r.db"}.
struct InputFile {
  std::string_view role;
  std::filesystem::path path;
};

// Whether `a` and `b` are one file, by filesystem identity (device and inode), so a symlink, a hard link or a
// "../" path is caught; false when either does not exist.
bool same_file(const std::filesystem::path& a, const std::filesystem::path& b);

// Whether `path` is an existing file that begins with SQLite's 16-byte header ("SQLite format 3\0").
bool is_sqlite_file(const std::filesystem::path& path);

// The database `path` is a side file of, as SQLite names them: PATH-wal, PATH-shm or PATH-journal beside an
// existing file PATH. Writing there loses the database's committed rows (a WAL replaced under a writer), so no
// output may go there; nothing when `path` is no such name.
std::optional<std::filesystem::path> database_of_side_file(const std::filesystem::path& path);

// Throws OutputRefused "cannot write OUT: it is the -wal file of the database DB ..." when database_of_side_file
// finds one.
void require_not_a_side_file(const std::filesystem::path& output);

// Throws OutputRefused "cannot write OUT: it is ROLE INPUT, which this command reads" when `output` is one of
// `inputs` (same_file).
void require_not_an_input(const std::filesystem::path& output, std::initializer_list<InputFile> inputs);

// For a command's output file that is text (an exported table, a header, a printed table): require_writable_output,
// require_not_an_input, require_not_a_side_file, and no existing SQLite file (a results database given as -o by
// mistake) is replaced. Throws one line naming the file and why: OutputRefused for an input or a database,
// mpgemm::Error otherwise.
void require_safe_output(const std::filesystem::path& output, std::initializer_list<InputFile> inputs);

// Writes `text` as the whole of `path`: into a temporary file in the same folder, flushed to disk, then renamed
// over `path`, so readers and a failure (disk full, a kill) see the old file or the new one, never a part. A symlink
// is followed (the file it names is replaced, the link stays); the new file keeps an existing file's permissions,
// else gets the usual ones (0666 less the umask). A path that is not a regular file (/dev/stdout, a FIFO) is written
// in place. Throws mpgemm::Error "cannot write PATH: why"; the temporary file never stays behind.
void write_file_atomically(const std::filesystem::path& path, std::string_view text);

}  // namespace mpgemm
