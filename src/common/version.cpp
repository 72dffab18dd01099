#include "common/version.hpp"
namespace mpgemm {
const char* tool_version() {
  return MPGEMM_VERSION;
}
}  // namespace mpgemm
