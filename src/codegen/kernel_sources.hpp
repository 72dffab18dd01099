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
// The embedded file by name; throws mpgemm::Error if there is none.
std::string_view kernel_source(std::string_view name);

// The embedded files `text` includes with #include "name", directly or through each other, each once, in the
// order first met. What a translation unit can see of kernels/: hashing these (and not every embedded file)
// keeps one family's keys stable when another family's file changes.
std::vector<KernelSource> included_sources(std::string_view text);

}  // namespace mpgemm
