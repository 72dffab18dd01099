// Opening a results database: identity checks before anything is written, connection settings, migrations.
#include "store/store.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <system_error>
#include <thread>

#include <fmt/format.h>

#include "common/bounded_input.hpp"
#include "common/error.hpp"
#include "common/writable.hpp"
#include "store/read_open.hpp"
#include "store/schema.hpp"
#include "store/schema_check.hpp"
#include "store/store_impl.hpp"

namespace mpgemm {

using store_detail::Identity;
using store_detail::read_identity;

namespace {

// Several mpgemm-tune processes may share a database; a writer waits this long for another's transaction.
constexpr int kBusyTimeoutMs = 10'000;

// Throws unless the file holds our schema at a version this build can use in `mode`, or is an empty database
// that read_write may initialize. Only versions 1 to schema_version() were ever written (with the application id,
// in the transaction that created the tables): any other is a damaged or hand-edited header, and migrating from it
// would run the first migrations again on tables that exist.
void check_identity(const std::string& path, Store::Mode mode, const Identity& id) {
  const int supported = schema_version();
  if (id.application_id == kStoreApplicationId) {
    if (id.user_version > supported)
      throw StoreError(path, SQLITE_ERROR,
                       fmt::format("database schema version {} is newer than this mpgemm supports ({}); upgrade mpgemm",
                                   id.user_version, supported));
    if (id.user_version < 1)
      throw StoreError(path, SQLITE_CORRUPT,
                       fmt::format("database schema version {} is none that mpgemm ever wrote (1 to {}): its header "
                                   "was damaged or edited; the file was left as it was, restore it from a copy",
                                   id.user_version, supported));
    return;
  }
  const bool empty = id.application_id == 0 && id.user_version == 0 && id.objects == 0;
  if (empty && mode == Store::Mode::read_write) return;
  throw StoreError(path, SQLITE_NOTADB,
                   empty ? std::string("file is not an mpgemm results database (an empty SQLite database)")
                         : fmt::format("file is not an mpgemm results database (SQLite application_id {:#x}, "
                                       "user_version {}, {} schema objects)",
                                       id.application_id, id.user_version, id.objects));
}

// What a StoreError says about `name`, without the "database NAME: " and "(SQLite code N)" that a message quoting
// it repeats.
std::string detail_of(const StoreError& e, const std::string& name) {
  std::string_view text = e.what();
  if (const std::string prefix = "database " + name + ": "; text.starts_with(prefix)) text.remove_prefix(prefix.size());
  if (const auto code = text.rfind(" (SQLite code "); code != std::string_view::npos) text = text.substr(0, code);
  return std::string(text);
}

// What SQLite does on the first read of a writable connection to a file with a hot journal: the interrupted
// transaction rolled back, the journal deleted. Nothing else is read or written.
void roll_back_hot_journal(const std::filesystem::path& path, const std::string& name) {
  sqlite::Connection rw{nullptr, name};
  const struct Closer {
    sqlite::Connection& c;
    ~Closer() { sqlite3_close_v2(c.db); }
  } closer{rw};
  sqlite::check(rw, sqlite3_open_v2(path.c_str(), &rw.db, SQLITE_OPEN_READWRITE, nullptr),
                "opening the database to roll back an interrupted transaction (a hot journal)");
  sqlite3_busy_timeout(rw.db, kBusyTimeoutMs);
  sqlite::exec(rw, "SELECT count(*) FROM sqlite_schema", "rolling back an interrupted transaction (a hot journal)");
}

// A writer's look at an existing file before anything writes to it (the WAL switch included), through the
// read-only open's connection (which creates no -wal or -shm for a file that is then refused): the file is ours at
// a version this build knows, SQLite finds its pages sound, and its schema is its version's. A refused file is left
// as it was, byte for byte. Reads every page once (PRAGMA quick_check).
void check_before_writing(const std::filesystem::path& path, const std::string& name) {
  sqlite::Connection probe{nullptr, name};
  const struct Closer {
    sqlite::Connection& c;
    ~Closer() { sqlite3_close_v2(c.db); }
  } closer{probe};
  const auto damaged = [&](const std::string& what) {
    return StoreError(name, SQLITE_CORRUPT,
                      fmt::format("database is damaged ({}); it was not written: restore it from a copy, or save what "
                                  "can still be read with `mpgemm-query {} --dump`",
                                  what, name));
  };
  Identity id;
  for (bool rolled_back = false;;) {
    try {
      store_detail::open_for_reading(probe, path, kBusyTimeoutMs);
      id = read_identity(probe);
      break;
    } catch (const StoreError& e) {
      if ((e.code() & 0xff) == SQLITE_CORRUPT)
        throw damaged(detail_of(e, name));  // e.g. a schema page SQLite cannot read
      if (e.code() != SQLITE_READONLY_ROLLBACK || rolled_back) throw;
    }
    // A hot journal: a writer died inside a transaction (a kill during the switch to or from WAL leaves one). A
    // read-only connection cannot roll it back, so every later resume would fail; SQLite's own recovery on a
    // writable connection restores the last commit, and the checks below then look at that.
    sqlite3_close_v2(probe.db);
    probe.db = nullptr;
    roll_back_hot_journal(path, name);
    rolled_back = true;
  }
  check_identity(name, Store::Mode::read_write, id);
  if (id.objects == 0) return;  // an empty database: initialized next
  std::optional<std::string> problem;
  try {
    problem = store_detail::quick_check_problem(probe);
    if (problem) problem = "PRAGMA quick_check: " + *problem;
  } catch (const StoreError& e) {
    if ((e.code() & 0xff) != SQLITE_CORRUPT) throw;
    problem = detail_of(e, name);  // a page too damaged for quick_check to read
  }
  if (problem) throw damaged(*problem);
  if (auto difference =
          store_detail::schema_difference(probe, static_cast<int>(id.user_version), store_detail::SchemaUse::write))
    throw StoreError(name, SQLITE_CORRUPT,
                     fmt::format("database is damaged (not the schema of version {}: {}); it was not written: a "
                                 "database from elsewhere is checked before it is trusted; restore it from a copy",
                                 id.user_version, *difference));
}

// A reader's look at the schema before it reads anything through it: a view that is not its version's would be
// believed (or never finish), a trigger or table of the file's own is not mpgemm's. Refused whole, unread.
void check_before_reading(const sqlite::Connection& c, const Identity& id) {
  if (auto difference =
          store_detail::schema_difference(c, static_cast<int>(id.user_version), store_detail::SchemaUse::read))
    throw StoreError(c.path, SQLITE_CORRUPT,
                     fmt::format("database is not the schema of version {} ({}); it was not read: a database from "
                                 "elsewhere is checked before it is trusted; restore it from a copy",
                                 id.user_version, *difference));
}

// WAL lets readers work while a writer commits; every read-write open turns it on (the last connection to
// close turns it off again: ~State). Changing the journal mode needs a moment with no other connection in a
// transaction, which the busy handler does not always wait for, so retry up to the timeout.
void use_wal(const sqlite::Connection& c) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(kBusyTimeoutMs);
  for (;;) {
    try {
      sqlite::Statement s(c, "PRAGMA journal_mode = WAL", "switching to the WAL journal");
      s.run();
      return;
    } catch (const StoreError& e) {
      if ((e.code() & 0xff) != SQLITE_BUSY || std::chrono::steady_clock::now() > deadline) throw;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

// Applies every migration newer than the file's version in one transaction. The identity is read again under
// the write lock: another process may have initialized or migrated the file since it was opened.
void migrate(const store_detail::State& s) {
  sqlite::Transaction tx(s.conn, "migrating the database schema");
  const Identity id = read_identity(s.conn);
  check_identity(s.conn.path, s.mode, id);
  for (const auto& m : store_detail::migrations()) {
    if (m.version <= id.user_version) continue;
    sqlite::exec(s.conn, std::string(m.sql).c_str(),
                 fmt::format("migrating the database schema to version {}", m.version));
  }
  sqlite::exec(s.conn, fmt::format("PRAGMA application_id = {}", kStoreApplicationId).c_str(),
               "setting the application id");
  sqlite::exec(s.conn, fmt::format("PRAGMA user_version = {}", schema_version()).c_str(), "setting the schema version");
  tx.commit();
}

}  // namespace

bool store_detail::lacks_dynamic_shared_bytes(const sqlite::Connection& c) {
  sqlite::Statement s(c,
                      "SELECT (SELECT count(*) FROM pragma_table_info('compilations')) > 0 AND (SELECT count(*) FROM "
                      "pragma_table_info('compilations') WHERE name = 'dynamic_shared_bytes') = 0",
                      "looking for the first form of schema 1");
  return s.step() && s.int64(0) != 0;
}

store_detail::Identity store_detail::read_identity(const sqlite::Connection& c) {
  // One statement, so one snapshot: read piecemeal, another process's migration could commit in between.
  sqlite::Statement s(c,
                      "SELECT (SELECT application_id FROM pragma_application_id), "
                      "(SELECT user_version FROM pragma_user_version), (SELECT count(*) FROM sqlite_schema)",
                      "reading the database header");
  if (!s.step()) return Identity{};
  return Identity{s.int64(0), s.int64(1), s.int64(2)};
}

store_detail::State::~State() {
  if (conn.db && rollback_on_close) {  // never on a file open() refused: that one is left untouched
    // The database is in WAL mode while open (readers work while a writer commits), and left in
    // rollback-journal mode by the last connection that closes it: a read-only connection to a WAL database
    // creates "-wal" and "-shm" files beside it and leaves them there, while one to a rollback-journal
    // database writes nothing. The switch checkpoints and needs the file to itself: while another connection
    // is open it fails at once (no busy wait) and the database stays in WAL until that one closes.
    sqlite3_busy_timeout(conn.db, 0);
    sqlite3_exec(conn.db, "PRAGMA journal_mode = DELETE", nullptr, nullptr, nullptr);
  }
  sqlite3_close_v2(conn.db);
}

void store_detail::State::require_writable(std::string_view doing) const {
  if (mode == Store::Mode::read_only)
    throw StoreError(conn.path, SQLITE_READONLY,
                     fmt::format("database is read-only: it was opened read-only (while {})", doing));
}

void store_detail::State::bad_row(std::string detail) const {
  throw StoreError(conn.path, SQLITE_CORRUPT, fmt::format("unexpected content: {}", detail));
}

TimingStats store_detail::timing_at(const sqlite::Statement& q, int first) {
  TimingStats t;
  t.median_ms = q.real(first);
  t.min_ms = q.real(first + 1);
  t.max_ms = q.real(first + 2);
  t.warmup = static_cast<int>(q.int64(first + 3));
  t.runs = static_cast<int>(q.int64(first + 4));
  t.iters = static_cast<int>(q.int64(first + 5));
  return t;
}

std::optional<L2Mode> store_detail::l2_mode_at(const State& s, const sqlite::Statement& q, int column,
                                               std::string_view row) {
  if (q.is_null(column)) return std::nullopt;
  const auto mode = l2_mode_from_string(q.text(column));
  if (!mode) s.bad_row(fmt::format("{} has L2 mode '{}'", row, q.text(column)));
  return mode;
}

std::optional<BatchEnqueue> store_detail::batches_at(const State& s, const sqlite::Statement& q, int column,
                                                     std::string_view row) {
  if (q.is_null(column)) return std::nullopt;
  const auto how = batch_enqueue_from_string(q.text(column));
  if (!how) s.bad_row(fmt::format("{} has batches '{}'", row, q.text(column)));
  return how;
}

ProblemKind store_detail::problem_at(const State& s, const sqlite::Statement& q, int column, std::string_view row) {
  std::string why;
  if (const auto kind = ProblemKind::parse(q.text(column), &why)) return *kind;
  s.bad_row(fmt::format("{}: its problem {}", row, printable_text(why)));
}

std::optional<double> tflops_of(const Shape& shape, double median_ms) {
  if (!(median_ms > 0)) return std::nullopt;
  return shape.flops() / (median_ms * 1e9);
}

std::optional<std::string> Store::why_not_writable(const std::filesystem::path& path) {
  const std::optional<WriteObstacle> o = write_obstacle(path, MissingFolders::create);  // open() creates them
  if (!o) return std::nullopt;
  using Kind = WriteObstacle::Kind;
  const bool creating = o->kind == Kind::not_a_folder || o->kind == Kind::folder_read_only;
  return (creating ? "cannot create the database: " : "") + describe(*o, "database file");
}

void Store::require_writable(const std::filesystem::path& path) {
  require_not_a_side_file(path);  // a database's -wal as another database would lose its rows
  if (struct stat st{}; ::stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode))
    throw Error(fmt::format("database {}: it is not a regular file (a FIFO, a socket or a device), not a database file",
                            path.string()));
  if (auto why = why_not_writable(path)) throw Error(fmt::format("database {}: {}", path.string(), *why));
}

Store Store::open(const std::filesystem::path& path, Mode mode) {
  auto state = std::make_unique<store_detail::State>();
  state->path = path;
  state->mode = mode;
  state->conn.path = path.string();
  std::error_code folder_ec;
  if (std::filesystem::is_directory(path, folder_ec))
    throw StoreError(state->conn.path, SQLITE_CANTOPEN, "it is a folder, not a database file");
  // Before SQLite opens it: a FIFO's open waits for a writer, perhaps forever, and a device (/dev/null as --db) would
  // have SQLite write its journal beside it.
  if (struct stat st{}; ::stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode))
    throw StoreError(state->conn.path, SQLITE_CANTOPEN,
                     "it is not a regular file (a FIFO, a socket or a device), not a database file");
  if (mode == Mode::read_write) require_not_a_side_file(path);
  bool in_memory = false;  // the connection is to a snapshot in memory, not to the file
  if (mode == Mode::read_write) {
    std::error_code ec;
    if (path.has_parent_path()) std::filesystem::create_directories(path.parent_path(), ec);
    if (ec)
      throw StoreError(state->conn.path, SQLITE_CANTOPEN,
                       fmt::format("cannot create the folder {}: {}", path.parent_path().string(), ec.message()));
    std::error_code exists_ec;
    const bool existed = std::filesystem::exists(path, exists_ec);
    const int rc =
        sqlite3_open_v2(state->conn.path.c_str(), &state->conn.db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nullptr);
    if (rc != SQLITE_OK && !existed && !std::filesystem::exists(path, exists_ec) && !exists_ec) {
      const std::filesystem::path folder = path.has_parent_path() ? path.parent_path() : ".";
      if (access(folder.c_str(), W_OK) != 0)
        throw StoreError(state->conn.path, rc,
                         fmt::format("cannot create the database: the folder {} is not writable", folder.string()));
    }
    if (rc != SQLITE_OK) sqlite::fail(state->conn, rc, "opening the database");
    sqlite3_extended_result_codes(state->conn.db, 1);
    sqlite::harden(state->conn.db);
    sqlite3_busy_timeout(state->conn.db, kBusyTimeoutMs);
    // SQLite quietly opens a file it may not write read-only; say so now rather than at the first write.
    if (sqlite3_db_readonly(state->conn.db, "main") == 1)
      throw StoreError(state->conn.path, SQLITE_READONLY,
                       "database is read-only: the file or its folder is not writable (a query can open it read-only)");
    // Until the open has succeeded, closing must not checkpoint a -wal into the file: a file refused below, or
    // changed by another process since check_before_writing, stays as it was.
    sqlite3_db_config(state->conn.db, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 1, nullptr);
    if (existed) check_before_writing(path, state->conn.path);
  } else {
    std::error_code ec;
    if (!std::filesystem::exists(path, ec))
      throw StoreError(state->conn.path, SQLITE_CANTOPEN, "no such file (a read-only open never creates one)");
    in_memory = store_detail::open_for_reading(state->conn, path, kBusyTimeoutMs);
  }

  // Read again on the writer's connection: another process may have initialized or replaced the file since.
  const Identity id = read_identity(state->conn);
  check_identity(state->conn.path, mode, id);                          // before anything below writes to the file
  if (mode == Mode::read_only) check_before_reading(state->conn, id);  // a writer's: check_before_writing
  if (mode == Mode::read_write) {
    use_wal(state->conn);
    sqlite::exec(state->conn, "PRAGMA synchronous = NORMAL", "setting synchronous = NORMAL");
  }
  const bool older = id.user_version < schema_version();  // or a new file (read-write only: check_identity)
  // A read-only open of an older schema migrates a copy in memory (SQLite's backup, one consistent snapshot), so
  // the query tools and the library read any mpgemm database and the file stays as it was.
  if (older && mode == Mode::read_only && !in_memory)
    store_detail::read_into_memory(state->conn, "copying an older schema into memory to migrate it");
  sqlite::exec(state->conn, "PRAGMA foreign_keys = ON", "enabling foreign keys");
  if (older) migrate(*state);
  // A reader adds the column the first form lacked (NULL: not recorded) to its copy in memory; a writer refused
  // that form before opening (check_before_writing: not the schema of its version).
  if (mode == Mode::read_only && store_detail::lacks_dynamic_shared_bytes(state->conn)) {
    if (!in_memory && !older)
      store_detail::read_into_memory(state->conn, "copying the first form of schema 1 into memory to read it");
    sqlite::exec(state->conn, "ALTER TABLE compilations ADD COLUMN dynamic_shared_bytes INTEGER",
                 "adding the column the first form of schema 1 lacked");
  }
  if (mode == Mode::read_only) sqlite::exec(state->conn, "PRAGMA query_only = ON", "making the connection read-only");
  if (mode == Mode::read_write) sqlite3_db_config(state->conn.db, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 0, nullptr);
  state->rollback_on_close = mode == Mode::read_write;
  return Store(std::move(state));
}

Store::Store(std::unique_ptr<store_detail::State> state) : state_(std::move(state)) {}
Store::Store(Store&& other) noexcept = default;
Store& Store::operator=(Store&& other) noexcept = default;
Store::~Store() = default;

store_detail::State& Store::state() const {
  if (!state_) throw Error("use of a moved-from Store");
  return *state_;
}

const std::filesystem::path& Store::path() const {
  return state().path;
}
Store::Mode Store::mode() const {
  return state().mode;
}

}  // namespace mpgemm
