// WmmaFamily: a WmmaConfig as NVRTC input, launch geometry and kernel arguments.
#include "codegen/wmma_family.hpp"

#include <climits>
#include <cstdint>

#include <fmt/format.h>

#include "common/error.hpp"

namespace mpgemm {
namespace {

constexpr std::int64_t kMaxGridY = 65535;

std::string variant(const WmmaConfig& c) {
  return fmt::format("wmma_{}", to_string(c.load));
}

std::uint32_t ceil_div(std::int64_t a, std::int64_t b) {
  return static_cast<std::uint32_t>((a + b - 1) / b);
}

void require_aligned(const void* p, std::uintptr_t bytes, std::string_view what, const WmmaConfig& c,
                     std::string_view why) {
  if (reinterpret_cast<std::uintptr_t>(p) % bytes != 0)
    throw Error(fmt::format("{}: {} ({}) is not {}-byte aligned ({})", variant(c), what, p, bytes, why));
}

}  // namespace

std::vector<std::string> WmmaFamily::check_config(const Params& params) const {
  try {
    return WmmaConfig::from_params(params).problems();
  } catch (const Error& e) {
    return {e.what()};
  }
}

std::string WmmaFamily::config_name(const Params& params) const {
  return WmmaConfig::from_params(params).name();
}

KernelSpec WmmaFamily::kernel_spec(const Params& params, const Arch& target, const ProblemKind&) const {
  const WmmaConfig c = WmmaConfig::from_params(params);
  if (auto problems = c.problems(); !problems.empty())
    throw Error(fmt::format("{} cannot be built: {}", c.name(), fmt::join(problems, "; ")));
  KernelSpec spec;
  spec.program_name = c.name() + ".cu";
  spec.source = fmt::format("#include \"{}\"\n", kernel_file());
  spec.name_expression = c.name_expression();
  // IEEE arithmetic (no --use_fast_math); -lineinfo lets profilers map SASS to the template's lines.
  spec.options = {"-std=c++17", "-lineinfo"};
  spec.arch = target;
  return spec;
}

std::optional<std::string> WmmaFamily::check_shape(const Params& params, const Shape& shape) const {
  const WmmaConfig c = WmmaConfig::from_params(params);
  for (auto [name, v] : {std::pair{"M", shape.m}, {"N", shape.n}, {"K", shape.k}}) {
    if (v <= 0) return fmt::format("{}={} must be positive", name, v);
    if (v > INT_MAX) return fmt::format("{}={} does not fit the kernel's int arguments", name, v);
  }
  if (c.load == WmmaLoad::direct) {
    for (auto [name, v] : {std::pair{"M", shape.m}, {"N", shape.n}, {"K", shape.k}})
      if (v % 16 != 0)
        return fmt::format("{}={} is not a multiple of 16 ({} loads 16x16 fragments straight from global memory)", name,
                           v, variant(c));
  } else if (shape.k % 8 != 0) {
    return fmt::format("K={} is not a multiple of 8 ({} copies rows of A in 16-byte chunks)", shape.k, variant(c));
  }
  if (c.bm > 0 && (shape.m + c.bm - 1) / c.bm > kMaxGridY)
    return fmt::format("M={} needs {} block rows with BM={}, more than the grid's y limit {}", shape.m,
                       (shape.m + c.bm - 1) / c.bm, c.bm, kMaxGridY);
  return std::nullopt;
}

std::optional<std::string> WmmaFamily::check_device(const Params& params, const DeviceDescription& device) const {
  const WmmaConfig c = WmmaConfig::from_params(params);
  if (device.arch.cc() < 70)
    return fmt::format("WMMA needs sm_70 (Volta) or newer; the device is {}", device.arch.str());
  if (c.load == WmmaLoad::cp_async && device.arch.cc() < 80)
    return fmt::format("cp.async needs sm_80 (Ampere) or newer; the device is {}", device.arch.str());
  return std::nullopt;
}

LaunchGeometry WmmaFamily::launch_geometry(const Params& params, const Shape& shape, const DeviceDescription&) const {
  const WmmaConfig c = WmmaConfig::from_params(params);
  if (auto problems = c.problems(); !problems.empty())
    throw Error(fmt::format("{} cannot be launched: {}", c.name(), fmt::join(problems, "; ")));
  LaunchGeometry g;
  g.grid = Dim3{ceil_div(shape.n, c.bn), ceil_div(shape.m, c.bm), 1};
  g.block = Dim3{static_cast<std::uint32_t>(c.threads()), 1, 1};
  g.dynamic_smem_bytes = static_cast<std::uint32_t>(c.smem_bytes());
  return g;
}

void WmmaFamily::append_problem_args(const Params& params, const ProblemBuffers& buffers, const DriverFunctions& driver,
                                     KernelArgs& args) const {
  const WmmaConfig c = WmmaConfig::from_params(params);
  if (c.load == WmmaLoad::direct) {
    require_aligned(buffers.a, 32, "A", c, "wmma::load_matrix_sync reads it directly");
    require_aligned(buffers.b, 32, "B", c, "wmma::load_matrix_sync reads it directly");
  } else {
    const char* why = c.load == WmmaLoad::cp_async ? "cp.async.cg copies 16-byte chunks" : "tiles are read as uint4";
    require_aligned(buffers.a, 16, "A", c, why);
    require_aligned(buffers.b, 16, "B", c, why);
  }
  require_aligned(buffers.c, 32, "C", c, "wmma::store_matrix_sync writes it directly");
  Family::append_problem_args(params, buffers, driver, args);
}

}  // namespace mpgemm
