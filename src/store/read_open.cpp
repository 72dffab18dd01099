// Reading a database left in WAL mode without writing beside it: from the file itself when SQLite can, else from a
// snapshot in memory taken from a private copy (store/read_open.hpp says when).
#include "store/read_open.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <system_error>
#include <vector>

#include <fmt/format.h>

#include "common/bounded_input.hpp"
#include "common/error.hpp"

namespace mpgemm::store_detail {

namespace fs = std::filesystem;

namespace {

// How often a snapshot is taken again when the files changed while it was taken (a writer starting or stopping).
constexpr int kSnapshotAttempts = 4;

// A file's identity and last change, compared before and after a snapshot: equal means nothing wrote it meanwhile.
struct FileStamp {
  bool exists = false;
  dev_t dev = 0;
  ino_t ino = 0;
  off_t size = 0;
  long long mtime_ns = 0;
  bool operator==(const FileStamp&) const = default;
};

FileStamp stamp_of(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return {};
  return {true, st.st_dev, st.st_ino, st.st_size,
          static_cast<long long>(st.st_mtim.tv_sec) * 1'000'000'000LL + st.st_mtim.tv_nsec};
}

// A file opened through SQLite's VFS. The database file is never opened with a descriptor of our own: closing one
// would drop every POSIX lock this process holds on the file, the locks other connections of this process keep on
// it (SQLite's unix VFS defers such closes while its locks are held).
class VfsFile {
 public:
  VfsFile(sqlite3_vfs* vfs, const std::string& full_path)
      : mem_(static_cast<sqlite3_file*>(sqlite3_malloc(vfs->szOsFile))) {
    if (!mem_) return;
    std::memset(mem_, 0, static_cast<std::size_t>(vfs->szOsFile));
    int out_flags = 0;
    open_ =
        vfs->xOpen(vfs, full_path.c_str(), mem_, SQLITE_OPEN_READONLY | SQLITE_OPEN_MAIN_DB, &out_flags) == SQLITE_OK;
  }
  ~VfsFile() {
    if (mem_ && mem_->pMethods) mem_->pMethods->xClose(mem_);
    sqlite3_free(mem_);
  }
  VfsFile(const VfsFile&) = delete;
  VfsFile& operator=(const VfsFile&) = delete;

  bool is_open() const { return open_; }
  // SQLite's result code; a short read fills the rest with zeros and says SQLITE_IOERR_SHORT_READ.
  int read(void* into, int bytes, sqlite3_int64 offset) const {
    return mem_->pMethods->xRead(mem_, into, bytes, offset);
  }
  sqlite3_int64 size() const {
    sqlite3_int64 n = 0;
    return mem_->pMethods->xFileSize(mem_, &n) == SQLITE_OK ? n : -1;
  }

 private:
  sqlite3_file* mem_ = nullptr;
  bool open_ = false;
};

// The database and its WAL companions as a reader finds them.
struct Look {
  std::string full;         // the database's full path, symbolic links resolved (SQLite names -wal and -shm after it)
  bool wal_header = false;  // header bytes 18-19 are 2: the file was left in WAL mode
  FileStamp db, wal;
  bool shm = false;

  // SQLite reads the file without creating anything beside it: rollback-journal mode, or WAL mode with both
  // companions there. A live writer always has both; with either missing, no connection is open on the file
  // (a WAL connection creates the -wal first and removes it last), so nothing writes it while a snapshot is taken.
  bool read_in_place() const { return !(wal_header || wal.exists) || (wal.exists && shm); }
  bool operator==(const Look&) const = default;
};

std::string full_path_of(const sqlite::Connection& c, sqlite3_vfs* vfs, const fs::path& path) {
  std::vector<char> full(static_cast<std::size_t>(vfs->mxPathname) + 2, '\0');
  const int rc = vfs->xFullPathname(vfs, path.c_str(), vfs->mxPathname + 1, full.data());
  if (rc != SQLITE_OK && rc != SQLITE_OK_SYMLINK) sqlite::fail(c, rc, "resolving the database's path");
  return full.data();
}

Look look_at(const sqlite::Connection& c, sqlite3_vfs* vfs, const fs::path& path) {
  Look l;
  l.full = full_path_of(c, vfs, path);
  l.db = stamp_of(l.full);
  {
    const VfsFile f(vfs, l.full);
    std::array<unsigned char, 100> header{};
    if (f.is_open() && f.read(header.data(), static_cast<int>(header.size()), 0) == SQLITE_OK)
      l.wal_header = std::memcmp(header.data(), "SQLite format 3", 16) == 0 && (header[18] == 2 || header[19] == 2);
  }
  l.wal = stamp_of(l.full + "-wal");
  l.shm = stamp_of(l.full + "-shm").exists;
  return l;
}

// A private folder under the temporary directory (TMPDIR), removed with everything in it.
class PrivateDir {
 public:
  explicit PrivateDir(const sqlite::Connection& c) {
    // The folder named, and what is wrong with it, in the one line: TMPDIR missing or a regular file said only
    // "Not a directory" (issue 57, item 12).
    const char* env = std::getenv("TMPDIR");
    const std::string named = env != nullptr && *env != '\0' ? fmt::format("TMPDIR ({})", printable_text(env)) : "/tmp";
    std::error_code ec;
    const fs::path folder = fs::temp_directory_path(ec);
    if (ec) {
      std::error_code ignored;
      const bool exists = env != nullptr && fs::exists(fs::path(env), ignored);
      throw StoreError(c.path, SQLITE_CANTOPEN,
                       fmt::format("cannot read the WAL-mode database: its snapshot needs a private folder in the "
                                   "temporary directory, and {} {}; set TMPDIR to a writable folder",
                                   named, exists ? "is not a folder" : "does not exist"));
    }
    std::string pattern = (folder / "mpgemm-read-XXXXXX").string();
    if (!::mkdtemp(pattern.data()))
      throw StoreError(c.path, SQLITE_CANTOPEN,
                       fmt::format("cannot read the WAL-mode database: no private folder for its snapshot in {} "
                                   "({}); set TMPDIR to a writable folder",
                                   named, std::strerror(errno)));
    path_ = pattern;
  }
  ~PrivateDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  PrivateDir(const PrivateDir&) = delete;
  PrivateDir& operator=(const PrivateDir&) = delete;
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

[[noreturn]] void copy_failed(const sqlite::Connection& c, const fs::path& to, int error) {
  throw StoreError(c.path, error == ENOSPC ? SQLITE_FULL : SQLITE_IOERR,
                   fmt::format("cannot read the WAL-mode database: copying it to {} for a snapshot failed ({}); free "
                               "space there or set TMPDIR to another folder",
                               to.parent_path().string(), std::strerror(error)));
}

// Copies the database file, read through the VFS, to `to`.
void copy_database(const sqlite::Connection& c, sqlite3_vfs* vfs, const Look& l, const fs::path& to) {
  const VfsFile from(vfs, l.full);
  const sqlite3_int64 size = from.is_open() ? from.size() : -1;
  if (size < 0) sqlite::fail(c, SQLITE_CANTOPEN, "reading the database for a snapshot");
  const int out = ::open(to.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (out < 0) copy_failed(c, to, errno);
  std::vector<char> chunk(1 << 20);
  for (sqlite3_int64 at = 0; at < size;) {
    const int n = static_cast<int>(std::min<sqlite3_int64>(static_cast<sqlite3_int64>(chunk.size()), size - at));
    const int rc = from.read(chunk.data(), n, at);
    if (rc != SQLITE_OK) {
      ::close(out);
      sqlite::fail(c, rc, "reading the database for a snapshot");
    }
    for (int done = 0; done < n;) {
      const ssize_t w = ::write(out, chunk.data() + done, static_cast<std::size_t>(n - done));
      if (w < 0 && errno == EINTR) continue;
      if (w <= 0) {
        const int error = w < 0 ? errno : ENOSPC;
        ::close(out);
        copy_failed(c, to, error);
      }
      done += static_cast<int>(w);
    }
    at += n;
  }
  if (::close(out) != 0) copy_failed(c, to, errno);
}

void open_connection(sqlite::Connection& c, const std::string& name, int flags, int busy_timeout_ms) {
  const int rc = sqlite3_open_v2(name.c_str(), &c.db, flags, nullptr);
  if (rc != SQLITE_OK) {
    const sqlite::Connection failed{c.db, c.path};
    c.db = nullptr;
    const struct Closer {
      sqlite3* db;
      ~Closer() { sqlite3_close_v2(db); }
    } closer{failed.db};  // after fail() has read the message
    sqlite::fail(failed, rc, "opening the database");
  }
  sqlite3_extended_result_codes(c.db, 1);
  sqlite::harden(c.db);
  sqlite3_busy_timeout(c.db, busy_timeout_ms);
}

// "file:" URI of an absolute path, for the immutable open.
std::string file_uri(const std::string& full) {
  std::string uri = "file:";
  for (const char ch : full) {
    if (ch == '%' || ch == '?' || ch == '#')
      uri += fmt::format("%{:02x}", static_cast<unsigned char>(ch));
    else
      uri += ch;
  }
  return uri + "?immutable=1";
}

// c.db becomes an in-memory snapshot of the file as `l` found it. Without a -wal, the file alone is the database:
// read in place, immutable (SQLite then neither looks for a -shm nor creates one). With one, the file and its -wal
// are copied into a private folder and the copy is read there: SQLite replays the -wal's committed transactions into
// its view of the copy, as it would for the original with a writable folder.
void snapshot(sqlite::Connection& c, sqlite3_vfs* vfs, const Look& l, int busy_timeout_ms) {
  if (!l.wal.exists) {
    open_connection(c, file_uri(l.full), SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, busy_timeout_ms);
    read_into_memory(c, "reading a WAL-mode database into memory");
    return;
  }
  const PrivateDir dir(c);
  const fs::path copy = dir.path() / "snapshot.db";
  copy_database(c, vfs, l, copy);
  std::error_code ec;
  fs::copy_file(l.full + "-wal", copy.string() + "-wal", ec);
  if (ec) copy_failed(c, copy, ec.value());
  open_connection(c, copy.string(), SQLITE_OPEN_READONLY, busy_timeout_ms);
  read_into_memory(c, "reading a WAL-mode database and its -wal into memory");
}

}  // namespace

void read_into_memory(sqlite::Connection& c, std::string_view doing) {
  sqlite3* memory = nullptr;
  const int rc = sqlite3_open_v2(":memory:", &memory, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nullptr);
  if (rc != SQLITE_OK) {
    sqlite3_close_v2(memory);
    sqlite::fail(c, rc, fmt::format("opening an in-memory database ({})", doing));
  }
  sqlite3_backup* backup = sqlite3_backup_init(memory, "main", c.db, "main");
  int copied = backup ? sqlite3_backup_step(backup, -1) : sqlite3_errcode(memory);
  if (backup) {
    const int finished = sqlite3_backup_finish(backup);
    if (copied == SQLITE_DONE) copied = finished;
  }
  if (copied != SQLITE_DONE && copied != SQLITE_OK) {
    sqlite3_close_v2(memory);
    sqlite::fail(c, copied, doing);
  }
  sqlite3_close_v2(c.db);
  c.db = memory;
  sqlite3_extended_result_codes(c.db, 1);
  sqlite::harden(c.db);
}

bool open_for_reading(sqlite::Connection& c, const fs::path& path, int busy_timeout_ms) {
  sqlite3_vfs* vfs = sqlite3_vfs_find(nullptr);
  if (!vfs) sqlite::fail(c, SQLITE_ERROR, "finding SQLite's file system layer");
  for (int attempt = 0; attempt < kSnapshotAttempts; ++attempt) {
    const Look before = look_at(c, vfs, path);
    if (before.read_in_place()) {
      open_connection(c, path.string(), SQLITE_OPEN_READONLY, busy_timeout_ms);
      return false;
    }
    snapshot(c, vfs, before, busy_timeout_ms);
    if (look_at(c, vfs, path) == before) return true;
    sqlite3_close_v2(c.db);  // a writer came or went meanwhile: look again
    c.db = nullptr;
  }
  throw StoreError(c.path, SQLITE_BUSY,
                   "the WAL-mode database kept changing while a snapshot of it was taken (writers starting and "
                   "stopping beside it); try again");
}

}  // namespace mpgemm::store_detail
