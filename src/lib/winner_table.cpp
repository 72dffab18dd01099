#include "lib/winner_table.hpp"

#include <array>
#include <cerrno>
#include <cstring>
#include <fstream>

#include <fmt/format.h>

#include "codegen/family.hpp"
#include "common/bounded_input.hpp"
#include "common/error.hpp"
#include "common/readable.hpp"
#include "lib/export_file.hpp"
#include "lib/winner_checks.hpp"
#include "store/store.hpp"

namespace mpgemm::lib {

namespace {

bool is_sqlite(const std::filesystem::path& path) {
  static constexpr char kMagic[] = "SQLite format 3";  // with its NUL: the 16-byte header of every SQLite file
  std::array<char, sizeof(kMagic)> head{};
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(fmt::format("{}: cannot be opened: {}", path.string(), std::strerror(errno)));
  in.read(head.data(), head.size());
  return in.gcount() == static_cast<std::streamsize>(head.size()) && std::memcmp(head.data(), kMagic, head.size()) == 0;
}

std::optional<std::string> why_invalid(const ShapeWinner& w, const DeviceDescription& device,
                                       const GemmProblem& problem) {
  bool known = false;
  for (std::string_view name : family_names()) known = known || name == w.family;
  if (!known) return fmt::format("{}: family '{}' is not part of this build", w.config_name, w.family);
  const Family& fam = family(w.family);
  try {  // load checked the params (lib/winner_checks.hpp); should a family still throw, this winner is invalid
    if (auto why = fam.check_device(w.params, device)) return fmt::format("{}: {}", w.config_name, *why);
    if (auto why = fam.check_problem(w.params, problem)) return fmt::format("{}: {}", w.config_name, *why);
  } catch (const Error& e) {
    return fmt::format("{}: {}", w.config_name, e.what());
  }
  return std::nullopt;
}

}  // namespace

WinnerTable WinnerTable::load(const std::filesystem::path& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec))
    throw Error(fmt::format("{}: is a folder, not a results database or an mpgemm-export JSON file", path.string()));
  if (opens_like_no_file(path))  // before is_sqlite's open, which would wait for a FIFO's writer
    throw Error(
        fmt::format("{}: is a FIFO or a socket, not a results database or an mpgemm-export JSON file", path.string()));
  if (is_sqlite(path)) {
    // Every kind's winners: each carries its kind, and policy_rows keeps a call to the winners of its own kind.
    std::vector<ShapeWinner> winners = all_shape_winners(Store::open(path, Store::Mode::read_only));
    check_winners(winners, WinnerSource::database, path);
    return WinnerTable(std::move(winners));
  }
  return WinnerTable(read_export(read_bounded_file(path, "exported file"), path));  // checked by read_export
}

std::vector<TunedShape> WinnerTable::policy_rows(const DeviceDescription& device, const GemmProblem& requested,
                                                 std::vector<std::size_t>* indices) const {
  std::vector<TunedShape> rows;
  indices->clear();
  for (std::size_t i = 0; i < winners_.size(); ++i) {
    const ShapeWinner& w = winners_[i];
    if (w.device_name != device.name || w.kind != requested.kind) continue;
    rows.push_back({w.shape, w.config_name, w.ratio_to_cublas, why_invalid(w, device, requested)});
    indices->push_back(i);
  }
  return rows;
}

}  // namespace mpgemm::lib
