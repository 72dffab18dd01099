#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>

#include "compile/nvrtc_compile.hpp"

namespace mpgemm {
namespace {

KernelSpec spec(const char* arch) {
  KernelSpec s;
  s.program_name = "k.cu";
  s.source = "#include \"wmma_gemm.cuh\"\n";
  s.name_expression = "mpgemm::wmma_gemm<128, 64, 32, 32, 32, 2, 2, 8, 8>";
  s.options = {"-std=c++17"};
  s.arch = *Arch::parse(arch);
  return s;
}

TEST(CompileOptions, ArchFirstThenReportThenSpecThenExtra) {
  CompileOptions o;
  o.extra_options = {"-G"};
  EXPECT_EQ(nvrtc_options(spec("sm_90a"), o),
            (std::vector<std::string>{"--gpu-architecture=sm_90a", "--ptxas-options=-v", "-std=c++17", "-G"}));
}

TEST(CompileOptions, KeyIsDeterministicAndCoversEveryInput) {
  const std::string key = compile_key(spec("sm_86"));
  EXPECT_EQ(key.size(), 16u);
  EXPECT_EQ(key, compile_key(spec("sm_86")));
  EXPECT_NE(key, compile_key(spec("sm_90")));
  KernelSpec other = spec("sm_86");
  other.name_expression = "mpgemm::wmma_gemm<128, 64, 64, 32, 32, 1, 1, 0, 0>";
  EXPECT_NE(key, compile_key(other));
  CompileOptions extra;
  extra.extra_options = {"-G"};
  EXPECT_NE(key, compile_key(spec("sm_86"), extra));
  CompileOptions same_dir;  // where the headers lie is not part of the key, only what they say
  same_dir.cuda_include_dir = resolve_cuda_include_dir() + "/.";
  EXPECT_EQ(key, compile_key(spec("sm_86"), same_dir));
  CompileOptions no_toolkit;  // cuda_fp16.h and mma.h found nowhere: they count by name only
  no_toolkit.cuda_include_dir = "/elsewhere/include";
  EXPECT_NE(key, compile_key(spec("sm_86"), no_toolkit));
}

TEST(CompileOptions, VersionAndIncludeDir) {
  EXPECT_FALSE(nvrtc_version().empty());
  EXPECT_NE(nvrtc_version().find('.'), std::string::npos);
  EXPECT_TRUE(std::filesystem::exists(std::filesystem::path(resolve_cuda_include_dir()) / "cuda_fp16.h"));
}

}  // namespace
}  // namespace mpgemm
