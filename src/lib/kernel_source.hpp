#pragma once
// A winner's cubin: from the cubin cache the tuner filled, else compiled with NVRTC once (and kept in the cache
// when it can be written), as mpgemm-run does (compile/compile_pool.hpp compile_cached).
#include "common/records.hpp"
#include "compile/cubin_cache.hpp"
#include "store/shape_winners.hpp"

namespace mpgemm::lib {

struct WinnerCubin {
  CompileResult result;   // status ok, with the cubin and the lowered name
  bool compiled = false;  // NVRTC ran here: the cache did not have it
};

// Throws GemmError(compile_failed) when the cubin is missing and `allow_compile` is false, when the config does not
// compile (with the start of NVRTC's log), or when NVRTC or the toolkit headers are missing.
WinnerCubin winner_cubin(const ShapeWinner& winner, const CubinCache& cache, bool allow_compile);

}  // namespace mpgemm::lib
