// A source that does not compile is a result, not an exception; the pool keeps order and survives failures.
#include <gtest/gtest.h>

#include <mutex>
#include <stdexcept>
#include <vector>

#include "codegen/wmma_family.hpp"
#include "common/error.hpp"
#include "compile/compile_pool.hpp"
#include "compile/nvrtc_compile.hpp"

namespace mpgemm {
namespace {

KernelSpec broken_spec() {
  KernelSpec s;
  s.program_name = "broken.cu";
  s.source = "__global__ void broken(float* p) { p[0] = undefined_thing; }\n";
  s.arch = Arch{8, 6, false};
  return s;
}

KernelSpec point_spec(const WmmaConfig& c) {
  return WmmaFamily{}.kernel_spec(c.to_params(), Arch{8, 6, false});
}

TEST(Compile, BrokenSourceIsCompileFailedWithTheLog) {
  CompileResult r;
  ASSERT_NO_THROW(r = compile(broken_spec()));
  EXPECT_EQ(r.status, Status::compile_failed);
  EXPECT_NE(r.log.find("undefined_thing"), std::string::npos) << r.log;
  EXPECT_NE(r.log.find("error"), std::string::npos) << r.log;
  EXPECT_TRUE(r.cubin.empty());
  EXPECT_TRUE(r.lowered_name.empty());
  EXPECT_EQ(r.registers, -1);
  EXPECT_FALSE(r.compile_key.empty());
}

TEST(Compile, UnknownNameExpressionIsCompileFailed) {
  KernelSpec s = point_spec(WmmaConfig{});
  s.name_expression = "mpgemm::no_such_kernel<1>";
  const CompileResult r = compile(s);
  EXPECT_EQ(r.status, Status::compile_failed);
  EXPECT_NE(r.log.find("no_such_kernel"), std::string::npos) << r.log;
}

TEST(Compile, InvalidOptionIsCompileFailed) {
  KernelSpec s = broken_spec();
  s.source = "__global__ void k() {}\n";
  s.options = {"--no-such-option"};
  const CompileResult r = compile(s);
  EXPECT_EQ(r.status, Status::compile_failed);
  EXPECT_FALSE(r.log.empty());
}

// A header the kernel code includes that is found nowhere is the installation's fault: an error (retried by
// the pool, then reported), never the config's compile_failed.
TEST(Compile, AMissingHeaderIsAnErrorNotAResult) {
  KernelSpec s = broken_spec();
  s.source = "#include <mpgemm_no_such_header.h>\n__global__ void k() {}\n";
  try {
    compile(s);
    ADD_FAILURE() << "compiled";
  } catch (const NvrtcError& e) {
    EXPECT_NE(std::string(e.what()).find("mpgemm_no_such_header.h not found on the include path"), std::string::npos)
        << e.what();
  }
  // A compile error beside headers that are all there stays a result.
  s.source = "#include <cuda_fp16.h>\n__global__ void k(float* p) { p[0] = undefined_thing; }\n";
  EXPECT_EQ(compile(s).status, Status::compile_failed);
}

TEST(CompilePool, KeepsOrderAndSurvivesAFailure) {
  const WmmaConfig naive{16, 16, 16, 16, 16, 1, WmmaLoad::direct, 0, 0};
  const WmmaConfig cp_async{};
  const std::vector<KernelSpec> specs = {point_spec(naive), broken_spec(), point_spec(cp_async)};
  std::mutex m;
  std::vector<std::size_t> seen;
  CompilePoolOptions options;
  options.threads = 2;
  const auto results = compile_all(specs, options, [&](std::size_t done, std::size_t total) {
    std::lock_guard lock(m);  // the pool serializes calls; the lock only makes that checkable
    EXPECT_EQ(total, 3u);
    seen.push_back(done);
  });
  ASSERT_EQ(results.size(), 3u);
  EXPECT_EQ(results[0].result.status, Status::ok) << results[0].result.log;
  EXPECT_EQ(results[1].result.status, Status::compile_failed);
  EXPECT_EQ(results[2].result.status, Status::ok) << results[2].result.log;
  EXPECT_NE(results[0].result.lowered_name.find("Li16ELi16ELi16ELi16ELi16ELi1ELi0ELi0ELi0E"), std::string::npos);
  EXPECT_NE(results[2].result.lowered_name.find("Li128ELi64ELi32ELi32ELi32ELi2ELi2ELi8ELi8E"), std::string::npos);
  EXPECT_EQ(seen, (std::vector<std::size_t>{1, 2, 3}));
}

TEST(CompilePool, EmptyInputAndProgressErrors) {
  CompilePoolOptions one_thread;
  one_thread.threads = 1;
  EXPECT_TRUE(compile_all({}, one_thread).empty());
  const std::vector<KernelSpec> specs = {broken_spec(), broken_spec()};
  int calls = 0;
  EXPECT_THROW(compile_all(specs, one_thread,
                           [&](std::size_t, std::size_t) {
                             ++calls;
                             throw std::runtime_error("stop");
                           }),
               std::runtime_error);
  EXPECT_EQ(calls, 1);  // after the first throw the callback is not called again
}

}  // namespace
}  // namespace mpgemm
