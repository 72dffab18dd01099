#pragma once
// Open-file-description (OFD) locks on single bytes of a lock file, between processes and between threads: a
// lock belongs to the open file description, so each LockFile (its own open()) excludes every other, in this
// process or another. The kernel drops the locks of a process that dies, so kill -9 leaves nothing stale
// behind. Where the file cannot be opened, or its file system has no locks, callers carry on without
// (usable() / unavailable).
#include <sys/types.h>

#include <filesystem>
#include <string_view>

namespace mpgemm {

class LockFile {
 public:
  enum class Outcome {
    locked,       // this LockFile now holds the byte
    busy,         // another holds it
    unavailable,  // no lock file or no locks on this file system
  };

  // Opens `path` (created if missing, mode 0644).
  explicit LockFile(const std::filesystem::path& path);
  ~LockFile();  // closes the file: every lock it holds is released
  LockFile(LockFile&& other) noexcept;
  LockFile& operator=(LockFile&&) = delete;
  LockFile(const LockFile&) = delete;
  LockFile& operator=(const LockFile&) = delete;

  bool usable() const { return fd_ >= 0; }

  // An exclusive lock on byte `at`, without waiting.
  Outcome try_lock(off_t at) const;
  void unlock(off_t at) const noexcept;
  // True when another open file description holds a lock on byte `at`; false when none does or it cannot
  // tell.
  bool locked_elsewhere(off_t at) const;

  // The byte standing for `key`, in [0, 2^60): distinct keys rarely share one, and sharing only serializes
  // them.
  static off_t byte_of(std::string_view key);

 private:
  int fd_ = -1;
};

// "<db>-claims": the lock file of the processes working on one results database. Its bytes below 2^60 are
// claims on result keys (tune/claims.hpp, LockFile::byte_of); byte kLiveRunBase + id is held by run `id`
// while its process lives (store: a dead run is marked interrupted by the next one).
std::filesystem::path claims_path(const std::filesystem::path& db);
inline constexpr off_t kLiveRunBase = off_t{1} << 60;

}  // namespace mpgemm
