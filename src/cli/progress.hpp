#pragma once
// Progress of a long pass (compiling, measuring) on stderr with a rate-based ETA. On a terminal it redraws one
// line; otherwise (CI logs, pipes) it prints a line every few percent so logs stay short.
#include <chrono>
#include <cstddef>
#include <string>

namespace mpgemm::cli {

class Progress {
 public:
  Progress(std::string phase, std::size_t total);
  // Marks `done` of `total` finished; `current` names what was just finished (a config name).
  void update(std::size_t done, const std::string& current);
  // Prints the final line with the elapsed time: "N done in T", or "stopped after D of N in T" when the last
  // update() was short of the total.
  void finish();
  static std::string format_duration(double seconds);  // "1:05", "1:02:03", "<1s"

 private:
  std::string phase_;
  std::size_t total_;
  std::size_t last_printed_ = 0;
  std::size_t done_ = 0;
  bool tty_;
  bool finished_ = false;
  std::chrono::steady_clock::time_point start_;
};

}  // namespace mpgemm::cli
