#pragma once
// The values of wmma_gemm's enumerated template argument LOAD (how operand tiles reach the tensor cores). The
// kernel tests its argument against these, and the host's typed config (src/codegen/wmma_family.hpp) defines its
// enum from them, so each value has one definition.

namespace mpgemm {

enum : int { kLoadDirect = 0, kLoadSync = 1, kLoadCpAsync = 2 };

}  // namespace mpgemm
