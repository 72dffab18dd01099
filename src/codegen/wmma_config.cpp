// WmmaConfig: Params <-> typed struct, the procedural name, and the rules of kernels/wmma_gemm.cuh's static_asserts.
#include <algorithm>
#include <utility>

#include <fmt/format.h>

#include "codegen/wmma_family.hpp"
#include "common/error.hpp"

namespace mpgemm {
namespace {

constexpr int kFrag = 16;  // WMMA m16n16k16

}  // namespace

std::string_view to_string(WmmaLoad load) {
  switch (load) {
    case WmmaLoad::direct:
      return "direct";
    case WmmaLoad::sync:
      return "sync";
    case WmmaLoad::cp_async:
      return "cp_async";
  }
  return "unknown";
}

std::optional<WmmaLoad> wmma_load_from_string(std::string_view text) {
  for (WmmaLoad l : {WmmaLoad::direct, WmmaLoad::sync, WmmaLoad::cp_async})
    if (to_string(l) == text) return l;
  return std::nullopt;
}

WmmaConfig WmmaConfig::from_params(const Params& p) {
  WmmaConfig c;
  c.bm = get_small_int(p, "BM");
  c.bn = get_small_int(p, "BN");
  c.bk = get_small_int(p, "BK");
  c.wm = get_small_int(p, "WM");
  c.wn = get_small_int(p, "WN");
  c.stages = get_small_int(p, "STAGES");
  c.pad_a = get_small_int(p, "PAD_A");
  c.pad_b = get_small_int(p, "PAD_B");
  const std::string& load = get_string(p, "LOAD");
  auto parsed = wmma_load_from_string(load);
  if (!parsed)
    throw Error(fmt::format("parameter LOAD must be \"direct\", \"sync\" or \"cp_async\", got \"{}\"", load));
  c.load = *parsed;
  return c;
}

Params WmmaConfig::to_params() const {
  return Params{{"BM", std::int64_t{bm}},
                {"BN", std::int64_t{bn}},
                {"BK", std::int64_t{bk}},
                {"WM", std::int64_t{wm}},
                {"WN", std::int64_t{wn}},
                {"STAGES", std::int64_t{stages}},
                {"LOAD", std::string(to_string(load))},
                {"PAD_A", std::int64_t{pad_a}},
                {"PAD_B", std::int64_t{pad_b}}};
}

std::string WmmaConfig::name() const {
  return fmt::format("wmma_{}_bm{}_bn{}_bk{}_s{}_w{}x{}_p{}x{}", to_string(load), bm, bn, bk, stages, wm, wn, pad_a,
                     pad_b);
}

std::string WmmaConfig::name_expression() const {
  return fmt::format("mpgemm::wmma_gemm<{}, {}, {}, {}, {}, {}, {}, {}, {}>", bm, bn, bk, wm, wn, stages,
                     static_cast<int>(load), pad_a, pad_b);
}

std::uint64_t WmmaConfig::smem_bytes() const {
  if (load == WmmaLoad::direct) return 0;
  const auto u = [](int v) { return static_cast<std::uint64_t>(v < 0 ? 0 : v); };
  const std::uint64_t ring = u(stages) * (u(bm) * (u(bk) + u(pad_a)) + u(bk) * (u(bn) + u(pad_b))) * 2;
  const std::uint64_t staging = static_cast<std::uint64_t>(warps()) * kFrag * kFrag * sizeof(float);
  return std::max(ring, staging);
}

std::vector<std::string> WmmaConfig::problems() const {
  std::vector<std::string> out;
  bool positive = true;
  for (auto [name, v] : {std::pair{"BM", bm}, {"BN", bn}, {"BK", bk}, {"WM", wm}, {"WN", wn}, {"STAGES", stages}})
    if (v <= 0) {
      out.push_back(fmt::format("{}={} must be positive", name, v));
      positive = false;
    }
  for (auto [name, v] : {std::pair{"PAD_A", pad_a}, {"PAD_B", pad_b}})
    if (v < 0) {
      out.push_back(fmt::format("{}={} cannot be negative", name, v));
      positive = false;
    }
  if (!positive) return out;

  for (auto [name, v] : {std::pair{"WM", wm}, {"WN", wn}})
    if (v % kFrag != 0) out.push_back(fmt::format("{}={} is not a multiple of 16 (WMMA fragments are 16x16)", name, v));
  if (bk % kFrag != 0) out.push_back(fmt::format("BK={} is not a multiple of 16 (the WMMA k-step)", bk));
  if (bm % wm != 0) out.push_back(fmt::format("BM={} is not a multiple of WM={}", bm, wm));
  if (bn % wn != 0) out.push_back(fmt::format("BN={} is not a multiple of WN={}", bn, wn));
  if ((bk + pad_a) % 8 != 0)
    out.push_back(
        fmt::format("BK+PAD_A={} is not a multiple of 8 halves (WMMA leading dimensions are 16-byte "
                    "multiples)",
                    bk + pad_a));
  if ((bn + pad_b) % 8 != 0)
    out.push_back(
        fmt::format("BN+PAD_B={} is not a multiple of 8 halves (WMMA leading dimensions are 16-byte "
                    "multiples)",
                    bn + pad_b));
  switch (load) {
    case WmmaLoad::direct:
      if (stages != 1) out.push_back(fmt::format("LOAD=\"direct\" has no buffers: STAGES must be 1, got {}", stages));
      if (pad_a != 0 || pad_b != 0)
        out.push_back(fmt::format("LOAD=\"direct\" uses no shared memory: PAD_A and PAD_B must be 0, got {} and {}",
                                  pad_a, pad_b));
      break;
    case WmmaLoad::sync:
      if (stages != 1) out.push_back(fmt::format("LOAD=\"sync\" is single-buffered: STAGES must be 1, got {}", stages));
      break;
    case WmmaLoad::cp_async:
      if (stages < 2) out.push_back(fmt::format("LOAD=\"cp_async\" needs a ring: STAGES must be >= 2, got {}", stages));
      break;
  }
  if (bm % wm == 0 && bn % wn == 0) {
    const std::int64_t threads = std::int64_t{bm / wm} * (bn / wn) * 32;
    if (threads > 1024)
      out.push_back(fmt::format("(BM/WM)*(BN/WN)*32 = {} threads per block, more than 1024", threads));
    else if (smem_bytes() > kMaxSmemAnyGpu)
      out.push_back(fmt::format("needs {} bytes of shared memory per block, more than any GPU allows ({})",
                                smem_bytes(), kMaxSmemAnyGpu));
  }
  return out;
}

void to_json(nlohmann::json& j, const WmmaConfig& c) {
  j = to_json(c.to_params());
}

void from_json(const nlohmann::json& j, WmmaConfig& c) {
  c = WmmaConfig::from_params(params_from_json(j));
}

}  // namespace mpgemm
