#pragma once
// The numbers of a measurement, computed on the host: timing statistics, the tolerance check against the
// reference, and throughput.
#include <span>
#include <vector>

#include "common/problem_kind.hpp"
#include "common/records.hpp"
#include "common/types.hpp"

namespace mpgemm {

// Statistics of `runs` batches of `iters` launches after `warmup` launches. `per_launch_ms_per_run` holds one
// value per run: that run's elapsed time divided by `iters` (ms). Throws mpgemm::Error when it is empty, its size
// is not `runs`, or a value is negative or not finite. `noise` is relative_noise() of the values; the L2 mode and
// noise target are left for the caller to set.
TimingStats summarize(std::vector<double> per_launch_ms_per_run, int warmup, int runs, int iters);

// Element-wise |out - ref| <= atol + rtol * |ref|. A NaN or infinity in `out` is always bad (and counted in
// nan_count); so is a non-finite reference element, which cannot vouch for anything. max_abs and max_rel are taken
// over the elements where both are finite; max_rel only where ref != 0. Throws mpgemm::Error when the sizes differ
// or a tolerance is negative.
ErrorStats compare(std::span<const float> out, std::span<const float> ref, double atol, double rtol);

// The tolerance an output of type `out` is compared with against an FP32 reference: the FP32 rule (atol, rtol)
// widened by the one rounding to `out` (unit roundoff u: 2^-11 for FP16, 2^-8 for BF16, none for FP32). A result
// within atol + rtol |ref| of the reference before its rounding is within atol (1 + u) + (rtol + u (1 + rtol)) |ref|
// after it, so a correct 16-bit kernel passes where its FP32 accumulators would, and a wrong element (a fragment
// off by one, an unwritten tile, a NaN) still fails: it is off by about a whole value, not by an ulp.
struct Tolerance {
  double atol = 0;
  double rtol = 0;
};
Tolerance output_tolerance(ElementType out, double atol, double rtol);
double unit_roundoff(ElementType type);  // 2^-11, 2^-8, 0 for FP16, BF16, FP32 (FP32 results are compared as they are)

// Throughput of one GEMM of `shape` taking `ms` milliseconds (TFLOP/s); 0 when ms is not positive.
double tflops(const Shape& shape, double ms);

}  // namespace mpgemm
