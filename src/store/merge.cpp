// Merging databases: checking and preparing the inputs, OUT's transaction, and publishing a new OUT.
#include "store/merge.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <optional>
#include <string_view>
#include <system_error>

#include <fmt/format.h>

#include "common/error.hpp"
#include "common/file_lock.hpp"
#include "common/readable.hpp"
#include "common/writable.hpp"
#include "store/merge_rows.hpp"
#include "store/schema.hpp"
#include "store/schema_check.hpp"
#include "store/store.hpp"
#include "store/store_impl.hpp"

namespace mpgemm {

namespace fs = std::filesystem;
using namespace store_detail;

namespace {

// A file removed (with SQLite's -wal, -shm and -journal beside it) when this goes out of scope, unless kept.
class TempDb {
 public:
  // A new empty file in `folder`, named `.NAME-XXXXXX` by mkstemp: created exclusively (O_CREAT | O_EXCL, so a
  // symlink or a file raced in at the name is never followed or reused) and readable by its owner only.
  static std::unique_ptr<TempDb> create_in(const fs::path& folder, std::string_view name) {
    std::string temp = (folder / fmt::format(".{}-XXXXXX", name)).string();
    const int fd = ::mkstemp(temp.data());
    if (fd < 0)
      throw Error(fmt::format("cannot create a temporary file in {}: {}", folder.string(), std::strerror(errno)));
    ::close(fd);
    return std::unique_ptr<TempDb>(new TempDb(fs::path(temp), Created{}));
  }
  ~TempDb() {
    if (!kept_) remove_all();
  }
  TempDb(const TempDb&) = delete;
  TempDb& operator=(const TempDb&) = delete;
  const fs::path& path() const { return path_; }
  void keep() { kept_ = true; }

 private:
  void remove_all() noexcept {
    std::error_code ec;
    for (const char* suffix : {"", "-wal", "-shm", "-journal"}) fs::remove(path_.string() + suffix, ec);
  }
  struct Created {};
  TempDb(fs::path path, Created) : path_(std::move(path)) {}
  fs::path path_;
  bool kept_ = false;
};

// An input ready to read: the file itself, or a migrated temporary copy of it.
struct Input {
  fs::path path;                 // as given
  std::unique_ptr<TempDb> copy;  // set when it was older than this build's schema
  fs::path readable() const { return copy ? copy->path() : path; }
};

// Copies `from` (consistently, whatever its journal mode) into a new file `to` with SQLite's backup API.
void snapshot(const sqlite::Connection& from, const fs::path& to) {
  OwnConnection dst(to, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, "creating a temporary copy of a merge input");
  sqlite3_backup* b = sqlite3_backup_init(dst.get().db, "main", from.db, "main");
  if (!b) sqlite::fail(dst.get(), sqlite3_errcode(dst.get().db), "copying a merge input");
  sqlite3_backup_step(b, -1);
  const int rc = sqlite3_backup_finish(b);
  sqlite::check(dst.get(), rc, fmt::format("copying merge input {}", from.path));
}

// Every table of an input must be one the merge knows: a table it would not copy is refused, never dropped.
void require_known_input_tables(const sqlite::Connection& c, const fs::path& path) {
  for (const auto& name : table_names(c)) {
    bool known = false;
    for (const auto& spec : table_specs()) known = known || spec.name == name;
    if (!known)
      throw StoreError(path.string(), SQLITE_ERROR,
                       fmt::format("merge input has a table '{}' that is not part of the mpgemm schema (version {}), "
                                   "so the merge cannot copy it; nothing was merged (drop the table from a copy of "
                                   "the file, or merge without this input)",
                                   name, schema_version()));
  }
}

// Runs of an input that read 'running': a tuner may still be writing the file (the merge copies one snapshot of
// it, a partial run), or it was killed before it could end its run. Returns the warning, or none.
std::optional<std::string> running_runs_warning(const sqlite::Connection& c, const fs::path& path) {
  std::error_code ec;
  std::optional<LockFile> locks;  // never created here: an input's folder is not written
  if (fs::exists(claims_path(path), ec)) locks.emplace(claims_path(path));
  sqlite::Statement s(c,
                      "SELECT id, ifnull(hostname, '?'), ifnull(pid, 0) FROM runs WHERE status = 'running' ORDER BY id",
                      "looking for runs still running in a merge input");
  std::vector<std::string> runs;
  while (s.step()) {
    const bool live = locks && locks->usable() && locks->locked_elsewhere(kLiveRunBase + s.int64(0));
    runs.push_back(
        fmt::format("{} (process {} on {}{})", s.int64(0), s.int64(2), s.text(1), live ? ", still recording" : ""));
  }
  if (runs.empty()) return std::nullopt;
  const bool one = runs.size() == 1;
  return fmt::format(
      "{}: run{} {} read{} 'running' (a tuner may still be writing this database, or was killed): the merge copied "
      "what the file held at this moment, so {} may be incomplete; merge it again once {} ended",
      path.string(), one ? "" : "s", fmt::join(runs, ", "), one ? "s" : "", one ? "that run" : "those runs",
      one ? "it has" : "they have");
}

// `folder`: where a temporary copy goes (OUT's folder: never a shared, predictable name in $TMPDIR).
Input prepare_input(const fs::path& path, const fs::path& folder, MergeReport& report) {
  std::vector<std::string>& notes = report.notes;
  require_readable_file(path, "database");
  // Read as every reader reads: nothing written beside the input, also on read-only media or in WAL mode.
  OwnConnection c(path, OwnConnection::ForReading{});
  const Identity id = read_identity(c.get());
  if (id.application_id != kStoreApplicationId)
    throw StoreError(path.string(), SQLITE_NOTADB,
                     fmt::format("merge input is not an mpgemm results database (SQLite application_id {:#x}, "
                                 "user_version {}); nothing was merged",
                                 id.application_id, id.user_version));
  if (id.user_version > schema_version())
    throw StoreError(path.string(), SQLITE_ERROR,
                     fmt::format("merge input has schema version {}, newer than this mpgemm's ({}); merge with a "
                                 "newer mpgemm; nothing was merged",
                                 id.user_version, schema_version()));
  if (id.user_version < 1)
    throw StoreError(path.string(), SQLITE_CORRUPT,
                     fmt::format("merge input has schema version {}, none that mpgemm ever wrote (1 to {}): its "
                                 "header was damaged or edited; nothing was merged",
                                 id.user_version, schema_version()));
  // Its schema before any of it is read: a table or view of its own, or a trigger, is not merged from.
  if (auto difference = schema_difference(c.get(), static_cast<int>(id.user_version), SchemaUse::read))
    throw StoreError(path.string(), SQLITE_CORRUPT,
                     fmt::format("merge input is not the schema of version {} ({}); nothing was merged",
                                 id.user_version, *difference));
  Input in{path, nullptr};
  const bool older = id.user_version != schema_version();
  // The merge reads each input twice (here and in OUT's transaction) as a file. An older schema, the first form of
  // schema 1 or a snapshot held in memory (WAL mode without its -wal or -shm) is read as a reader reads it
  // (migrated, completed, in memory) and written to a temporary copy: the input itself is never written.
  if (older || c.in_memory() || lacks_dynamic_shared_bytes(c.get())) {
    const Store reader = Store::open(path, Store::Mode::read_only);
    in.copy = TempDb::create_in(folder, path.filename().string() + ".merge-copy");
    snapshot(StateAccess::of(reader).conn, in.copy->path());
  }
  if (older)
    notes.push_back(fmt::format("{}: schema version {} migrated to {} in a temporary copy (the file is unchanged)",
                                path.string(), id.user_version, schema_version()));
  // The tables as the merge will read them (a migrated copy's: the migrations keep a table they do not know).
  std::optional<OwnConnection> copy;
  if (in.copy) copy.emplace(in.copy->path(), SQLITE_OPEN_READONLY, "reading a migrated merge input");
  const sqlite::Connection& readable = copy ? copy->get() : c.get();
  require_known_input_tables(readable, path);
  if (auto warning = running_runs_warning(readable, path)) report.warnings.push_back(std::move(*warning));
  return in;
}

// A run of OUT still 'running' whose process holds its live-run lock is being recorded now: its tuner's writes
// would wait on the merge's transaction past their busy timeout. Refuse rather than fail the tuner.
void refuse_live_runs(const sqlite::Connection& out, const fs::path& out_path) {
  std::error_code ec;
  if (!fs::exists(claims_path(out_path), ec)) return;
  const LockFile locks(claims_path(out_path));
  sqlite::Statement s(out, "SELECT id, ifnull(hostname, '?'), ifnull(pid, 0) FROM runs WHERE status = 'running'",
                      "looking for live runs");
  while (s.step())
    if (locks.locked_elsewhere(kLiveRunBase + s.int64(0)))
      throw StoreError(out_path.string(), SQLITE_BUSY,
                       fmt::format("run {} (process {} on {}) is still recording into this database; merge into it "
                                   "once that run has ended, or merge into another file",
                                   s.int64(0), s.int64(2), s.text(1)));
}

// Every table of OUT must be one the merge knows (a new table needs its key in table_specs()).
void require_known_tables(const sqlite::Connection& out) {
  for (const auto& name : table_names(out)) {
    bool known = false;
    for (const auto& spec : table_specs()) known = known || spec.name == name;
    if (!known)
      throw Error(fmt::format("merge: table {} of {} has no merge key (store/table_rows.cpp)", name, out.path));
  }
}

std::int64_t abort_hook() {
  const char* v = std::getenv("MPGEMM_MERGE_TEST_ABORT_AFTER_ROWS");
  return v ? std::strtoll(v, nullptr, 10) : 0;
}

// Writes every input into `target` in one transaction.
void merge_into(const fs::path& target, const fs::path& out_path, const std::vector<Input>& inputs,
                MergeReport& report) {
  const Store store = Store::open(target, Store::Mode::read_write);  // creates or migrates; WAL while we work
  const OwnConnection out(target, SQLITE_OPEN_READWRITE, "opening the merge output");
  sqlite::exec(out.get(), "PRAGMA foreign_keys = ON", "enabling foreign keys");
  require_known_tables(out.get());
  sqlite::Transaction tx(out.get(), "merging into " + out_path.string());
  refuse_live_runs(out.get(), out_path);
  for (const auto& spec : table_specs()) report.tables.push_back(MergeCounts{std::string(spec.name)});
  store_detail::RowMerger merger(out.get(), report.tables, abort_hook());
  for (const auto& in : inputs) {
    const OwnConnection c(in.readable(), SQLITE_OPEN_READONLY, "reading a merge input");
    // One read transaction: one snapshot of the input, even while a tuner is still writing to it.
    sqlite::exec(c.get(), "BEGIN", "starting to read a merge input");
    merger.merge_input(c.get());
    sqlite::exec(c.get(), "COMMIT", "finishing reading a merge input");
  }
  tx.commit();
}  // `out` closes before `store`, whose close leaves the file in rollback-journal mode: no -wal, -shm left

// Moves a finished new OUT into place; never over a file that appeared meanwhile.
void publish(const fs::path& built, const fs::path& out) {
  if (::link(built.c_str(), out.c_str()) == 0) return;  // TempDb removes `built`
  const int err = errno;
  if (err == EEXIST)
    throw StoreError(out.string(), SQLITE_CANTOPEN,
                     "the merge output appeared while the merge was building it; merge again into it");
  std::error_code ec;  // no hard links on this file system: a rename, which would replace a file made meanwhile
  if (fs::exists(out, ec))
    throw StoreError(out.string(), SQLITE_CANTOPEN, "the merge output appeared while the merge was building it");
  fs::rename(built, out, ec);
  if (ec)
    throw StoreError(out.string(), SQLITE_CANTOPEN, "cannot move the merged database into place: " + ec.message());
}

}  // namespace

MergeReport merge_databases(const fs::path& out, const std::vector<fs::path>& inputs) {
  require_not_a_side_file(out);  // a database's -wal replaced by another database loses its rows
  MergeReport report;
  std::error_code ec;
  report.created = !fs::exists(out, ec);
  std::vector<Input> ready;
  for (const auto& path : inputs) {  // every input is checked before OUT is touched
    if (!report.created && fs::equivalent(path, out, ec)) {
      report.notes.push_back(fmt::format("{}: the output itself, skipped (its rows are already there)", path.string()));
      continue;
    }
    ready.push_back(prepare_input(path, fs::absolute(out).parent_path(), report));
  }
  if (!report.created) {
    merge_into(out, out, ready, report);
    return report;
  }
  // Built under a name mkstemp makes (a predictable OUT.merging-PID could have a symlink raced in, which SQLite
  // would follow), then given the permissions a new file gets (mkstemp's are the owner's only).
  const auto built = TempDb::create_in(fs::absolute(out).parent_path(), out.filename().string() + ".merging");
  const mode_t mask = ::umask(0);
  ::umask(mask);
  ::chmod(built->path().c_str(), 0666 & ~mask);
  merge_into(built->path(), out, ready, report);
  publish(built->path(), out);
  return report;
}

report::Table merge_table(const MergeReport& r) {
  report::Table t;
  t.columns = {"table", "added", "present", "conflicts", "replaced"};
  for (const auto& c : r.tables) t.rows.push_back({c.table, c.added, c.present, c.conflicts, c.replaced});
  return t;
}

}  // namespace mpgemm
