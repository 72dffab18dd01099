#include <gtest/gtest.h>

#include "compile/ptxas_report.hpp"

namespace mpgemm {
namespace {

// Captured from NVRTC 13.0 (--ptxas-options=-v), sm_86: entry lines precede each function's properties.
constexpr const char* kSm86Log =
    "ptxas info    : 60 bytes gmem, 120 bytes cmem[4]\n"
    "ptxas info    : Compiling entry function '_ZN6mpgemm9wmma_gemmILi16ELi16ELi16ELi16ELi16ELi1ELi0ELi0ELi0EEEvPK6__"
    "halfS3_Pfiii' for 'sm_86'\n"
    "ptxas info    : Function properties for _ZN6mpgemm9wmma_gemmILi16ELi16ELi16ELi16ELi16ELi1ELi0ELi0ELi0EEEvPK6__"
    "halfS3_Pfiii\n"
    "ptxas         .     0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n"
    "ptxas info    : Used 43 registers, used 0 barriers, 388 bytes cmem[0]\n"
    "ptxas info    : Compile time = 38.027 ms\n"
    "ptxas info    : Compiling entry function '_ZN6mpgemm9wmma_gemmILi128ELi64ELi32ELi32ELi32ELi2ELi2ELi8ELi8EEEvPK6__"
    "halfS3_Pfiii' for 'sm_86'\n"
    "ptxas info    : Function properties for _ZN6mpgemm9wmma_gemmILi128ELi64ELi32ELi32ELi32ELi2ELi2ELi8ELi8EEEvPK6__"
    "halfS3_Pfiii\n"
    "ptxas         .     0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n"
    "ptxas info    : Used 72 registers, used 1 barriers, 388 bytes cmem[0]\n"
    "ptxas info    : Compile time = 111.951 ms\n";

// Captured from NVRTC 13.0, sm_90: no "Compiling entry function" lines.
constexpr const char* kSm90Log =
    "ptxas info    : 84 bytes gmem\n"
    "ptxas info    : Function properties for _ZN6mpgemm9wmma_gemmILi128ELi64ELi32ELi32ELi32ELi2ELi2ELi8ELi8EEEvPK6__"
    "halfS3_Pfiii\n"
    "ptxas         .     0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n"
    "ptxas info    : Used 73 registers, used 1 barriers\n";

// Captured from NVRTC 13.0, sm_86, a kernel with static shared memory and a local array.
constexpr const char* kStaticSmemLog =
    "ptxas info    : 0 bytes gmem\n"
    "ptxas info    : Compiling entry function '_Z1kPfi' for 'sm_86'\n"
    "ptxas info    : Function properties for _Z1kPfi\n"
    "ptxas         .     0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n"
    "ptxas info    : Used 72 registers, used 1 barriers, 4000 bytes smem, 364 bytes cmem[0]\n"
    "ptxas info    : Compile time = 20.527 ms\n";

// A spilling kernel next to a non-inlined device function, in ptxas's format.
constexpr const char* kSpillLog =
    "ptxas info    : Compiling entry function '_Z6kernelPf' for 'sm_86'\n"
    "ptxas info    : Function properties for _Z6helperi\n"
    "ptxas         .     16 bytes stack frame\n"
    "ptxas info    : Function properties for _Z6kernelPf\n"
    "ptxas         .     264 bytes stack frame, 248 bytes spill stores, 252 bytes spill loads\n"
    "ptxas info    : Used 255 registers, used 1 barriers, 1024 bytes smem, 360 bytes cmem[0]\n";

constexpr const char* kCpAsync86 = "_ZN6mpgemm9wmma_gemmILi128ELi64ELi32ELi32ELi32ELi2ELi2ELi8ELi8EEEvPK6__halfS3_Pfiii";

TEST(PtxasReport, Sm86PerFunction) {
  const auto reports = parse_ptxas_report(kSm86Log);
  ASSERT_EQ(reports.size(), 2u);
  EXPECT_EQ(reports[0].registers, 43);
  EXPECT_EQ(reports[0].barriers, 0);
  const auto r = find_function_report(reports, kCpAsync86);
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->name, kCpAsync86);
  EXPECT_EQ(r->registers, 72);
  EXPECT_EQ(r->barriers, 1);
  EXPECT_EQ(r->shared_bytes, 0);  // dynamic shared memory only
  EXPECT_EQ(r->stack_bytes, 0);
  EXPECT_EQ(r->spill_store_bytes, 0);
  EXPECT_EQ(r->spill_load_bytes, 0);
}

TEST(PtxasReport, Sm90WithoutEntryLines) {
  const auto r = find_function_report(parse_ptxas_report(kSm90Log), kCpAsync86);
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->registers, 73);
  EXPECT_EQ(r->shared_bytes, 0);
  EXPECT_EQ(r->stack_bytes, 0);
}

TEST(PtxasReport, StaticSharedMemory) {
  const auto r = find_function_report(parse_ptxas_report(kStaticSmemLog), "_Z1kPfi");
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->registers, 72);
  EXPECT_EQ(r->shared_bytes, 4000);
}

TEST(PtxasReport, SpillsAndHelpers) {
  const auto reports = parse_ptxas_report(kSpillLog);
  const auto kernel = find_function_report(reports, "_Z6kernelPf");
  ASSERT_TRUE(kernel.has_value());
  EXPECT_EQ(kernel->registers, 255);
  EXPECT_EQ(kernel->stack_bytes, 264);
  EXPECT_EQ(kernel->spill_store_bytes, 248);
  EXPECT_EQ(kernel->spill_load_bytes, 252);
  EXPECT_EQ(kernel->shared_bytes, 1024);
  const auto helper = find_function_report(reports, "_Z6helperi");
  ASSERT_TRUE(helper.has_value());
  EXPECT_EQ(helper->registers, -1);
  EXPECT_EQ(helper->stack_bytes, 16);
  EXPECT_EQ(helper->spill_store_bytes, -1);
}

TEST(PtxasReport, UnknownNameFallsBackToTheFirstKernel) {
  const auto r = find_function_report(parse_ptxas_report(kSm86Log), "no_such_function");
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->registers, 43);
}

TEST(PtxasReport, ErrorLogHasNoReport) {
  const char* log = "t.cu(1): error: identifier \"undefined_thing\" is undefined\n1 error detected.\n";
  EXPECT_TRUE(parse_ptxas_report(log).empty());
  EXPECT_FALSE(find_function_report(parse_ptxas_report(log), "").has_value());
  EXPECT_TRUE(parse_ptxas_report("").empty());
}

}  // namespace
}  // namespace mpgemm
