#pragma once
// The reference of a fused epilogue (issue 60): the FP32 reference D = alpha * A.B + beta * C that the vendor
// computes, then, element by element, the column's bias and the activation exactly as the kernels define them
// (kernels/epilogue_ops.cuh, compiled for the host here). The bias is the one the kernels read, widened exactly to
// float. On the host, on up to `threads` threads (0: one per hardware thread, at most 16): once per problem.
#include <cstdint>
#include <span>

#include "common/problem_kind.hpp"

namespace mpgemm {

// d (M x N row-major, FP32) = op(d + bias[n]) for `epilogue` (none: unchanged). Throws mpgemm::Error when d is not
// M x N or bias not N long.
void apply_epilogue_reference(std::span<float> d, std::span<const float> bias, std::int64_t m, std::int64_t n,
                              Epilogue epilogue, unsigned threads = 0);

}  // namespace mpgemm
