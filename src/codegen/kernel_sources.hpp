#pragma once
// The files of kernels/, embedded at build time (cmake/embed_kernels.cmake). NVRTC sees them as headers by name.
#include <string_view>
#include <vector>

namespace mpgemm {

struct KernelSource {
  std::string_view name;  // file name inside kernels/, e.g. "wmma_gemm.cuh"
  std::string_view text;  // its content
};

const std::vector<KernelSource>& kernel_sources();
// The embedded file by name; throws mpgemm::Error if there is none. (What a translation unit includes of them,
// and of the toolkit, is compile/includes.hpp's to find.)
std::string_view kernel_source(std::string_view name);

}  // namespace mpgemm
