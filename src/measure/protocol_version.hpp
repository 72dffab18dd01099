#pragma once
// The version of what a stored measurement means, part of every result key (tune/keys.cpp). It covers the
// code that verifies and times a candidate: the poisoned output, the verification launch and the comparison
// with cuBLAS (device/candidate.cpp, measure/stats.cpp compare()), the timing protocol and its statistics
// (device/timing.cpp, measure/stats.cpp summarize()), the worker's limits on a launch (worker/), and the
// coordinator's re-measuring of noisy timings (tune/noise.cpp). Bump it with any change to that code that can
// change an outcome or a time: every database then measures its candidates again instead of reusing results
// the old code produced.
//
// History: 1 = the first versioned protocol (poison 0xFF, 1 verification launch, warm-up + runs x iters with
// CUDA events, median of per-launch batch times, up to two re-measurements of a timing above --max-spread).
// 2 = the comparison runs on the GPU (device/device_compare.cpp, equal to compare() by test); --l2 cold, noise-based
// stopping and the quick screen (measure/sampling.hpp, status screened_out); a timing under a noise target is never
// re-measured for its spread.
// 3 = with warm L2 the screening launches are one batch after as many untimed ones, not one at a time: at
// microsecond shapes single launches are mostly launch latency, and the screen discarded configs faster than the
// best; a dependent launch is verified overlapping an earlier launch of itself.
// 4 = the screen compares like with like: every config is screened (the first of a shape too) and a screen is
// compared with the fastest screen the worker saw on the shape, not with a full median (a few launches read slower
// per launch than a full batch, so configs close to the best were screened out).
// 5 = a graph batch is uploaded before its first timed replay (the first replay uploaded it, which widened every
// microsecond timing's spread past --max-spread, so each was measured three times and flagged noisy); a capture's
// error is cleared when it is abandoned.
// The evidence for 3-5 is in docs/findings.md, "The quick screen must compare like with like".
// (--settle-ms, untimed cuBLAS launches when a shape is prepared, is off by default and enters the key when set.
// The worker's clock hold, --keep-warm-ms and --idle-settle-ms, enters the key when set, and the command lines set
// it by default: keys measured with the hold differ from every key measured before it existed, so an older database
// is measured again unless both are 0.)
// Not bumped when the inputs came to be filled in blocks of 2^20 with a generator each (other values for a seed)
// and a prepared shape came to settle again after cuBLASLt's search: the tuner draws a fresh seed for
// every shape of every run, so no stored outcome rested on the old values, and the second settling moves only the
// clock a shape's first configs meet, toward the one the rest of the shape meets.
namespace mpgemm {

inline constexpr int kMeasureProtocolVersion = 5;

}  // namespace mpgemm
