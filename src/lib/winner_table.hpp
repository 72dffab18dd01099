#pragma once
// The winners the library dispatches from: one per (device, problem kind, shape), read once from a results database
// (store/shape_winners.hpp: what mpgemm-run --config best takes, every kind) or an exported JSON file.
#include <filesystem>
#include <vector>

#include "common/device.hpp"
#include "lib/dispatch_policy.hpp"
#include "store/shape_winners.hpp"

namespace mpgemm::lib {

class WinnerTable {
 public:
  // A SQLite file (by its header) is opened read-only; anything else is read as an export (at most
  // kMaxInputFileBytes). Every winner is checked (lib/winner_checks.hpp): one that fails refuses the file. Throws
  // StoreError or mpgemm::Error naming the file (and the entry or row).
  static WinnerTable load(const std::filesystem::path& path);
  explicit WinnerTable(std::vector<ShapeWinner> winners) : winners_(std::move(winners)) {}

  const std::vector<ShapeWinner>& winners() const { return winners_; }

  // The policy's table for `requested` on `device`: every winner of requested.kind tuned on a device of that name
  // (a winner of another kind is never a row), with the reason its family gives when it cannot run `requested`
  // there (check_device, then check_problem; a family this build lacks is a reason too). Row i of the result is
  // rows[i] of `indices`, an index into winners().
  std::vector<TunedShape> policy_rows(const DeviceDescription& device, const GemmProblem& requested,
                                      std::vector<std::size_t>* indices) const;
  // The default kind's (mk_kn_fp16_fp32).
  std::vector<TunedShape> policy_rows(const DeviceDescription& device, const Shape& requested,
                                      std::vector<std::size_t>* indices) const {
    return policy_rows(device, GemmProblem{requested, ProblemKind{}}, indices);
  }

 private:
  std::vector<ShapeWinner> winners_;
};

}  // namespace mpgemm::lib
