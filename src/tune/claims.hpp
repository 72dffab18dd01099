#pragma once
// Claims between processes tuning into the same database, so that none measures a candidate another is measuring.
#include <filesystem>
#include <string>
#include <utility>

#include <sys/types.h>

namespace mpgemm {

// Claims between processes tuning into the same database, so that none measures a candidate another is measuring:
// an open-file-description lock on one byte of "<db>-claims" per result key, held while the candidate is measured
// and recorded. The kernel drops the locks of a process that dies, so a killed run leaves no stale claim. Where
// the file or the locks are unavailable every claim succeeds (concurrent runs may then measure a key twice; the
// database still keeps it once).
class Claims {
 public:
  class Held {
   public:
    Held(int fd, off_t at, bool held) : fd_(fd), at_(at), held_(held) {}
    Held(Held&& o) noexcept : fd_(std::exchange(o.fd_, -1)), at_(o.at_), held_(o.held_) {}
    Held(const Held&) = delete;
    Held& operator=(const Held&) = delete;
    Held& operator=(Held&&) = delete;
    ~Held();
    explicit operator bool() const { return held_; }

   private:
    int fd_;
    off_t at_;
    bool held_;
  };

  explicit Claims(const std::filesystem::path& db);
  ~Claims();
  Claims(const Claims&) = delete;
  Claims& operator=(const Claims&) = delete;

  // The claim on `key`, or an empty one while another process holds it. With `wait`, polls until it is free or a
  // stop is requested.
  Held take(const std::string& key, bool wait) const;

 private:
  static bool lock(int fd, off_t at, short type);
  int fd_;
};

}  // namespace mpgemm
