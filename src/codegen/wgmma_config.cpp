// WgmmaConfig: Params <-> typed struct, the procedural name, and the rules of kernels/wgmma_gemm.cuh's static_asserts.
#include <utility>

#include <fmt/format.h>

#include "codegen/wgmma_family.hpp"
#include "common/error.hpp"

namespace mpgemm {
namespace {

constexpr int kMaxAccumulators = 128;  // FP32 registers per consumer thread the kernel allows
constexpr int kMaxSplitK = 16;         // slices of K: beyond, the ordered adds cost more than they buy

template <class Enum, std::size_t N>
Enum enum_from(const Params& p, const std::string& name, const std::array<Enum, N>& all) {
  const std::string& text = get_string(p, name);
  std::string known;
  for (Enum e : all) {
    if (to_string(e) == text) return e;
    known += fmt::format("{}\"{}\"", known.empty() ? "" : " or ", to_string(e));
  }
  throw Error(fmt::format("parameter {} must be {}, got \"{}\"", name, known, text));
}

}  // namespace

std::string_view to_string(WgmmaEpilogue e) {
  switch (e) {
    case WgmmaEpilogue::direct:
      return "direct";
    case WgmmaEpilogue::tma:
      return "tma";
    case WgmmaEpilogue::rows:
      return "rows";
  }
  return "?";
}
std::string_view to_string(L2Hints h) {
  switch (h) {
    case L2Hints::none:
      return "none";
    case L2Hints::c_first:
      return "c_first";
    case L2Hints::c_first_ab_last:
      return "c_first_ab_last";
  }
  return "?";
}
std::string_view to_string(TileRaster r) {
  return r == TileRaster::m ? "m" : "n";
}
std::string_view to_string(WgmmaSchedule s) {
  return s == WgmmaSchedule::cooperative ? "coop" : "pingpong";
}
std::string_view to_string(SplitMode m) {
  switch (m) {
    case SplitMode::all:
      return "all";
    case SplitMode::tail:
      return "tail";
    case SplitMode::stream:
      return "stream";
  }
  return "?";
}

WgmmaConfig WgmmaConfig::from_params(const Params& p) {
  WgmmaConfig c;
  c.bm = get_small_int(p, "BM");
  c.bn = get_small_int(p, "BN");
  c.stages = get_small_int(p, "STAGES");
  if (p.count("BK")) c.bk = get_small_int(p, "BK");
  c.consumers = get_small_int(p, "CONSUMERS");
  c.cluster_m = get_small_int(p, "CLUSTER_M");
  c.cluster_n = get_small_int(p, "CLUSTER_N");
  c.group = get_small_int(p, "GROUP");
  c.c_buffers = get_small_int(p, "C_BUFFERS");
  c.schedule = enum_from(p, "SCHEDULE", std::array{WgmmaSchedule::cooperative, WgmmaSchedule::pingpong});
  const int persistent = get_small_int(p, "PERSISTENT");
  if (persistent < 0 || persistent > 2)
    throw Error(fmt::format("parameter PERSISTENT must be 0 (a CTA per tile), 1 (a CTA per SM) or 2 (balanced), got {}",
                            persistent));
  c.persistent = persistent >= 1;
  c.balanced = persistent == 2;
  c.raster = enum_from(p, "RASTER", std::array{TileRaster::m, TileRaster::n});
  c.epilogue = enum_from(p, "EPILOGUE", std::array{WgmmaEpilogue::direct, WgmmaEpilogue::tma, WgmmaEpilogue::rows});
  if (p.count("SPLIT_K")) c.split_k = get_small_int(p, "SPLIT_K");
  if (p.count("SPLIT_MODE"))
    c.split_mode = enum_from(p, "SPLIT_MODE", std::array{SplitMode::all, SplitMode::tail, SplitMode::stream});
  if (p.count("SWAP_AB")) {
    const int swap = get_small_int(p, "SWAP_AB");
    if (swap != 0 && swap != 1)
      throw Error(fmt::format("parameter SWAP_AB must be 0 or 1 (the wgmmas compute C's transpose), got {}", swap));
    c.swap_ab = swap == 1;
  }
  if (p.count("L2_PROMOTION")) c.l2_promotion = get_small_int(p, "L2_PROMOTION");
  if (p.count("PDL")) {
    const int pdl = get_small_int(p, "PDL");
    if (pdl < kPdlNone || pdl > kPdlAtExit)
      throw Error(fmt::format(
          "parameter PDL must be 0 (an ordinary launch), 1 (dependent, the next kernel launched early) or 2 "
          "(dependent, the next kernel launched at exit), got {}",
          pdl));
    c.dependent_launch = static_cast<DependentLaunch>(pdl);
  }
  if (p.count("L2_HINTS"))
    c.l2_hints = enum_from(p, "L2_HINTS", std::array{L2Hints::none, L2Hints::c_first, L2Hints::c_first_ab_last});
  return c;
}

Params WgmmaConfig::to_params() const {
  Params p{{"BM", std::int64_t{bm}},
           {"BN", std::int64_t{bn}},
           {"STAGES", std::int64_t{stages}},
           {"CONSUMERS", std::int64_t{consumers}},
           {"SCHEDULE", std::string(to_string(schedule))},
           {"CLUSTER_M", std::int64_t{cluster_m}},
           {"CLUSTER_N", std::int64_t{cluster_n}},
           {"RASTER", std::string(to_string(raster))},
           {"GROUP", std::int64_t{group}},
           {"EPILOGUE", std::string(to_string(epilogue))},
           {"C_BUFFERS", std::int64_t{c_buffers}},
           {"PERSISTENT", std::int64_t{balanced     ? 2
                                       : persistent ? 1
                                                    : 0}}};
  if (splits()) {
    p["SPLIT_K"] = std::int64_t{split_k};
    p["SPLIT_MODE"] = std::string(to_string(split_mode));
  }
  if (swap_ab) p["SWAP_AB"] = std::int64_t{1};
  if (l2_promotion != 256) p["L2_PROMOTION"] = std::int64_t{l2_promotion};
  if (dependent_launch != DependentLaunch::none) p["PDL"] = std::int64_t{static_cast<int>(dependent_launch)};
  if (l2_hints != L2Hints::none) p["L2_HINTS"] = std::string(to_string(l2_hints));
  if (bk != wgmma_layout::kBK) p["BK"] = std::int64_t{bk};
  return p;
}

std::string WgmmaConfig::name() const {
  // "tma2": the epilogue and its buffer count; "direct" and "rows" stage nothing (a count there is shown, and
  // rejected).
  const std::string epi = epilogue != WgmmaEpilogue::tma && c_buffers == 0
                              ? std::string(to_string(epilogue))
                              : fmt::format("{}{}", to_string(epilogue), c_buffers);
  const std::string split = !splits() ? std::string()
                            : split_mode == SplitMode::stream
                                ? fmt::format("_stk{}", split_k == 1 ? "" : std::to_string(split_k))
                                : fmt::format("_sk{}{}", split_k, split_mode == SplitMode::tail ? "t" : "");
  return fmt::format("wgmma_bm{}_bn{}_bk{}_s{}_c{}_{}_cl{}x{}_{}{}_{}_{}{}{}{}{}{}", bm, bn, bk, stages, consumers,
                     to_string(schedule), cluster_m, cluster_n, to_string(raster), group, epi,
                     balanced     ? "bal"
                     : persistent ? "pers"
                                  : "grid",
                     split, swap_ab ? "_swab" : "",
                     l2_promotion == 256 ? std::string() : fmt::format("_l2p{}", l2_promotion),
                     dependent_launch == DependentLaunch::early     ? "_pdl"
                     : dependent_launch == DependentLaunch::at_exit ? "_pdlx"
                                                                    : "",
                     l2_hints == L2Hints::c_first           ? "_cfirst"
                     : l2_hints == L2Hints::c_first_ab_last ? "_cfirst_ablast"
                                                            : "");
}

std::string WgmmaConfig::name_expression(const ProblemKind& kind) const {
  // The kind's template arguments come after BK, so a non-default kind names BK even when it is 64; the epilogue's
  // operation (epilogue_ops.cuh's kOp*, Epilogue's value) last, named only when there is one.
  std::string tail = kind.is_default() ? (bk == wgmma_layout::kBK ? std::string() : fmt::format(", {}", bk))
                                       : fmt::format(", {}, {}, {}, {}, {}, {}", bk, static_cast<int>(kind.a),
                                                     static_cast<int>(kind.b), static_cast<int>(kind.in),
                                                     static_cast<int>(kind.out), kind.beta ? 1 : 0);
  if (kind.has_bias()) tail += fmt::format(", {}", static_cast<int>(kind.epilogue));
  return fmt::format("mpgemm::wgmma_gemm<{}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}{}>", bm, bn,
                     stages, consumers, cluster_m, cluster_n, static_cast<int>(raster), group,
                     static_cast<int>(epilogue), static_cast<int>(schedule), c_buffers, split_k,
                     static_cast<int>(split_mode), swap_ab ? 1 : 0, static_cast<int>(dependent_launch),
                     static_cast<int>(l2_hints), tail);
}

wgmma_layout::Layout WgmmaConfig::layout(const ProblemKind& kind) const {
  return {bm,
          bn,
          stages,
          consumers,
          schedule == WgmmaSchedule::pingpong,
          epilogue == WgmmaEpilogue::tma,
          c_buffers,
          swap_ab,
          bk / wgmma_layout::kBK,
          kind.b == BLayout::nk};
}

std::int64_t WgmmaConfig::split_flags(std::int64_t cluster_tiles) const {
  if (!splits()) return 0;
  return cluster_tiles * cluster_size() * (schedule == WgmmaSchedule::pingpong ? 1 : consumers);
}

std::vector<std::string> WgmmaConfig::problems() const {
  std::vector<std::string> out;
  for (auto [name, v] : {std::pair{"BM", bm},
                         {"BN", bn},
                         {"STAGES", stages},
                         {"CONSUMERS", consumers},
                         {"CLUSTER_M", cluster_m},
                         {"CLUSTER_N", cluster_n},
                         {"GROUP", group},
                         {"SPLIT_K", split_k},
                         {"BK", bk}})
    if (v <= 0) out.push_back(fmt::format("{}={} must be positive", name, v));
  if (!out.empty()) return out;

  using namespace wgmma_layout;
  if (consumers > 2) out.push_back(fmt::format("CONSUMERS={}: one or two consumer warpgroups", consumers));
  const bool pingpong = schedule == WgmmaSchedule::pingpong;
  if (pingpong && consumers != 2)
    out.push_back(
        fmt::format("SCHEDULE=\"pingpong\" alternates two consumers: CONSUMERS must be 2, got {}", consumers));
  // The side the wgmmas cut into 64-row blocks (BM, or BN when swapped) and the side that is their N.
  const auto [rows_name, rows] = swap_ab ? std::pair{"BN", bn} : std::pair{"BM", bm};
  const auto [n_name, n] = swap_ab ? std::pair{"BM", bm} : std::pair{"BN", bn};
  const char* const swapped = swap_ab ? ", swapped" : "";
  if (!pingpong && rows % (kWgmmaM * consumers) != 0)
    out.push_back(fmt::format("{}={} is not a multiple of 64 * CONSUMERS = {} (each consumer owns whole m64 blocks{})",
                              rows_name, rows, kWgmmaM * consumers, swapped));
  if (pingpong && rows % kWgmmaM != 0)
    out.push_back(fmt::format("{}={} is not a multiple of 64 (a pingpong consumer owns the tile's m64 blocks{})",
                              rows_name, rows, swapped));
  if (swap_ab && epilogue != WgmmaEpilogue::direct)
    out.push_back("SWAP_AB=1: swapped tiles go out through the direct epilogue (EPILOGUE=\"direct\")");
  if (epilogue == WgmmaEpilogue::rows && c_buffers != 0)
    out.push_back(fmt::format("C_BUFFERS={}: the rows epilogue stages nothing, C_BUFFERS must be 0", c_buffers));
  if (epilogue == WgmmaEpilogue::tma && (c_buffers < 1 || c_buffers > 16))
    out.push_back(fmt::format("C_BUFFERS={}: the tma epilogue stages through 1 to 16 buffers per consumer", c_buffers));
  if (epilogue == WgmmaEpilogue::direct && c_buffers != 0)
    out.push_back(fmt::format("C_BUFFERS={}: the direct epilogue stages nothing, C_BUFFERS must be 0", c_buffers));
  if (bm > 256) out.push_back(fmt::format("BM={} is over 256 (a TMA box has at most 256 rows)", bm));
  if (n % 8 != 0 || n > 256)
    out.push_back(fmt::format("{}={} is not a multiple of 8 up to 256 (wgmma N{})", n_name, n, swapped));
  if (swap_ab && bn > 256)
    out.push_back(fmt::format("BN={} is over 256 (at most four 64-row wgmma blocks, swapped)", bn));
  if (stages < 2) out.push_back(fmt::format("STAGES={}: a ring needs at least 2 stages", stages));
  if (balanced && !persistent) out.push_back("a balanced grid is a persistent one");
  if (cluster_m * cluster_n > 16) out.push_back("CLUSTER_M * CLUSTER_N is over 16 (multicast masks are 16 bits)");
  if (bm % (8 * cluster_n) != 0)
    out.push_back(
        fmt::format("BM={} is not a multiple of 8 * CLUSTER_N = {} (each CTA multicasts whole 8-row "
                    "swizzle atoms of A)",
                    bm, 8 * cluster_n));
  if (bk != 64 && bk != 128 && bk != 256)
    out.push_back(fmt::format("BK={}: a stage is 1, 2 or 4 k-blocks of 64 (BK 64, 128 or 256)", bk));
  else if (bk % (8 * cluster_m) != 0)
    out.push_back(
        fmt::format("BK={} is not a multiple of 8 * CLUSTER_M = {} (each CTA multicasts whole 8-row swizzle "
                    "atoms of B)",
                    bk, 8 * cluster_m));
  if (bk > kBK && cluster_n > 1)
    out.push_back(fmt::format("BK={} loads A with 3-D copies, which are not multicast: CLUSTER_N must be 1", bk));
  if (bk > kBK && l2_hints == L2Hints::c_first_ab_last)
    out.push_back(fmt::format(
        "BK={} loads A with 3-D copies, which carry no L2 hint: L2_HINTS must be \"none\" or \"c_first\"", bk));
  if (l2_promotion != 0 && l2_promotion != 64 && l2_promotion != 128 && l2_promotion != 256)
    out.push_back(fmt::format("L2_PROMOTION={}: the L2 promotes TMA loads by 0, 64, 128 or 256 bytes", l2_promotion));
  if (split_k > kMaxSplitK) out.push_back(fmt::format("SPLIT_K={} is over {}", split_k, kMaxSplitK));
  const std::string split =
      split_mode == SplitMode::stream ? std::string("SPLIT_MODE=\"stream\"") : fmt::format("SPLIT_K={}", split_k);
  if (splits() && epilogue != WgmmaEpilogue::direct)
    out.push_back(fmt::format("{}: split-K adds its slices in the direct epilogue (EPILOGUE=\"direct\")", split));
  if (splits() && !persistent)
    out.push_back(fmt::format(
        "{}: the slices of a tile wait for each other, so the grid must be persistent (co-resident)", split));
  if (splits() && split_mode != SplitMode::all && balanced)
    out.push_back(fmt::format("SPLIT_MODE=\"{}\" sizes its split from the grid: PERSISTENT must be 1, not balanced",
                              to_string(split_mode)));
  if (split_mode == SplitMode::stream && split_k != 1)
    out.push_back(
        fmt::format("SPLIT_K={}: SPLIT_MODE=\"stream\" cuts tiles where the clusters' equal ranges of "
                    "k-blocks end, so SPLIT_K must be 1",
                    split_k));
  if (epilogue != WgmmaEpilogue::direct && bn % kCSubCols != 0)
    out.push_back(fmt::format("BN={} is not a multiple of 32 (EPILOGUE=\"{}\" stores 32-column groups)", bn,
                              to_string(epilogue)));
  if (!out.empty()) return out;

  const Layout l = layout();
  if (l.accumulators() > kMaxAccumulators)
    out.push_back(fmt::format("{} * {} / 128 = {} accumulators per thread, more than {}",
                              pingpong ? std::string(rows_name) : fmt::format("({} / CONSUMERS)", rows_name), n_name,
                              l.accumulators(), kMaxAccumulators));
  if (static_cast<std::uint64_t>(l.dynamic_smem_bytes()) > kMaxSmemAnyGpu)
    out.push_back(fmt::format("needs {} bytes of shared memory per block, more than any GPU allows ({})",
                              l.dynamic_smem_bytes(), kMaxSmemAnyGpu));
  return out;
}

std::vector<std::string> WgmmaConfig::problems(const ProblemKind& kind) const {
  std::vector<std::string> out;
  if (bm <= 0 || bn <= 0 || cluster_m <= 0) return out;  // problems() says so
  const std::string name = kind.name();
  const bool wide_out = kind.out == ElementType::fp32;
  if (epilogue == WgmmaEpilogue::tma && !wide_out && bn % (2 * wgmma_layout::kCSubCols) != 0)
    out.push_back(fmt::format(
        "EPILOGUE=\"tma\" with {}: 16-bit D goes out in 64-column sub-tiles (128-byte rows), and BN={} is not a "
        "multiple of 64",
        name, bn));
  if (kind.a == ALayout::km && swap_ab)
    out.push_back(fmt::format(
        "SWAP_AB=1 with {}: A stored K x M would be the swapped wgmma's N-major B, which is not implemented", name));
  if (kind.a == ALayout::km && bk % (8 * cluster_n) != 0)
    out.push_back(fmt::format(
        "BK={} with {}: A stored K x M is multicast in slices of BK / CLUSTER_N rows of K, whole 8-row swizzle "
        "atoms, so BK must be a multiple of 8 * CLUSTER_N = {}",
        bk, name, 8 * cluster_n));
  if (kind.b == BLayout::nk && bn % (8 * cluster_m) != 0)
    out.push_back(fmt::format(
        "BN={} with {}: B stored N x K is multicast in slices of BN / CLUSTER_M rows, whole 8-row swizzle atoms, "
        "so BN must be a multiple of 8 * CLUSTER_M = {}",
        bn, name, 8 * cluster_m));
  return out;
}

void to_json(nlohmann::json& j, const WgmmaConfig& c) {
  j = to_json(c.to_params());
}

void from_json(const nlohmann::json& j, WgmmaConfig& c) {
  c = WgmmaConfig::from_params(params_from_json(j));
}

}  // namespace mpgemm
