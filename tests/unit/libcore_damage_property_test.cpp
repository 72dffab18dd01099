// Random damage to a results database never changes a winner, a ratio or a kernel without an error.
//
// The fixture is the small database of tests/support/export_fixture.hpp (written through the Store API: two devices,
// a re-rank winner and two tuning winners). Its winners are read once through the readers that decide which kernel
// runs: the library's WinnerTable::load (what Library::open and mpgemm_open take), the store's shape_winners() (what
// mpgemm-run --config best takes as it is, keeping the requested shape's: tests/unit/cli_run_table_test.cpp), and
// mpgemm-export's collect_export() written as JSON and read back by the library's export reader (what a program
// linked with the library opens). Then, for each of 200 seeded trials (MPGEMM_DAMAGE_TRIALS and MPGEMM_DAMAGE_SEED
// choose others), a copy of the file is damaged (1 to 4 random bytes XORed in one random page, any page, the header
// page among them; or 1 to 4 bytes of the 100-byte file header; or the file truncated, on a page boundary or not)
// and read again by the same readers, each trial in a child process so that a crash is an outcome too.
//
// The property, per reader and trial:
//   - the read throws an mpgemm::Error whose what() is one line (a refusal), or
//   - it returns exactly the original winners (device, shape, family, arch, name, params, every time and ratio
//     compared with ==), or
//   - it returns other winners that are consistent with themselves (each name is the one its family derives from
//     its params; each ratio to cuBLAS is cuBLAS's time over the winner's; a tuning winner's cuBLASLt ratio
//     likewise) AND the same winners come back when only those damaged bytes that lie inside a REAL the original
//     file stores (a time, a ratio: 8 bytes that no check can tell from another measurement) are applied. That is
//     what "nothing silently wrong" can promise without checksums: a damaged time may rank another config first,
//     consistently with the times, and nothing in the file can tell.
// Anything else (other winners without that explanation, a crash, an exception that is not an mpgemm::Error, a
// refusal of more than one line) fails the test and prints the trial's seed and what changed. One difference is
// counted and printed but not failed: winners that differ from the original in runs.sm_count alone (an INTEGER
// from which nothing is derived and which nothing else restates: seed 49245 reads 38 for 132).
//
// Found by MPGEMM_DAMAGE_TRIALS=3000 and fixed (each seed is a test below):
//   seeds 48014 48545 48729 48763 48846 48888: a winner changed through shape_winners() (so mpgemm-run and
//     mpgemm-export) that the library refused: shape_winners() now checks what the library checks;
//   seeds 48615 48686 50739 50868: a config's params damaged into ill-formed UTF-8 threw nlohmann's parse_error out
//     of shape_winners() (store/shape_winners.cpp), not an mpgemm::Error;
//   seed 50923: the re-rank winner's cuBLASLt time and ratio gone together (a damaged cuBLASLt row no longer
//     joined): the ratio now comes without its time, which is refused;
//   seed 50955: the family's name damaged ("wgmma"): the winner was kept, its shape left to cuBLAS at plan(); its
//     name is wgmma's, derived from its params, so the family and the name disagree.
#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <random>
#include <set>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <sqlite3.h>

#include "codegen/family.hpp"
#include "common/error.hpp"
#include "export/export_collect.hpp"
#include "export/export_table.hpp"
#include "lib/export_file.hpp"
#include "lib/winner_table.hpp"
#include "store/shape_winners.hpp"
#include "store/store.hpp"
#include "support/export_fixture.hpp"
#include "support/store_fixture.hpp"

using namespace mpgemm;

namespace {

namespace fs = std::filesystem;

// Bounded for CI (about a second per reader); MPGEMM_DAMAGE_TRIALS and MPGEMM_DAMAGE_SEED run other trials.
int trials() {
  const char* n = std::getenv("MPGEMM_DAMAGE_TRIALS");
  return n ? std::atoi(n) : 200;
}
std::uint64_t first_seed() {
  const char* s = std::getenv("MPGEMM_DAMAGE_SEED");
  return s ? std::strtoull(s, nullptr, 10) : 48'000;
}

using Bytes = std::vector<unsigned char>;

Bytes read_all(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return Bytes(std::istreambuf_iterator<char>(in), {});
}
void write_all(const fs::path& p, const Bytes& b, std::size_t size) {
  std::ofstream out(p, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(b.data()), static_cast<std::streamsize>(size));
}

// One trial's damage: bytes XORed (offset, mask), then the file cut to `size` bytes.
struct Damage {
  std::vector<std::pair<std::size_t, unsigned char>> flips;
  std::size_t size = 0;
  std::string what;
};

Damage make_damage(std::uint64_t seed, const Bytes& file, std::size_t page_size) {
  std::mt19937_64 rng(seed);
  const auto pick = [&](std::size_t lo, std::size_t hi) {  // in [lo, hi)
    return std::uniform_int_distribution<std::size_t>(lo, hi - 1)(rng);
  };
  Damage d;
  d.size = file.size();
  const std::size_t pages = file.size() / page_size;
  const std::size_t kind = pick(0, 10);  // 6 in 10 a page, 2 the header, 2 a truncation
  if (kind < 8) {
    const std::size_t page = kind < 6 ? pick(0, pages) : 0;
    const std::size_t lo = page * page_size;
    const std::size_t hi = kind < 6 ? lo + page_size : 100;
    const std::size_t n = pick(1, 5);
    for (std::size_t i = 0; i < n; ++i) d.flips.emplace_back(pick(lo, hi), static_cast<unsigned char>(pick(1, 256)));
    d.what = fmt::format("{} byte(s) of {} {} XORed:", n, kind < 6 ? "page" : "the header of page", page + 1);
    for (const auto& [off, mask] : d.flips) d.what += fmt::format(" @{}^0x{:02x}", off, mask);
  } else {
    d.size = pick(0, 2) == 0 ? pick(0, pages) * page_size : pick(0, file.size());
    d.what = fmt::format("truncated to {} of {} bytes", d.size, file.size());
  }
  return d;
}

void apply(
    const Damage& d, const Bytes& original, const fs::path& to,
    const std::function<bool(std::size_t)>& keep = [](std::size_t) { return true; }) {
  Bytes b = original;
  for (const auto& [off, mask] : d.flips)
    if (keep(off)) b[off] ^= mask;
  write_all(to, b, d.size);
}

// The byte offsets of the original file that hold a REAL some row stores: every REAL of every table, found by its
// 8-byte big-endian encoding (how a SQLite record stores a REAL).
std::set<std::size_t> real_value_bytes(const fs::path& db, const Bytes& file) {
  sqlite3* h = nullptr;
  EXPECT_EQ(sqlite3_open_v2(db.c_str(), &h, SQLITE_OPEN_READONLY, nullptr), SQLITE_OK);
  std::vector<std::string> tables;
  sqlite3_stmt* st = nullptr;
  sqlite3_prepare_v2(h, "SELECT name FROM sqlite_master WHERE type = 'table'", -1, &st, nullptr);
  while (sqlite3_step(st) == SQLITE_ROW) tables.emplace_back(reinterpret_cast<const char*>(sqlite3_column_text(st, 0)));
  sqlite3_finalize(st);
  std::set<double> reals;
  for (const auto& t : tables) {
    sqlite3_prepare_v2(h, fmt::format("SELECT * FROM \"{}\"", t).c_str(), -1, &st, nullptr);
    while (sqlite3_step(st) == SQLITE_ROW)
      for (int c = 0; c < sqlite3_column_count(st); ++c)
        if (sqlite3_column_type(st, c) == SQLITE_FLOAT) reals.insert(sqlite3_column_double(st, c));
    sqlite3_finalize(st);
  }
  sqlite3_close(h);
  std::set<std::size_t> out;
  for (double v : reals) {
    auto bits = std::bit_cast<std::uint64_t>(v);
    unsigned char be[8];
    for (int i = 7; i >= 0; --i, bits >>= 8) be[i] = static_cast<unsigned char>(bits & 0xff);
    for (auto it = file.begin(); (it = std::search(it, file.end(), be, be + 8)) != file.end(); ++it)
      for (std::size_t i = 0; i < 8; ++i) out.insert(static_cast<std::size_t>(it - file.begin()) + i);
  }
  return out;
}

using Reader = std::function<std::vector<ShapeWinner>(const fs::path&)>;

std::vector<ShapeWinner> library_winners(const fs::path& p) {
  return lib::WinnerTable::load(p).winners();
}
std::vector<ShapeWinner> store_winners(const fs::path& p) {
  return shape_winners(Store::open(p, Store::Mode::read_only));
}
// mpgemm-export's table as the library reads the file it writes.
std::vector<ShapeWinner> exported_winners(const fs::path& p) {
  const ExportTable t = collect_export(Store::open(p, Store::Mode::read_only), ExportOptions{p, std::nullopt});
  return lib::read_export(to_json(t).dump(), p.string() + ".json");
}

std::string describe(const ShapeWinner& w) {
  return fmt::format(
      "{} ({}) {} {} {} {} alias={} {} ms={} cublas={} r={} lt={} rlt={} rerank={} l2={} graph={} "
      "warmup={} runs={} iters={} sms={}",
      w.device_name, w.device_cc, w.shape.str(), w.arch.str(), w.family, w.config_name, w.alias.value_or("-"),
      to_json(w.params).dump(), w.median_ms, w.cublas_ms.value_or(-1), w.ratio_to_cublas.value_or(-1),
      w.cublaslt_ms.value_or(-1), w.ratio_to_cublaslt.value_or(-1), w.from_rerank, static_cast<int>(w.l2),
      w.batches == BatchEnqueue::graph, w.warmup, w.runs, w.iters, w.sm_count.value_or(-1));
}

std::string describe(const std::vector<ShapeWinner>& ws) {
  std::string s;
  for (const auto& w : ws) s += "\n    " + describe(w);
  return s;
}

bool same(const ShapeWinner& a, const ShapeWinner& b) {
  return a.device_name == b.device_name && a.device_cc == b.device_cc && a.arch == b.arch && a.shape == b.shape &&
         a.family == b.family && a.config_name == b.config_name && a.alias == b.alias && a.params == b.params &&
         a.median_ms == b.median_ms && a.cublas_ms == b.cublas_ms && a.ratio_to_cublas == b.ratio_to_cublas &&
         a.cublaslt_ms == b.cublaslt_ms && a.ratio_to_cublaslt == b.ratio_to_cublaslt &&
         a.from_rerank == b.from_rerank && a.l2 == b.l2 && a.batches == b.batches && a.warmup == b.warmup &&
         a.runs == b.runs && a.iters == b.iters && a.sm_count == b.sm_count;
}
bool same(const std::vector<ShapeWinner>& a, const std::vector<ShapeWinner>& b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](auto& x, auto& y) { return same(x, y); });
}

bool agrees(std::optional<double> ratio, std::optional<double> reference_ms, double ms) {
  if (!ratio) return true;
  if (!reference_ms || !(ms > 0)) return false;
  return std::abs(*ratio - *reference_ms / ms) <= 1e-6 * std::abs(*ratio);
}

// Re-derived here from the family and the times, not through the library's checks.
bool self_consistent(const std::vector<ShapeWinner>& ws) {
  for (const auto& w : ws) {
    try {
      if (family(w.family).config_name(w.params) != w.config_name) return false;
    } catch (const std::exception&) {
      return false;
    }
    if (!agrees(w.ratio_to_cublas, w.cublas_ms, w.median_ms)) return false;
    if (!w.from_rerank && !agrees(w.ratio_to_cublaslt, w.cublaslt_ms, w.median_ms)) return false;
  }
  return true;
}

// A trial's outcome, as the child process reports it by its exit status.
enum Outcome : int {
  refused = 10,
  unchanged = 11,
  explained = 12,
  changed = 13,
  foreign = 14,
  two_lines = 15,
  sm_count_only = 16
};

// `a` and `b` but for their SM counts.
bool same_but_sm_count(std::vector<ShapeWinner> a, const std::vector<ShapeWinner>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) a[i].sm_count = b[i].sm_count;
  return same(a, b);
}

// Runs in the child: reads `damaged` with `read` and classifies what came back; prints what changed on stderr.
int classify(const Reader& read, const fs::path& damaged, const Damage& d, const Bytes& original,
             const std::set<std::size_t>& reals, const std::vector<ShapeWinner>& expected, const fs::path& scratch) {
  std::vector<ShapeWinner> got;
  try {
    got = read(damaged);
  } catch (const Error& e) {
    const std::string what = e.what();
    if (what.find('\n') == std::string::npos) return refused;
    fmt::print(stderr, "    a refusal of more than one line: {}\n", what);
    return two_lines;
  } catch (const std::exception& e) {
    fmt::print(stderr, "    not an mpgemm::Error: {}\n", e.what());
    return foreign;
  }
  if (same(got, expected)) return unchanged;
  if (same_but_sm_count(got, expected)) {
    fmt::print(stderr, "    an SM count changed (nothing derives it):\n  before:{}\n  after:{}\n", describe(expected),
               describe(got));
    return sm_count_only;
  }
  if (self_consistent(got)) {  // do the damaged REALs alone give the same winners?
    apply(d, original, scratch, [&](std::size_t off) { return reals.count(off) > 0; });
    try {
      if (same(read(scratch), got)) return explained;
    } catch (const std::exception&) {
    }
  }
  fmt::print(stderr, "    winners changed without an error (self-consistent: {}):\n  before:{}\n  after:{}\n",
             self_consistent(got), describe(expected), describe(got));
  return changed;
}

struct Tally {
  int refused = 0, unchanged = 0, explained = 0, changed = 0, sm_count_only = 0, failed = 0;
  std::vector<std::string> failures;
};

class DamageProperty : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = mpgemm::testing::per_test_dir();
    fs::create_directories(dir_);
    db_ = dir_ / "fixture.db";
    mpgemm::testing::write_export_db(db_);
    for (const char* side : {"-wal", "-shm", "-journal"}) ASSERT_FALSE(fs::exists(db_.string() + side)) << side;
    original_ = read_all(db_);
    page_size_ = (std::size_t{original_[16]} << 8) | original_[17];
    ASSERT_GE(original_.size(), 4 * page_size_);
    reals_ = real_value_bytes(db_, original_);
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }

  // Every trial of `read`: unexplained other winners fail the test.
  Tally run_trials(const Reader& read, std::uint64_t from = first_seed(), int n = trials()) {
    const std::vector<ShapeWinner> expected = read(db_);
    EXPECT_EQ(expected.size(), 3u);
    Tally t;
    for (std::uint64_t seed = from; seed < from + n; ++seed) {
      const Damage d = make_damage(seed, original_, page_size_);
      const fs::path damaged = dir_ / "damaged.db";
      const fs::path scratch = dir_ / "reals_only.db";
      for (const fs::path& p : {damaged, scratch})
        for (const char* side : {"", "-wal", "-shm", "-journal"}) fs::remove(p.string() + side);
      apply(d, original_, damaged);
      std::fflush(stderr);
      const pid_t pid = ::fork();
      if (pid == 0) ::_exit(classify(read, damaged, d, original_, reals_, expected, scratch));
      int status = 0;
      ::waitpid(pid, &status, 0);
      const int code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
      if (code == Outcome::refused) {
        ++t.refused;
      } else if (code == Outcome::unchanged) {
        ++t.unchanged;
      } else if (code == Outcome::explained) {
        ++t.explained;
      } else if (code == Outcome::sm_count_only) {
        ++t.sm_count_only;
        fmt::print("seed {}: {}: an SM count changed, undetectable (above)\n", seed, d.what);
      } else if (code == Outcome::changed) {
        ++t.changed;
        t.failures.push_back(fmt::format("seed {}: {}: winners changed without an error", seed, d.what));
      } else {
        ++t.failed;
        t.failures.push_back(WIFSIGNALED(status)
                                 ? fmt::format("seed {}: {}: crashed with signal {}", seed, d.what, WTERMSIG(status))
                                 : fmt::format("seed {}: {}: outcome {}", seed, d.what, code));
      }
    }
    fmt::print(
        "{} trials: {} refused in one line, {} unchanged, {} other winners explained by damaged REALs, {} "
        "with another SM count alone, {} other winners unexplained, {} failed otherwise\n",
        n, t.refused, t.unchanged, t.explained, t.sm_count_only, t.changed, t.failed);
    return t;
  }

  fs::path dir_, db_;
  Bytes original_;
  std::size_t page_size_ = 0;
  std::set<std::size_t> reals_;
};

TEST_F(DamageProperty, TheFixtureStoresItsTimesAsReals) {
  EXPECT_GE(reals_.size(), 8u * 10);  // the damaged-REAL explanation must have something to find
}

// Every reader, every trial: refused in one line, unchanged, or explained by damaged REALs (or an SM count).
void expect_property(const Tally& t) {
  for (const auto& f : t.failures) ADD_FAILURE() << f;
  EXPECT_EQ(t.refused + t.unchanged + t.explained + t.sm_count_only, trials());
}

TEST_F(DamageProperty, TheLibraryRefusesOrReadsTheSameWinners) {
  expect_property(run_trials(library_winners));
}

// What mpgemm-run --config best takes (every winner of the database is checked, whatever the shape asked for).
TEST_F(DamageProperty, TheStoreReaderRefusesOrReadsTheSameWinners) {
  expect_property(run_trials(store_winners));
}

TEST_F(DamageProperty, TheExportRefusesOrWritesTheSameWinners) {
  expect_property(run_trials(exported_winners));
}

// Found by 3,000 trials (seeds 48274, 48659, 48736 and 48860 of the schema-13 file): the schema's SQL damaged
// inside a CREATE TABLE, which SQLite quotes (newlines and all) in its error; the refusal must still be one line.
// Made deterministic when schema 14 moved those seeds' bytes off the schema: the byte after each table's name
// becomes a quote, so that SQLite's "unrecognized token" quotes the rest of the statement, newlines and all.
TEST_F(DamageProperty, ADamagedSchemaIsRefusedInOneLine) {
  const std::string text(original_.begin(), original_.end());
  for (const std::string table : {"runs", "configs", "compilations", "cublas_timings", "reranks"}) {
    const std::size_t at = text.find("CREATE TABLE " + table + " (");
    ASSERT_NE(at, std::string::npos) << table;
    Bytes damaged = original_;
    damaged[at + 13 + table.size() + 1] = '\'';
    write_all(dir_ / "schema_damaged.db", damaged, damaged.size());
    try {
      library_winners(dir_ / "schema_damaged.db");
      ADD_FAILURE() << table << ": read";
    } catch (const Error& e) {
      EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos) << table << ": " << e.what();
    }
  }
}

// Found by 3,000 trials (see the top of the file): damage that changed a winner through the store's reader, threw
// a foreign exception out of it, or changed one through every reader. Each is refused now by each reader.
TEST_F(DamageProperty, TheSeedsThatChangedAWinnerAreRefusedByEveryReader) {
  for (std::uint64_t seed : {48014, 48545, 48729, 48763, 48846, 48888, 48615, 48686, 50739, 50868, 50923, 50955})
    for (const auto& [name, read] :
         {std::pair{"library", Reader(library_winners)}, std::pair{"store", Reader(store_winners)},
          std::pair{"export", Reader(exported_winners)}}) {
      const Tally t = run_trials(read, seed, 1);
      EXPECT_EQ(t.refused, 1) << name << " reader, seed " << seed;
    }
}

// An SM count is read as stored: nothing derives it (runs.gpus names each GPU but not its multiprocessors, and a
// MIG slice of an H200 has fewer than 132, so the device's name does not give it either). It sizes the persistent
// grids of mpgemm-export --format cpp (fewer CTAs than SMs: slower, not wrong); the library reads the device's own.
TEST_F(DamageProperty, AnSmCountIsNotCheckedAgainstAnything) {
  const Tally t = run_trials(store_winners, 49245, 1);
  EXPECT_EQ(t.sm_count_only, 1);
}

}  // namespace
