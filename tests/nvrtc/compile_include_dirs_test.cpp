// KernelSpec::include_dirs reach NVRTC as -I after the toolkit's, relative ones under the toolkit include directory
// (CUDA 13 keeps CCCL in include/cccl), and what is found through them is part of the compile key.
#include <gtest/gtest.h>

#include <fstream>

#include "common/error.hpp"
#include "compile/includes.hpp"
#include "compile/nvrtc_compile.hpp"
#include "support/run_command.hpp"

namespace mpgemm {
namespace {

namespace fs = std::filesystem;

KernelSpec spec(const std::string& source, std::vector<std::string> include_dirs) {
  KernelSpec s;
  s.program_name = "include_dirs.cu";
  s.source = source;
  s.name_expression = "mp_kernel<1>";
  s.options = {"-std=c++17"};
  s.arch = *Arch::parse("sm_90");
  s.include_dirs = std::move(include_dirs);
  return s;
}

TEST(CompileIncludeDirs, AHeaderFromAnIncludeDirCompiles) {
  const auto dir = testing::fresh_dir("include_dirs");
  fs::create_directories(dir / "mp_lib");
  std::ofstream(dir / "mp_lib/value.h") << "#pragma once\nconstexpr float kMpValue = 2.5f;\n";
  const std::string source =
      "#include <mp_lib/value.h>\ntemplate <int N> __global__ void mp_kernel(float* x) { x[0] = N * kMpValue; }\n";

  const CompileResult found = compile(spec(source, {dir.string()}));
  EXPECT_EQ(found.status, Status::ok) << found.log;
  EXPECT_FALSE(found.lowered_name.empty());
  EXPECT_FALSE(found.cubin.empty());

  // Without its include directory the header is found nowhere: the installation's fault, an error, never the
  // config's compile_failed. Its key differs, so nothing recorded under one serves the other.
  try {
    compile(spec(source, {}));
    ADD_FAILURE() << "compiled without mp_lib";
  } catch (const NvrtcError& e) {
    EXPECT_NE(std::string(e.what()).find("mp_lib/value.h not found"), std::string::npos) << e.what();
  }
  EXPECT_NE(found.compile_key, compile_key(spec(source, {})));
  fs::remove_all(dir);
}

TEST(CompileIncludeDirs, CcclRelativeToTheToolkit) {
  if (!fs::is_directory(fs::path(resolve_cuda_include_dir()) / "cccl"))
    GTEST_SKIP() << "this toolkit keeps CCCL in its include directory itself (before CUDA 13)";
  const std::string source =
      "#include <cuda/std/cstdint>\n#include <cuda/barrier>\n"
      "template <int N> __global__ void mp_kernel(cuda::std::uint32_t* x) { x[0] = N; }\n";
  const KernelSpec with_cccl = spec(source, {"cccl"});
  const CompileResult r = compile(with_cccl);
  EXPECT_EQ(r.status, Status::ok) << r.log;
  // The key covers the CCCL headers: dozens of them, each found and hashed by content.
  const auto headers = included_headers(source, include_path(with_cccl, resolve_cuda_include_dir()));
  std::size_t found = 0;
  for (const auto& h : headers) found += h.content_hash ? 1 : 0;
  EXPECT_GT(found, 20u);
  EXPECT_NE(compile_key(with_cccl), compile_key(spec(source, {})));
}

}  // namespace
}  // namespace mpgemm
