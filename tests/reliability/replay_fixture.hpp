#pragma once
// Shared by the reliability tests: a synthetic "recorded" database, as a GPU run of mpgemm-tune would have left it,
// built without a GPU through the tuner's own code path (load_space -> family -> build_candidates -> kernel_spec
// -> compile_key / source_hash / result_key), plus helpers to start mpgemm-tune processes and read databases back.
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <optional>
#include <regex>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <fmt/format.h>
#include <sqlite3.h>

#include "compile/nvrtc_compile.hpp"
#include "space/space.hpp"
#include "store/store.hpp"
#include "support/run_command.hpp"
#include "tune/candidates.hpp"
#include "tune/keys.hpp"

extern char** environ;

namespace mpgemm::testing {

// The small sm_90 space every reliability test replays: 27 candidates, 2 shapes.
inline std::string replay_space() {
  return source("tests/reliability/data/replay_space.json");
}

// The device a recorded database says it measured on.
inline DeviceDescription recorded_h200() {
  DeviceDescription d;
  d.name = "NVIDIA H200";
  d.arch = *Arch::parse("sm_90");
  d.sm_count = 132;
  d.driver_version = "13.0";
  d.runtime_version = "13.0";
  d.cublas_version = "13.1.0";
  return d;
}

struct RecordedDb {
  std::size_t candidates = 0;
  std::size_t shapes = 0;
  std::size_t pairs = 0;                   // candidates x shapes: one measurement each
  std::map<Status, std::size_t> statuses;  // how many measurements of each status were recorded
  std::vector<std::string> result_keys;    // in recording order
};

// Outcomes cycled over the candidates that compiled and fit the shape; `ok` most often, as on a real GPU.
inline Measurement synthetic_outcome(std::size_t i, std::size_t s) {
  static constexpr Status kCycle[] = {Status::ok,
                                      Status::ok,
                                      Status::incorrect,
                                      Status::ok,
                                      Status::timeout,
                                      Status::ok,
                                      Status::runtime_fault,
                                      Status::ok,
                                      Status::launch_failed,
                                      Status::resources_exceeded};
  const Status st = kCycle[(i + 3 * s) % std::size(kCycle)];
  const double x = static_cast<double>(i), y = static_cast<double>(s);
  Measurement m;
  m.status = st;
  switch (st) {
    case Status::ok: {
      // Values that are not round in binary, so a lossy copy shows.
      const double median = 0.0731 + 0.01379 * x + 0.2113 * y + 1e-7 * x * x;
      m.timing = TimingStats{median, median * 0.9713, median * 1.0517, 3, 5, 20};
      m.error = ErrorStats{0.0013 * (x + 1), 2.1e-5 * (y + 1), 0, 0, 0.5, 1e-3};
      m.sm_clock_mhz = 1980.0 - x;
      break;
    }
    case Status::incorrect:
      m.error = ErrorStats{
          12.5 + x, 0.31 + 0.01 * y, 1000 + static_cast<std::int64_t>(i), static_cast<std::int64_t>(i % 3), 0.5, 1e-3};
      m.message = fmt::format("{} of 1048576 elements outside atol + rtol*|ref|", 1000 + i);
      break;
    case Status::timeout:
      m.message = "the kernel did not finish within 10 s; the worker was killed";
      break;
    case Status::runtime_fault:
      m.message = "cudaErrorIllegalAddress: an illegal memory access was encountered";
      break;
    case Status::launch_failed:
      m.message = "cudaErrorLaunchOutOfResources: too many resources requested";
      break;
    case Status::resources_exceeded:
      m.message = "needs 300000 bytes of shared memory per block, the device has 232448";
      break;
    default:
      break;
  }
  return m;
}

// Writes `path` as a GPU run on `device` over `space_path` would: a finished run, a compilation per candidate the
// family accepts for the device (every 9th failed), a cuBLAS timing per shape and one measurement per (candidate,
// shape) with a mix of statuses.
// Keys are derived exactly as mpgemm-tune --replay derives them with its default settings (MeasureSettings{}: a
// replay holds no clock), or with `settings`.
inline RecordedDb make_recorded_db(const std::filesystem::path& path, const std::string& space_path = replay_space(),
                                   const DeviceDescription& device = recorded_h200(),
                                   const MeasureSettings& settings = {}) {
  const Space space = load_space(space_path);
  const Family& fam = family(space.family);
  const std::vector<Candidate> candidates = build_candidates(space, fam);
  RecordedDb out;
  out.candidates = candidates.size();
  out.shapes = space.shapes.size();

  Store store = Store::open(path, Store::Mode::read_write);
  RunInfo info;
  info.argv = {"mpgemm-tune", space_path, "--db", path.string()};
  info.mode = "gpu";
  info.space_path = space_path;
  info.hostname = "recorder";
  info.set_device(device);
  info.nvrtc_version = nvrtc_version();
  const std::int64_t run = store.begin_run(info);

  std::vector<std::int64_t> cublas_ids;
  std::vector<TimingStats> cublas;
  for (std::size_t s = 0; s < space.shapes.size(); ++s) {
    const double median = 0.2917 + 0.4 * static_cast<double>(s);
    cublas.push_back(TimingStats{median, median * 0.99, median * 1.02, settings.warmup, settings.runs, settings.iters});
    cublas_ids.push_back(store.record_cublas(
        run, CublasRecord{device.name, device.arch.str(), space.shapes[s], cublas.back(), 1980.0, std::nullopt}));
  }

  // cuBLASLt, the second reference: timed on the first shape, untimed with its reason on the others (both
  // happen on a GPU); a replay must carry either over.
  std::vector<std::int64_t> cublaslt_ids;
  std::vector<std::optional<double>> cublaslt_ms;
  for (std::size_t s = 0; s < space.shapes.size(); ++s) {
    CublasLtReference lt;
    lt.heuristics_returned = 8;
    if (s == 0) {
      const double median = 0.2713;
      lt.heuristics_valid = 7;
      lt.timing = TimingStats{median, median * 0.993, median * 1.011, settings.warmup, settings.runs, settings.iters};
      lt.algo = CublasLtAlgo{66, 24, 35, 1, 0, 1, 0, 0, 2, 1048576, 1.37};
      lt.error = ErrorStats{0.0021, 3.1e-6, 0, 0, settings.atol, settings.rtol};
      lt.sm_clock_mhz = 1975;
      lt.message = "left out: heuristic 6 (algo 21 tile 20): CUBLAS_STATUS_NOT_SUPPORTED";
    } else {
      lt.message = "none of the 8 algorithms verified: heuristic 1 (algo 66 tile 24): 9 of 4096 elements differ";
    }
    cublaslt_ms.push_back(lt.timing ? std::optional(lt.timing->median_ms) : std::nullopt);
    cublaslt_ids.push_back(
        store.record_cublaslt(run, CublasLtRecord{device.name, device.arch.str(), space.shapes[s], lt, std::nullopt}));
  }

  for (std::size_t i = 0; i < candidates.size(); ++i) {
    const Candidate& c = candidates[i];
    const KernelSpec spec = fam.kernel_spec(c.params, device.arch);
    const std::string ck = compile_key(spec);
    const std::int64_t config_id = store.upsert_config(c, source_hash(spec));
    const std::optional<std::string> device_rejected = fam.check_device(c.params, device);
    CompileResult compiled;
    compiled.status = i % 9 == 0 ? Status::compile_failed : Status::ok;
    compiled.arch = spec.arch;
    compiled.compile_key = ck;
    compiled.compile_ms = 812.5 + static_cast<double>(i);
    if (compiled.status == Status::ok) {
      compiled.registers = 96 + static_cast<int>(i % 5) * 8;
      compiled.shared_bytes = 0;
      compiled.spill_store_bytes = compiled.spill_load_bytes = compiled.stack_bytes = 0;
      compiled.log = "ptxas info    : Used 96 registers";
    } else {
      compiled.log = "kernel.cu(12): error: synthetic compile error";
    }
    std::optional<std::int64_t> compilation_id;  // a config rejected for the device is never compiled
    if (!device_rejected) compilation_id = store.record_compilation(config_id, run, compiled);

    for (std::size_t s = 0; s < space.shapes.size(); ++s) {
      const Shape& shape = space.shapes[s];
      // The tuner's order on a GPU: the family's device check (before compiling), a failed compilation, the
      // family's shape check, then the device.
      Measurement m;
      if (device_rejected) {
        m = Measurement::unmeasured(Status::constraint_rejected, *device_rejected);
      } else if (compiled.status != Status::ok) {
        m = Measurement::unmeasured(Status::compile_failed,
                                    "compilation failed; see the compilations table for the log");
      } else if (auto why = fam.check_shape(c.params, shape)) {
        m = Measurement::unmeasured(Status::constraint_rejected, *why);
      } else {
        m = synthetic_outcome(i, s);
      }
      MeasurementRecord rec;
      rec.run_id = run;
      rec.config_id = config_id;
      rec.compilation_id = compilation_id;
      rec.result_key = result_key(c, ck, device, GemmProblem{shape, ProblemKind{}}, settings);
      rec.device_name = device.name;
      rec.device_cc = device.arch.str();
      rec.arch = spec.arch;
      rec.shape = shape;
      rec.measurement = m;
      rec.cublas_id = cublas_ids[s];
      rec.cublaslt_id = cublaslt_ids[s];
      if (m.status == Status::ok) rec.ratio_to_cublas = cublas[s].median_ms / m.timing->median_ms;
      if (m.status == Status::ok && cublaslt_ms[s]) rec.ratio_to_cublaslt = *cublaslt_ms[s] / m.timing->median_ms;
      store.record_measurement(rec);
      ++out.statuses[m.status];
      out.result_keys.push_back(rec.result_key);
    }
  }
  store.end_run(run, "finished");
  out.pairs = out.result_keys.size();
  return out;
}

// ---- reading databases back, with a plain SQLite connection (pragmas included) ----

inline std::vector<std::vector<std::string>> sql_rows(const std::filesystem::path& db, const std::string& sql) {
  sqlite3* c = nullptr;
  if (sqlite3_open_v2(db.c_str(), &c, SQLITE_OPEN_READONLY, nullptr) != SQLITE_OK) {
    sqlite3_close(c);
    throw std::runtime_error("cannot open " + db.string());
  }
  sqlite3_busy_timeout(c, 10'000);
  sqlite3_stmt* st = nullptr;
  if (sqlite3_prepare_v2(c, sql.c_str(), -1, &st, nullptr) != SQLITE_OK) {
    std::string e = sqlite3_errmsg(c);
    sqlite3_close(c);
    throw std::runtime_error(e + " in " + sql);
  }
  std::vector<std::vector<std::string>> rows;
  int rc = 0;
  while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
    std::vector<std::string> row;
    for (int i = 0; i < sqlite3_column_count(st); ++i) {
      switch (sqlite3_column_type(st, i)) {
        case SQLITE_NULL:
          row.emplace_back("NULL");
          break;
        case SQLITE_FLOAT:
          row.push_back(fmt::format("{}", sqlite3_column_double(st, i)));
          break;  // round-trip
        default:
          row.emplace_back(reinterpret_cast<const char*>(sqlite3_column_text(st, i)));
          break;
      }
    }
    rows.push_back(std::move(row));
  }
  sqlite3_finalize(st);
  sqlite3_close(c);
  if (rc != SQLITE_DONE) throw std::runtime_error(fmt::format("SQLite code {} in {}", rc, sql));
  return rows;
}

// Runs SQL on `db` with a plain read-write connection (to shape a database the way another tool would).
inline void sql_exec(const std::filesystem::path& db, const std::string& sql) {
  sqlite3* c = nullptr;
  char* error = nullptr;
  const bool ok =
      sqlite3_open(db.c_str(), &c) == SQLITE_OK && sqlite3_exec(c, sql.c_str(), nullptr, nullptr, &error) == SQLITE_OK;
  const std::string message = error ? error : (c ? sqlite3_errmsg(c) : "out of memory");
  sqlite3_free(error);
  sqlite3_close(c);
  if (!ok) throw std::runtime_error(message + " in " + sql);
}

inline std::string sql_text(const std::filesystem::path& db, const std::string& sql) {
  auto rows = sql_rows(db, sql);
  return rows.empty() || rows[0].empty() ? "" : rows[0][0];
}
inline std::int64_t sql_int(const std::filesystem::path& db, const std::string& sql) {
  return std::stoll(sql_text(db, sql));
}

// Every recorded outcome, keyed by what identifies it: what "the same content" means between two databases.
// Ids, run ids, timestamps and compilation ids (a replay compiles nothing) are left out on purpose.
inline std::vector<std::vector<std::string>> outcomes(const std::filesystem::path& db) {
  return sql_rows(db,
                  "SELECT c.family, c.name, ifnull(c.alias, ''), c.params, c.source_hash, m.result_key, m.device_name, "
                  "m.device_cc, m.arch, m.M, m.N, m.K, m.status, m.median_ms, m.min_ms, m.max_ms, m.warmup, m.runs, "
                  "m.iters, m.tflops, m.max_abs_err, m.max_rel_err, m.bad_count, m.nan_count, m.atol, m.rtol, "
                  "m.ratio_to_cublas, m.sm_clock_mhz, m.message, m.ratio_to_cublaslt "
                  "FROM measurements AS m JOIN configs AS c ON c.id = m.config_id ORDER BY c.name, m.M, m.N, m.K");
}

// The cuBLASLt references of a database, without ids and timestamps.
inline std::vector<std::vector<std::string>> cublaslt_references(const std::filesystem::path& db) {
  return sql_rows(db,
                  "SELECT device_name, device_cc, M, N, K, median_ms, min_ms, max_ms, warmup, runs, iters, tflops, "
                  "sm_clock_mhz, heuristics_returned, heuristics_valid, algo, algo_id, tile_id, stages_id, splitk, "
                  "reduction_scheme, swizzle, custom_option, inner_shape_id, cluster_shape_id, workspace_bytes, "
                  "waves, max_abs_err, max_rel_err, atol, rtol, message FROM cublaslt_timings ORDER BY M, N, K, id");
}

// "" when `got` holds exactly the outcomes of `expected`; else the first differences, one line each.
inline std::string outcome_differences(const std::vector<std::vector<std::string>>& expected,
                                       const std::vector<std::vector<std::string>>& got) {
  std::string out;
  if (got.size() != expected.size()) out += fmt::format("{} outcomes, expected {}\n", got.size(), expected.size());
  int shown = 0;
  for (std::size_t i = 0; i < std::min(got.size(), expected.size()) && shown < 5; ++i) {
    if (got[i] == expected[i]) continue;
    ++shown;
    std::string cols;
    for (std::size_t j = 0; j < expected[i].size(); ++j)
      if (got[i][j] != expected[i][j]) cols += fmt::format(" [{}] '{}' != '{}'", j, got[i][j], expected[i][j]);
    out += fmt::format("{} on {}x{}x{} (expected {}):{}\n", expected[i][1], expected[i][9], expected[i][10],
                       expected[i][11], expected[i][12], cols);
  }
  return out;
}

// Invariants any database must keep, whatever happened to the processes writing it; empty when all hold.
// `one_per_pair`: the database was filled from one recording with one set of settings, so each (config, device,
// shape) has exactly one measurement.
inline std::string integrity_problems(const std::filesystem::path& db, bool one_per_pair = true) {
  std::string problems;
  if (auto qc = sql_text(db, "PRAGMA quick_check"); qc != "ok") problems += "quick_check: " + qc + "; ";
  if (auto fk = sql_rows(db, "PRAGMA foreign_key_check"); !fk.empty())
    problems += fmt::format("{} foreign key violations; ", fk.size());
  if (auto n = sql_int(db, "SELECT count(*) - count(DISTINCT result_key) FROM measurements"))
    problems += fmt::format("{} result keys recorded more than once; ", n);
  if (one_per_pair)
    if (auto n = sql_int(db,
                         "SELECT count(*) FROM (SELECT 1 FROM measurements GROUP BY config_id, arch, "
                         "device_name, M, N, K HAVING count(*) > 1)"))
      problems += fmt::format("{} (config, shape) pairs measured more than once; ", n);
  if (auto n = sql_int(db, "SELECT count(*) FROM (SELECT 1 FROM configs GROUP BY family, name HAVING count(*) > 1)"))
    problems += fmt::format("{} configs stored more than once; ", n);
  return problems;
}

// ---- processes ----

// What mpgemm-tune printed at the end of a run it finished.
struct TuneOutput {
  std::int64_t run_id = -1;
  std::int64_t measured_now = -1;
  std::int64_t measured_before = -1;
};

inline std::optional<TuneOutput> parse_tune_output(const std::string& out) {
  static const std::regex kRun(R"(run (\d+) \((?:replay|gpu), [^)]*\): \d+ candidates)");
  static const std::regex kMeasured(R"(measured now (\d+), already in the database (\d+))");
  std::smatch r, m;
  if (!std::regex_search(out, r, kRun) || !std::regex_search(out, m, kMeasured)) return std::nullopt;
  return TuneOutput{std::stoll(r[1]), std::stoll(m[1]), std::stoll(m[2])};
}

// mpgemm-tune started with stdout and stderr into `log`.
struct TuneProcess {
  pid_t pid = -1;
  std::filesystem::path log;
};

inline TuneProcess start_tune(const std::vector<std::string>& args, const std::filesystem::path& log) {
  std::vector<std::string> argv_s{bin("mpgemm-tune")};
  argv_s.insert(argv_s.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& a : argv_s) argv.push_back(a.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, STDOUT_FILENO, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_adddup2(&fa, STDOUT_FILENO, STDERR_FILENO);
  TuneProcess p;
  p.log = log;
  const int rc = posix_spawn(&p.pid, argv_s[0].c_str(), &fa, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&fa);
  if (rc != 0) throw std::runtime_error(fmt::format("cannot start {}: error {}", argv_s[0], rc));
  return p;
}

// Exit code, or 128 + signal number.
inline int wait_exit(pid_t pid) {
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

// Output without the progress lines ("measure 1024x1024x1024 [4/27] ..."): what a failure message should show.
inline std::string without_progress(const std::string& output) {
  std::string out, line;
  for (char ch : output + "\n") {
    if (ch != '\n') {
      line += ch;
      continue;
    }
    if (!line.starts_with("measure ") && !line.empty()) out += line + "\n";
    line.clear();
  }
  return out;
}

// The non-empty lines of a command's output.
inline std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    if (end > start) lines.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  return lines;
}

inline std::string file_text(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}

}  // namespace mpgemm::testing
