#include "measure/fault.hpp"

#include <algorithm>

namespace mpgemm {

namespace {
template <std::size_t R, std::size_t L>
FaultClass classify(int code, int success, const std::array<int, R>& refused, const std::array<int, L>& lost) {
  if (code == success) return FaultClass::none;
  if (std::find(refused.begin(), refused.end(), code) != refused.end()) return FaultClass::launch_refused;
  if (std::find(lost.begin(), lost.end(), code) != lost.end()) return FaultClass::context_lost;
  return FaultClass::unknown;
}
}  // namespace

FaultClass classify_driver_result(int code) {
  return classify(code, cu_result::success, cu_result::launch_refused, cu_result::context_lost);
}

FaultClass classify_runtime_error(int code) {
  return classify(code, cuda_error::success, cuda_error::launch_refused, cuda_error::context_lost);
}

Status status_for(FaultClass fault) {
  switch (fault) {
    case FaultClass::none:
      return Status::ok;
    case FaultClass::launch_refused:
      return Status::launch_failed;
    case FaultClass::context_lost:
    case FaultClass::unknown:
      break;
  }
  return Status::runtime_fault;
}

bool context_unusable(FaultClass fault) {
  return fault == FaultClass::context_lost || fault == FaultClass::unknown;
}

}  // namespace mpgemm
