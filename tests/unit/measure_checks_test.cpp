// The pure checks around a launch: error-code classification and the pre-launch resource check.
#include <gtest/gtest.h>

#include "measure/fault.hpp"
#include "measure/resources.hpp"

namespace mpgemm {
namespace {

TEST(Fault, StickyDriverErrorsLoseTheContext) {
  for (int code : {700, 710, 714, 715, 716, 718, 719}) {
    EXPECT_EQ(classify_driver_result(code), FaultClass::context_lost) << code;
    EXPECT_EQ(status_for(classify_driver_result(code)), Status::runtime_fault) << code;
    EXPECT_TRUE(context_unusable(classify_driver_result(code))) << code;
  }
}

TEST(Fault, DriverRefusalsAreLaunchFailures) {
  for (int code : {1, 200, 209, 500, 701, 912}) {
    EXPECT_EQ(classify_driver_result(code), FaultClass::launch_refused) << code;
    EXPECT_EQ(status_for(classify_driver_result(code)), Status::launch_failed) << code;
    EXPECT_FALSE(context_unusable(classify_driver_result(code))) << code;
  }
}

TEST(Fault, RuntimeCodes) {
  EXPECT_EQ(classify_runtime_error(0), FaultClass::none);
  EXPECT_EQ(classify_runtime_error(700), FaultClass::context_lost);   // cudaErrorIllegalAddress
  EXPECT_EQ(classify_runtime_error(719), FaultClass::context_lost);   // cudaErrorLaunchFailure
  EXPECT_EQ(classify_runtime_error(710), FaultClass::context_lost);   // cudaErrorAssert (trap)
  EXPECT_EQ(classify_runtime_error(9), FaultClass::launch_refused);   // cudaErrorInvalidConfiguration
  EXPECT_EQ(classify_runtime_error(98), FaultClass::launch_refused);  // cudaErrorInvalidDeviceFunction
  EXPECT_EQ(classify_runtime_error(701), FaultClass::launch_refused);
}

TEST(Fault, UnknownCodesAreTreatedAsLostContexts) {
  EXPECT_EQ(classify_driver_result(0), FaultClass::none);
  EXPECT_EQ(classify_driver_result(999), FaultClass::unknown);
  EXPECT_EQ(status_for(FaultClass::unknown), Status::runtime_fault);
  EXPECT_TRUE(context_unusable(FaultClass::unknown));
  EXPECT_EQ(status_for(FaultClass::none), Status::ok);
}

TEST(Fault, NoCodeIsInBothLists) {
  for (int code : cu_result::launch_refused)
    for (int lost : cu_result::context_lost) EXPECT_NE(code, lost);
  for (int code : cuda_error::launch_refused)
    for (int lost : cuda_error::context_lost) EXPECT_NE(code, lost);
}

const DeviceLimits kH100{1024, 65536, 232448};

TEST(Resources, FitsWithinLimits) {
  const KernelResources k{128, 16384, 512, 0};
  EXPECT_EQ(check_resources(k, kH100, {256, 65536}), std::nullopt);
  EXPECT_EQ(check_resources(k, kH100, {512, 232448 - 16384}), std::nullopt);
}

TEST(Resources, TooManyThreads) {
  const KernelResources k{32, 0, 1024, 0};
  const auto why = check_resources(k, kH100, {2048, 0});
  ASSERT_TRUE(why);
  EXPECT_NE(why->find("2048 threads"), std::string::npos) << *why;
  EXPECT_NE(why->find("1024"), std::string::npos) << *why;
}

TEST(Resources, ThreadsOverTheFunctionsMaximum) {
  const KernelResources k{255, 0, 256, 0};
  const auto why = check_resources(k, kH100, {512, 0});
  ASSERT_TRUE(why);
  EXPECT_NE(why->find("kernel's maximum of 256"), std::string::npos) << *why;
  EXPECT_NE(why->find("255 registers"), std::string::npos) << *why;
}

TEST(Resources, SharedMemoryOverOptIn) {
  const KernelResources k{64, 8192, 1024, 0};
  const auto why = check_resources(k, kH100, {256, 230000});
  ASSERT_TRUE(why);
  EXPECT_NE(why->find("238192 bytes"), std::string::npos) << *why;
  EXPECT_NE(why->find("8192 static + 230000 dynamic"), std::string::npos) << *why;
  EXPECT_NE(why->find("232448"), std::string::npos) << *why;
}

// One rule for the pruner and the pre-launch check: the same figures give the same verdict and the same words.
TEST(Resources, TheShmemRuleIsSharedAndTheLimitItselfFits) {
  EXPECT_EQ(shared_memory_over_limit(8192, 232448 - 8192, 232448), std::nullopt);  // exactly at the limit
  const auto why = shared_memory_over_limit(8192, 232448 - 8191, 232448);
  ASSERT_TRUE(why);
  EXPECT_EQ(*why, *check_resources(KernelResources{64, 8192, 1024, 0}, kH100, {256, 232448 - 8191}));
}

TEST(Resources, RegistersOverPerBlockCountWholeWarps) {
  // 1024 threads x 128 registers = 131072 > 65536, even though the function reports 1024 threads (a stale or
  // inconsistent report must still be caught).
  const KernelResources k{128, 0, 1024, 0};
  auto why = check_resources(k, kH100, {1024, 0});
  ASSERT_TRUE(why);
  EXPECT_NE(why->find("131072 registers"), std::string::npos) << *why;
  // 513 threads occupy 17 warps: 17 * 32 * 128 = 69632 > 65536.
  why = check_resources(k, kH100, {513, 0});
  ASSERT_TRUE(why);
  EXPECT_NE(why->find("544 threads"), std::string::npos) << *why;
  EXPECT_EQ(check_resources(k, kH100, {512, 0}), std::nullopt);
}

TEST(Resources, RegistersAreAllocatedPerWarp256AtATime) {
  EXPECT_EQ(registers_per_block(64, 1024), 65536u);
  EXPECT_EQ(registers_per_block(65, 32), 72u * 32);  // 2080 rounds up to 2304
  EXPECT_EQ(registers_per_block(65, 33), 2u * 72 * 32);
  EXPECT_EQ(registers_per_block(0, 1024), 0u);
  // 65 registers x 960 threads is 62400 counted thread by thread, but 30 warps of 2304 need 69120 > 65536.
  const KernelResources k{65, 0, 1024, 0};
  const auto why = check_resources(k, kH100, {960, 0});
  ASSERT_TRUE(why);
  EXPECT_NE(why->find("69120 registers"), std::string::npos) << *why;
  EXPECT_EQ(check_resources(k, kH100, {896, 0}), std::nullopt);  // 28 warps: 64512
}

TEST(Resources, EmptyBlock) {
  EXPECT_TRUE(check_resources({32, 0, 1024, 0}, kH100, {0, 0}));
}

}  // namespace
}  // namespace mpgemm
