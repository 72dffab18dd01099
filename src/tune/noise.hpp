#pragma once
// Throttling and noise: a timing whose spread ((max - min) / median over its batches) exceeds `max_spread` is
// measured again, twice at most, and the steadiest timing is kept; one still above the threshold says so in its
// message. A re-measurement that no longer verifies wins outright: a kernel that passes only sometimes is wrong.
#include <optional>

#include "tune/backend.hpp"

namespace mpgemm {

// `screen_against_ms`: the best median so far for the shape, for the backend's screen (the first measurement only;
// a screened_out result is not re-measured). A timing taken under a noise target (TimingStats::noise_target) is
// never re-measured.
std::optional<Measurement> measure_steady(MeasureBackend& backend, const Candidate& candidate,
                                          const CompileResult& compiled, const Shape& shape, double max_spread,
                                          std::optional<double> screen_against_ms = std::nullopt);

}  // namespace mpgemm
