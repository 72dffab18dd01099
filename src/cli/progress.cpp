#include "cli/progress.hpp"

#include <unistd.h>

#include <cstdio>

#include <fmt/format.h>

namespace mpgemm::cli {

Progress::Progress(std::string phase, std::size_t total)
    : phase_(std::move(phase)),
      total_(total),
      tty_(isatty(STDERR_FILENO) != 0),
      start_(std::chrono::steady_clock::now()) {}

std::string Progress::format_duration(double seconds) {
  if (seconds < 1) return "<1s";
  auto s = static_cast<long>(seconds + 0.5);
  if (s >= 3600) return fmt::format("{}:{:02}:{:02}", s / 3600, (s / 60) % 60, s % 60);
  return fmt::format("{}:{:02}", s / 60, s % 60);
}

void Progress::update(std::size_t done, const std::string& current) {
  done_ = done;
  if (total_ == 0) return;
  double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  double eta = done > 0 ? elapsed / static_cast<double>(done) * static_cast<double>(total_ - done) : 0;
  std::string line = fmt::format("{} [{}/{}] {:3}%  elapsed {}  ETA {}  {}", phase_, done, total_, done * 100 / total_,
                                 format_duration(elapsed), done > 0 ? format_duration(eta) : "?", current);
  if (tty_) {
    if (line.size() > 150) line = line.substr(0, 147) + "...";
    std::fprintf(stderr, "\r\033[K%s", line.c_str());
    std::fflush(stderr);
  } else {
    std::size_t step = total_ >= 20 ? total_ / 10 : 1;
    if (done == total_ || done >= last_printed_ + step) {
      std::fprintf(stderr, "%s\n", line.c_str());
      last_printed_ = done;
    }
  }
}

void Progress::finish() {
  if (finished_) return;
  finished_ = true;
  double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  if (tty_) std::fprintf(stderr, "\r\033[K");
  if (done_ == total_ || total_ == 0)
    std::fprintf(stderr, "%s: %zu done in %s\n", phase_.c_str(), total_, format_duration(elapsed).c_str());
  else  // stopped early (interrupted, or a failure ended the pass): say how far it got, not the total
    std::fprintf(stderr, "%s: stopped after %zu of %zu in %s\n", phase_.c_str(), done_, total_,
                 format_duration(elapsed).c_str());
}

}  // namespace mpgemm::cli
