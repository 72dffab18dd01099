// WgmmaFamily: a WgmmaConfig as NVRTC input, launch geometry, tensor maps and kernel arguments.
#include "codegen/wgmma_family.hpp"

#include <algorithm>
#include <climits>
#include <cstdint>

#include <fmt/format.h>

#include "common/error.hpp"
#include "epilogue_ops.cuh"
#include "split_k.cuh"

static_assert(mpgemm::kSplitPartialsOffset == static_cast<long long>(mpgemm::kWorkspaceBytes),
              "the kernel finds the partial sums where the host puts them");

namespace mpgemm {

// The kernel's kind arguments are the values of ProblemKind's enums (wgmma_choices.cuh names them for the kernel).
static_assert(static_cast<int>(ALayout::mk) == kALayoutMk && static_cast<int>(ALayout::km) == kALayoutKm);
static_assert(static_cast<int>(BLayout::kn) == kBLayoutKn && static_cast<int>(BLayout::nk) == kBLayoutNk);
static_assert(static_cast<int>(ElementType::fp16) == kElementFp16 &&
              static_cast<int>(ElementType::bf16) == kElementBf16 &&
              static_cast<int>(ElementType::fp32) == kElementFp32);
static_assert(static_cast<int>(Epilogue::none) == epilogue_ops::kOpNone &&
              static_cast<int>(Epilogue::bias) == epilogue_ops::kOpBias &&
              static_cast<int>(Epilogue::bias_relu) == epilogue_ops::kOpBiasRelu &&
              static_cast<int>(Epilogue::bias_gelu_tanh) == epilogue_ops::kOpBiasGeluTanh &&
              static_cast<int>(Epilogue::bias_gelu) == epilogue_ops::kOpBiasGelu);

namespace {

constexpr int kHopperCc = 90;

WgmmaConfig buildable(const Params& params, std::string_view what) {
  const WgmmaConfig c = WgmmaConfig::from_params(params);
  if (auto problems = c.problems(); !problems.empty())
    throw Error(fmt::format("{} cannot be {}: {}", c.name(), what, fmt::join(problems, "; ")));
  return c;
}

std::int64_t ceil_div(std::int64_t a, std::int64_t b) {
  return (a + b - 1) / b;
}

// Cluster tiles of the grid: the kernel's tiles_m * tiles_n.
std::int64_t cluster_tiles(const WgmmaConfig& c, const Shape& s) {
  return ceil_div(s.m, std::int64_t{c.bm} * c.cluster_m) * ceil_div(s.n, std::int64_t{c.bn} * c.cluster_n);
}

// A 16-bit D's split tiles keep their FP32 partial sums in the workspace (split_k.cuh): the bytes of `split_tiles`
// cluster tiles' worth.
std::int64_t partial_bytes(const WgmmaConfig& c, std::int64_t split_tiles) {
  return split_tiles * c.cluster_size() * std::int64_t{c.bm} * c.bn * static_cast<std::int64_t>(sizeof(float));
}

// Mode all splits every tile, so its partial sums grow with the output: past this, the shape is refused (tail and
// stream split at most two waves of tiles).
constexpr std::int64_t kMaxPartialBytes = std::int64_t{256} << 20;

// Stages' worth of K (BK each): the kernel's k_blocks, what split-K and stream-K share out.
std::int64_t k_blocks(const WgmmaConfig& c, const Shape& s) {
  return ceil_div(s.k, c.bk);
}

// Units of work for a grid of `clusters` clusters (kernels/split_k.cuh): the cluster tiles, or more when split;
// stream-K can keep every cluster busy as long as there are k-blocks to share.
std::int64_t work_units_for(const WgmmaConfig& c, const Shape& shape, std::int64_t tiles, std::int64_t clusters) {
  if (c.split_mode == SplitMode::stream) return std::max(tiles, std::min(clusters, tiles * k_blocks(c, shape)));
  return work_units(static_cast<int>(tiles), static_cast<int>(clusters), c.split_k, static_cast<int>(c.split_mode));
}

// Throws mpgemm::Error when the family does not compute `kind`, or not with this config.
void refuse_unless_computes(const WgmmaFamily& family, const WgmmaConfig& c, const ProblemKind& kind,
                            std::string_view what) {
  if (auto why = family.check_kind(kind)) throw Error(fmt::format("{} cannot be {}: {}", c.name(), what, *why));
  if (auto problems = c.problems(kind); !problems.empty())
    throw Error(fmt::format("{} cannot be {}: {}", c.name(), what, fmt::join(problems, "; ")));
}

std::string describe(const TensorMapSpec& s) {
  return fmt::format("dims {}x{}, row stride {} bytes, box {}x{}{}", s.dims[0], s.dims[1], s.row_stride_bytes, s.box[0],
                     s.box[1], s.depth > 1 ? fmt::format("x{} (3-D)", s.depth) : std::string());
}

}  // namespace

std::vector<std::string> WgmmaFamily::check_config(const Params& params) const {
  try {
    return WgmmaConfig::from_params(params).problems();
  } catch (const Error& e) {
    return {e.what()};
  }
}

std::optional<std::string> WgmmaFamily::check_device(const Params&, const DeviceDescription& device) const {
  if (device.arch.cc() != kHopperCc)
    return fmt::format("wgmma, TMA multicast and setmaxnreg need an sm_90 GPU (Hopper, compiled for sm_90a); {} is {}",
                       device.name.empty() ? "the target" : device.name, device.arch.str());
  return std::nullopt;
}

std::string WgmmaFamily::config_name(const Params& params) const {
  return WgmmaConfig::from_params(params).name();
}

KernelSpec WgmmaFamily::kernel_spec(const Params& params, const Arch& target, const ProblemKind& kind) const {
  const WgmmaConfig c = buildable(params, "built");
  refuse_unless_computes(*this, c, kind, "built");
  KernelSpec spec;
  spec.program_name = c.name() + (kind.is_default() ? std::string() : "_" + kind.name()) + ".cu";
  spec.source = fmt::format("#include \"{}\"\n", kernel_file());
  spec.name_expression = c.name_expression(kind);
  // IEEE arithmetic (no --use_fast_math); -lineinfo lets profilers map SASS to the template's lines.
  spec.options = {"-std=c++17", "-lineinfo"};
  spec.arch = target.cc() == kHopperCc ? Arch{9, 0, true} : target;
  return spec;
}

std::optional<std::string> WgmmaFamily::check_shape(const Params& params, const Shape& shape) const {
  return shape_problem(WgmmaConfig::from_params(params), shape, ProblemKind{});
}

std::optional<std::string> WgmmaFamily::check_kind(const ProblemKind& kind) const {
  const auto refuse = [&](std::string_view why) {
    return fmt::format("the {} family does not compute {}: {}", name(), kind.name(), why);
  };
  if (kind.in != ElementType::fp16 && kind.in != ElementType::bf16)
    return refuse(fmt::format("A and B in {}: its wgmma takes FP16 or BF16", to_string(kind.in)));
  return std::nullopt;
}

std::optional<std::string> WgmmaFamily::check_config_kind(const Params& params, const ProblemKind& kind) const {
  if (auto why = check_kind(kind)) return why;
  if (auto problems = WgmmaConfig::from_params(params).problems(kind); !problems.empty())
    return fmt::format("{}", fmt::join(problems, "; "));
  return std::nullopt;
}

std::optional<std::string> WgmmaFamily::check_problem(const Params& params, const GemmProblem& problem) const {
  if (auto why = check_config_kind(params, problem.kind)) return why;
  return shape_problem(WgmmaConfig::from_params(params), problem.shape, problem.kind);
}

std::optional<std::string> WgmmaFamily::shape_problem(const WgmmaConfig& c, const Shape& shape,
                                                      const ProblemKind& kind) {
  for (auto [name, v] : {std::pair{"M", shape.m}, {"N", shape.n}, {"K", shape.k}}) {
    if (v <= 0) return fmt::format("{}={} must be positive", name, v);
    if (v > INT_MAX) return fmt::format("{}={} does not fit the kernel's int arguments", name, v);
  }
  // Row strides of 16-byte multiples (TMA), per operand as the kind stores it: A mk rows of K, B kn rows of N or nk
  // rows of K, D and C rows of N (which the epilogues also store in whole pairs and quads: N a multiple of 8 for
  // every output type).
  const bool nk = kind.b == BLayout::nk;
  if (kind.a == ALayout::km && shape.m % 8 != 0)
    return fmt::format("M={} is not a multiple of 8: TMA needs rows of A (stored K x M) to be multiples of 16 bytes",
                       shape.m);
  if (shape.k % 8 != 0)
    return fmt::format("K={} is not a multiple of 8: TMA needs rows of A{} to be multiples of 16 bytes", shape.k,
                       nk ? " and of B (stored N x K)" : "");
  if (shape.n % 8 != 0)
    return fmt::format("N={} is not a multiple of 8: TMA needs rows of {}D to be multiples of 16 bytes", shape.n,
                       nk ? "" : "B and of ");
  if (c.bk > wgmma_layout::kBK && shape.k % wgmma_layout::kBK != 0)
    return fmt::format("K={} is not a whole number of k-blocks of 64: BK={} reads A through a 3-D view of them",
                       shape.k, c.bk);
  if (c.bm > 0 && c.bn > 0 && c.cluster_m > 0 && c.cluster_n > 0 &&
      cluster_tiles(c, shape) * c.cluster_size() > INT_MAX)
    return fmt::format("{} tiles of {}x{} do not fit the kernel's int tile index", cluster_tiles(c, shape), c.bm, c.bn);
  if (c.splits()) {
    if (k_blocks(c, shape) < c.split_k)
      return fmt::format("K={} has {} k-blocks of {}, fewer than SPLIT_K={} slices", shape.k, k_blocks(c, shape), c.bk,
                         c.split_k);
    const std::int64_t tiles = cluster_tiles(c, shape);
    if (tiles * c.split_k > INT_MAX)
      return fmt::format("{} tiles x SPLIT_K={} units do not fit the kernel's int unit index", tiles, c.split_k);
    const std::int64_t flags = c.split_flags(tiles);
    if (flags * static_cast<std::int64_t>(sizeof(int)) > static_cast<std::int64_t>(kWorkspaceBytes))
      return fmt::format("{} split-K flags ({} tiles of {}x{}) do not fit the {}-byte workspace", flags, tiles, c.bm,
                         c.bn, kWorkspaceBytes);
    if (kind.out != ElementType::fp32 && c.split_mode == SplitMode::all && partial_bytes(c, tiles) > kMaxPartialBytes)
      return fmt::format(
          "SPLIT_K={} splits all {} tiles of {}x{}: with a 16-bit D their FP32 partial sums would take {} MiB of "
          "workspace, over {} MiB (SPLIT_MODE \"tail\" or \"stream\" split at most two waves)",
          c.split_k, tiles, c.bm * c.cluster_m, c.bn * c.cluster_n, ceil_div(partial_bytes(c, tiles), 1 << 20),
          kMaxPartialBytes >> 20);
  }
  return std::nullopt;
}

LaunchGeometry WgmmaFamily::launch_geometry(const Params& params, const Shape& shape,
                                            const DeviceDescription& device) const {
  const WgmmaConfig c = buildable(params, "launched");
  const std::int64_t tiles = cluster_tiles(c, shape);
  const std::int64_t per_device = device.sm_count > 0 ? std::max(1, device.sm_count / c.cluster_size()) : tiles;
  const std::int64_t units = work_units_for(c, shape, tiles, per_device);
  std::int64_t clusters = units;
  if (c.persistent && device.sm_count > 0) clusters = std::min<std::int64_t>(units, per_device);
  LaunchGeometry g;
  g.grid = Dim3{static_cast<std::uint32_t>(clusters * c.cluster_size()), 1, 1};
  g.block = Dim3{static_cast<std::uint32_t>(c.layout().threads()), 1, 1};
  g.cluster = Dim3{static_cast<std::uint32_t>(c.cluster_size()), 1, 1};
  g.dynamic_smem_bytes = static_cast<std::uint32_t>(c.layout().dynamic_smem_bytes());
  g.persistent = c.persistent;
  g.dependent_launch = c.dependent_launch != DependentLaunch::none;
  if (c.balanced) g.balanced_units = static_cast<std::uint64_t>(units);
  return balance_persistent_grid(g);
}

namespace {

CUtensorMapL2promotion l2_promotion_of(const WgmmaConfig& c) {
  switch (c.l2_promotion) {
    case 0:
      return CU_TENSOR_MAP_L2_PROMOTION_NONE;
    case 64:
      return CU_TENSOR_MAP_L2_PROMOTION_L2_64B;
    case 128:
      return CU_TENSOR_MAP_L2_PROMOTION_L2_128B;
    default:
      return CU_TENSOR_MAP_L2_PROMOTION_L2_256B;  // 256 (others are refused by WgmmaConfig::problems)
  }
}

CUtensorMapDataType dtype_of(ElementType t) {
  switch (t) {
    case ElementType::fp16:
      return CU_TENSOR_MAP_DATA_TYPE_FLOAT16;
    case ElementType::bf16:
      return CU_TENSOR_MAP_DATA_TYPE_BFLOAT16;
    case ElementType::fp32:
      break;
  }
  return CU_TENSOR_MAP_DATA_TYPE_FLOAT32;
}

}  // namespace

WgmmaTensorMaps tensor_map_specs(const WgmmaConfig& c, const Shape& s, const ProblemKind& kind) {
  using namespace wgmma_layout;
  const auto m = static_cast<std::uint64_t>(s.m), n = static_cast<std::uint64_t>(s.n),
             k = static_cast<std::uint64_t>(s.k);
  const CUtensorMapDataType in = dtype_of(kind.in);
  const auto out_bytes = static_cast<std::uint64_t>(bytes_of(kind.out));
  WgmmaTensorMaps maps;
  if (kind.a == ALayout::km)  // K x M, M-major: 64 of M by BK rows of K (a slice of them per multicasting CTA)
    maps.a = {in,
              {m, k},
              m * 2,
              {static_cast<std::uint32_t>(kWgmmaM), static_cast<std::uint32_t>(c.bk / c.cluster_n)},
              CU_TENSOR_MAP_SWIZZLE_128B,
              l2_promotion_of(c)};
  else
    maps.a = {in,
              {k, m},
              k * 2,
              {static_cast<std::uint32_t>(kBK), static_cast<std::uint32_t>(c.bm / c.cluster_n)},
              CU_TENSOR_MAP_SWIZZLE_128B,
              l2_promotion_of(c),
              static_cast<std::uint32_t>(c.bk / kBK)};
  if (kind.b == BLayout::nk)  // N x K, K-major like A: 64 of K by BN rows (a slice of them per multicasting CTA)
    maps.b = {in,
              {k, n},
              k * 2,
              {static_cast<std::uint32_t>(kBK), static_cast<std::uint32_t>(c.bn / c.cluster_m)},
              CU_TENSOR_MAP_SWIZZLE_128B,
              l2_promotion_of(c)};
  else
    maps.b = {in,
              {n, k},
              n * 2,
              {static_cast<std::uint32_t>(kBChunk), static_cast<std::uint32_t>(c.bk / c.cluster_m)},
              CU_TENSOR_MAP_SWIZZLE_128B,
              l2_promotion_of(c)};
  // The tma epilogue's sub-tiles: 64 rows of 128 bytes (32 FP32 or 64 16-bit columns).
  maps.c = {dtype_of(kind.out),
            {n, m},
            n * out_bytes,
            {static_cast<std::uint32_t>(kRowBytes / out_bytes), static_cast<std::uint32_t>(kCSubRows)},
            CU_TENSOR_MAP_SWIZZLE_128B,
            CU_TENSOR_MAP_L2_PROMOTION_NONE};
  return maps;
}

CUtensorMap encode_tensor_map(const TensorMapSpec& spec, const void* base, PFN_cuTensorMapEncodeTiled_v12000 encode,
                              std::string_view operand) {
  if (encode == nullptr)
    throw Error(fmt::format("cannot build the tensor map of {}: the driver has no cuTensorMapEncodeTiled", operand));
  CUtensorMap map{};
  // 2-D: {columns, rows}; 3-D (depth > 1): {box[0], rows, column blocks}, the blocks box[0] elements apart.
  const bool planes = spec.depth > 1;
  const std::uint64_t element_bytes = spec.dtype == CU_TENSOR_MAP_DATA_TYPE_FLOAT32 ? 4 : 2;
  const cuuint64_t dims[3] = {planes ? spec.box[0] : spec.dims[0], spec.dims[1],
                              planes ? spec.dims[0] / spec.box[0] : 1};
  const cuuint64_t strides[2] = {spec.row_stride_bytes, spec.box[0] * element_bytes};
  const cuuint32_t box[3] = {spec.box[0], spec.box[1], spec.depth};
  const cuuint32_t element_strides[3] = {1, 1, 1};
  const CUresult r =
      encode(&map, spec.dtype, planes ? 3 : 2, const_cast<void*>(base), dims, strides, box, element_strides,
             CU_TENSOR_MAP_INTERLEAVE_NONE, spec.swizzle, spec.l2_promotion, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (r != CUDA_SUCCESS)
    throw Error(fmt::format("cuTensorMapEncodeTiled refused the tensor map of {} ({}, base {}): CUresult {}", operand,
                            describe(spec), base, static_cast<int>(r)));
  return map;
}

std::size_t WgmmaFamily::workspace_bytes(const Params& params, const GemmProblem& problem,
                                         const LaunchGeometry& geometry) const {
  const WgmmaConfig c = WgmmaConfig::from_params(params);
  if (!c.splits()) return 0;
  if (problem.kind.out == ElementType::fp32) return kWorkspaceBytes;
  const std::int64_t tiles = cluster_tiles(c, problem.shape);
  const std::int64_t clusters = std::max<std::int64_t>(1, geometry.grid.x / std::max(1, c.cluster_size()));
  const std::int64_t split_tiles = split_tiles_bound(static_cast<int>(std::min<std::int64_t>(tiles, INT_MAX)),
                                                     static_cast<int>(std::min<std::int64_t>(clusters, INT_MAX)),
                                                     c.split_k, static_cast<int>(c.split_mode));
  return kWorkspaceBytes + static_cast<std::size_t>(partial_bytes(c, split_tiles));
}

void WgmmaFamily::append_problem_args(const Params& params, const ProblemBuffers& buffers,
                                      const DriverFunctions& driver, KernelArgs& args) const {
  const WgmmaConfig c = buildable(params, "launched");
  refuse_unless_computes(*this, c, buffers.kind, "launched");
  if (c.splits() && buffers.workspace == nullptr)
    throw Error(fmt::format("{} needs the problem's workspace for its split-K flags, and none was given", c.name()));
  if (c.splits() && buffers.workspace_bytes < kWorkspaceBytes)
    throw Error(
        fmt::format("{} needs at least {} bytes of workspace for its split-K flags (with a 16-bit D, more for "
                    "its FP32 partial sums: workspace_bytes()), and the one given has {}",
                    c.name(), kWorkspaceBytes, buffers.workspace_bytes));
  if (buffers.kind.beta && buffers.c_in == nullptr)
    throw Error(fmt::format("{} computes {}, which reads C, and no C was given", c.name(), buffers.kind.name()));
  if (buffers.kind.has_bias() && buffers.bias == nullptr)
    throw Error(fmt::format("{} computes {}, which adds a bias, and no bias was given", c.name(), buffers.kind.name()));
  if (buffers.kind.has_bias() && reinterpret_cast<std::uintptr_t>(buffers.bias) % 16 != 0)
    throw Error(fmt::format("{} computes {}: its bias must be 16-byte aligned (the rows epilogue reads 4 columns at "
                            "once), and the one given is at {}",
                            c.name(), buffers.kind.name(), buffers.bias));
  const WgmmaTensorMaps maps = tensor_map_specs(c, buffers.shape, buffers.kind);
  args.push(encode_tensor_map(maps.a, buffers.a, driver.tensor_map_encode_tiled, "A"));
  args.push(encode_tensor_map(maps.b, buffers.b, driver.tensor_map_encode_tiled, "B"));
  args.push(encode_tensor_map(maps.c, buffers.c, driver.tensor_map_encode_tiled, "C"));
  args.push(buffers.c);
  args.push(buffers.workspace);
  args.push(static_cast<int>(buffers.shape.m));
  args.push(static_cast<int>(buffers.shape.n));
  args.push(static_cast<int>(buffers.shape.k));
  args.push(buffers.alpha);
  args.push(buffers.beta);
  args.push(buffers.c_in);
  args.push(buffers.kind.has_bias() ? buffers.bias : nullptr);
}

}  // namespace mpgemm
