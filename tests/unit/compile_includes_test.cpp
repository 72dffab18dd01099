// Compile keys cover every header a translation unit includes, in both forms: the embedded kernels/ files and
// headers found on the toolkit include path and the spec's include_dirs. Temporary directories stand in for
// toolkit headers: the cache is per process and per path, so every variant lives in a directory of its own.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <future>
#include <thread>

#include "compile/includes.hpp"
#include "compile/nvrtc_compile.hpp"
#include "support/run_command.hpp"

namespace mpgemm {
namespace {

namespace fs = std::filesystem;

void write(const fs::path& path, const std::string& text) {
  fs::create_directories(path.parent_path());
  std::ofstream(path) << text;
}

// A library laid out like a toolkit's: mp_lib/api.h includes <mp_lib/detail.h> and "local.h" (next to it).
fs::path library(const fs::path& root, const std::string& detail = "int detail();\n",
                 const std::string& local = "int local();\n") {
  write(root / "mp_lib/api.h", "#pragma once\n#include <mp_lib/detail.h>\n#include \"local.h\"\nint api();\n");
  write(root / "mp_lib/detail.h", detail);
  write(root / "mp_lib/local.h", local);
  return root;
}

KernelSpec spec_including(const std::string& source, std::vector<std::string> include_dirs = {}) {
  KernelSpec s;
  s.program_name = "k.cu";
  s.source = source;
  s.name_expression = "k";
  s.arch = *Arch::parse("sm_90");
  s.include_dirs = std::move(include_dirs);
  return s;
}

std::vector<std::string> names(const std::vector<IncludedHeader>& headers) {
  std::vector<std::string> out;
  for (const auto& h : headers) out.push_back(h.name);
  return out;
}

class CompileIncludes : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = testing::fresh_dir(::testing::UnitTest::GetInstance()->current_test_info()->name()); }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
};

TEST_F(CompileIncludes, AHeaderChangedInAnIncludeDirChangesTheKey) {
  const std::string source = "#include <mp_lib/api.h>\n";
  const auto original = library(dir_ / "original");
  const auto copy = library(dir_ / "copy");  // the same files elsewhere
  const auto detail_edited = library(dir_ / "detail_edited", "int detail(); // edited\n");
  const auto local_edited = library(dir_ / "local_edited", "int detail();\n", "int local(int);\n");

  const std::string key = compile_key(spec_including(source, {original.string()}));
  EXPECT_EQ(key, compile_key(spec_including(source, {original.string()})));
  EXPECT_EQ(key, compile_key(spec_including(source, {copy.string()}))) << "where the headers lie is not in the key";
  EXPECT_NE(key, compile_key(spec_including(source, {detail_edited.string()}))) << "an <x> include of an include";
  EXPECT_NE(key, compile_key(spec_including(source, {local_edited.string()}))) << "a \"x\" include next to its file";
  EXPECT_NE(key, compile_key(spec_including(source))) << "headers found nowhere count by name only";
}

TEST_F(CompileIncludes, WalksBothFormsTransitivelyEachHeaderOnce) {
  const auto root = library(dir_ / "lib");
  write(root / "mp_lib/cycle_a.h", "#include \"cycle_b.h\"\n#include <mp_lib/api.h>\n");
  write(root / "mp_lib/cycle_b.h", "#include \"cycle_a.h\"\n#include <mp_lib/local.h>\n");
  const auto headers = included_headers("#include <mp_lib/cycle_a.h>\n#include <cstdint>\n#include <cstdint>\n",
                                        {(dir_ / "nowhere").string(), root.string()});
  // local.h is reached as <mp_lib/local.h> first, so api.h's "local.h" is the same file again.
  EXPECT_EQ(names(headers), (std::vector<std::string>{"mp_lib/cycle_a.h", "cycle_b.h", "mp_lib/local.h", "mp_lib/api.h",
                                                      "mp_lib/detail.h", "cstdint"}));
  for (std::size_t i = 0; i + 1 < headers.size(); ++i) EXPECT_TRUE(headers[i].content_hash) << headers[i].name;
  EXPECT_FALSE(headers.back().content_hash) << "an NVRTC built-in is found nowhere";
}

TEST_F(CompileIncludes, DirectivesAreReadTextuallyIgnoringConditions) {
  write(dir_ / "inc/in_if.h", "");
  write(dir_ / "inc/spaced.h", "");
  write(dir_ / "inc/commented.h", "");
  const auto headers = included_headers(
      "#if 0\n#include <in_if.h>\n#endif\n  #  include\t\"spaced.h\"\n// #include <commented.h>\n"
      "#include MP_COMPUTED_HEADER\n#include_next <in_if.h>\n",
      {(dir_ / "inc").string()});
  EXPECT_EQ(names(headers), (std::vector<std::string>{"in_if.h", "spaced.h"}));
}

TEST_F(CompileIncludes, EmbeddedKernelFilesAndTheirToolkitHeaders) {
  const auto headers = included_headers("#include \"wmma_gemm.cuh\"\n", {resolve_cuda_include_dir()});
  ASSERT_FALSE(headers.empty());
  EXPECT_EQ(headers.front().name, "wmma_gemm.cuh");
  const auto has = [&](const char* name) {
    return std::any_of(headers.begin(), headers.end(),
                       [&](const IncludedHeader& h) { return h.name == name && h.content_hash; });
  };
  EXPECT_TRUE(has("cuda_fp16.h"));
  EXPECT_TRUE(has("mma.h"));
  EXPECT_TRUE(has("cuda_fp16.hpp")) << "cuda_fp16.h's own include, found next to it";
  // Another family's kernel file is not part of it.
  for (const auto& h : headers) EXPECT_NE(h.name, "test_faulty.cuh");
}

TEST(CompileIncludePath, RelativeDirectoriesAreUnderTheToolkit) {
  KernelSpec s = spec_including("", {"cccl", "/opt/elsewhere/include"});
  EXPECT_EQ(include_path(s, "/tk/include"),
            (std::vector<std::string>{"/tk/include", "/tk/include/cccl", "/opt/elsewhere/include"}));
  EXPECT_EQ(include_path(spec_including(""), "/tk/include"), (std::vector<std::string>{"/tk/include"}));
}

TEST_F(CompileIncludes, KeysAgreeAcrossThreads) {
  const auto root = library(dir_ / "lib");
  const KernelSpec s = spec_including("#include <mp_lib/api.h>\n#include \"wmma_gemm.cuh\"\n", {root.string()});
  std::vector<std::future<std::string>> keys;
  for (int t = 0; t < 8; ++t) keys.push_back(std::async(std::launch::async, [&] { return compile_key(s); }));
  std::vector<std::string> got;
  for (auto& k : keys) got.push_back(k.get());
  for (const auto& k : got) EXPECT_EQ(k, got.front());
}

}  // namespace
}  // namespace mpgemm
