#pragma once
// The library's one error type (mpgemm::GemmError, include/mpgemm/gemm.hpp) made from the layers' own errors:
// the layer error's message with what the library was doing, its code kept.
#include <string_view>

#include "mpgemm/gemm.hpp"

namespace mpgemm::lib {

// Call inside a catch block: throws a GemmError of `kind` for the exception being handled, its message prefixed
// with `doing` ("loading wgmma_... for 4096x4096x4096 on NVIDIA H200"). A NoDeviceError becomes Kind::no_device and
// a GemmError passes through unchanged, whatever `kind` says; CudaError and CublasError keep their codes.
[[noreturn]] void rethrow_as(GemmError::Kind kind, std::string_view doing);

}  // namespace mpgemm::lib
