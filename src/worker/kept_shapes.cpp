#include "worker/kept_shapes.hpp"

namespace mpgemm {

std::size_t kept_shapes_to_let_go(std::span<const std::size_t> bytes, double limit_bytes, std::size_t most) {
  double held = 0;
  for (const std::size_t b : bytes) held += static_cast<double>(b);
  std::size_t go = 0;
  while (go < bytes.size() && (bytes.size() - go > most || held > limit_bytes)) {
    held -= static_cast<double>(bytes[go]);
    ++go;
  }
  return go;
}

}  // namespace mpgemm
