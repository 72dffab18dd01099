#include "common/file_lock.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <utility>

#include "common/hash.hpp"

namespace mpgemm {

namespace {

struct flock byte_lock(short type, off_t at) {
  struct flock fl {};
  fl.l_type = type;
  fl.l_whence = SEEK_SET;
  fl.l_start = at;
  fl.l_len = 1;
  return fl;
}

}  // namespace

LockFile::LockFile(const std::filesystem::path& path) : fd_(::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644)) {}

LockFile::~LockFile() {
  if (fd_ >= 0) ::close(fd_);
}

LockFile::LockFile(LockFile&& other) noexcept : fd_(std::exchange(other.fd_, -1)) {}

LockFile::Outcome LockFile::try_lock(off_t at) const {
  if (fd_ < 0) return Outcome::unavailable;
  struct flock fl = byte_lock(F_WRLCK, at);
  errno = 0;
  if (::fcntl(fd_, F_OFD_SETLK, &fl) == 0) return Outcome::locked;
  return errno == EAGAIN || errno == EACCES ? Outcome::busy : Outcome::unavailable;  // e.g. ENOLCK
}

void LockFile::unlock(off_t at) const noexcept {
  if (fd_ < 0) return;
  struct flock fl = byte_lock(F_UNLCK, at);
  ::fcntl(fd_, F_OFD_SETLK, &fl);
}

bool LockFile::locked_elsewhere(off_t at) const {
  if (fd_ < 0) return false;
  struct flock fl = byte_lock(F_WRLCK, at);
  if (::fcntl(fd_, F_OFD_GETLK, &fl) != 0) return false;
  return fl.l_type != F_UNLCK;
}

off_t LockFile::byte_of(std::string_view key) {
  return static_cast<off_t>(fnv1a64(key) >> 4);
}

std::filesystem::path claims_path(const std::filesystem::path& db) {
  return db.string() + "-claims";
}

}  // namespace mpgemm
