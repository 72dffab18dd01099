#pragma once
// The checks the library applies to every winner it opens, from a results database or an exported file: the
// store's (store/winner_checks.hpp), one definition shared with mpgemm-run and mpgemm-export, which take their
// winners through the same store reader (store/shape_winners.hpp).
#include "store/winner_checks.hpp"

namespace mpgemm::lib {

using mpgemm::check_winners;
using mpgemm::first_unsound;
using mpgemm::kMaxRatio;
using mpgemm::kMaxTflops;
using mpgemm::kRatioTolerance;
using mpgemm::why_unsound;
using mpgemm::WinnerSource;

}  // namespace mpgemm::lib
