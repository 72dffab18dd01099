#include "codegen/family.hpp"

#include <algorithm>
#include <cstring>

#include <fmt/format.h>

namespace mpgemm {

void KernelArgs::push_bytes(const void* data, std::size_t size, std::size_t align) {
  (void)align;  // each argument has its own buffer, and vector storage from operator new is 16-byte aligned;
                // 64-byte alignment (CUtensorMap) is honoured by over-allocating and offsetting below.
  std::vector<std::uint8_t> buf(size + 64);
  storage_.push_back(std::move(buf));
  auto& b = storage_.back();
  auto base = reinterpret_cast<std::uintptr_t>(b.data());
  std::size_t offset = (64 - base % 64) % 64;
  std::memcpy(b.data() + offset, data, size);
  offsets_.push_back(offset);
}

std::vector<void*> KernelArgs::pointers() {
  std::vector<void*> out;
  for (std::size_t i = 0; i < storage_.size(); ++i) out.push_back(storage_[i].data() + offsets_[i]);
  return out;
}

LaunchGeometry lower_persistent_grid(const LaunchGeometry& geometry, std::uint64_t co_resident_blocks) {
  LaunchGeometry g = geometry;
  if (!g.persistent) return g;
  const std::uint64_t cluster = std::max<std::uint64_t>(1, g.cluster.count());
  const std::uint64_t fit = co_resident_blocks / cluster * cluster;
  if (fit < g.grid.x) g.grid.x = static_cast<std::uint32_t>(fit);
  return balance_persistent_grid(g);
}

LaunchGeometry balance_persistent_grid(const LaunchGeometry& geometry) {
  LaunchGeometry g = geometry;
  if (!g.persistent || g.balanced_units == 0) return g;
  const std::uint64_t cluster = std::max<std::uint64_t>(1, g.cluster.count());
  const std::uint64_t clusters = g.grid.x / cluster;
  if (clusters == 0) return g;
  const std::uint64_t rounds = (g.balanced_units + clusters - 1) / clusters;
  const std::uint64_t balanced = (g.balanced_units + rounds - 1) / rounds;
  if (balanced < clusters) g.grid.x = static_cast<std::uint32_t>(balanced * cluster);
  return g;
}

std::optional<std::string> Family::check_kind(const ProblemKind& kind) const {
  if (kind.is_default()) return std::nullopt;
  return fmt::format("the {} family computes {} only, not {}", name(), ProblemKind{}.name(), kind.name());
}

std::optional<std::string> Family::check_config_kind(const Params&, const ProblemKind& kind) const {
  return check_kind(kind);
}

std::optional<std::string> Family::check_problem(const Params& params, const GemmProblem& problem) const {
  if (auto why = check_kind(problem.kind)) return why;
  return check_shape(params, problem.shape);
}

std::size_t Family::workspace_bytes(const Params&, const GemmProblem&, const LaunchGeometry&) const {
  return 0;
}

std::optional<std::string> Family::check_device(const Params&, const DeviceDescription&) const {
  return std::nullopt;
}

void Family::append_problem_args(const Params&, const ProblemBuffers& buffers, const DriverFunctions&,
                                 KernelArgs& args) const {
  push_standard_gemm_args(buffers, args);
}

void push_standard_gemm_args(const ProblemBuffers& buffers, KernelArgs& args) {
  args.push(buffers.a);
  args.push(buffers.b);
  args.push(buffers.c);
  args.push(static_cast<int>(buffers.shape.m));
  args.push(static_cast<int>(buffers.shape.n));
  args.push(static_cast<int>(buffers.shape.k));
}

}  // namespace mpgemm
