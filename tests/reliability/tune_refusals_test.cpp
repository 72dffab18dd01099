// Databases mpgemm-tune must refuse, through the CLI: a location it cannot write (we run as root, so a path under
// /proc, a "folder" that is a regular file, a directory), a file that is not an mpgemm database (random bytes,
// another application's SQLite database, in either journal mode) and a newer schema, as --db and as --replay.
// Each is one line on the terminal, a non-zero exit, and the file byte-identical afterwards. Then a write failure
// in the middle of a run (file size limit): one line, the database intact, and a rerun resumes.
#include <gtest/gtest.h>

#include <random>

#include "replay_fixture.hpp"
#include "store/schema.hpp"

namespace mpgemm::testing {
namespace {

// Name -> content of every entry of a folder ("<dir>" for folders): what "nothing was written here" compares.
std::map<std::string, std::string> snapshot(const std::filesystem::path& dir) {
  std::map<std::string, std::string> out;
  for (const auto& e : std::filesystem::directory_iterator(dir))
    out[e.path().filename().string()] = e.is_directory() ? "<dir>" : file_text(e.path());
  return out;
}

class ReliabilityRefusals : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fresh_dir(std::string("refusals_") + ::testing::UnitTest::GetInstance()->current_test_info()->name());
    recorded_ = dir_ / "recorded.db";
    rec_ = make_recorded_db(recorded_);
    victims_ = dir_ / "victims";
    std::filesystem::create_directories(victims_);
  }
  void TearDown() override {
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }

  // Runs mpgemm-tune with `args` and expects a refusal: exit 1, one line "mpgemm-tune: error: ..." containing
  // each of `texts`, `file` byte-identical and nothing new in victims/ (where every refused file lives).
  void expect_refused(const std::string& args, const std::filesystem::path& file, std::vector<std::string> texts) {
    SCOPED_TRACE(args);
    const std::string before = file_text(file);
    const auto listing = snapshot(victims_);
    const auto r = run_command(fmt::format("{} {} {}", bin("mpgemm-tune"), replay_space(), args));
    EXPECT_EQ(r.exit_code, 1) << r.output;
    const auto lines = lines_of(r.output);
    EXPECT_EQ(lines.size(), 1u) << r.output;
    EXPECT_TRUE(r.output.starts_with("mpgemm-tune: error: database ")) << r.output;
    for (const auto& text : texts)
      EXPECT_NE(r.output.find(text), std::string::npos) << "no '" << text << "' in\n" << r.output;
    EXPECT_EQ(file_text(file), before) << file << " changed";
    EXPECT_EQ(snapshot(victims_), listing) << "files appeared or changed next to " << file;
  }

  std::string replay_args() const { return "--replay " + recorded_.string(); }

  std::filesystem::path dir_, recorded_, victims_;
  RecordedDb rec_;
};

TEST_F(ReliabilityRefusals, UnwritableLocations) {
  // /proc refuses new files even to root: no database can be created there.
  ASSERT_FALSE(std::filesystem::exists("/proc/mpgemm.db"));
  expect_refused(replay_args() + " --db /proc/mpgemm.db", "/proc/version", {"/proc/mpgemm.db", "cannot open"});
  EXPECT_FALSE(std::filesystem::exists("/proc/mpgemm.db"));
  // An existing file there: root may open it, but no journal can be created next to it.
  expect_refused(replay_args() + " --db /proc/version", "/proc/version", {"/proc/version", "cannot open"});

  const auto plain = victims_ / "notes.txt";  // a "folder" that is a regular file
  std::ofstream(plain) << "not a folder\n";
  expect_refused(fmt::format("{} --db {}/results.db", replay_args(), plain.string()), plain,
                 {"cannot create the folder", "notes.txt"});

  const auto folder = victims_ / "a_folder.db";  // a folder where the file should be
  std::filesystem::create_directories(folder);
  expect_refused(fmt::format("{} --db {}", replay_args(), folder.string()), plain,
                 {"a_folder.db", "it is a folder, not a database file"});
}

TEST_F(ReliabilityRefusals, FilesThatAreNotMpgemmDatabases) {
  const auto noise = victims_ / "noise.db";
  {
    std::mt19937 rng(12345);  // fixed: the same bytes every run
    std::string bytes(8192, '\0');
    for (auto& b : bytes) b = static_cast<char>(rng() & 0xff);
    std::ofstream(noise, std::ios::binary) << bytes;
  }
  const auto other = victims_ / "other_app.db";  // someone's application database, rollback journal
  sql_exec(other, "PRAGMA application_id = 305419896; CREATE TABLE notes (t TEXT); INSERT INTO notes VALUES ('x');");
  const auto other_wal = victims_ / "other_wal.db";  // no application id, WAL journal, a "runs" table of its own
  sql_exec(other_wal, "PRAGMA journal_mode = WAL; CREATE TABLE runs (x INTEGER); INSERT INTO runs VALUES (1);");
  ASSERT_FALSE(std::filesystem::exists(other_wal.string() + "-wal"));  // closed cleanly: one self-contained file

  for (const auto& file : {noise, other, other_wal}) {
    expect_refused(fmt::format("{} --db {}", replay_args(), file.string()), file,
                   {file.filename().string(), "is not an mpgemm results database"});
  }
  expect_refused(fmt::format("{} --db {}", replay_args(), other.string()), other, {"application_id 0x12345678"});
  expect_refused(fmt::format("{} --db {}", replay_args(), noise.string()), noise, {"not an SQLite database"});

  // As the replay source (opened read-only): refused too, and the --db is not created.
  const auto fresh = dir_ / "never.db";
  for (const auto& file : {noise, other}) {
    expect_refused(fmt::format("--replay {} --db {}", file.string(), fresh.string()), file,
                   {file.filename().string(), "is not an mpgemm results database"});
    EXPECT_FALSE(std::filesystem::exists(fresh));
  }
}

TEST_F(ReliabilityRefusals, NewerSchemaVersion) {
  const auto newer = victims_ / "newer.db";
  make_recorded_db(newer);
  sql_exec(newer, fmt::format("PRAGMA user_version = {}", schema_version() + 1));
  ASSERT_FALSE(std::filesystem::exists(newer.string() + "-wal"));
  const std::string message = fmt::format("database schema version {} is newer than this mpgemm supports ({})",
                                          schema_version() + 1, schema_version());
  expect_refused(fmt::format("{} --db {}", replay_args(), newer.string()), newer, {"newer.db", message});

  // As the replay source: refused, the file's bytes unchanged, no --db created. (A read-only SQLite connection
  // to a WAL database may leave empty -wal/-shm files behind; only the database file itself is compared here.)
  const auto fresh = dir_ / "never.db";
  const std::string before = file_text(newer);
  const auto r = run_command(
      fmt::format("{} {} --replay {} --db {}", bin("mpgemm-tune"), replay_space(), newer.string(), fresh.string()));
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_EQ(lines_of(r.output).size(), 1u) << r.output;
  EXPECT_NE(r.output.find(message), std::string::npos) << r.output;
  EXPECT_EQ(file_text(newer), before);
  EXPECT_FALSE(std::filesystem::exists(fresh));
}

// A database from elsewhere is untrusted (issue 57): a trigger planted in it (one that, on the next run's insert,
// deleted the earlier runs' rows and tripled the winner's times) is refused before a resumed tune writes anything,
// and a redefined view in a replay source before it is read.
TEST_F(ReliabilityRefusals, PlantedTriggersAndRedefinedViewsAreRefused) {
  const auto planted = victims_ / "planted.db";
  make_recorded_db(planted);
  sql_exec(planted,
           "CREATE TRIGGER after_run AFTER INSERT ON runs BEGIN DELETE FROM measurements WHERE run_id < new.id; "
           "UPDATE measurements SET median_ms = median_ms * 3; END;");
  expect_refused(
      fmt::format("{} --db {}", replay_args(), planted.string()), planted,
      {"planted.db", fmt::format("a trigger 'after_run' on runs, which version {} does not define", schema_version())});

  const auto redefined = victims_ / "redefined.db";
  make_recorded_db(redefined);
  sql_exec(redefined,
           "DROP VIEW best_per_shape; CREATE VIEW best_per_shape AS SELECT * FROM best ORDER BY median_ms DESC;");
  const auto fresh = dir_ / "never.db";
  expect_refused(fmt::format("--replay {} --db {}", redefined.string(), fresh.string()), redefined,
                 {"redefined.db", "view best_per_shape is not the one version"});
  EXPECT_FALSE(std::filesystem::exists(fresh));
}

// No small filesystem can be mounted here, so a file size limit (RLIMIT_FSIZE, SIGXFSZ ignored) makes the writes
// fail part-way: SQLite reports EFBIG as an I/O error (a real ENOSPC would be SQLITE_FULL, "disk full while ...",
// whose message tests/unit/store_open_test.cpp checks).
TEST_F(ReliabilityRefusals, WriteFailureMidRunIsOneLineAndResumable) {
  const auto db = dir_ / "limited.db";
  const auto r = run_command(fmt::format("bash -c \"trap '' XFSZ; ulimit -f 900; exec {} {} {} --db {}\"",
                                         bin("mpgemm-tune"), replay_space(), replay_args(), db.string()));
  EXPECT_EQ(r.exit_code, 1) << r.output;
  std::vector<std::string> errors;
  for (const auto& line : lines_of(r.output))
    if (!line.starts_with("measure ") && !line.starts_with("mpgemm-tune: run ") &&
        !line.starts_with("mpgemm-tune: shape "))
      errors.push_back(line);
  ASSERT_EQ(errors.size(), 1u) << r.output;
  EXPECT_TRUE(errors[0].starts_with("mpgemm-tune: error: database " + db.string() + ": recording ")) << errors[0];
  EXPECT_NE(errors[0].find(" failed: "), std::string::npos) << errors[0];

  EXPECT_EQ(integrity_problems(db), "");
  const auto kept = sql_int(db, "SELECT count(*) FROM measurements");
  EXPECT_LT(kept, static_cast<std::int64_t>(rec_.pairs));
  // 'failed' when the last write still fits; when even that one cannot be written the row stays 'running', and
  // the next run finds its process gone and marks it 'interrupted' (checked after the resume below).
  const std::string status = sql_text(db, "SELECT group_concat(status) FROM runs");
  EXPECT_TRUE(status == "failed" || status == "running") << status;

  // Space again: the same command resumes and ends with exactly the recorded outcomes.
  const auto again =
      run_command(fmt::format("{} {} {} --db {}", bin("mpgemm-tune"), replay_space(), replay_args(), db.string()));
  ASSERT_EQ(again.exit_code, 0) << again.output;
  const auto o = parse_tune_output(again.output);
  ASSERT_TRUE(o) << again.output;
  EXPECT_EQ(o->measured_before, kept);
  EXPECT_EQ(o->measured_now + o->measured_before, static_cast<std::int64_t>(rec_.pairs));
  EXPECT_EQ(integrity_problems(db), "");
  EXPECT_EQ(outcome_differences(outcomes(recorded_), outcomes(db)), "");
  EXPECT_EQ(sql_text(db, "SELECT status FROM runs WHERE id = 1"), status == "failed" ? "failed" : "interrupted");
}

}  // namespace
}  // namespace mpgemm::testing
