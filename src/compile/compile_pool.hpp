#pragma once
// Compiles many KernelSpecs on a pool of threads. Results come back in input order; a config that fails to compile
// (or whose compile throws) becomes a compile_failed result and never stops the others.
#include <cstddef>
#include <functional>
#include <vector>

#include "codegen/family.hpp"
#include "common/records.hpp"
#include "compile/nvrtc_compile.hpp"

namespace mpgemm {

// Called after each compile with the number finished so far; calls are serialized, never concurrent.
using CompileProgress = std::function<void(std::size_t done, std::size_t total)>;

// threads <= 0: std::thread::hardware_concurrency(). Throws NvrtcError up front when the toolkit headers cannot be
// found, and rethrows (after every thread has joined) the first exception a progress callback threw.
std::vector<CompileResult> compile_all(const std::vector<KernelSpec>& specs, int threads = 0,
                                       const CompileProgress& progress = {}, const CompileOptions& options = {});

}  // namespace mpgemm
