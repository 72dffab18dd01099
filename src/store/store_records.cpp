// Runs, configs, compilations and cuBLAS timings. Every write is one short BEGIN IMMEDIATE transaction.
#include <unistd.h>

#include <algorithm>
#include <array>
#include <random>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "common/bounded_input.hpp"
#include "common/error.hpp"
#include "store/live_runs.hpp"
#include "store/store_impl.hpp"

namespace mpgemm {

namespace {

constexpr std::array<std::string_view, 4> kRunStatuses{"running", "finished", "interrupted", "failed"};
constexpr std::array<std::string_view, 3> kRunModes{"compile-only", "gpu", "replay"};

template <std::size_t N>
void require_one_of(std::string_view value, const std::array<std::string_view, N>& valid, std::string_view what) {
  if (std::find(valid.begin(), valid.end(), value) != valid.end()) return;
  std::string list;
  for (auto v : valid) list += (list.empty() ? "" : ", ") + std::string(v);
  throw Error(fmt::format("unknown {} '{}' (expected one of: {})", what, value, list));
}

// ptxas figures are -1 when unknown; the database says NULL.
std::optional<std::int64_t> known(int value) {
  if (value < 0) return std::nullopt;
  return value;
}
int or_unknown(const std::optional<std::int64_t>& value) {
  return value ? static_cast<int>(*value) : -1;
}

std::optional<double> nonzero(double value) {
  if (value == 0) return std::nullopt;
  return value;
}

// compilations.warnings: a JSON array of {"code", "kind", "message"} (schema version 3).
std::string warnings_json(const std::vector<PtxasWarning>& warnings) {
  nlohmann::json array = nlohmann::json::array();
  for (const auto& w : warnings)
    array.push_back({{"code", w.code}, {"kind", to_string(w.kind)}, {"message", w.message}});
  return array.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

std::vector<PtxasWarning> warnings_from_json(const std::string& text) {
  std::vector<PtxasWarning> out;
  for (const auto& w : parse_json_bounded(text)) {
    const auto kind = ptxas_warning_kind_from_string(w.at("kind").get<std::string>());
    if (!kind) throw std::runtime_error("unknown warning kind " + w.at("kind").dump());
    out.push_back(PtxasWarning{w.at("code").get<std::string>(), *kind, w.at("message").get<std::string>()});
  }
  return out;
}

// runs.uid: 128 random bits as 32 hex digits, the run's identity when databases are merged.
std::string new_run_uid() {
  std::random_device rd;
  std::string uid;
  for (int i = 0; i < 4; ++i) uid += fmt::format("{:08x}", static_cast<std::uint32_t>(rd()));
  return uid;
}

// runs.gpus: [{"ordinal", "uuid", "name"}, ...]; NULL when the run used no GPU.
std::optional<std::string> gpus_json(const RunInfo& info) {
  if (info.gpus.empty()) return std::nullopt;
  nlohmann::json array = nlohmann::json::array();
  for (const auto& g : info.gpus)
    array.push_back({{"ordinal", g.ordinal}, {"uuid", g.uuid}, {"name", info.device_name.value_or("")}});
  return array.dump();
}

std::int64_t last_id(const store_detail::State& s) {
  return sqlite3_last_insert_rowid(s.conn.db);
}

constexpr std::string_view kCublasColumns =
    "id, run_id, device_name, device_cc, M, N, K, median_ms, min_ms, max_ms, warmup, runs, iters, tflops, "
    "sm_clock_mhz, created_at, l2, batches, problem";

StoredCublas read_cublas(const store_detail::State& s, const sqlite::Statement& q) {
  StoredCublas c;
  c.id = q.int64(0);
  c.run_id = q.int64(1);
  c.device_name = q.text(2);
  c.device_cc = q.text(3);
  c.shape = Shape{q.int64(4), q.int64(5), q.int64(6)};
  c.timing = store_detail::timing_at(q, 7);
  c.tflops = q.opt_real(13).value_or(0);
  c.sm_clock_mhz = q.opt_real(14).value_or(0);
  c.created_at = q.text(15);
  const std::string row = fmt::format("cuBLAS timing {}", c.id);
  if (const auto l2 = store_detail::l2_mode_at(s, q, 16, row)) c.timing.l2 = *l2;
  if (const auto how = store_detail::batches_at(s, q, 17, row)) c.timing.batches = *how;
  c.kind = store_detail::problem_at(s, q, 18, row);
  return c;
}

}  // namespace

std::int64_t Store::begin_run(const RunInfo& info) {
  auto& s = state();
  const std::string doing = "recording the start of a run";
  s.require_writable(doing);
  require_one_of(info.mode, kRunModes, "run mode");
  const std::string argv = nlohmann::json(info.argv).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  sqlite::Transaction tx(s.conn, doing);
  if (info.hostname) store_detail::mark_dead_runs(s, *info.hostname);
  sqlite::Statement(s.conn,
                    "INSERT INTO runs (tool_version, git_sha, argv, mode, space_path, space_hash, hostname, "
                    "device_name, device_cc, sm_count, driver_version, runtime_version, nvrtc_version, "
                    "cublas_version, notes, pid, uid, shard, gpus) "
                    "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19)",
                    doing)
      .bind(info.tool_version, info.git_sha, argv, info.mode, info.space_path, info.space_hash, info.hostname,
            info.device_name, info.device_cc, info.sm_count, info.driver_version, info.runtime_version,
            info.nvrtc_version, info.cublas_version, info.notes, static_cast<std::int64_t>(::getpid()), new_run_uid(),
            info.shard, gpus_json(info))
      .run();
  const std::int64_t id = last_id(s);
  store_detail::hold_live_run(s, id);  // before the row is visible to others: they must never see it unlocked
  tx.commit();
  return id;
}

void Store::end_run(std::int64_t run_id, std::string_view status) {
  auto& s = state();
  const std::string doing = fmt::format("recording the end of run {}", run_id);
  s.require_writable(doing);
  require_one_of(status, kRunStatuses, "run status");
  sqlite::Transaction tx(s.conn, doing);
  sqlite::Statement(
      s.conn, "UPDATE runs SET status = ?1, ended_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now') WHERE id = ?2", doing)
      .bind(status, run_id)
      .run();
  if (sqlite3_changes(s.conn.db) == 0)
    throw StoreError(s.conn.path, SQLITE_NOTFOUND, fmt::format("{}: there is no run {}", doing, run_id));
  tx.commit();
  store_detail::release_live_run(s, run_id);
}

void Store::record_time_accounts(std::int64_t run_id, const std::string& json) {
  auto& s = state();
  const std::string doing = fmt::format("recording the time accounts of run {}", run_id);
  s.require_writable(doing);
  sqlite::Statement(s.conn, "UPDATE runs SET time_accounts = ?1 WHERE id = ?2", doing).bind(json, run_id).run();
  if (sqlite3_changes(s.conn.db) == 0)
    throw StoreError(s.conn.path, SQLITE_NOTFOUND, fmt::format("{}: there is no run {}", doing, run_id));
}

std::optional<StoredRun> Store::find_run(std::int64_t run_id) const {
  auto& s = state();
  sqlite::Statement q(s.conn,
                      "SELECT id, started_at, ended_at, status, tool_version, git_sha, argv, mode, space_path, "
                      "space_hash, hostname, device_name, device_cc, sm_count, driver_version, runtime_version, "
                      "nvrtc_version, cublas_version, notes, pid, uid, shard, gpus FROM runs WHERE id = ?1",
                      fmt::format("reading run {}", run_id));
  if (!q.bind(run_id).step()) return std::nullopt;
  StoredRun r;
  r.id = q.int64(0);
  r.started_at = q.text(1);
  r.ended_at = q.opt_text(2);
  r.status = q.text(3);
  r.tool_version = q.text(4);
  r.git_sha = q.text(5);
  try {
    r.argv = parse_json_bounded(q.text(6)).get<std::vector<std::string>>();
  } catch (const nlohmann::json::exception& e) {
    s.bad_row(fmt::format("run {} has a malformed argv: {}", run_id, e.what()));
  }
  r.mode = q.text(7);
  r.space_path = q.opt_text(8);
  r.space_hash = q.opt_text(9);
  r.hostname = q.opt_text(10);
  r.device_name = q.opt_text(11);
  r.device_cc = q.opt_text(12);
  r.sm_count = q.opt_int64(13);
  r.driver_version = q.opt_text(14);
  r.runtime_version = q.opt_text(15);
  r.nvrtc_version = q.opt_text(16);
  r.cublas_version = q.opt_text(17);
  r.notes = q.opt_text(18);
  r.pid = q.opt_int64(19);
  r.uid = q.text(20);
  r.shard = q.opt_text(21);
  if (auto gpus = q.opt_text(22)) {
    try {
      for (const auto& g : parse_json_bounded(*gpus))
        r.gpus.push_back(GpuIdentity{g.at("uuid").get<std::string>(), g.at("ordinal").get<int>()});
    } catch (const nlohmann::json::exception& e) {
      s.bad_row(fmt::format("run {} has malformed gpus: {}", run_id, e.what()));
    }
  }
  return r;
}

std::int64_t Store::upsert_config(const Candidate& candidate, std::string_view source_hash) {
  auto& s = state();
  const std::string doing = fmt::format("recording config {}", candidate.name);
  s.require_writable(doing);
  const std::string params = to_json(candidate.params).dump();
  sqlite::Transaction tx(s.conn, doing);
  // A known config keeps its row; it only gains an alias when it had none.
  sqlite::Statement(s.conn,
                    "INSERT INTO configs (family, name, params, source_hash, alias) VALUES (?1, ?2, ?3, ?4, ?5) "
                    "ON CONFLICT (family, name, source_hash) DO UPDATE SET alias = excluded.alias "
                    "WHERE configs.alias IS NULL AND excluded.alias IS NOT NULL",
                    doing)
      .bind(candidate.family, candidate.name, params, source_hash, candidate.alias)
      .run();
  sqlite::Statement q(s.conn, "SELECT id FROM configs WHERE family = ?1 AND name = ?2 AND source_hash = ?3", doing);
  if (!q.bind(candidate.family, candidate.name, source_hash).step()) s.bad_row(doing + ": the row vanished");
  const std::int64_t id = q.int64(0);
  q.reset();
  tx.commit();
  return id;
}

std::optional<StoredConfig> Store::find_config(std::int64_t config_id) const {
  auto& s = state();
  sqlite::Statement q(s.conn,
                      "SELECT id, family, name, params, source_hash, alias, created_at FROM configs WHERE id = ?1",
                      fmt::format("reading config {}", config_id));
  if (!q.bind(config_id).step()) return std::nullopt;
  StoredConfig c;
  c.id = q.int64(0);
  c.candidate.family = q.text(1);
  c.candidate.name = q.text(2);
  try {
    c.candidate.params = params_from_json(parse_json_bounded(q.text(3)));
  } catch (const std::exception& e) {
    s.bad_row(fmt::format("config {} has malformed params: {}", config_id, e.what()));
  }
  c.source_hash = q.text(4);
  c.candidate.alias = q.opt_text(5);
  c.created_at = q.text(6);
  return c;
}

std::optional<StoredCompilation> Store::find_compilation(std::int64_t config_id, std::string_view arch,
                                                         std::string_view compile_key) const {
  auto& s = state();
  sqlite::Statement q(s.conn,
                      "SELECT id, config_id, run_id, arch, compile_key, status, registers, shared_bytes, "
                      "spill_store_bytes, spill_load_bytes, stack_bytes, compile_ms, log, created_at, "
                      "dynamic_shared_bytes, warnings "
                      "FROM compilations WHERE config_id = ?1 AND arch = ?2 AND compile_key = ?3",
                      fmt::format("looking up compilation {} of config {} for {}", compile_key, config_id, arch));
  if (!q.bind(config_id, arch, compile_key).step()) return std::nullopt;
  StoredCompilation c;
  c.id = q.int64(0);
  c.config_id = q.int64(1);
  c.run_id = q.int64(2);
  const auto parsed_arch = Arch::parse(q.text(3));
  const auto status = status_from_string(q.text(5));
  if (!parsed_arch || !status)
    s.bad_row(fmt::format("compilation {} has arch '{}' and status '{}'", c.id, q.text(3), q.text(5)));
  c.arch = *parsed_arch;
  c.compile_key = q.text(4);
  c.status = *status;
  c.registers = or_unknown(q.opt_int64(6));
  c.shared_bytes = or_unknown(q.opt_int64(7));
  c.spill_store_bytes = or_unknown(q.opt_int64(8));
  c.spill_load_bytes = or_unknown(q.opt_int64(9));
  c.stack_bytes = or_unknown(q.opt_int64(10));
  c.compile_ms = q.real(11);
  c.log = q.text(12);
  c.created_at = q.text(13);
  c.dynamic_shared_bytes = or_unknown(q.opt_int64(14));
  if (auto warnings = q.opt_text(15)) {
    try {
      c.warnings = warnings_from_json(*warnings);
    } catch (const std::exception& e) {
      s.bad_row(fmt::format("compilation {} has malformed warnings: {}", c.id, e.what()));
    }
  }
  return c;
}

std::int64_t Store::record_compilation(std::int64_t config_id, std::int64_t run_id, const CompileResult& result) {
  auto& s = state();
  const std::string arch = result.arch.str();
  const std::string doing =
      fmt::format("recording compilation {} of config {} for {}", result.compile_key, config_id, arch);
  s.require_writable(doing);
  sqlite::Transaction tx(s.conn, doing);
  sqlite::Statement(s.conn,
                    "INSERT INTO compilations (config_id, run_id, arch, compile_key, status, registers, "
                    "shared_bytes, spill_store_bytes, spill_load_bytes, stack_bytes, compile_ms, log, "
                    "dynamic_shared_bytes, warnings) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, "
                    "?14) ON CONFLICT (config_id, arch, compile_key) DO NOTHING",
                    doing)
      .bind(config_id, run_id, arch, result.compile_key, to_string(result.status), known(result.registers),
            known(result.shared_bytes), known(result.spill_store_bytes), known(result.spill_load_bytes),
            known(result.stack_bytes), result.compile_ms, result.log, known(result.dynamic_shared_bytes),
            warnings_json(result.warnings))
      .run();
  sqlite::Statement q(s.conn, "SELECT id FROM compilations WHERE config_id = ?1 AND arch = ?2 AND compile_key = ?3",
                      doing);
  if (!q.bind(config_id, arch, result.compile_key).step()) s.bad_row(doing + ": the row vanished");
  const std::int64_t id = q.int64(0);
  q.reset();
  tx.commit();
  return id;
}

std::int64_t Store::record_cublas(std::int64_t run_id, const CublasRecord& r) {
  auto& s = state();
  const std::string doing =
      fmt::format("recording the cuBLAS timing of {} on {}", GemmProblem{r.shape, r.kind}.str(), r.device_name);
  s.require_writable(doing);
  sqlite::Transaction tx(s.conn, doing);
  sqlite::Statement(s.conn,
                    "INSERT INTO cublas_timings (run_id, device_name, device_cc, M, N, K, median_ms, min_ms, max_ms, "
                    "warmup, runs, iters, tflops, sm_clock_mhz, l2, gpu_uuid, gpu_ordinal, batches, problem) "
                    "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19)",
                    doing)
      .bind(run_id, r.device_name, r.device_cc, r.shape.m, r.shape.n, r.shape.k, r.timing.median_ms, r.timing.min_ms,
            r.timing.max_ms, r.timing.warmup, r.timing.runs, r.timing.iters, tflops_of(r.shape, r.timing.median_ms),
            nonzero(r.sm_clock_mhz), std::string(to_string(r.timing.l2)),
            r.gpu ? std::optional(r.gpu->uuid) : std::nullopt,
            r.gpu ? std::optional<std::int64_t>(r.gpu->ordinal) : std::nullopt,
            std::string(to_string(r.timing.batches)), r.kind.name())
      .run();
  const std::int64_t id = last_id(s);
  tx.commit();
  return id;
}

std::optional<StoredCublas> Store::find_cublas(std::int64_t cublas_id) const {
  auto& s = state();
  sqlite::Statement q(s.conn, fmt::format("SELECT {} FROM cublas_timings WHERE id = ?1", kCublasColumns),
                      fmt::format("reading cuBLAS timing {}", cublas_id));
  if (!q.bind(cublas_id).step()) return std::nullopt;
  return read_cublas(s, q);
}

std::optional<StoredCublas> Store::find_latest_cublas(std::string_view device_name, const GemmProblem& problem) const {
  auto& s = state();
  const Shape& shape = problem.shape;
  sqlite::Statement q(s.conn,
                      fmt::format("SELECT {} FROM cublas_timings WHERE device_name = ?1 AND M = ?2 AND N = ?3 "
                                  "AND K = ?4 AND problem = ?5 ORDER BY id DESC LIMIT 1",
                                  kCublasColumns),
                      fmt::format("looking up the cuBLAS timing of {} on {}", problem.str(), device_name));
  if (!q.bind(device_name, shape.m, shape.n, shape.k, problem.kind.name()).step()) return std::nullopt;
  return read_cublas(s, q);
}

std::vector<GemmProblem> Store::cublas_problems(std::string_view device_name) const {
  auto& s = state();
  const std::string doing = fmt::format("listing the problems with a cuBLAS timing on {}", device_name);
  sqlite::Statement q(s.conn,
                      "SELECT DISTINCT problem, M, N, K FROM cublas_timings WHERE device_name = ?1 "
                      "ORDER BY problem, M, N, K",
                      doing);
  q.bind(device_name);
  std::vector<GemmProblem> out;
  while (q.step())
    out.push_back(GemmProblem{Shape{q.int64(1), q.int64(2), q.int64(3)},
                              store_detail::problem_at(s, q, 0, fmt::format("a cuBLAS timing on {}", device_name))});
  return out;
}

}  // namespace mpgemm
