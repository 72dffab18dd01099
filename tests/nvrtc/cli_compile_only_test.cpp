// End to end without a GPU: mpgemm-tune's compile-only pass over the writeup's space, then mpgemm-query.
// Each space's named points and a fixed, seeded sample of its configs (a whole space is ~1.4 s a config on CI's two
// cores: 8 minutes for the three sweeps); MPGEMM_FULL_SWEEPS=1 compiles every config.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <algorithm>
#include <cstdlib>
#include <random>

#include <fmt/format.h>

#include "codegen/family.hpp"
#include "space/space.hpp"
#include "store/store.hpp"
#include "support/run_command.hpp"
#include "tune/candidates.hpp"

using namespace mpgemm;
using namespace mpgemm::testing;

namespace {

std::int64_t scalar(const Store& s, const std::string& sql) {
  auto t = s.query_sql(sql);
  EXPECT_EQ(t.rows.size(), 1u) << sql;
  return std::get<std::int64_t>(t.rows.at(0).at(0));
}

int independent_count(const std::string& space) {
  auto r = run_command("python3 " + source("tests/tools/count_space.py") + " --with-points " + source(space));
  EXPECT_EQ(r.exit_code, 0) << r.output;
  return std::stoi(r.output);
}

bool full_sweeps() {
  const char* v = std::getenv("MPGEMM_FULL_SWEEPS");
  return v && std::string(v) == "1";
}

// `--only` taking the space's named points and kSampleSize of its other configs, drawn by a fixed seed; empty with
// MPGEMM_FULL_SWEEPS=1 (every config). `taken`: how many configs that selects.
std::string sample_of(const std::string& space_file, int& taken) {
  constexpr std::size_t kSampleSize = 16;
  const Space space = load_space(source(space_file));
  std::vector<Candidate> all = build_candidates(space, family(space.family));
  taken = static_cast<int>(all.size());
  if (full_sweeps()) return "";
  std::vector<std::string> points, rest;
  for (const auto& c : all) (c.alias ? points : rest).push_back("=" + (c.alias ? *c.alias : c.name));
  std::mt19937 rng(20261208);
  std::shuffle(rest.begin(), rest.end(), rng);
  rest.resize(std::min(rest.size(), kSampleSize));
  points.insert(points.end(), rest.begin(), rest.end());
  taken = static_cast<int>(points.size());
  return fmt::format(" --only {}", fmt::join(points, ","));
}

void check_space_compiles(const std::string& space, const std::string& arch) {
  // The space's enumeration against an independent count, whatever is compiled.
  const int enumerated = independent_count(space);
  ASSERT_GE(enumerated, 50);
  auto dry = run_command(fmt::format("cd {} && {} {} --dry-run", MPGEMM_SOURCE_DIR, bin("mpgemm-tune"), space));
  ASSERT_EQ(dry.exit_code, 0) << dry.output;
  EXPECT_NE(dry.output.find(fmt::format("take {} configs per shape", enumerated)), std::string::npos) << dry.output;

  int expected = 0;
  const std::string only = sample_of(space, expected);
  ASSERT_EQ(only.empty() ? enumerated : expected, expected);
  auto dir = fresh_dir("compile_only_" + arch);
  auto db = (dir / "t.db").string();
  auto cmd = fmt::format("cd {} && {} {} --compile-only --arch {} --db {}{}", MPGEMM_SOURCE_DIR, bin("mpgemm-tune"),
                         space, arch, db, only);
  auto r = run_command(cmd);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("timing needs a GPU"), std::string::npos) << r.output;
  Store s = Store::open(db, Store::Mode::read_only);
  EXPECT_EQ(scalar(s, "SELECT count(*) FROM configs"), expected);
  EXPECT_EQ(scalar(s, fmt::format("SELECT count(*) FROM compilations WHERE status = 'ok' AND arch = '{}'", arch)),
            expected)
      << s.query_sql("SELECT status, log FROM compilations WHERE status != 'ok' LIMIT 3").rows.size();
  // Every compilation has plausible resources: WMMA kernels need registers for fragments, none spill much.
  EXPECT_EQ(scalar(s,
                   "SELECT count(*) FROM compilations WHERE registers < 16 OR registers > 255 OR "
                   "shared_bytes < 0 OR spill_store_bytes < 0 OR compile_ms <= 0"),
            0);
  for (const char* point : {"wmma_naive", "wmma_shared", "wmma_cp_async"}) {
    EXPECT_EQ(scalar(s, fmt::format("SELECT count(*) FROM configs JOIN compilations ON configs.id = config_id "
                                    "WHERE alias = '{}' AND registers > 0",
                                    point)),
              1)
        << point;
  }
  // Shared memory is dynamic in the wmma family: the launch figure is recorded with the compilation.
  EXPECT_EQ(scalar(s,
                   "SELECT dynamic_shared_bytes FROM compilations JOIN configs ON configs.id = config_id "
                   "WHERE alias = 'wmma_cp_async'"),
            29696);  // 2 stages x (128 x 40 + 32 x 72) halves x 2 bytes, the writeup's figure
  EXPECT_EQ(scalar(s,
                   "SELECT count(*) FROM compilations JOIN configs ON configs.id = config_id "
                   "WHERE json_extract(params, '$.LOAD') != 'direct' AND NOT dynamic_shared_bytes > 0"),
            0);
  EXPECT_EQ(scalar(s, "SELECT count(*) FROM runs WHERE mode = 'compile-only' AND status = 'finished'"), 1);
  // WMMA kernels give ptxas nothing to warn about, and every compilation's warnings were parsed (not NULL).
  EXPECT_NE(r.output.find("; 0 with ptxas performance warnings)"), std::string::npos) << r.output;
  EXPECT_EQ(scalar(s, "SELECT count(*) FROM compilations WHERE perf_warnings IS NOT 0"), 0);

  // Resume: the same command again compiles nothing, and has nothing to take from the cubin cache either.
  auto again = run_command(cmd);
  ASSERT_EQ(again.exit_code, 0) << again.output;
  EXPECT_NE(again.output.find("compiled now 0, from the cubin cache 0 "), std::string::npos) << again.output;

  // Every compilation was kept in the cubin cache beside the database: a new database on the same cache
  // compiles nothing and records the same compilations.
  const std::filesystem::path cache = db + ".cubins";
  std::size_t cubins = 0, entries = 0;
  for (const auto& e : std::filesystem::directory_iterator(cache)) {
    cubins += e.path().extension() == ".cubin";
    entries += e.path().extension() == ".json";
  }
  EXPECT_EQ(cubins, static_cast<std::size_t>(expected));
  EXPECT_EQ(entries, static_cast<std::size_t>(expected));
  const auto other_db = (dir / "other.db").string();
  auto other = run_command(fmt::format("cd {} && {} {} --compile-only --arch {} --db {} --cubin-cache {}{}",
                                       MPGEMM_SOURCE_DIR, bin("mpgemm-tune"), space, arch, other_db, cache.string(),
                                       only));
  ASSERT_EQ(other.exit_code, 0) << other.output;
  EXPECT_NE(other.output.find(fmt::format("compiled now 0, from the cubin cache {} ", expected)), std::string::npos)
      << other.output;
  const std::string same =
      "SELECT c.name, p.compile_key, p.status, p.registers, p.shared_bytes, p.dynamic_shared_bytes, "
      "p.spill_store_bytes, p.spill_load_bytes, p.stack_bytes, p.compile_ms, p.log, p.warnings "
      "FROM compilations AS p JOIN configs AS c ON c.id = p.config_id ORDER BY c.name";
  Store o = Store::open(other_db, Store::Mode::read_only);
  EXPECT_EQ(o.query_sql(same).rows, s.query_sql(same).rows);

  auto q = run_command(fmt::format("{} {} configs --format csv", bin("mpgemm-query"), db));
  ASSERT_EQ(q.exit_code, 0) << q.output;
  for (const char* point : {"wmma_naive", "wmma_shared", "wmma_cp_async"})
    EXPECT_NE(q.output.find(point), std::string::npos) << point;
  EXPECT_EQ(std::count(q.output.begin(), q.output.end(), '\n'), expected + 1);  // header + one line each
  std::filesystem::remove_all(dir);
}

}  // namespace

TEST(CompileOnly, PointsAndASampleOfSm86CompileForSm86) {
  check_space_compiles("configs/sm86.json", "sm_86");
}
TEST(CompileOnly, PointsAndASampleOfSm86CompileForSm90) {
  check_space_compiles("configs/sm86.json", "sm_90");
}
TEST(CompileOnly, PointsAndASampleOfSm90CompileForSm90) {
  check_space_compiles("configs/sm90.json", "sm_90");
}

// The end-of-run summary counts the compilations ptxas flagged, those of earlier runs too, and says where to
// see them. WMMA kernels give no warnings, so one stored compilation is given one that ptxas printed.
TEST(CompileOnly, SummaryCountsCompilationsWithPtxasWarnings) {
  auto dir = fresh_dir("compile_only_warnings");
  auto db = (dir / "t.db").string();
  auto cmd = fmt::format("cd {} && {} configs/sm86.json --compile-only --arch sm_90 --db {} --only {}",
                         MPGEMM_SOURCE_DIR, bin("mpgemm-tune"), db, "wmma_cp_async_bm128_bn64_bk32_s2");
  auto first = run_command(cmd);
  ASSERT_EQ(first.exit_code, 0) << first.output;
  EXPECT_NE(first.output.find("; 0 with ptxas performance warnings)"), std::string::npos) << first.output;
  EXPECT_EQ(first.output.find("lose speed"), std::string::npos) << first.output;

  sqlite3* conn = nullptr;
  ASSERT_EQ(sqlite3_open(db.c_str(), &conn), SQLITE_OK);
  const char* mark =
      "UPDATE compilations SET warnings = json_array(json_object('code', 'C7511', 'kind', "
      "'wgmma_serialized', "
      "'message', 'Potential Performance Loss: wgmma.mma_async instructions are serialized due to "
      "insufficient "
      "register resources for the wgmma pipeline in the function ''k''')) WHERE id = 1";
  EXPECT_EQ(sqlite3_exec(conn, mark, nullptr, nullptr, nullptr), SQLITE_OK) << sqlite3_errmsg(conn);
  sqlite3_close(conn);

  auto again = run_command(cmd);
  ASSERT_EQ(again.exit_code, 0) << again.output;
  EXPECT_NE(again.output.find("compiled now 0"), std::string::npos) << again.output;
  EXPECT_NE(again.output.find("; 1 with ptxas performance warnings)"), std::string::npos) << again.output;
  EXPECT_NE(again.output.find(fmt::format("mpgemm-query {} warnings", db)), std::string::npos) << again.output;

  auto q = run_command(fmt::format("{} {} warnings --format csv", bin("mpgemm-query"), db));
  ASSERT_EQ(q.exit_code, 0) << q.output;
  EXPECT_EQ(std::count(q.output.begin(), q.output.end(), '\n'), 2) << q.output;  // header + the one
  EXPECT_NE(q.output.find(",wgmma_serialized,C7511,"), std::string::npos) << q.output;
  std::filesystem::remove_all(dir);
}

// The pass's progress counts what --only selects, and a re-run that finds everything compiled says so: "N done",
// not "stopped after 0 of N", which means interrupted.
TEST(CompileOnly, ProgressCountsTheSelectedConfigsAndARerunIsDone) {
  auto dir = fresh_dir("compile_only_progress");
  const auto command = [&](const std::string& db) {
    return fmt::format("cd {} && {} configs/sm86.json --compile-only --arch sm_86 --db {} --only '{}'",
                       MPGEMM_SOURCE_DIR, bin("mpgemm-tune"), (dir / db).string(), "wmma_cp_async_bm128_bn128_bk64_s2");
  };
  const auto cmd = command("t.db");
  for (int run = 1; run <= 2; ++run) {
    auto r = run_command(cmd);
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find("4 configs (--only: 4 of the space's "), std::string::npos) << "run " << run << r.output;
    EXPECT_NE(r.output.find("compile: 4 done in"), std::string::npos) << "run " << run << r.output;
    EXPECT_EQ(r.output.find("stopped after"), std::string::npos) << "run " << run << r.output;
  }
  // A budget and a shard count proposals by their place in the search order, before --only filters them.
  for (const char* cut : {"--budget 40", "--shard 2/3"}) {
    auto r = run_command(command(std::string(cut).substr(2, 5) + ".db") + " " + cut);
    ASSERT_EQ(r.exit_code, 0) << cut << r.output;
    EXPECT_NE(r.output.find(" done in"), std::string::npos) << cut << r.output;
    EXPECT_EQ(r.output.find("stopped after"), std::string::npos) << cut << r.output;
  }
  std::filesystem::remove_all(dir);
}

// --only's substrings take every config whose name contains one; "=NAME" takes that config alone.
TEST(CompileOnly, OnlyTakesSubstringsOrOneWholeName) {
  auto dir = fresh_dir("compile_only_only");
  const auto compiled = [&](const std::string& only) {
    auto db = (dir / (std::to_string(std::hash<std::string>{}(only)) + ".db")).string();
    auto r = run_command(fmt::format("cd {} && {} configs/sm86.json --compile-only --arch sm_86 --db {} --only '{}'",
                                     MPGEMM_SOURCE_DIR, bin("mpgemm-tune"), db, only));
    EXPECT_EQ(r.exit_code, 0) << r.output;
    Store s = Store::open(db, Store::Mode::read_only);
    return scalar(s, "SELECT count(*) FROM compilations");
  };
  const std::string name = "wmma_cp_async_bm128_bn128_bk64_s2_w32x64_p8x8";
  EXPECT_EQ(compiled("wmma_cp_async_bm128_bn128_bk64_s2"), 4);  // every config with that prefix: 2 warp tiles x 2 pads
  EXPECT_EQ(compiled("=" + name), 1);
  EXPECT_EQ(compiled("=wmma_cp_async"), 1);  // the named point
  auto none =
      run_command(fmt::format("cd {} && {} configs/sm86.json --compile-only --arch sm_86 --db {} --only '=wmma'",
                              MPGEMM_SOURCE_DIR, bin("mpgemm-tune"), (dir / "none.db").string()));
  EXPECT_NE(none.exit_code, 0);
  EXPECT_NE(none.output.find("--only matches no config of the space"), std::string::npos) << none.output;
  auto typo = run_command(fmt::format("cd {} && {} configs/sm86.json --compile-only --arch sm_86 --db {} --only '{}'",
                                      MPGEMM_SOURCE_DIR, bin("mpgemm-tune"), (dir / "typo.db").string(),
                                      "=" + name + ",=" + name + "_typo"));
  EXPECT_NE(typo.exit_code, 0) << "one whole name matched, the other is no config's";
  EXPECT_NE(typo.output.find("=" + name + "_typo: no config or point of the space has that name"), std::string::npos)
      << typo.output;
  std::filesystem::remove_all(dir);
}
