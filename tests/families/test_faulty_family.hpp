#pragma once
// The test-only "test_faulty" family: tests/kernels/test_faulty.cuh, one simple GEMM whose MODE parameter makes it
// fault, hang, compute wrong answers or fail to compile, build or launch, so the GPU tests can drive every failure
// through the real mpgemm-tune and mpgemm-worker (tests/gpu/tune_faults_test.cpp, space
// tests/data/spaces/faulty.json). Linked into mpgemm-tune, mpgemm-run and mpgemm-worker only when the CMake option
// MPGEMM_TEST_FAMILIES is on; it registers itself (see the bottom of the .cpp). Never use it in a real space.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "codegen/family.hpp"
#include "common/params.hpp"

namespace mpgemm::testing {

// Parameters: MODE (string, one of the names below) and COPY (integer 0..3, changes nothing in the kernel: it
// makes otherwise identical configs distinct points, e.g. several correct ones measured at different moments).
//   MODE           kernel (test_faulty_gemm<MODE>)          launch geometry                expected status
//   ok             correct                                  16 x 16 blocks over C          ok
//   fault          stores far out of bounds from one thread 16 x 16 blocks over C          runtime_fault
//   spin           never finishes                           16 x 16 blocks over C          timeout
//   off_by_one     skips k = 0                              16 x 16 blocks over C          incorrect
//   nan            writes NaN to C[0]                       16 x 16 blocks over C          incorrect
//   smem           correct                                  + 4 MiB dynamic shared memory  resources_exceeded
//   compile_error  a static_assert fails                    16 x 16 blocks over C          compile_failed
//   bad_grid       correct                                  grid.y = 70000 (limit 65535)   launch_failed
//   needs_sm90     correct                                  16 x 16 blocks over C          ok on sm_90 and newer;
//                  (check_device rejects older devices and targets: never compiled there)  else constraint_rejected
class TestFaultyFamily final : public Family {
 public:
  std::string_view name() const override { return "test_faulty"; }
  bool test_only() const override { return true; }
  std::string_view kernel_file() const override { return "test_faulty.cuh"; }
  std::vector<std::string> check_config(const Params& params) const override;
  // "test_faulty_<MODE>_c<COPY>", e.g. "test_faulty_off_by_one_c0".
  std::string config_name(const Params& params) const override;
  // Throws mpgemm::Error when check_config finds problems.
  using Family::kernel_spec;
  KernelSpec kernel_spec(const Params& params, const Arch& target, const ProblemKind& kind) const override;
  // Any shape whose dimensions fit the kernel's int arguments.
  std::optional<std::string> check_shape(const Params& params, const Shape& shape) const override;
  // MODE needs_sm90 on a device or target older than sm_90: "test_faulty_needs_sm90 runs only on sm_90 or newer
  // (a test of Family::check_device); the device is sm_86". Throws mpgemm::Error when check_config finds problems.
  std::optional<std::string> check_device(const Params& params, const DeviceDescription& device) const override;
  // Throws mpgemm::Error when check_config finds problems.
  LaunchGeometry launch_geometry(const Params& params, const Shape& shape,
                                 const DeviceDescription& device) const override;
};

}  // namespace mpgemm::testing
