#include "tune/claims.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <thread>

#include "common/file_lock.hpp"
#include "tune/tuner.hpp"

namespace mpgemm {

Claims::Held::~Held() {
  if (held_ && fd_ >= 0) lock(fd_, at_, F_UNLCK);
}

Claims::Claims(const std::filesystem::path& db)
    : fd_(::open(claims_path(db).c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644)) {}

Claims::~Claims() {
  if (fd_ >= 0) ::close(fd_);
}

Claims::Held Claims::take(const std::string& key, bool wait) const {
  if (fd_ < 0) return Held(-1, 0, true);
  const off_t at = LockFile::byte_of(key);  // below 2^60: any key, any byte, no overflow
  for (;;) {
    errno = 0;
    if (lock(fd_, at, F_WRLCK)) return Held(fd_, at, true);
    if (errno != EAGAIN && errno != EACCES) return Held(-1, 0, true);  // no locks here (e.g. ENOLCK)
    if (!wait || g_stop_requested) return Held(-1, 0, false);
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
}

bool Claims::lock(int fd, off_t at, short type) {
  struct flock fl {};
  fl.l_type = type;
  fl.l_whence = SEEK_SET;
  fl.l_start = at;
  fl.l_len = 1;
  return ::fcntl(fd, F_OFD_SETLK, &fl) == 0;
}

}  // namespace mpgemm
