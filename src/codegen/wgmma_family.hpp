#pragma once
// The Hopper family: kernels/wgmma_gemm.cuh (wgmma + TMA, warp-specialised producer/consumer warpgroups, sm_90a).
// WgmmaConfig is the typed view of a point; WgmmaFamily maps it to NVRTC, a launch and the kernel's tensor maps.
// The enums' values are the kernel's template arguments, taken from the kernels' own headers (wgmma_choices.cuh,
// split_k.cuh, tile_schedule.cuh).
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <cuda.h>
#include <nlohmann/json.hpp>

#include "codegen/family.hpp"
#include "common/params.hpp"
#include "split_k.cuh"
#include "tile_schedule.cuh"
#include "wgmma_choices.cuh"
#include "wgmma_layout.cuh"

namespace mpgemm {

enum class WgmmaEpilogue {
  direct = kEpilogueDirect,  // FP32 pairs straight from the accumulators to global memory
  tma = kEpilogueTma,        // 64 x 32 sub-tiles staged in shared memory and written by TMA stores
  // whole 128-byte lines from registers after a transpose across each warp (kernels/wgmma_rows.cuh)
  rows = kEpilogueRows,
};
enum class WgmmaSchedule {
  cooperative = kScheduleCooperative,  // the consumers split every tile's rows between them
  // the two consumers take alternate tiles whole: one's epilogue overlaps the other's wgmmas
  pingpong = kSchedulePingpong,
};
enum class TileRaster {
  m = kRasterM,  // consecutive tiles walk down M inside bands of GROUP tile rows (tile_schedule.cuh)
  n = kRasterN,  // consecutive tiles walk along N inside bands of GROUP tile columns
};
enum class DependentLaunch {
  none = kPdlNone,       // an ordinary launch: the kernel starts when the previous kernel of the stream has completed
  early = kPdlEarly,     // programmatic stream serialization; each block lets the next kernel launch as soon as its own
                         // wait returns, so the next kernel's blocks take SMs as this grid's blocks leave them
  at_exit = kPdlAtExit,  // programmatic stream serialization; the next kernel may launch once every block has exited
                         // (the implicit trigger), before this grid's completion is processed
};
enum class SplitMode {
  all = kSplitAll,        // every tile's K loop is cut into SPLIT_K slices
  tail = kSplitTail,      // whole waves of tiles run unsplit; only the last, partial wave's tiles are cut
                          // (kernels/split_k.cuh)
  stream = kSplitStream,  // stream-K: whole waves but one run unsplit; the rest's k-blocks are shared out in equal
                          // ranges, one per cluster, that cut tiles where they end (SPLIT_K 1)
};
enum class L2Hints {
  none = kL2HintsNone,       // ordinary loads and stores
  c_first = kL2HintsCFirst,  // C's stores evict-first in L2, so that C streaming through it leaves A's and B's lines
  c_first_ab_last = kL2HintsCFirstAbLast,  // that, and A's and B's TMA loads evict-last
};
std::string_view to_string(WgmmaEpilogue e);  // "direct", "tma", "rows"
std::string_view to_string(L2Hints h);        // "none", "c_first", "c_first_ab_last"
std::string_view to_string(SplitMode m);      // "all", "tail", "stream"
std::string_view to_string(TileRaster r);     // "m", "n"
std::string_view to_string(WgmmaSchedule s);  // "coop", "pingpong"

// One point of the family. Defaults are the named point wgmma_persistent.
struct WgmmaConfig {
  int bm = 128;    // block tile rows: 64 per m64 wgmma block, <= 256 (TMA box)
  int bn = 256;    // block tile columns: the wgmma N, a multiple of 8 up to 256
  int stages = 4;  // operand ring depth (each stage: BM x BK of A, BK x BN of B)
  int bk = 64;     // K per stage: 64, or 128 / 256 (deep stages: one 3-D copy of A and one copy per B chunk take 2 or
                   // 4 k-blocks of 64; K a multiple of 64, no A multicast, no L2 hint on A and B)
  int consumers = 2;                                    // consumer warpgroups
  WgmmaSchedule schedule = WgmmaSchedule::cooperative;  // how the consumers share the tiles
  int cluster_m = 1;                                    // CTAs of a cluster along M (they share B tiles by multicast)
  int cluster_n = 1;                                    // CTAs of a cluster along N (they share A tiles by multicast)
  TileRaster raster = TileRaster::m;                    // tile order of the grid
  int group = 8;                                        // band width of the tile order, in cluster tiles
  WgmmaEpilogue epilogue = WgmmaEpilogue::direct;
  int c_buffers = 0;                      // tma epilogue: 64 x 32 FP32 staging buffers per consumer; else 0
  bool persistent = true;                 // grid of (at most) one CTA per SM looping over tiles, else one
                                          // CTA per tile
  bool balanced = false;                  // persistent grid of the fewest CTAs that take as many rounds
                                          // of tiles as one per SM (every CTA the same tile count)
  int split_k = 1;                        // slices of K per split tile, added into C in order (1: no split)
  SplitMode split_mode = SplitMode::all;  // which tiles are split when split_k > 1 (or stream-K, split_k 1)
  int l2_promotion = 256;                 // bytes the L2 fetches around each TMA load of A and B: 0 (none), 64, 128
                                          // or 256 (a tensor-map setting; the kernel is the same)
  bool swap_ab = false;                   // the wgmmas compute C's transpose (skinny M): BM is their N (8 to 256,
                                          // step 8), BN their 64-row side; direct epilogue only
  DependentLaunch dependent_launch = DependentLaunch::none;  // early / at_exit: launched with programmatic stream
                                                             // serialization, the block's set-up overlapping the
                                                             // previous kernel's end (griddepcontrol)
  L2Hints l2_hints = L2Hints::none;  // L2 eviction priorities of C's stores and A's and B's loads

  // PERSISTENT: 0 one CTA per tile, 1 one per SM, 2 balanced (both persistent).
  // Reads BM, BN, STAGES, CONSUMERS, CLUSTER_M, CLUSTER_N, GROUP, C_BUFFERS, PERSISTENT (integers), SCHEDULE
  // ("coop" | "pingpong"), RASTER ("m" | "n") and EPILOGUE ("direct" | "tma" | "rows"); SPLIT_K (integer) and
  // SPLIT_MODE ("all" | "tail") are optional (absent: 1 and "all"), as are SWAP_AB (0 | 1, absent: 0), L2_PROMOTION
  // (0 | 64 | 128 | 256, absent: 256), PDL (0 none | 1 early | 2 at_exit, absent: 0) and L2_HINTS ("none" |
  // "c_first" | "c_first_ab_last", absent: "none") and BK (64 | 128 | 256, absent: 64). Throws mpgemm::Error naming a
  // missing or ill-typed parameter. Does not validate.
  static WgmmaConfig from_params(const Params& params);
  // SPLIT_K and SPLIT_MODE only when splits(), SWAP_AB, PDL and L2_HINTS only when set, L2_PROMOTION only when not 256,
  // BK only when not 64,
  // so that configs without them keep the parameters (and names) they had.
  Params to_params() const;

  // "wgmma_bm128_bn256_bk64_s4_c2_coop_cl1x1_m8_direct_pers" or "..._tma2_bal": every parameter, in a fixed order
  // (then pers, bal or grid); split configs end in "_sk4" (mode all), "_sk4t" (mode tail) or "_stk" (stream), swapped
  // ones in
  // "_swab", an L2 promotion other than 256 bytes adds "_l2p128" (or 0, 64), a dependent launch "_pdl" (early) or
  // "_pdlx" (at exit), L2 hints "_cfirst" or "_cfirst_ablast".
  std::string name() const;
  // "mpgemm::wgmma_gemm<128, 256, 4, 2, 1, 1, 0, 8, 0, 0, 0, 1, 0, 0, 0, 0>" (PERSISTENT is a launch choice, not a
  // template argument); BK follows as a 17th argument when it is not 64 (the template's default). For a kind other
  // than the default, BK always follows, then the kind's A_LAYOUT, B_LAYOUT, IN, OUT and BETA (wgmma_choices.cuh),
  // so that the default kind's expression, and so its compile key, is what it was before kinds existed.
  std::string name_expression(const ProblemKind& kind = {}) const;
  // Human-readable reasons the kernel template would reject this config; empty when it is buildable.
  std::vector<std::string> problems() const;
  // Reasons the kernel would reject this config for problems of `kind` (a kind WgmmaFamily::check_kind accepts),
  // besides problems(): each one line naming the parameter and the kind; empty when it can compute them.
  std::vector<std::string> problems(const ProblemKind& kind) const;

  // The shared-memory layout for problems of `kind` (B stored N x K lies K-major, its stages no larger than K x N's).
  wgmma_layout::Layout layout(const ProblemKind& kind = {}) const;
  int cluster_size() const { return cluster_m * cluster_n; }
  // Tiles may be cut into slices of K that add into C in turn (split-K, or stream-K's ranges).
  bool splits() const { return split_k > 1 || split_mode == SplitMode::stream; }
  // Split-K flags (ints of the problem's workspace) the kernel uses for `cluster_tiles` cluster tiles: one per block
  // tile and consumer that writes part of it; 0 when unsplit.
  std::int64_t split_flags(std::int64_t cluster_tiles) const;

  friend bool operator==(const WgmmaConfig&, const WgmmaConfig&) = default;
};

void to_json(nlohmann::json& j, const WgmmaConfig& c);
void from_json(const nlohmann::json& j, WgmmaConfig& c);

// What cuTensorMapEncodeTiled is given for one operand: a 2-D row-major matrix, innermost dimension first. With
// depth > 1 the map is 3-D: the matrix viewed as {box[0], rows, columns / box[0]} (blocks of box[0] columns, each a
// plane), the box {box[0], box[1], depth} taking `depth` blocks in one copy; columns must be a multiple of box[0].
struct TensorMapSpec {
  CUtensorMapDataType dtype = CU_TENSOR_MAP_DATA_TYPE_FLOAT16;
  std::array<std::uint64_t, 2> dims{};  // elements: {columns, rows}
  std::uint64_t row_stride_bytes = 0;   // bytes between rows: a multiple of 16
  std::array<std::uint32_t, 2> box{};   // elements copied per TMA instruction: {columns, rows}
  CUtensorMapSwizzle swizzle = CU_TENSOR_MAP_SWIZZLE_128B;
  CUtensorMapL2promotion l2_promotion = CU_TENSOR_MAP_L2_PROMOTION_L2_256B;
  std::uint32_t depth = 1;  // column blocks of box[0] per copy (> 1: the 3-D view above)
  friend bool operator==(const TensorMapSpec&, const TensorMapSpec&) = default;
};

struct WgmmaTensorMaps {
  TensorMapSpec a;  // IN; mk: {K, M}, box {64, BM / CLUSTER_N}, depth BK / 64; km: {M, K}, box {64, BK / CLUSTER_N}
  TensorMapSpec b;  // IN; kn: {N, K}, box {64, BK / CLUSTER_M}; nk: {K, N}, box {64, BN / CLUSTER_M}
  TensorMapSpec c;  // OUT {N, M}, box {128 bytes of columns: 32 FP32 or 64 16-bit, 64}
};
// Pure: what the kernel's three tensor maps describe for this config and shape, for problems of `kind` (A and B as
// the kind stores them; element types of the kind).
WgmmaTensorMaps tensor_map_specs(const WgmmaConfig& config, const Shape& shape, const ProblemKind& kind = {});

// Encodes one map for the matrix at `base`. Throws mpgemm::Error naming the operand, the spec and the CUresult when
// the driver refuses it, or when `encode` is null (a driver without cuTensorMapEncodeTiled).
CUtensorMap encode_tensor_map(const TensorMapSpec& spec, const void* base, PFN_cuTensorMapEncodeTiled_v12000 encode,
                              std::string_view operand);

// Every method but check_config throws mpgemm::Error when the params lack a parameter or hold a bad value.
class WgmmaFamily final : public Family {
 public:
  std::string_view name() const override { return "wgmma"; }
  std::string_view kernel_file() const override { return "wgmma_gemm.cuh"; }
  std::vector<std::string> check_config(const Params& params) const override;
  // wgmma and setmaxnreg exist on sm_90 GPUs only (compiled for sm_90a).
  std::optional<std::string> check_device(const Params& params, const DeviceDescription& device) const override;
  std::string config_name(const Params& params) const override;
  // Compiles for sm_90a when the target is sm_90 or sm_90a. Throws mpgemm::Error when check_config finds problems.
  using Family::kernel_spec;
  KernelSpec kernel_spec(const Params& params, const Arch& target, const ProblemKind& kind) const override;
  // K and N multiples of 8 (TMA row strides are multiples of 16 bytes), sizes that fit the kernel's ints; split-K:
  // at least SPLIT_K k-blocks of 64, and flags that fit the workspace (kWorkspaceBytes).
  std::optional<std::string> check_shape(const Params& params, const Shape& shape) const override;
  // A and B stored either way (mk, km; kn, nk), FP16 or BF16 in, FP32, FP16 or BF16 out, beta or not; an FP32 input
  // and fused epilogues are refused with the reason.
  std::optional<std::string> check_kind(const ProblemKind& kind) const override;
  // check_kind, then the config's refusals for the kind (WgmmaConfig::problems(kind)).
  std::optional<std::string> check_config_kind(const Params& params, const ProblemKind& kind) const override;
  // check_kind, then the config's refusals for the kind (WgmmaConfig::problems(kind): the tma epilogue's 64-column
  // sub-tiles, A's and B's multicast slices, km swapped), then the shape with each operand's row stride as the kind
  // stores it (A mk: K, km: M; B kn: N, nk: K; D and C: N), and mode-all split-K's partial sums with a 16-bit D.
  std::optional<std::string> check_problem(const Params& params, const GemmProblem& problem) const override;
  // Clusters of CLUSTER_M * CLUSTER_N CTAs along x over the cluster tiles; persistent: at most one CTA per SM
  // (device.sm_count), which the launcher may lower further to what is co-resident; balanced: also
  // balanced_units = the cluster tiles; PDL: a programmatically dependent launch.
  LaunchGeometry launch_geometry(const Params& params, const Shape& shape,
                                 const DeviceDescription& device) const override;
  // Split configs: kWorkspaceBytes for the flags; with a 16-bit D also the split tiles' FP32 partial sums after them
  // (split_k.cuh's split_tiles_bound for the geometry's clusters). Unsplit: 0.
  std::size_t workspace_bytes(const Params& params, const GemmProblem& problem,
                              const LaunchGeometry& geometry) const override;
  // Encodes the A, B and C tensor maps of buffers.kind with the driver's cuTensorMapEncodeTiled, then pushes
  // (a_map, b_map, c_map, void* D, int* workspace, int M, int N, int K, float alpha, float beta, const void* C):
  // D = buffers.c, C = buffers.c_in. Throws when the kind or the config's refusals of it (check_problem) say no, when
  // a split config has no buffers.workspace, or when a kind with beta has no buffers.c_in.
  void append_problem_args(const Params& params, const ProblemBuffers& buffers, const DriverFunctions& driver,
                           KernelArgs& args) const override;

 private:
  // check_shape's rules for problems of `kind` (each operand's row stride as the kind stores it).
  static std::optional<std::string> shape_problem(const WgmmaConfig& c, const Shape& shape, const ProblemKind& kind);
};

}  // namespace mpgemm
