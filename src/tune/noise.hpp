#pragma once
// Throttling and noise: a timing whose spread ((max - min) / median over its batches) exceeds `max_spread` is
// measured again, twice at most, and the steadiest timing is kept; one still above the threshold says so in its
// message. A re-measurement that no longer verifies wins outright: a kernel that passes only sometimes is wrong.
#include <optional>

#include "tune/backend.hpp"

namespace mpgemm {

std::optional<Measurement> measure_steady(MeasureBackend& backend, const Candidate& candidate,
                                          const CompileResult& compiled, const Shape& shape, double max_spread);

}  // namespace mpgemm
