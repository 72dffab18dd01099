// TestFaultyFamily: MODE and COPY as NVRTC input and launch geometry, and the family's self-registration.
#include "test_faulty_family.hpp"

#include <array>
#include <climits>
#include <cstdint>
#include <memory>
#include <utility>

#include <fmt/format.h>

#include "common/error.hpp"

namespace mpgemm::testing {
namespace {

// The MODE names, indexed by the kernel's MODE template argument (tests/kernels/test_faulty.cuh).
constexpr std::array<std::string_view, 9> kModes{"ok",   "fault",         "spin",     "off_by_one", "nan",
                                                 "smem", "compile_error", "bad_grid", "needs_sm90"};
constexpr int kModeSmem = 5;
constexpr int kModeBadGrid = 7;
constexpr int kModeNeedsSm90 = 8;
constexpr std::int64_t kMaxCopy = 3;

constexpr std::uint32_t kTile = 16;             // threads per block side, one per element of C
constexpr std::uint32_t kSmemBytes = 4u << 20;  // more dynamic shared memory than any GPU gives a block (bytes)
constexpr std::uint32_t kBadGridY = 70'000;     // above the grid's y limit, 65535

struct Config {
  int mode = 0;  // index into kModes
  std::int64_t copy = 0;
};

// Throws mpgemm::Error naming the problems.
Config parse(const Params& params) {
  Config c;
  const std::string& mode = get_string(params, "MODE");
  c.copy = get_int(params, "COPY");
  std::vector<std::string> problems;
  int found = -1;
  for (std::size_t i = 0; i < kModes.size(); ++i)
    if (kModes[i] == mode) found = static_cast<int>(i);
  if (found < 0) problems.push_back(fmt::format("MODE \"{}\" is not one of {}", mode, fmt::join(kModes, ", ")));
  if (c.copy < 0 || c.copy > kMaxCopy) problems.push_back(fmt::format("COPY {} is outside 0..{}", c.copy, kMaxCopy));
  if (!problems.empty()) throw Error(fmt::format("test_faulty: {}", fmt::join(problems, "; ")));
  c.mode = found;
  return c;
}

std::string name_of(const Config& c) {
  return fmt::format("test_faulty_{}_c{}", kModes[c.mode], c.copy);
}

std::uint32_t ceil_div(std::int64_t a, std::int64_t b) {
  return static_cast<std::uint32_t>((a + b - 1) / b);
}

}  // namespace

std::vector<std::string> TestFaultyFamily::check_config(const Params& params) const {
  try {
    parse(params);
    return {};
  } catch (const Error& e) {
    return {e.what()};
  }
}

std::string TestFaultyFamily::config_name(const Params& params) const {
  return name_of(parse(params));
}

KernelSpec TestFaultyFamily::kernel_spec(const Params& params, const Arch& target, const ProblemKind&) const {
  const Config c = parse(params);
  KernelSpec spec;
  spec.program_name = name_of(c) + ".cu";
  spec.source = fmt::format("#include \"{}\"\n", kernel_file());
  spec.name_expression = fmt::format("mpgemm_test::test_faulty_gemm<{}>", c.mode);
  spec.options = {"-std=c++17"};
  spec.arch = target;
  return spec;
}

std::optional<std::string> TestFaultyFamily::check_shape(const Params& params, const Shape& shape) const {
  parse(params);
  for (auto [name, v] : {std::pair{"M", shape.m}, {"N", shape.n}, {"K", shape.k}}) {
    if (v <= 0) return fmt::format("{}={} must be positive", name, v);
    if (v > INT_MAX) return fmt::format("{}={} does not fit the kernel's int arguments", name, v);
  }
  return std::nullopt;
}

std::optional<std::string> TestFaultyFamily::check_device(const Params& params, const DeviceDescription& device) const {
  const Config c = parse(params);
  if (c.mode == kModeNeedsSm90 && device.arch.cc() < 90)
    return fmt::format("{} runs only on sm_90 or newer (a test of Family::check_device); the device is {}", name_of(c),
                       device.arch.str());
  return std::nullopt;
}

LaunchGeometry TestFaultyFamily::launch_geometry(const Params& params, const Shape& shape,
                                                 const DeviceDescription&) const {
  const Config c = parse(params);
  LaunchGeometry g;
  g.grid = Dim3{ceil_div(shape.n, kTile), ceil_div(shape.m, kTile), 1};
  g.block = Dim3{kTile, kTile, 1};
  if (c.mode == kModeSmem) g.dynamic_smem_bytes = kSmemBytes;
  if (c.mode == kModeBadGrid) g.grid.y = kBadGridY;
  return g;
}

namespace {
// Registers the family when its object file is linked in (an OBJECT library's objects are never dropped).
[[maybe_unused]] const bool kRegistered = [] {
  register_family(std::make_unique<TestFaultyFamily>());
  return true;
}();
}  // namespace

}  // namespace mpgemm::testing
