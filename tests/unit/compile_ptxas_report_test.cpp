#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

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

constexpr const char* kCpAsync86 =
    "_ZN6mpgemm9wmma_gemmILi128ELi64ELi32ELi32ELi32ELi2ELi2ELi8ELi8EEEvPK6__halfS3_Pfiii";

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

// A whole log from tests/data/ptxas/ (README.md there says how each was made).
std::string data_log(const std::string& name) {
  std::ifstream in(std::string(MPGEMM_SOURCE_DIR) + "/tests/data/ptxas/" + name);
  EXPECT_TRUE(in.good()) << name;
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::vector<std::string> codes(const std::vector<PtxasWarning>& warnings) {
  std::vector<std::string> out;
  for (const auto& w : warnings) out.push_back(w.code);
  return out;
}

std::vector<PtxasWarningKind> kinds(const std::vector<PtxasWarning>& warnings) {
  std::vector<PtxasWarningKind> out;
  for (const auto& w : warnings) out.push_back(w.kind);
  return out;
}

using K = PtxasWarningKind;

TEST(PtxasWarnings, CleanLogsHaveNone) {
  for (const char* name : {"wgmma_clean.log", "setmaxnreg_launch_bounds.log"})
    EXPECT_TRUE(parse_ptxas_warnings(data_log(name)).empty()) << name;
  EXPECT_TRUE(parse_ptxas_warnings(kSm86Log).empty());
  EXPECT_TRUE(parse_ptxas_warnings(kSpillLog).empty());  // spills are resources, not diagnostics
  EXPECT_TRUE(parse_ptxas_warnings("").empty());
}

TEST(PtxasWarnings, AccumulatorReadBeforeTheWait) {
  const auto w = parse_ptxas_warnings(data_log("wgmma_accumulator_read.log"));
  ASSERT_EQ(w.size(), 2u);
  EXPECT_EQ(w[0], (PtxasWarning{"C7517", K::wgmma_wait_injected,
                                "warpgroup.wait is injected in around line 91 by compiler to allow use of registers "
                                "defined by GMMA in function 'wgmma_accumulator_read'"}));
  EXPECT_EQ(w[1], (PtxasWarning{"C7514", K::wgmma_serialized,
                                "Potential Performance Loss: wgmma.mma_async instructions are serialized due to non "
                                "wgmma instructions reading accumulator registers of  a wgmma between start and end "
                                "of the pipeline stage in the function 'wgmma_accumulator_read'"}));
}

TEST(PtxasWarnings, TightRegisterLimitSerializesAndSpills) {
  const std::string log = data_log("wgmma_tight_registers.log");
  const auto w = parse_ptxas_warnings(log);  // "Overriding maximum register limit" is no diagnostic
  ASSERT_EQ(w.size(), 1u);
  EXPECT_EQ(w[0].code, "C7511");
  EXPECT_EQ(w[0].kind, K::wgmma_serialized);
  EXPECT_EQ(w[0].message,
            "Potential Performance Loss: wgmma.mma_async instructions are serialized due to insufficient register "
            "resources for the wgmma pipeline in the function 'wgmma_tight_registers'");
  const auto r = find_function_report(parse_ptxas_report(log), "wgmma_tight_registers");
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->registers, 64);
  EXPECT_EQ(r->spill_store_bytes, 4264);
  EXPECT_EQ(r->spill_load_bytes, 3880);
  EXPECT_EQ(r->stack_bytes, 1696);
  EXPECT_EQ(r->shared_bytes, 4096);  // after "1696 bytes cumulative stack size"
}

TEST(PtxasWarnings, EveryObservedCode) {
  struct Case {
    const char* log;
    std::vector<std::string> codes;
    std::vector<PtxasWarningKind> kinds;
  };
  const std::vector<Case> cases{
      {"wgmma_no_fence.log",
       {"C7519", "C7519", "C7515"},
       {K::wgmma_arrive_injected, K::wgmma_arrive_injected, K::wgmma_serialized}},
      {"setmaxnreg_no_launch_bounds.log", {"C7508"}, {K::setmaxnreg_ignored}},
      {"setmaxnreg_debug.log",
       {"C7505", "C7519", "C7520"},
       {K::setmaxnreg_ignored, K::wgmma_arrive_injected, K::wgmma_serialized}},
      {"setmaxnreg_rdc.log", {"C7504"}, {K::setmaxnreg_ignored}},
      {"setmaxnreg_min_registers.log", {"C7507"}, {K::setmaxnreg_ignored}},
      {"wgmma_extern_call_rdc.log", {"C7509"}, {K::wgmma_serialized}},
      {"wgmma_noinline_call.log",
       {"C7519", "C7517", "C7510"},
       {K::wgmma_arrive_injected, K::wgmma_wait_injected, K::wgmma_serialized}},
      {"wgmma_input_registers_nvcc.log",
       {"C7519", "C7519", "C7519", "C7519", "C7519", "C7513"},
       {K::wgmma_arrive_injected, K::wgmma_arrive_injected, K::wgmma_arrive_injected, K::wgmma_arrive_injected,
        K::wgmma_arrive_injected, K::wgmma_serialized}},
      {"max_registers_fatal_nvcc.log", {}, {}},  // a fatal coded line is an error, not a warning
  };
  for (const auto& c : cases) {
    const auto w = parse_ptxas_warnings(data_log(c.log));
    EXPECT_EQ(codes(w), c.codes) << c.log;
    EXPECT_EQ(kinds(w), c.kinds) << c.log;
  }
}

TEST(PtxasWarnings, MessagesAreWhatFollowsTheCode) {
  const auto w = parse_ptxas_warnings(data_log("setmaxnreg_no_launch_bounds.log"));
  ASSERT_EQ(w.size(), 1u);
  EXPECT_EQ(w[0].message,
            "Potential Performance Loss: 'setmaxnreg' ignored; unable to determine register count at "
            "entry.");
  const auto crlf = parse_ptxas_warnings(
      "ptxas info    : (C7508) Potential Performance Loss: 'setmaxnreg' ignored; unable to determine "
      "register count "
      "at entry.\r\n");
  ASSERT_EQ(crlf.size(), 1u);
  EXPECT_EQ(crlf[0].message, w[0].message);
}

// A code this ptxas does not print is classified by its wording, so a newer ptxas's diagnostics still count.
TEST(PtxasWarnings, UnknownCodesFallBackToTheWording) {
  const char* log =
      "ptxas info    : (C7512) Potential Performance Loss: wgmma.mma_async instructions are serialized due "
      "to "
      "insufficient register resources for the function 'k'\n"
      "ptxas info    : (C7506) Potential Performance Loss: 'setmaxnreg' ignored to maintain compatibility "
      "into "
      "'extern' call.\n"
      "ptxas info    : (C7999) Potential Performance Loss: something new\n"
      "ptxas info    : (C7998) a note about nothing slow\n"
      "ptxas info    : (C) Potential Performance Loss: no code\n"
      "ptxas info    : (C7597 Potential Performance Loss: unclosed\n"
      "t.cu(3): warning: (C7512) Potential Performance Loss: not a ptxas line\n";
  const auto w = parse_ptxas_warnings(log);
  EXPECT_EQ(codes(w), (std::vector<std::string>{"C7512", "C7506", "C7999"}));
  EXPECT_EQ(kinds(w),
            (std::vector<PtxasWarningKind>{K::wgmma_serialized, K::setmaxnreg_ignored, K::other_performance}));
}

TEST(PtxasWarnings, KindNamesRoundTrip) {
  for (auto k : {K::wgmma_serialized, K::wgmma_wait_injected, K::wgmma_arrive_injected, K::setmaxnreg_ignored,
                 K::other_performance})
    EXPECT_EQ(ptxas_warning_kind_from_string(to_string(k)), k);
  EXPECT_FALSE(ptxas_warning_kind_from_string("spill").has_value());
}

}  // namespace
}  // namespace mpgemm
