#pragma once
// Test support: compiles the device test kernels (device_test_kernels.hpp) to a cubin for the device's arch with
// NVRTC, loaded at run time so the device tests need not link it. Header-only, for the GPU tests.
#include <dlfcn.h>
#include <nvrtc.h>

#include <stdexcept>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "common/types.hpp"
#include "device_test_kernels.hpp"

namespace mpgemm::test {

inline std::vector<char> compile_test_kernels(const Arch& arch) {
  void* lib = dlopen("libnvrtc.so.13", RTLD_NOW);
  if (lib == nullptr) lib = dlopen("libnvrtc.so", RTLD_NOW);
  if (lib == nullptr) throw std::runtime_error(fmt::format("cannot load NVRTC: {}", dlerror()));
  const auto create = reinterpret_cast<decltype(&nvrtcCreateProgram)>(dlsym(lib, "nvrtcCreateProgram"));
  const auto compile = reinterpret_cast<decltype(&nvrtcCompileProgram)>(dlsym(lib, "nvrtcCompileProgram"));
  const auto log_size = reinterpret_cast<decltype(&nvrtcGetProgramLogSize)>(dlsym(lib, "nvrtcGetProgramLogSize"));
  const auto get_log = reinterpret_cast<decltype(&nvrtcGetProgramLog)>(dlsym(lib, "nvrtcGetProgramLog"));
  const auto cubin_size = reinterpret_cast<decltype(&nvrtcGetCUBINSize)>(dlsym(lib, "nvrtcGetCUBINSize"));
  const auto get_cubin = reinterpret_cast<decltype(&nvrtcGetCUBIN)>(dlsym(lib, "nvrtcGetCUBIN"));
  const auto destroy = reinterpret_cast<decltype(&nvrtcDestroyProgram)>(dlsym(lib, "nvrtcDestroyProgram"));
  if (!create || !compile || !log_size || !get_log || !cubin_size || !get_cubin || !destroy)
    throw std::runtime_error("NVRTC lacks an entry point");

  const std::string source(kDeviceTestKernels);
  nvrtcProgram program = nullptr;
  if (create(&program, source.c_str(), "device_test_kernels.cu", 0, nullptr, nullptr) != NVRTC_SUCCESS)
    throw std::runtime_error("nvrtcCreateProgram failed");
  const std::string arch_option = fmt::format("--gpu-architecture=sm_{}{}", arch.major, arch.minor);
  const char* options[] = {arch_option.c_str(), "-std=c++17"};
  const nvrtcResult result = compile(program, 2, options);
  std::size_t size = 0;
  log_size(program, &size);
  std::string log(size, '\0');
  get_log(program, log.data());
  if (result != NVRTC_SUCCESS) {
    destroy(&program);
    throw std::runtime_error("NVRTC failed on the test kernels:\n" + log);
  }
  cubin_size(program, &size);
  std::vector<char> cubin(size);
  get_cubin(program, cubin.data());
  destroy(&program);
  return cubin;
}

}  // namespace mpgemm::test
