#include "common/records.hpp"

#include <array>
#include <utility>

#include <fmt/format.h>

namespace mpgemm {

namespace {
constexpr std::array<std::pair<PtxasWarningKind, std::string_view>, 5> kWarningKindNames{{
    {PtxasWarningKind::wgmma_serialized, "wgmma_serialized"},
    {PtxasWarningKind::wgmma_wait_injected, "wgmma_wait_injected"},
    {PtxasWarningKind::wgmma_arrive_injected, "wgmma_arrive_injected"},
    {PtxasWarningKind::setmaxnreg_ignored, "setmaxnreg_ignored"},
    {PtxasWarningKind::other_performance, "other_performance"},
}};
}  // namespace

std::string_view to_string(PtxasWarningKind kind) {
  for (const auto& [k, name] : kWarningKindNames)
    if (k == kind) return name;
  return "unknown";
}

std::optional<PtxasWarningKind> ptxas_warning_kind_from_string(std::string_view text) {
  for (const auto& [k, name] : kWarningKindNames)
    if (name == text) return k;
  return std::nullopt;
}

std::string describe(const CublasLtAlgo& a) {
  return fmt::format("algo {} tile {} stages {} splitk {} reduction {} swizzle {} custom {} inner {} cluster {}",
                     a.algo_id, a.tile_id, a.stages_id, a.splitk, a.reduction_scheme, a.swizzle, a.custom_option,
                     a.inner_shape_id, a.cluster_shape_id);
}

}  // namespace mpgemm
