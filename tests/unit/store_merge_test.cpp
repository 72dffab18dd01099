// mpgemm-query merge (store/merge.hpp): databases built through the Store API merge to the same content in any
// order, twice as once, into themselves as nothing; a result key measured twice resolves the same whatever the
// order; newer schemas and other applications are refused by name; an older input merges; kill -9 in the middle
// leaves OUT as it was (and a new OUT absent). Content is compared with canonical_dump (store/dump.hpp).
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "common/error.hpp"
#include "store/dump.hpp"
#include "store/merge.hpp"
#include "store/schema.hpp"
#include "store/store.hpp"
#include "store/table_rows.hpp"
#include "support/old_database.hpp"
#include "support/store_fixture.hpp"

namespace mpgemm {
namespace {

namespace fs = std::filesystem;

using testing::raw_exec;

std::string file_bytes(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}

const MergeCounts& counts(const MergeReport& r, const std::string& table) {
  for (const auto& c : r.tables)
    if (c.table == table) return c;
  throw std::runtime_error("no table " + table);
}

std::int64_t total_added(const MergeReport& r) {
  std::int64_t n = 0;
  for (const auto& c : r.tables) n += c.added;
  return n;
}

// What one database holds, as one recording run over `configs` (shared names across databases: the same
// config, compiled with the same key) and `shapes`, with measurements keyed "<config>@<M>" (shared between
// databases that measure the same pair; `median_scale` makes their content differ), a cuBLAS and a cuBLASLt
// timing per shape, a re-rank of the first shape and a profile.
struct DbSpec {
  std::string host;
  std::vector<std::string> configs;
  std::vector<int> shapes;  // M of an MxM x 64 shape
  double median_scale = 1.0;
  std::string key_prefix;  // "" : keys shared with other databases measuring the same pair
};

void build_db(const fs::path& path, const DbSpec& spec) {
  Store store = Store::open(path, Store::Mode::read_write);
  RunInfo info;
  info.argv = {"mpgemm-tune", "space.json", "--shard", "1/2"};
  info.hostname = spec.host;
  info.shard = "1/2";
  info.device_name = "NVIDIA H200";
  info.gpus = {GpuIdentity{"GPU-0000-" + spec.host, 0}};
  const auto run = store.begin_run(info);
  std::vector<std::int64_t> config_ids, compilation_ids;
  for (std::size_t i = 0; i < spec.configs.size(); ++i) {
    const auto& name = spec.configs[i];
    config_ids.push_back(store.upsert_config(
        Candidate{"wmma", {{"BM", std::int64_t{64}}, {"NAME", name}}, name, std::nullopt}, "hash-" + name));
    CompileResult c;
    c.status = Status::ok;
    c.arch = *Arch::parse("sm_90a");
    c.registers = 96;
    c.shared_bytes = 1024;
    c.compile_ms = 800.25;
    c.log = "ptxas info: Used 96 registers\nptxas info: 0 bytes spill\\stack\r";  // lines, as ptxas writes
    c.compile_key = "ck-" + name;
    compilation_ids.push_back(store.record_compilation(config_ids.back(), run, c));
  }
  for (const int m : spec.shapes) {
    const Shape shape{m, m, 64};
    const auto cublas =
        store.record_cublas(run, CublasRecord{"NVIDIA H200", "sm_90", shape, TimingStats{0.5, 0.49, 0.52, 3, 5, 20},
                                              1980.0, GpuIdentity{"GPU-0000-" + spec.host, 0}});
    CublasLtReference lt;
    lt.heuristics_returned = 8;
    lt.message = "none verified";
    const auto cublaslt = store.record_cublaslt(run, CublasLtRecord{"NVIDIA H200", "sm_90", shape, lt, std::nullopt});
    for (std::size_t i = 0; i < spec.configs.size(); ++i) {
      MeasurementRecord r;
      r.run_id = run;
      r.config_id = config_ids[i];
      r.compilation_id = compilation_ids[i];
      r.result_key = fmt::format("{}{}@{}", spec.key_prefix, spec.configs[i], m);
      r.device_name = "NVIDIA H200";
      r.device_cc = "sm_90";
      r.arch = *Arch::parse("sm_90a");
      r.shape = shape;
      const double median = (0.1 + 0.0137 * static_cast<double>(i) + 1e-5 * m) * spec.median_scale;
      r.measurement.status = Status::ok;
      r.measurement.timing = TimingStats{median, median, median, 3, 5, 20};
      r.cublas_id = cublas;
      r.cublaslt_id = cublaslt;
      r.ratio_to_cublas = 0.5 / median;
      store.record_measurement(r);
    }
  }
  if (!spec.shapes.empty() && spec.configs.size() >= 2) {
    RerankRecord r;
    r.run_id = run;
    r.device_name = "NVIDIA H200";
    r.device_cc = "sm_90";
    r.shape = Shape{spec.shapes[0], spec.shapes[0], 64};
    r.rounds = 2;
    r.iters = 20;
    r.rule = "test_rule";
    r.winner_config_id = config_ids[1];
    r.cublas_median_ms = 0.5;
    RerankEntryRecord winner, other;
    winner.config_id = config_ids[1];
    other.config_id = config_ids[0];
    winner.arch = other.arch = *Arch::parse("sm_90a");
    winner.timing = TimingStats{0.25, 0.25, 0.25, 0, 2, 20};
    winner.place = 1;
    winner.samples = {{0, 1, 0.25}, {1, 0, 0.25}};
    other.status = Status::launch_failed;
    other.message = "dropped";
    r.entries = {winner, other};
    r.cublas_samples = {{0, 2, 0.5}, {1, 1, 0.5}};
    store.record_rerank(r);
  }
  ProfileRecord p;
  p.label = spec.configs.at(0);
  p.config_id = config_ids.at(0);
  p.kernel = "gemm_kernel";
  p.shape = Shape{256, 256, 64};
  p.metrics = {{"sm__throughput", "%", 71.5}, {"dram__bytes", "byte", 1.5e6}};
  store.record_profile(p);
  store.end_run(run, "finished");
}

class StoreMerge : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = testing::per_test_dir();
    fs::create_directories(dir_);
    a_ = dir_ / "a.db";
    b_ = dir_ / "b.db";
    build_db(a_, DbSpec{"host-a", {"wmma_a", "wmma_b", "wmma_c"}, {256, 512}, 1.0, "a:"});
    build_db(b_, DbSpec{"host-b", {"wmma_b", "wmma_c", "wmma_d"}, {512, 1024}, 1.0, "b:"});
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
  fs::path at(const std::string& name) const { return dir_ / name; }

  fs::path dir_;
  fs::path a_, b_;
};

TEST_F(StoreMerge, MergingInEitherOrderGivesTheSameContent) {
  const auto ab = merge_databases(at("ab.db"), {a_, b_});
  EXPECT_TRUE(ab.created);
  merge_databases(at("ba.db"), {b_, a_});
  merge_databases(at("a_then_b.db"), {a_});
  merge_databases(at("a_then_b.db"), {b_});
  const auto dump = canonical_dump(at("ab.db"));
  EXPECT_EQ(canonical_dump(at("ba.db")), dump);
  EXPECT_EQ(canonical_dump(at("a_then_b.db")), dump);

  // Configs and compilations of both are stored once (the ones both hold differ in when and by which run they
  // were made: conflicts, the earliest kept); runs, timings and measurements of both are kept.
  EXPECT_EQ(counts(ab, "configs").added, 4);
  EXPECT_EQ(counts(ab, "configs").present + counts(ab, "configs").conflicts, 2);
  EXPECT_EQ(counts(ab, "compilations").added, 4);
  EXPECT_EQ(counts(ab, "runs").added, 2);
  EXPECT_EQ(counts(ab, "measurements").added, 12);
  EXPECT_EQ(counts(ab, "cublas_timings").added, 4);
  EXPECT_EQ(counts(ab, "reranks").added, 2);
  EXPECT_EQ(counts(ab, "rerank_samples").added, 8);
  EXPECT_EQ(counts(ab, "profile_metrics").added, 4);
  // Every other line of each input is in the merge (provenance included: hosts, shards, GPUs).
  for (const auto& in : {a_, b_}) {
    for (const auto& line : canonical_dump(in)) {
      if (line.starts_with("configs|") || line.starts_with("compilations|")) continue;
      EXPECT_TRUE(std::binary_search(dump.begin(), dump.end(), line)) << line;
    }
  }
  EXPECT_FALSE(fs::exists(at("ab.db-wal")));  // left in rollback-journal mode, like any closed database
}

// `mpgemm-query DB --dump` prints one line per row: a value's newlines (a ptxas log's) are escaped, one-to-one.
TEST_F(StoreMerge, ADumpIsOneLinePerRow) {
  const auto dump = canonical_dump(a_);
  const std::int64_t rows = [&] {
    Store s = Store::open(a_, Store::Mode::read_only);
    std::int64_t n = 0;
    for (const auto& t : store_detail::table_specs())
      n += std::get<std::int64_t>(s.query_sql(fmt::format("SELECT count(*) FROM {}", t.name)).rows.at(0).at(0));
    return n;
  }();
  EXPECT_EQ(static_cast<std::int64_t>(dump.size()), rows);
  bool escaped = false;
  for (const auto& line : dump) {
    EXPECT_EQ(line.find_first_of("\r\n"), std::string::npos) << line;
    if (line.starts_with("compilations|"))
      escaped |= line.find("registers\\nptxas info: 0 bytes spill\\\\stack\\r") != std::string::npos;
  }
  EXPECT_TRUE(escaped) << "the log's newline, backslash and carriage return, escaped";
}

TEST_F(StoreMerge, MergingTwiceIsMergingOnce) {
  merge_databases(at("out.db"), {a_, b_});
  const auto once = canonical_dump(at("out.db"));
  const auto again = merge_databases(at("out.db"), {b_, a_, a_});
  EXPECT_FALSE(again.created);
  EXPECT_EQ(total_added(again), 0);
  EXPECT_EQ(canonical_dump(at("out.db")), once);
}

// A new OUT is built under a name mkstemp makes beside it, not at a predictable OUT.merging-PID where anything could
// be planted first (a symlink SQLite would follow, or, here, a folder in the way); and it gets the permissions a new
// file gets, as if SQLite had made it.
TEST_F(StoreMerge, ANewOutputIsBuiltUnderAnUnpredictableName) {
  const fs::path planted = at(fmt::format("out.db.merging-{}", ::getpid()));
  fs::create_directories(planted / "inside");
  const mode_t mask = ::umask(022);
  merge_databases(at("out.db"), {a_, b_});
  ::umask(mask);
  EXPECT_TRUE(fs::exists(planted / "inside")) << "what was at the predictable name was touched";
  EXPECT_EQ(fs::status(at("out.db")).permissions() & fs::perms::all,
            fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read | fs::perms::others_read);
  for (const auto& e : fs::directory_iterator(dir_)) {
    if (e.path() == planted) continue;
    EXPECT_EQ(e.path().filename().string().find(".merging"), std::string::npos) << e.path() << " left behind";
  }
}

TEST_F(StoreMerge, MergingADatabaseWithItselfChangesNothing) {
  const auto before = canonical_dump(a_);
  fs::copy_file(a_, at("copy.db"));
  const auto r = merge_databases(at("copy.db"), {a_});
  EXPECT_EQ(total_added(r), 0);
  for (const auto& c : r.tables) EXPECT_EQ(c.conflicts, 0) << c.table;
  EXPECT_EQ(canonical_dump(at("copy.db")), before);

  const auto self = merge_databases(a_, {a_});  // the output itself: skipped, said so
  ASSERT_EQ(self.notes.size(), 1u);
  EXPECT_NE(self.notes[0].find("the output itself"), std::string::npos);
  EXPECT_EQ(canonical_dump(a_), before);
}

// Two databases measured one result key (same config, same shape) differently: the earlier measurement wins
// whichever is merged first, and replaces the later one already in OUT; at equal times, the smaller run uid.
TEST_F(StoreMerge, AConflictingResultKeyResolvesTheSameInEitherOrder) {
  build_db(at("x.db"), DbSpec{"host-x", {"wmma_a", "wmma_b"}, {256}, 1.0, ""});
  build_db(at("y.db"), DbSpec{"host-y", {"wmma_a", "wmma_b"}, {256}, 2.0, ""});
  raw_exec(at("x.db"), "UPDATE measurements SET created_at = '2026-01-02T00:00:00.000Z'");
  raw_exec(at("y.db"), "UPDATE measurements SET created_at = '2026-01-01T00:00:00.000Z'");  // y is earlier
  const auto xy = merge_databases(at("xy.db"), {at("x.db"), at("y.db")});
  merge_databases(at("yx.db"), {at("y.db"), at("x.db")});
  EXPECT_EQ(counts(xy, "measurements").conflicts, 2);
  EXPECT_EQ(counts(xy, "measurements").replaced, 2);
  EXPECT_EQ(canonical_dump(at("xy.db")), canonical_dump(at("yx.db")));
  const auto medians = [](const fs::path& db) {
    Store s = Store::open(db, Store::Mode::read_only);
    return s
        .query_sql(
            "SELECT m.median_ms, r.hostname FROM measurements m JOIN runs r ON r.id = m.run_id "
            "ORDER BY result_key")
        .rows;
  };
  const auto rows = medians(at("xy.db"));
  ASSERT_EQ(rows.size(), 2u);
  for (const auto& row : rows) EXPECT_EQ(std::get<std::string>(row[1]), "host-y");
  EXPECT_TRUE(medians(at("yx.db")) == rows);

  // Equal created_at: the run with the smaller uid wins, whatever the order.
  raw_exec(at("x.db"), "UPDATE measurements SET created_at = '2026-01-01T00:00:00.000Z'");
  merge_databases(at("xy2.db"), {at("x.db"), at("y.db")});
  merge_databases(at("yx2.db"), {at("y.db"), at("x.db")});
  EXPECT_EQ(canonical_dump(at("xy2.db")), canonical_dump(at("yx2.db")));
  Store s = Store::open(at("xy2.db"), Store::Mode::read_only);
  const auto winner = s.query_sql("SELECT DISTINCT r.uid FROM measurements m JOIN runs r ON r.id = m.run_id").rows;
  const auto smallest = s.query_sql("SELECT min(uid) FROM runs").rows;
  ASSERT_EQ(winner.size(), 1u);
  EXPECT_TRUE(winner[0][0] == smallest[0][0]);
}

TEST_F(StoreMerge, NewerSchemasAndOtherApplicationsAreRefusedByName) {
  merge_databases(at("out.db"), {a_});
  const auto before = canonical_dump(at("out.db"));
  fs::copy_file(b_, at("newer.db"));
  raw_exec(at("newer.db"), fmt::format("PRAGMA user_version = {}", schema_version() + 1));
  fs::copy_file(b_, at("foreign.db"));
  raw_exec(at("foreign.db"), "PRAGMA application_id = 1234");
  const auto expect_refused = [&](const fs::path& bad, const std::string& words) {
    for (const auto& out : {at("out.db"), at("new.db")}) {
      try {
        merge_databases(out, {b_, bad});
        ADD_FAILURE() << "merged " << bad;
      } catch (const StoreError& e) {
        EXPECT_NE(std::string(e.what()).find(bad.string()), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find(words), std::string::npos) << e.what();
      }
    }
    EXPECT_EQ(canonical_dump(at("out.db")), before);
    EXPECT_FALSE(fs::exists(at("new.db")));
  };
  expect_refused(at("newer.db"), fmt::format("schema version {}, newer than this mpgemm's ({})", schema_version() + 1,
                                             schema_version()));
  expect_refused(at("foreign.db"), "not an mpgemm results database (SQLite application_id 0x4d2");
  for (const int version : {0, -3}) {  // no version mpgemm ever wrote: a damaged or edited header
    const auto damaged = at(fmt::format("version{}.db", version));
    fs::copy_file(b_, damaged);
    raw_exec(damaged, fmt::format("PRAGMA user_version = {}", version));
    const auto bytes = file_bytes(damaged);
    expect_refused(damaged, fmt::format("schema version {}, none that mpgemm ever wrote", version));
    EXPECT_EQ(file_bytes(damaged), bytes) << "a refused input is never changed";
    EXPECT_FALSE(fs::exists(damaged.string() + "-wal"));
  }
}

// A version-7 database as an mpgemm of that version left it (the migrations' own SQL up to 7, rows written
// with plain SQL), merged without being modified: its run gets the migration's deterministic uid.
TEST_F(StoreMerge, AnOlderInputMergesThroughATemporaryMigratedCopy) {
  const auto old = at("v7.db");
  testing::database_at_version(
      old, 7,
      "INSERT INTO runs (id, started_at, tool_version, git_sha, argv, mode, hostname, pid) VALUES "
      "  (1, '2026-11-01T10:00:00.000Z', '0.1.0', 'abc', '[]', 'gpu', 'old-host', 42);"
      "INSERT INTO configs (id, family, name, params, source_hash) VALUES (1, 'wmma', 'wmma_a', '{}', "
      "  'hash-wmma_a');"
      "INSERT INTO compilations (id, config_id, run_id, arch, compile_key, status, compile_ms, log) VALUES "
      "  (1, 1, 1, 'sm_90a', 'ck-wmma_a', 'ok', 1.0, '');"
      "INSERT INTO measurements (run_id, config_id, compilation_id, result_key, device_name, device_cc, arch, "
      "  M, N, K, status, median_ms) VALUES (1, 1, 1, 'old-key', 'NVIDIA H200', 'sm_90', 'sm_90a', 256, 256, "
      "  64, 'ok', 0.5);");
  const std::string bytes = file_bytes(old);
  const auto r = merge_databases(at("out.db"), {a_, old});
  ASSERT_EQ(r.notes.size(), 1u);
  EXPECT_NE(r.notes[0].find("schema version 7 migrated"), std::string::npos) << r.notes[0];
  EXPECT_EQ(file_bytes(old), bytes);         // the input is untouched
  EXPECT_EQ(counts(r, "configs").added, 3);  // wmma_a, met in a.db too, is stored once
  Store s = Store::open(at("out.db"), Store::Mode::read_only);
  const auto rows = s.query_sql(
                         "SELECT r.uid, m.median_ms FROM measurements m JOIN runs r ON r.id = m.run_id "
                         "WHERE result_key = 'old-key'")
                        .rows;
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(std::get<std::string>(rows[0][0]), "v7-2026-11-01T10:00:00.000Z-old-host-42-1");
}

TEST_F(StoreMerge, ADatabaseATunerIsRecordingIntoIsRefused) {
  Store live = Store::open(at("live.db"), Store::Mode::read_write);
  RunInfo info;
  info.hostname = "here";
  live.begin_run(info);  // holds the run's live lock, as a tuner does
  try {
    merge_databases(at("live.db"), {a_});
    ADD_FAILURE() << "merged into a database a run is recording into";
  } catch (const StoreError& e) {
    EXPECT_NE(std::string(e.what()).find("still recording"), std::string::npos) << e.what();
  }
}

TEST_F(StoreMerge, ATableWithoutAMergeKeyIsRefused) {
  merge_databases(at("out.db"), {a_});
  raw_exec(at("out.db"), "CREATE TABLE notes (id INTEGER PRIMARY KEY, text TEXT) STRICT");
  EXPECT_THROW(merge_databases(at("out.db"), {b_}), Error);
}

// An input's table that the merge does not know would not be copied: the merge refuses the input by name (file and
// table) before OUT is touched, whether OUT exists or not; an older input's unknown table too (migrated copy).
TEST_F(StoreMerge, AnInputWithAnUnknownTableIsRefusedNamingFileAndTable) {
  merge_databases(at("out.db"), {a_});
  const auto before = canonical_dump(at("out.db"));
  fs::copy_file(b_, at("extra.db"));
  raw_exec(at("extra.db"), "CREATE TABLE my_notes (id INTEGER PRIMARY KEY, text TEXT) STRICT");
  raw_exec(at("extra.db"), "INSERT INTO my_notes (text) VALUES ('kept only here')");
  const auto old = at("v7_extra.db");
  testing::database_at_version(old, 7, "CREATE TABLE old_notes (text TEXT);");
  for (const auto& bad : {at("extra.db"), old}) {
    const std::string table = bad == old ? "old_notes" : "my_notes";
    for (const auto& out : {at("out.db"), at("new.db")}) {
      try {
        merge_databases(out, {b_, bad});
        ADD_FAILURE() << "merged " << bad << " into " << out;
      } catch (const StoreError& e) {
        const std::string what = e.what();
        EXPECT_NE(what.find(bad.string()), std::string::npos) << what;
        EXPECT_NE(what.find("'" + table + "'"), std::string::npos) << what;
        EXPECT_NE(what.find("nothing was merged"), std::string::npos) << what;
        EXPECT_EQ(what.find('\n'), std::string::npos) << what;
      }
    }
    EXPECT_EQ(canonical_dump(at("out.db")), before);
    EXPECT_FALSE(fs::exists(at("new.db")));
  }
}

// A database whose run reads 'running' (a tuner still writing it, or killed) merges as it is, with one warning
// line naming the file and the run; a finished one gives none.
TEST_F(StoreMerge, AnInputWithARunningRunMergesWithAWarning) {
  const auto clean = merge_databases(at("clean.db"), {a_, b_});
  EXPECT_TRUE(clean.warnings.empty());

  Store live = Store::open(at("live.db"), Store::Mode::read_write);
  RunInfo info;
  info.hostname = "tuner-host";
  const auto run = live.begin_run(info);  // holds the run's live lock, as a tuner does
  const auto r = merge_databases(at("out.db"), {a_, at("live.db")});
  ASSERT_EQ(r.warnings.size(), 1u);
  const std::string& w = r.warnings[0];
  EXPECT_NE(w.find(at("live.db").string()), std::string::npos) << w;
  EXPECT_NE(w.find(fmt::format("run {} (process {} on tuner-host, still recording)", run, ::getpid())),
            std::string::npos)
      << w;
  EXPECT_NE(w.find("'running'"), std::string::npos) << w;
  EXPECT_EQ(w.find('\n'), std::string::npos) << w;
  EXPECT_EQ(counts(r, "runs").added, 2);  // merged all the same

  // The tuner killed: its run still reads 'running', nobody holds its lock; still a warning, not "recording".
  raw_exec(b_, "UPDATE runs SET status = 'running', ended_at = NULL");
  const auto killed = merge_databases(at("out2.db"), {b_});
  ASSERT_EQ(killed.warnings.size(), 1u);
  EXPECT_NE(killed.warnings[0].find(b_.string()), std::string::npos) << killed.warnings[0];
  EXPECT_NE(killed.warnings[0].find("on host-b)"), std::string::npos) << killed.warnings[0];
}

// Runs merge_databases(out, inputs) in a child killed by SIGKILL after `rows` rows written; returns its end.
int merge_killed_after(const fs::path& out, const std::vector<fs::path>& inputs, int rows) {
  const pid_t pid = fork();
  if (pid == 0) {
    setenv("MPGEMM_MERGE_TEST_ABORT_AFTER_ROWS", std::to_string(rows).c_str(), 1);
    try {
      merge_databases(out, inputs);
    } catch (...) {
      _exit(3);
    }
    _exit(0);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFSIGNALED(status) ? 128 + WTERMSIG(status) : WEXITSTATUS(status);
}

TEST_F(StoreMerge, KillNineMidMergeLeavesOutAsItWas) {
  std::vector<std::string> many;
  for (int i = 0; i < 60; ++i) many.push_back(fmt::format("wmma_{:03}", i));
  build_db(at("big.db"), DbSpec{"host-big", many, {256, 512, 768, 1024, 2048}, 1.0, "big:"});
  merge_databases(at("out.db"), {a_});
  const auto before = canonical_dump(at("out.db"));

  EXPECT_EQ(merge_killed_after(at("out.db"), {b_, at("big.db")}, 200), 128 + SIGKILL);
  EXPECT_EQ(canonical_dump(at("out.db")), before);
  EXPECT_EQ(merge_killed_after(at("new.db"), {at("big.db")}, 200), 128 + SIGKILL);
  EXPECT_FALSE(fs::exists(at("new.db")));

  // Not killed: the merge completes, and is the same as merging into a fresh file.
  merge_databases(at("out.db"), {b_, at("big.db")});
  merge_databases(at("fresh.db"), {at("big.db"), a_, b_});
  EXPECT_EQ(canonical_dump(at("out.db")), canonical_dump(at("fresh.db")));
  Store s = Store::open(at("out.db"), Store::Mode::read_only);
  EXPECT_EQ(s.query_named("measurements").rows.size(), 6u + 6u + 300u);
}

}  // namespace
}  // namespace mpgemm
