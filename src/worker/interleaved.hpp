#pragma once
// The GPU side of time_interleaved (worker/protocol.hpp): the top-K re-rank's kernels verified once each, warmed
// up, run in untimed rounds for request.settle_ms when asked, then timed in balanced rounds beside cuBLAS (and
// cuBLASLt's chosen algorithm) on the prepared problem.
#include <vector>

#include "device/cublaslt.hpp"
#include "device/problem.hpp"
#include "device/session.hpp"
#include "worker/protocol.hpp"

namespace mpgemm {

// The entries timed in round `round`, in order. Entries 0..n-1 are the kernels, n is cuBLAS, n + 1 cuBLASLt when
// it is in the rounds; `active` (one per entry) says which are still in (a dropped entry keeps its place in the
// design, the others close up). Rounds 0, 1, ... are the timed ones; the untimed rounds before them pass negative
// numbers. The design is a Williams square: with E entries, over E rounds (2E when E is odd) every entry holds every
// position equally often and follows every other entry equally often, so neither a position nor a predecessor
// (the clock and power a kernel leaves behind under a power cap) favours anyone. The rotation it replaces balanced
// positions only: cuBLAS always ran right after the same kernel. Pure.
std::vector<int> interleaved_order(int round, const std::vector<bool>& active);

// Runs `request` on the prepared problem. `cublaslt`: the session holding the algorithm chosen for the prepared
// shape (CublasLtSession::best_of_heuristics), or null when the shape has none; cuBLASLt joins the rounds when
// the request asks for it and the session has an algorithm for the shape. A kernel that fails verification or a
// batch gets that status and drops out; the others go on (a cuBLASLt launch that fails likewise: its samples end
// there and cublaslt_message says why). When a kernel leaves the context unusable the rounds stop there and the
// reply says context_lost. Throws for cuBLAS's failures and the machinery's (CudaError, CublasError,
// mpgemm::Error for an unknown family), as the other requests do.
InterleavedReply time_interleaved(DeviceSession& session, ProblemContext& problem,
                                  const TimeInterleavedRequest& request, CublasLtSession* cublaslt);

}  // namespace mpgemm
