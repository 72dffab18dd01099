#pragma once
// The parts of the exported C++ header that do not depend on the winners: the kernel-pointer macro, the host types
// (Args, TensorMapSpec, Winner) and the host functions (find, launch and their helpers). The header is
// kKernelPointer, kHostTypes, the table kWinners[], then kHostFunctions.
namespace mpgemm::export_detail {

extern const char* const kKernelPointer;
extern const char* const kHostTypes;
extern const char* const kHostFunctions;

}  // namespace mpgemm::export_detail
