#pragma once
// A database rebuilt from a measurements CSV (`mpgemm-query DB measurements --format csv`), for results the
// repository keeps only as CSV (results/h200/*_measurements.csv, recorded before databases were committed).
// Written through the Store, so the schema is the one mpgemm defines. What the CSV does not hold is left out
// or said, never made up:
//  - params, family and alias: from the space that run tuned, matched by the config's procedural name (a name
//  the
//    space does not produce is an error);
//  - cuBLAS: one timing per (run, shape), its median derived as ratio_to_cublas x median_ms (the CSV keeps
//  the ratio
//    to the cuBLAS timing of the same run); min and max are not in the CSV and are set to the median;
//  - per measurement: median, status, SM clock, ratio, message as recorded; min = max = median; the error
//  columns
//    are left NULL (the CSV has no max_abs_err); warmup/runs/iters are the protocol's defaults (3, 5, 20),
//    which those runs used;
//  - no compilations (compilation_id NULL), source_hash "unknown: imported from CSV", result_key
//    "csv:<file>:<id>", git_sha "unknown: imported by <this build>"; started_at and created_at are the import's
//    time, so wall-time convergence of an import means nothing.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "cli/ncu_csv.hpp"
#include "codegen/family.hpp"
#include "space/space.hpp"
#include "store/store.hpp"
#include "tune/backend.hpp"
#include "tune/candidates.hpp"

namespace mpgemm::testing {

struct CsvImport {
  std::size_t runs = 0;
  std::size_t measurements = 0;
};

// Appends the CSV's runs to the database at `db` (created when missing). `device` describes the GPU the CSV
// was measured on (the CSV has only its name); `notes` goes into each run's notes, with the CSV's path.
inline CsvImport import_measurements_csv(const std::filesystem::path& db, const std::filesystem::path& csv,
                                         const std::string& space_path, const DeviceDescription& device,
                                         const std::string& notes) {
  std::ifstream in(csv);
  if (!in) throw std::runtime_error("cannot read " + csv.string());
  std::string line;
  std::getline(in, line);
  const std::vector<std::string> header = cli::split_csv_line(line);
  std::map<std::string, std::size_t> col;
  for (std::size_t i = 0; i < header.size(); ++i) col[header[i]] = i;
  for (const char* needed : {"id", "run_id", "config", "device_name", "arch", "M", "N", "K", "status", "median_ms",
                             "ratio_to_cublas", "sm_clock_mhz", "message"})
    if (!col.count(needed)) throw std::runtime_error(fmt::format("{}: no column {}", csv.string(), needed));
  std::vector<std::vector<std::string>> rows;
  while (std::getline(in, line))
    if (!line.empty()) rows.push_back(cli::split_csv_line(line));

  const Space space = load_space(space_path);
  const Family& fam = family(space.family);
  std::map<std::string, Candidate> by_name;
  for (auto& c : build_candidates(space, fam)) by_name.emplace(c.name, c);

  auto at = [&](const std::vector<std::string>& row, const char* name) -> const std::string& {
    if (col.at(name) >= row.size()) throw std::runtime_error(fmt::format("{}: a row has no {}", csv.string(), name));
    return row[col.at(name)];
  };
  auto number = [](const std::string& text) { return text.empty() ? 0.0 : std::stod(text); };
  const MeasureSettings protocol;  // the defaults those runs used (README: 3 warm-ups, 5 x 20)
  auto timing = [&](double median) {
    return TimingStats{median, median, median, protocol.warmup, protocol.runs, protocol.iters};
  };

  Store store = Store::open(db, Store::Mode::read_write);
  CsvImport out;
  std::map<std::string, std::int64_t> runs;                           // CSV run id -> new run id
  std::map<std::pair<std::int64_t, std::string>, std::int64_t> refs;  // (run, shape) -> cublas_timings id
  for (const auto& row : rows) {
    const std::string& csv_run = at(row, "run_id");
    if (!runs.count(csv_run)) {
      RunInfo info;
      info.argv = {"import_measurements_csv", csv.string(), space_path};
      info.git_sha = "unknown: imported by " + info.git_sha;  // the build that measured is not in the CSV
      info.space_path = space_path;
      info.set_device(device);
      info.notes = fmt::format("{} (run {} of {})", notes, csv_run, csv.filename().string());
      runs[csv_run] = store.begin_run(info);
      ++out.runs;
    }
    const std::int64_t run = runs[csv_run];
    const Shape shape{std::stoll(at(row, "M")), std::stoll(at(row, "N")), std::stoll(at(row, "K"))};
    const auto status = status_from_string(at(row, "status"));
    if (!status) throw std::runtime_error(fmt::format("{}: unknown status {}", csv.string(), at(row, "status")));
    if (!refs.count({run, shape.str()})) {
      // cuBLAS of this run and shape: ratio_to_cublas x median of every verified row (equal up to rounding).
      std::vector<double> derived;
      for (const auto& r : rows)
        if (at(r, "run_id") == csv_run && at(r, "M") == at(row, "M") && at(r, "N") == at(row, "N") &&
            at(r, "K") == at(row, "K") && at(r, "status") == "ok" && !at(r, "ratio_to_cublas").empty())
          derived.push_back(number(at(r, "ratio_to_cublas")) * number(at(r, "median_ms")));
      if (derived.empty())
        throw std::runtime_error(
            fmt::format("{}: no verified row at {} to derive cuBLAS from", csv.string(), shape.str()));
      std::sort(derived.begin(), derived.end());
      refs[{run, shape.str()}] = store.record_cublas(
          run,
          CublasRecord{device.name, device.arch.str(), shape, timing(derived[derived.size() / 2]), 0, std::nullopt});
    }
    const auto found = by_name.find(at(row, "config"));
    if (found == by_name.end())
      throw std::runtime_error(
          fmt::format("{}: config {} is not a candidate of {}", csv.string(), at(row, "config"), space_path));
    MeasurementRecord rec;
    rec.run_id = run;
    rec.config_id = store.upsert_config(found->second, "unknown: imported from CSV");
    rec.result_key = fmt::format("csv:{}:{}", csv.filename().string(), at(row, "id"));
    rec.device_name = at(row, "device_name");
    rec.device_cc = device.arch.str();
    rec.arch = *Arch::parse(at(row, "arch"));
    rec.shape = shape;
    rec.measurement.status = *status;
    rec.measurement.sm_clock_mhz = number(at(row, "sm_clock_mhz"));
    rec.measurement.message = at(row, "message");
    if (*status == Status::ok) rec.measurement.timing = timing(number(at(row, "median_ms")));
    rec.cublas_id = refs[{run, shape.str()}];
    if (!at(row, "ratio_to_cublas").empty()) rec.ratio_to_cublas = number(at(row, "ratio_to_cublas"));
    store.record_measurement(rec);
    ++out.measurements;
  }
  for (const auto& [csv_run, run] : runs) store.end_run(run, "finished");
  return out;
}

}  // namespace mpgemm::testing
