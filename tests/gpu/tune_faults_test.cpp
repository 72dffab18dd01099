// On a GPU, end to end through mpgemm-tune and mpgemm-worker: every way a candidate can fail is recorded with its
// own status and the run goes on. The test-only family test_faulty (tests/families, tests/kernels/test_faulty.cuh)
// and the space tests/data/spaces/faulty.json put one misbehaving kernel between correct ones: an illegal address
// (runtime_fault; the next candidate runs on a fresh worker and verifies), a kernel that never finishes (timeout
// within the limit plus a small margin; the GPU is usable afterwards), wrong answers (incorrect, with the error
// metrics), an NVRTC error, too much shared memory and a grid the driver refuses. A re-run measures nothing again,
// no worker outlives the run, and inputs too large for the device end the run cleanly with what it had saved.
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <regex>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include <fmt/format.h>
#include <sqlite3.h>

#include "device/query.hpp"
#include "support/run_command.hpp"

using namespace mpgemm;
using namespace mpgemm::testing;

namespace {

// The worker's verification limit with default options is 10 s + 1000 x the cuBLAS median (well under 1 ms at
// 256^3); past it the worker is killed and reaped. This much more is allowed for the kill, the reap and recording.
constexpr double kTimeoutMarginMs = 5'000;
constexpr double kRunLimitS = 60;  // the whole first run: compiles, three worker starts, one 10 s timeout

// Rows of one query on a read-only connection, every value as text ("NULL" for null).
std::vector<std::vector<std::string>> sql_rows(const std::filesystem::path& db, const std::string& sql) {
  sqlite3* c = nullptr;
  sqlite3_stmt* st = nullptr;
  std::vector<std::vector<std::string>> rows;
  int rc = sqlite3_open_v2(db.c_str(), &c, SQLITE_OPEN_READONLY, nullptr);
  if (rc == SQLITE_OK) rc = sqlite3_prepare_v2(c, sql.c_str(), -1, &st, nullptr);
  while (rc == SQLITE_OK && (rc = sqlite3_step(st)) == SQLITE_ROW) {
    rc = SQLITE_OK;
    std::vector<std::string> row;
    for (int i = 0; i < sqlite3_column_count(st); ++i) {
      const auto* text = reinterpret_cast<const char*>(sqlite3_column_text(st, i));
      row.emplace_back(text ? text : "NULL");
    }
    rows.push_back(std::move(row));
  }
  const std::string error = c ? sqlite3_errmsg(c) : "out of memory";
  sqlite3_finalize(st);
  sqlite3_close(c);
  if (rc != SQLITE_DONE) ADD_FAILURE() << db << ": " << error << " in " << sql;
  return rows;
}
std::string sql_text(const std::filesystem::path& db, const std::string& sql) {
  const auto rows = sql_rows(db, sql);
  return rows.empty() || rows[0].empty() ? "" : rows[0][0];
}
std::int64_t sql_int(const std::filesystem::path& db, const std::string& sql) {
  const std::string text = sql_text(db, sql);
  return text.empty() || text == "NULL" ? -1 : std::stoll(text);
}

// A build with -DMPGEMM_TEST_FAMILIES=OFF has tools that do not know the test_faulty family.
bool family_missing(const CommandResult& r) {
  return r.exit_code != 0 && r.output.find("no kernel family named \"test_faulty\"") != std::string::npos;
}
constexpr const char* kNoFamily = "mpgemm-tune was built with MPGEMM_TEST_FAMILIES=OFF";

// Pids of live processes whose environment holds `tag` ("NAME=value"): what a run started with it left behind.
std::vector<std::string> processes_tagged(const std::string& tag) {
  std::vector<std::string> pids;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator("/proc", ec)) {
    const std::string pid = entry.path().filename().string();
    if (pid.find_first_not_of("0123456789") != std::string::npos) continue;
    std::ifstream in(entry.path() / "environ", std::ios::binary);
    const std::string env{std::istreambuf_iterator<char>(in), {}};
    std::size_t begin = 0;
    while (begin < env.size()) {
      std::size_t end = env.find('\0', begin);
      if (end == std::string::npos) end = env.size();
      if (env.compare(begin, end - begin, tag) == 0) {
        pids.push_back(pid);
        break;
      }
      begin = end + 1;
    }
  }
  return pids;
}

class TuneFaults : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string why;
    if (!device_available(&why)) GTEST_SKIP() << why;
    dir_ = fresh_dir("tune_faults");
    db_ = dir_ / "faulty.db";
  }
  void TearDown() override {
    if (!dir_.empty()) std::filesystem::remove_all(dir_);
  }

  // mpgemm-tune over the faulty space into db_, with a tag in its environment (inherited by its workers) so that
  // any process it leaves behind can be found; `extra` are more options.
  CommandResult tune(const std::string& extra = "") {
    tag_ = fmt::format("MPGEMM_TUNE_FAULTS_TEST={}_{}", ::getpid(), ++runs_);
    return run_command(fmt::format("cd {} && {} {} tests/data/spaces/faulty.json --db {} {}", MPGEMM_SOURCE_DIR, tag_,
                                   bin("mpgemm-tune"), db_.string(), extra));
  }
  std::vector<std::vector<std::string>> sql(const std::string& query) const { return sql_rows(db_, query); }
  std::int64_t count(const std::string& table) const { return sql_int(db_, "SELECT count(*) FROM " + table); }

  std::filesystem::path dir_;
  std::filesystem::path db_;
  std::string tag_;
  int runs_ = 0;
};

// One point of faulty.json as the first run must record it.
struct Expected {
  const char* alias;
  const char* status;
};
constexpr Expected kExpected[] = {
    {"ok_first", "ok"},
    {"fault", "runtime_fault"},
    {"ok_after_fault", "ok"},
    {"spin", "timeout"},
    {"ok_after_spin", "ok"},
    {"off_by_one", "incorrect"},
    {"nan", "incorrect"},
    {"smem", "resources_exceeded"},
    {"compile_error", "compile_failed"},
    {"bad_grid", "launch_failed"},
};

}  // namespace

TEST_F(TuneFaults, EveryFailureHasItsStatusAndTheRunRecoversAndResumesWithoutRetrying) {
  const auto start = std::chrono::steady_clock::now();
  const CommandResult first = tune();
  const double run_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (family_missing(first)) GTEST_SKIP() << kNoFamily;
  ASSERT_EQ(first.exit_code, 0) << first.output;
  EXPECT_LT(run_s, kRunLimitS) << first.output;
  EXPECT_EQ(processes_tagged(tag_), std::vector<std::string>{}) << "mpgemm-worker processes left behind";
  EXPECT_NE(first.output.find("measured now 10, already in the database 0"), std::string::npos) << first.output;

  // Each with its status (recorded as outcomes arrive: a compile failure is known before a timing is).
  const auto rows = sql(
      "SELECT c.alias, m.status, m.message, m.median_ms, m.ratio_to_cublas, m.bad_count, m.nan_count, m.max_abs_err, "
      "m.max_rel_err, m.created_at FROM measurements m JOIN configs c ON c.id = m.config_id ORDER BY m.id");
  ASSERT_EQ(rows.size(), std::size(kExpected)) << first.output;
  std::map<std::string, std::vector<std::string>> by_alias;
  for (const auto& r : rows) by_alias[r[0]] = r;
  for (const auto& e : kExpected) {
    ASSERT_TRUE(by_alias.count(e.alias)) << e.alias << " was not measured";
    EXPECT_EQ(by_alias[e.alias][1], e.status) << e.alias << ": " << by_alias[e.alias][2];
  }
  EXPECT_EQ(sql_text(db_, "SELECT status FROM runs"), "finished");
  ASSERT_EQ(by_alias.size(), std::size(kExpected));

  // The correct ones (the second after a fault, the third after a hang) are timed next to cuBLAS.
  for (const char* alias : {"ok_first", "ok_after_fault", "ok_after_spin"}) {
    const auto& r = by_alias[alias];
    ASSERT_NE(r[3], "NULL") << alias << " has no timing";
    EXPECT_GT(std::stod(r[3]), 0.0) << alias;
    ASSERT_NE(r[4], "NULL") << alias << " has no ratio to cuBLAS";
    EXPECT_GT(std::stod(r[4]), 0.0) << alias;
    EXPECT_EQ(r[5], "0") << alias;
  }
  // Wrong answers keep their error metrics.
  {
    const auto& r = by_alias["off_by_one"];
    ASSERT_NE(r[5], "NULL");
    EXPECT_GT(std::stoll(r[5]), 0) << r[2];
    EXPECT_EQ(r[6], "0") << r[2];
    ASSERT_NE(r[7], "NULL");
    EXPECT_GT(std::stod(r[7]), 0.5) << r[2];  // beyond atol
    EXPECT_NE(r[8], "NULL");
    EXPECT_EQ(r[3], "NULL") << "an incorrect kernel is not timed";
  }
  {
    const auto& r = by_alias["nan"];
    EXPECT_EQ(r[6], "1") << r[2];  // C[0] only
    EXPECT_EQ(r[5], "1") << r[2];
    EXPECT_EQ(r[3], "NULL") << "an incorrect kernel is not timed";
  }
  // The other failures say what happened.
  EXPECT_FALSE(by_alias["fault"][2].empty());
  EXPECT_NE(by_alias["smem"][2].find("4194304"), std::string::npos) << by_alias["smem"][2];
  EXPECT_NE(by_alias["bad_grid"][2].find("70000"), std::string::npos) << by_alias["bad_grid"][2];
  EXPECT_EQ(sql_text(db_,
                     "SELECT cp.status FROM compilations cp JOIN configs c ON c.id = cp.config_id "
                     "WHERE c.alias = 'compile_error'"),
            "compile_failed");
  const std::string log = sql_text(db_,
                                   "SELECT cp.log FROM compilations cp JOIN configs c ON c.id = cp.config_id "
                                   "WHERE c.alias = 'compile_error'");
  EXPECT_NE(log.find("deliberate compile error for tests"), std::string::npos) << log;

  // The hang ended at the verification limit plus a small margin: from the record of the candidate the lane
  // measured just before it (whichever it was: the pipeline measures in compile-completion order) to its own.
  {
    const std::string& message = by_alias["spin"][2];
    std::smatch limit;
    ASSERT_TRUE(std::regex_search(message, limit, std::regex(R"(within (\d+) ms)"))) << message;
    const double limit_ms = std::stod(limit[1]);
    EXPECT_GE(limit_ms, 10'000) << message;
    EXPECT_LT(limit_ms, 11'000) << message;  // 1000 x a cuBLAS median under 1 ms
    const std::string spin =
        "(SELECT m.id FROM measurements m JOIN configs c ON c.id = m.config_id "
        "WHERE c.alias = 'spin')";
    // Outcomes the lane records; compile failures and rejections are recorded by the coordinator at any time.
    const std::string previous = fmt::format(
        "(SELECT created_at FROM measurements WHERE id < {} AND status IN ('ok', 'incorrect', 'runtime_fault', "
        "'timeout', 'launch_failed', 'screened_out') ORDER BY id DESC LIMIT 1)",
        spin);
    const double spent_ms = std::stod(sql_text(
        db_, fmt::format("SELECT (julianday((SELECT created_at FROM measurements WHERE id = {})) - julianday({})) * "
                         "86400000.0",
                         spin, fmt::format("coalesce({}, (SELECT max(created_at) FROM cublas_timings))", previous))));
    EXPECT_GE(spent_ms, limit_ms - 2) << message;  // created_at has millisecond resolution
    EXPECT_LE(spent_ms, limit_ms + kTimeoutMarginMs) << message;
  }
  EXPECT_EQ(sql_text(db_, "PRAGMA quick_check"), "ok");

  // Resumed: everything is known, nothing is compiled or measured again, failures included.
  const std::int64_t measurements = count("measurements");
  const std::int64_t compilations = count("compilations");
  const std::int64_t cublas = count("cublas_timings");
  const CommandResult second = tune();
  ASSERT_EQ(second.exit_code, 0) << second.output;
  EXPECT_EQ(processes_tagged(tag_), std::vector<std::string>{}) << "mpgemm-worker processes left behind";
  EXPECT_NE(second.output.find("compiled now 0"), std::string::npos) << second.output;
  EXPECT_NE(second.output.find("measured now 0, already in the database 10"), std::string::npos) << second.output;
  EXPECT_EQ(count("measurements"), measurements);
  EXPECT_EQ(count("compilations"), compilations);
  EXPECT_EQ(count("cublas_timings"), cublas);
  EXPECT_EQ(sql_text(db_, "SELECT group_concat(status, ',') FROM (SELECT status FROM runs ORDER BY id)"),
            "finished,finished");
}

TEST_F(TuneFaults, InputsTooLargeForTheDeviceEndTheRunCleanlyKeepingItsCompilations) {
  // A, B: 200000^2 halves (80 GB each); C and the reference: 200000^2 floats (160 GB each). No GPU has 480 GB.
  const CommandResult r = tune("--M 200000 --N 200000 --K 200000");
  if (family_missing(r)) GTEST_SKIP() << kNoFamily;
  EXPECT_NE(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("640000000000 bytes for the whole problem"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("200000x200000x200000"), std::string::npos) << r.output;
  EXPECT_EQ(processes_tagged(tag_), std::vector<std::string>{}) << "mpgemm-worker processes left behind";

  EXPECT_EQ(sql_text(db_, "SELECT status FROM runs"), "failed");
  EXPECT_NE(sql_text(db_, "SELECT ended_at FROM runs"), "NULL");
  EXPECT_EQ(count("compilations"), 10);  // compiled before the shape was prepared, and kept
  EXPECT_EQ(sql_int(db_, "SELECT count(*) FROM compilations WHERE status = 'ok'"), 9);
  EXPECT_EQ(count("measurements"), 0);
  EXPECT_EQ(count("cublas_timings"), 0);
  EXPECT_EQ(sql_text(db_, "PRAGMA quick_check"), "ok");
  EXPECT_EQ(sql_rows(db_, "PRAGMA foreign_key_check").size(), 0u);
}
