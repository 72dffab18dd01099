#pragma once
// The values of the kernels' enumerated template arguments. The kernels (NVRTC) test their arguments against these,
// and the host's typed configs (src/codegen/) define their enums from them, so each value has one definition.
// (SPLIT_MODE's values live in split_k.cuh and RASTER's in tile_schedule.cuh, beside the code that reads them.)

namespace mpgemm {

// wmma_gemm LOAD: how operand tiles reach the tensor cores.
enum : int { kLoadDirect = 0, kLoadSync = 1, kLoadCpAsync = 2 };

// wgmma_gemm EPILOGUE, SCHEDULE, PDL and L2_HINTS.
enum : int { kEpilogueDirect = 0, kEpilogueTma = 1, kEpilogueRows = 2 };
enum : int { kScheduleCooperative = 0, kSchedulePingpong = 1 };
enum : int { kPdlNone = 0, kPdlEarly = 1, kPdlAtExit = 2 };
enum : int { kL2HintsNone = 0, kL2HintsCFirst = 1, kL2HintsCFirstAbLast = 2 };

}  // namespace mpgemm
