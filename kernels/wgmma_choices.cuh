#pragma once
// The values of wgmma_gemm's enumerated template arguments (EPILOGUE, SCHEDULE, PDL, L2_HINTS, and the problem
// kind's A_LAYOUT, B_LAYOUT, IN and OUT, whose values are those of src/common/problem_kind.hpp's enums). The kernel
// tests its arguments against these, and the host's typed config (src/codegen/wgmma_family.hpp) defines its enums from
// them, so each value has one definition. (SPLIT_MODE's values live in split_k.cuh and RASTER's in
// tile_schedule.cuh, beside the code that reads them.) One header per family: editing one family's values leaves
// the other family's source hash, and so its recorded results and cached cubins, as they are.

namespace mpgemm {

enum : int { kEpilogueDirect = 0, kEpilogueTma = 1, kEpilogueRows = 2 };
enum : int { kScheduleCooperative = 0, kSchedulePingpong = 1 };
enum : int { kPdlNone = 0, kPdlEarly = 1, kPdlAtExit = 2 };
enum : int { kL2HintsNone = 0, kL2HintsCFirst = 1, kL2HintsCFirstAbLast = 2 };
// A stored M x K (mk) or K x M (km) row-major; B stored K x N (kn) or N x K (nk) row-major.
enum : int { kALayoutMk = 0, kALayoutKm = 1 };
enum : int { kBLayoutKn = 0, kBLayoutNk = 1 };
// Element types: A's and B's (IN: FP16 or BF16), C's and D's (OUT: any of the three).
enum : int { kElementFp16 = 0, kElementBf16 = 1, kElementFp32 = 2 };

}  // namespace mpgemm
