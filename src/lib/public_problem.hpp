#pragma once
// The public mpgemm::Problem (include/mpgemm/gemm.hpp) and the internal ProblemKind it mirrors: the public header
// includes no internal one, so the library converts at its edge.
#include "common/problem_kind.hpp"
#include "mpgemm/gemm.hpp"

namespace mpgemm::lib {

// Throws GemmError(bad_argument) for a Problem that is no kind (an input type of fp32, an enumerator out of range).
ProblemKind to_kind(const Problem& problem);
Problem to_public(const ProblemKind& kind);

}  // namespace mpgemm::lib
