#pragma once
// The library's decision for one call as a pure function of (winner table, device description, problem kind and
// shape, options): the policy of dispatch_policy.hpp over the table's winners of that kind on a device of that
// name, turned into the public Dispatch. DeviceState (a real device) and the CPU tests call the same function; no
// GPU is asked anything here.
#include <optional>
#include <string>

#include "common/device.hpp"
#include "common/problem_kind.hpp"
#include "lib/dispatch_policy.hpp"
#include "lib/winner_table.hpp"
#include "mpgemm/gemm.hpp"

namespace mpgemm::lib {

struct Planned {
  Dispatch dispatch;                    // compiled false: planning compiles nothing
  const ShapeWinner* winner = nullptr;  // the winner to run, in the table; null: the vendor path
  // Why the vendor path cannot compute the kind (ProblemKind::reference_gap: FP16 into BF16 and back): when the
  // policy gives such a call to the vendor there is nothing to run it with. None when it can.
  std::optional<std::string> no_vendor;
};

// Only winners of problem.kind tuned on a device named device.name are candidates: a winner of another kind never
// serves this one, and its ratio is against the reference of its own kind. The reason starts with the kind's name.
Planned plan_call(const WinnerTable& table, const DeviceDescription& device, const GemmProblem& problem,
                  const PolicyOptions& options);

// The vendor path's name in Dispatch::config.
inline constexpr const char* kVendorConfig = "cublasGemmEx";

}  // namespace mpgemm::lib
