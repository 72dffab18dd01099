#include "device/device_info.hpp"

#include <fmt/format.h>

namespace mpgemm {

std::string cuda_version_string(int version) {
  return fmt::format("{}.{}", version / 1000, version % 1000 / 10);
}

std::string cublas_version_string(int version) {
  return fmt::format("{}.{}.{}", version / 10000, version % 10000 / 100, version % 100);
}

}  // namespace mpgemm
