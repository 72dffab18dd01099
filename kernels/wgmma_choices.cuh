#pragma once
// The values of wgmma_gemm's enumerated template arguments (EPILOGUE, SCHEDULE, PDL, L2_HINTS). The kernel tests
// its arguments against these, and the host's typed config (src/codegen/wgmma_family.hpp) defines its enums from
// them, so each value has one definition. (SPLIT_MODE's values live in split_k.cuh and RASTER's in
// tile_schedule.cuh, beside the code that reads them.) One header per family: editing one family's values leaves
// the other family's source hash, and so its recorded results and cached cubins, as they are.

namespace mpgemm {

enum : int { kEpilogueDirect = 0, kEpilogueTma = 1, kEpilogueRows = 2 };
enum : int { kScheduleCooperative = 0, kSchedulePingpong = 1 };
enum : int { kPdlNone = 0, kPdlEarly = 1, kPdlAtExit = 2 };
enum : int { kL2HintsNone = 0, kL2HintsCFirst = 1, kL2HintsCFirstAbLast = 2 };

}  // namespace mpgemm
