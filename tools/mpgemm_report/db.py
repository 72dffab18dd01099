"""Opening an mpgemm database read-only, without creating anything beside it, and the queries every section shares.

A database from elsewhere is untrusted input (docs/reliability.md), and the report keeps the promises of the C++
readers:
- Nothing is created or left beside the file. A database with no `-wal` beside it is read in place,
  `immutable=1` (no locks, no side files). One with a `-wal` (a writer has it open, or died before a checkpoint) is
  copied with its `-wal` into a private folder and read there, into memory: SQLite's read-only mode would leave a
  `-shm` beside the original, and fails in a folder it cannot write.
- Its schema is checked before anything reads it, by the C++ check itself (`mpgemm-query DB --sql 'SELECT 1'`):
  every table, index, view and trigger by its SQL, so a planted trigger or a redefined view is refused in one line
  and never runs. The launcher names its mpgemm-query in $MPGEMM_QUERY.
- Its values are checked before a section draws them: a number column holding text, or params that are not a flat
  JSON object, is an error naming the row (`check_values`, `params_of`), never a traceback.

A database of an older schema is read as the C++ readers read it: copied into memory (SQLite's backup, one
consistent snapshot) and the copy migrated there, so every schema version mpgemm ever wrote is drawn and the file
is never written. The migrations are the C++ ones, as `mpgemm-query --schema` prints them (the schema is defined
once, in src/store/schema.cpp).
"""
import functools
import json
import os
import pathlib
import re
import shutil
import sqlite3
import stat
import subprocess
import tempfile
import unicodedata
from dataclasses import dataclass

APPLICATION_ID = 0x6D706765  # "mpge": src/store/schema.hpp kStoreApplicationId
SCHEMA_VERSION = 14  # the schema the sections' queries are written for (src/store/schema.cpp); checked against
# the migrations mpgemm-query prints whenever an older database is migrated


DEFAULT_PROBLEM = "mk_kn_fp16_fp32"  # the problem kind of every row before schema 14 (src/common/problem_kind.hpp)
MAX_INTEGER = 2**63 - 1  # SQLite's INTEGER, and the C++ tools' bound on a shape's dimension
SNAPSHOT_ATTEMPTS = 4  # how often a WAL-mode database is copied again when a writer changed it meanwhile
CHECK_SECONDS = 300  # how long mpgemm-query may take to check a database's schema


class ReportError(Exception):
    """A problem with the database or the arguments, said in one line; exit status 1."""


def printable(text, limit=200):
    """`text` safe for a terminal and a one-line message, as the C++ tools' printable_text: control characters
    (newlines and escape sequences among them) written as \\n or \\xNN, at most `limit` characters."""
    text = str(text)
    out = []
    for ch in text[:limit]:
        if ch == "\n":
            out.append("\\n")
        elif ch == "\t":
            out.append("\\t")
        elif unicodedata.category(ch) in ("Cc", "Cf", "Zl", "Zp"):
            out.append(f"\\x{ord(ch):02x}" if ord(ch) < 0x100 else f"\\u{ord(ch):04x}")
        else:
            out.append(ch)
    return "".join(out) + ("..." if len(text) > limit else "")


@functools.cache
def problem_kinds():
    """Every problem kind's name, as `mpgemm-query --problem-kinds` prints them: the names are defined once, by the
    C++ ProblemKind (src/common/problem_kind.hpp), never rebuilt here."""
    query = query_binary()
    try:
        done = subprocess.run([query, "--problem-kinds"], capture_output=True, text=True, timeout=60, check=False)
    except (OSError, subprocess.TimeoutExpired) as e:
        raise ReportError(f"{query} --problem-kinds failed: {e}") from None
    kinds = frozenset(done.stdout.split())
    if done.returncode != 0 or DEFAULT_PROBLEM not in kinds:
        raise ReportError(f"{query} --problem-kinds failed (exit {done.returncode}): {printable(done.stderr.strip())}; "
                          "use the mpgemm-query of the same checkout (set MPGEMM_QUERY)")
    return kinds


def why_not_problem(name):
    """Why `name` names no problem kind, in one line; None when it names one."""
    if not isinstance(name, str):
        return f"it is {type(name).__name__}, not text"
    if name in problem_kinds():
        return None
    return (f"'{printable(name, 80)}' is none of the {len(problem_kinds())} kinds mpgemm-query --problem-kinds "
            "lists (the form is A_B_IN_OUT[_beta], e.g. mk_nk_bf16_bf16)")


@dataclass(frozen=True)
class Shape:
    """A problem: its size and its kind (the column problem, schema 14; the default kind before it)."""

    m: int
    n: int
    k: int
    problem: str = DEFAULT_PROBLEM

    @staticmethod
    def parse(text):
        parts = text.lower().replace("×", "x").split("x")
        if len(parts) != 3 or not all(p.isascii() and p.isdigit() and 0 < int(p) <= MAX_INTEGER for p in parts):
            raise ValueError(f"'{printable(text)}' is not a shape MxNxK of positive integers of at most "
                             f"{MAX_INTEGER} (e.g. 4096x4096x4096)")
        return Shape(*(int(p) for p in parts))

    def flops(self):
        return 2.0 * self.m * self.n * self.k

    def is_default(self):
        return self.problem == DEFAULT_PROBLEM

    def key(self):  # in file names and JSON: the size, then the kind unless it is the default
        size = f"{self.m}x{self.n}x{self.k}"
        return size if self.is_default() else f"{size}_{self.problem}"

    def title(self):  # in titles: 2048³ for a cube, then the kind unless it is the default
        size = f"{self.m}³" if self.m == self.n == self.k else f"{self.m}×{self.n}×{self.k}"
        return size if self.is_default() else f"{size} {self.problem}"

    def as_text(self):  # the size alone, as --shape takes it
        return f"{self.m}x{self.n}x{self.k}"

    def as_list(self):  # the size, in JSON
        return [self.m, self.n, self.k]

    def sql_args(self):  # what "M = ? AND N = ? AND K = ? AND problem = ?" takes
        return [self.m, self.n, self.k, self.problem]


@dataclass(frozen=True)
class Scope:
    """What to report on: --device, --shape (its size, of any kind) and --problem (a kind's name), None for all."""

    device: str = None
    shape: Shape = None
    problem: str = None

    def where(self, alias=""):
        """SQL condition and parameters restricting device_name, M, N, K and problem of table alias `alias`."""
        p = f"{alias}." if alias else ""
        terms, args = [], []
        if self.device is not None:
            terms.append(f"{p}device_name = ?")
            args.append(self.device)
        if self.shape is not None:
            terms.append(f"{p}M = ? AND {p}N = ? AND {p}K = ?")
            args += self.shape.as_list()
        if self.problem is not None:
            terms.append(f"{p}problem = ?")
            args.append(self.problem)
        return (" AND ".join(terms) or "1"), args


def open_readonly(path):
    """A read-only connection to the mpgemm database at `path`, at SCHEMA_VERSION (an older file migrated in a
    copy in memory), its schema and values checked; ReportError when it is missing, unreadable, not ours or not
    as its version defines it. PRAGMA user_version says the file's version."""
    path = pathlib.Path(path)
    why = why_not_readable(path)
    if why == "no such file":
        raise ReportError(f"{printable(path)}: no such database file")
    if why:
        raise ReportError(f"cannot read {printable(path)}: {why}")
    with tempfile.TemporaryDirectory(prefix="mpgemm-report-") as private:
        conn, read = open_file_or_snapshot(path, pathlib.Path(private))
        try:
            version = check_ours(conn, path)
            check_schema(read, path)
            if version < SCHEMA_VERSION:
                conn = migrated_in_memory(conn, path, version)
            check_values(conn, path)
            check_problems(conn, path)
        except BaseException:
            conn.close()
            raise
    conn.row_factory = sqlite3.Row
    return conn


def open_file_or_snapshot(path, private):
    """(connection, the file it read): the file itself, immutable, when no -wal is beside it; else an in-memory copy
    of a private copy of the file and its -wal (in `private`), taken again while a writer changes them."""
    full = path.resolve()
    wal = pathlib.Path(str(full) + "-wal")
    for _ in range(SNAPSHOT_ATTEMPTS):
        if not wal.exists():
            try:
                conn = sqlite3.connect(full.as_uri() + "?mode=ro&immutable=1", uri=True)
                conn.execute("PRAGMA query_only = ON")
            except sqlite3.DatabaseError as e:
                raise ReportError(f"{printable(path)}: not a readable SQLite database ({e})") from None
            return conn, full
        before = stamps(full, wal)
        copy = private / "snapshot.db"
        for side in ("", "-wal", "-shm"):
            pathlib.Path(str(copy) + side).unlink(missing_ok=True)
        try:
            shutil.copyfile(full, copy)
            shutil.copyfile(wal, str(copy) + "-wal")
        except FileNotFoundError:
            continue  # the writer closed meanwhile and took its -wal away: look again
        except OSError as e:
            raise ReportError(f"cannot copy {printable(path)} and its -wal into {private} to read them there: "
                              f"{e.strerror or e}") from None
        if stamps(full, wal) != before:
            continue
        memory = sqlite3.connect(":memory:")
        try:
            file = sqlite3.connect(copy.as_uri() + "?mode=ro", uri=True)
            try:
                file.backup(memory)
            finally:
                file.close()
        except sqlite3.DatabaseError as e:
            memory.close()
            raise ReportError(f"{printable(path)}: not a readable SQLite database ({e})") from None
        memory.execute("PRAGMA query_only = ON")
        return memory, copy
    raise ReportError(f"{printable(path)}: the WAL-mode database kept changing while a copy of it was taken "
                      "(writers starting and stopping beside it); try again")


def stamps(*files):
    """Each file's identity, size and last change (None when missing): equal before and after a copy means nothing
    wrote them meanwhile."""
    out = []
    for f in files:
        try:
            st = os.stat(f)
            out.append((st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns))
        except FileNotFoundError:
            out.append(None)
    return out


def check_ours(conn, path):
    """The file's schema version; ReportError when it is not an mpgemm database of a version this report reads."""
    try:
        app_id, version = conn.execute(
            "SELECT (SELECT application_id FROM pragma_application_id), "
            "(SELECT user_version FROM pragma_user_version)").fetchone()
    except sqlite3.DatabaseError as e:
        raise ReportError(f"{printable(path)}: not a readable SQLite database ({e})") from None
    if app_id != APPLICATION_ID:
        raise ReportError(f"{printable(path)}: not an mpgemm results database (SQLite application_id {app_id:#x})")
    if not 1 <= version <= SCHEMA_VERSION:
        raise ReportError(f"{printable(path)}: schema version {version}, this report reads versions 1 to "
                          f"{SCHEMA_VERSION}"
                          + ("; this mpgemm-report is older than the database" if version > SCHEMA_VERSION else ""))
    return version


def query_binary():
    """The mpgemm-query that checks schemas and prints migrations: $MPGEMM_QUERY (the launcher's), else PATH's."""
    query = os.environ.get("MPGEMM_QUERY") or shutil.which("mpgemm-query")
    if not query or not os.access(query, os.X_OK):
        raise ReportError("checking a database needs mpgemm-query (it checks the schema and prints the migrations): "
                          f"none found ({'$MPGEMM_QUERY is ' + query if query else 'none on PATH'}); run the "
                          "mpgemm-report of a build (build/bin/mpgemm-report) or set MPGEMM_QUERY")
    return query


def check_schema(read, path):
    """ReportError, in mpgemm-query's words, when the schema of the file `read` (the database `path`, or a private
    copy of it) is not what its version defines: a planted trigger, a changed or extra view or table. The check
    reads the schema only and runs nothing of the file's."""
    query = query_binary()
    try:
        done = subprocess.run([query, str(read), "--sql", "SELECT 1", "--format", "csv"], capture_output=True,
                              text=True, errors="replace", timeout=CHECK_SECONDS, check=False)
    except subprocess.TimeoutExpired:
        raise ReportError(f"{printable(path)}: {query} took more than {CHECK_SECONDS} s to check the schema") from None
    except OSError as e:
        raise ReportError(f"{query} could not check {printable(path)}: {e}") from None
    if done.returncode == 0:
        return
    lines = [x for x in done.stderr.strip().splitlines() if x.strip()]
    why = lines[-1] if lines else f"exit status {done.returncode}"
    why = why.removeprefix("mpgemm-query: ").replace(str(read), str(path))
    raise ReportError(printable(why, limit=600))


def check_values(conn, path):
    """ReportError naming the first row whose number column holds text or bytes, before any section draws it. The
    tables are STRICT, but a file whose STRICT was edited away and back (PRAGMA writable_schema) passes the schema
    check and holds them: the views would sort such a time after every number, and Python would fail on it."""
    tables = [r[0] for r in conn.execute(
        "SELECT name FROM pragma_table_list WHERE schema = 'main' AND type = 'table' "
        "AND name NOT LIKE 'sqlite%' ORDER BY name")]
    for table in tables:
        numbers = [r[0] for r in conn.execute("SELECT name FROM pragma_table_info(?) "
                                              "WHERE upper(type) IN ('REAL', 'INTEGER', 'INT') ORDER BY cid",
                                              [table])]
        if not numbers:
            continue
        quoted = ['"' + c.replace('"', '""') + '"' for c in numbers]
        where = " OR ".join(f"typeof({c}) IN ('text', 'blob')" for c in quoted)
        found = conn.execute(f'SELECT rowid, {", ".join(quoted)} FROM "{table}" WHERE {where} LIMIT 1').fetchone()
        if found is None:
            continue
        column, value = next((c, v) for c, v in zip(numbers, found[1:]) if isinstance(v, (str, bytes)))
        kind = "text" if isinstance(value, str) else "bytes"
        raise ReportError(f"{printable(path)}: table {table}, row {found[0]}: its {column} is {kind} "
                          f"('{printable(value, 40)}'), not a number (a damaged or hand-edited database)")


def check_problems(conn, path):
    """ReportError naming the first row whose problem names no kind ('mk_kn_fp16_fp64' passes the schema's CHECK,
    a hand-edited file may hold anything), before any section groups by it. Every row of a migrated older file is
    the default kind."""
    for table in ("measurements", "cublas_timings", "cublaslt_timings", "reranks"):
        for rowid, name in conn.execute(f"SELECT min(rowid), problem FROM {table} WHERE problem IS NOT ? "
                                        "GROUP BY problem ORDER BY 1", [DEFAULT_PROBLEM]):
            why = why_not_problem(name)
            if why:
                raise ReportError(f"{printable(path)}: table {table}, row {rowid}: its problem is no problem kind: "
                                  f"{why} (a damaged or hand-edited database)")


def params_of(text, config):
    """The params of `config` (its name) as a dict; ReportError when they are not a flat JSON object of numbers,
    strings and booleans."""
    try:
        value = json.loads(text)
    except (ValueError, TypeError, RecursionError):
        value = None
    if not isinstance(value, dict) or any(isinstance(v, (dict, list)) or v is None for v in value.values()):
        raise ReportError(f"config {printable(config, 80)}: its params are not a flat JSON object of numbers, "
                          f"strings and booleans: '{printable(text, 60)}' (a damaged or hand-edited database)")
    return value


def why_not_readable(path):
    """Why `path` cannot be read as a database, in the words of the C++ readers (src/common/readable.hpp); None
    when it can."""
    try:
        st = os.stat(path)
    except FileNotFoundError:
        return "no such file"
    except (NotADirectoryError, PermissionError) as e:
        for folder in reversed(path.parents):
            if not folder.is_dir():
                return f"{folder} is a file, not a folder"
            if not os.access(folder, os.X_OK):
                return f"permission denied: the folder {folder} may not be entered"
        return "permission denied" if isinstance(e, PermissionError) else "a folder of the path is a file"
    except OSError as e:
        return e.strerror.lower() if e.strerror else str(e)
    if stat.S_ISDIR(st.st_mode):
        return "it is a folder, not a database"
    if not stat.S_ISREG(st.st_mode):  # before connect: opening a FIFO waits for a writer, perhaps forever
        return "it is not a regular file (a FIFO, a socket or a device), not a database"
    if not os.access(path, os.R_OK):
        return "permission denied: the database may not be read"
    return None


def migrations():
    """[(version, sql)] of every migration, in order, as `mpgemm-query --schema` prints them ("-- schema version N"
    before each)."""
    query = query_binary()
    try:
        done = subprocess.run([query, "--schema"], capture_output=True, text=True, timeout=60, check=False)
    except (OSError, subprocess.TimeoutExpired) as e:
        raise ReportError(f"{query} --schema failed: {e}") from None
    if done.returncode != 0:
        raise ReportError(f"{query} --schema failed (exit {done.returncode}): {done.stderr.strip()}")
    parts = re.split(r"^-- schema version (\d+)\n", done.stdout, flags=re.M)
    found = [(int(v), sql) for v, sql in zip(parts[1::2], parts[2::2])]
    if [v for v, _ in found] != list(range(1, len(found) + 1)) or not found or found[-1][0] != SCHEMA_VERSION:
        last = found[-1][0] if found else "none"
        raise ReportError(f"{query} --schema gives schema version {last}, this report reads {SCHEMA_VERSION}: use "
                          "the mpgemm-query of the same checkout (set MPGEMM_QUERY)")
    return found


def migrated_in_memory(conn, path, version):
    """A copy of `conn`'s database in memory, migrated from `version` to SCHEMA_VERSION; `conn` is closed. The
    copy keeps the file's user_version, so the report can say which version the file has."""
    memory = sqlite3.connect(":memory:")
    try:
        conn.backup(memory)
    except sqlite3.DatabaseError as e:
        raise ReportError(f"{path}: not a readable SQLite database ({e})") from None
    finally:
        conn.close()
    for v, sql in migrations():
        if v <= version:
            continue
        try:
            memory.executescript(sql)
        except sqlite3.DatabaseError as e:
            raise ReportError(f"{path}: schema version {version} could not be migrated to {v} in memory ({e}); "
                              "the file is unchanged") from None
    memory.execute(f"PRAGMA user_version = {version}")
    memory.execute("PRAGMA query_only = ON")
    return memory


def rows(conn, sql, args=()):
    return conn.execute(sql, list(args)).fetchall()


def device_shapes(conn, scope):
    """Every (device, shape of a kind) with a measurement or a reference timing, in scope, sorted: by device, the
    default kind first, then by size. Two kinds at one size are two shapes: a kind never stands for another."""
    where, args = scope.where()
    found = rows(conn, f"""
        SELECT DISTINCT device_name, problem, M, N, K FROM (
          SELECT device_name, problem, M, N, K FROM measurements WHERE {where}
          UNION SELECT device_name, problem, M, N, K FROM cublas_timings WHERE {where}
          UNION SELECT device_name, problem, M, N, K FROM cublaslt_timings WHERE {where})
        ORDER BY device_name, problem <> ?, problem, M * N * K, M, N, K""", args * 3 + [DEFAULT_PROBLEM])
    return [(r["device_name"], Shape(r["M"], r["N"], r["K"], r["problem"])) for r in found]


def devices(conn):
    """Device names that measured anything (runs or measurements)."""
    return [r[0] for r in rows(conn, """
        SELECT device_name FROM runs WHERE device_name IS NOT NULL
        UNION SELECT device_name FROM measurements ORDER BY 1""")]


@dataclass
class Reference:
    """A cuBLAS or cuBLASLt throughput drawn beside our kernels, or why there is none."""

    name: str  # "cuBLAS" or "cuBLASLt"
    tflops: float = None  # TFLOP/s; None when there is no timing
    median_ms: float = None
    run_id: int = None
    timing_id: int = None
    detail: str = ""  # cuBLASLt's algorithm
    note: str = ""  # why there is no timing, or where it came from when not from the best config's run


def best_per_shape(conn, device, shape):
    """The view best_per_shape's row for (device, shape): the fastest verified config of any family and arch."""
    found = rows(conn, "SELECT * FROM best_per_shape "
                       "WHERE device_name = ? AND M = ? AND N = ? AND K = ? AND problem = ?",
                 [device, *shape.sql_args()])
    return found[0] if found else None


def rerank_winner(conn, device, shape):
    """The view winners' row for (device, shape): the winner of the shape's latest re-rank, its median and its
    references' medians from the same rounds; None when the shape was not re-ranked. Where there is one it is the
    shape's winner, as mpgemm-query's `best`, mpgemm-run --config best and the library take it
    (src/store/shape_winners.hpp); else the first pass's fastest (best_per_shape) is."""
    found = rows(conn, "SELECT * FROM winners WHERE device_name = ? AND M = ? AND N = ? AND K = ? AND problem = ?",
                 [device, *shape.sql_args()])
    return found[0] if found else None


def reference(conn, table, device, shape, preferred_run, timing_id):
    """The reference timing to draw: the one the best config was compared against (`timing_id`), else the newest
    timed one of `preferred_run`, else the newest timed one of any run; with a note when it is missing."""
    name = "cuBLAS" if table == "cublas_timings" else "cuBLASLt"
    detail = "algo" if table == "cublaslt_timings" else "''"
    message = "message" if table == "cublaslt_timings" else "''"
    found = rows(conn, f"""
        SELECT id, run_id, median_ms, tflops, {detail} AS detail, {message} AS message FROM {table}
        WHERE device_name = ? AND M = ? AND N = ? AND K = ? AND problem = ?
        ORDER BY (id = ?) DESC, (run_id = ?) DESC, (median_ms IS NOT NULL) DESC, id DESC""",
                 [device, *shape.sql_args(), timing_id if timing_id is not None else -1,
                  preferred_run if preferred_run is not None else -1])
    if not found:
        return Reference(name, note=f"{name} was not measured on {device} at {shape.title()}")
    timed = [r for r in found if r["median_ms"] is not None]
    if not timed:
        why = found[0]["message"] or "no timing recorded"
        return Reference(name, run_id=found[0]["run_id"], timing_id=found[0]["id"],
                         note=f"{name} has no timing on {device} at {shape.title()}: {why}")
    r = timed[0]
    note = ""
    if preferred_run is not None and r["run_id"] != preferred_run:
        note = f"{name} from run {r['run_id']} (the best config's run {preferred_run} has no {name} timing)"
    return Reference(name, tflops=r["tflops"], median_ms=r["median_ms"], run_id=r["run_id"], timing_id=r["id"],
                     detail=r["detail"] or "", note=note)


def references(conn, device, shape, best):
    """(cuBLAS, cuBLASLt) for (device, shape), preferring those the best config was compared against."""
    run = best["run_id"] if best else None
    cublas_id = cublaslt_id = None
    if best is not None:
        ids = rows(conn, "SELECT cublas_id, cublaslt_id FROM measurements WHERE id = ?", [best["measurement_id"]])
        cublas_id, cublaslt_id = ids[0]["cublas_id"], ids[0]["cublaslt_id"]
    return (reference(conn, "cublas_timings", device, shape, run, cublas_id),
            reference(conn, "cublaslt_timings", device, shape, run, cublaslt_id))


def status_counts(conn, device, shape):
    """{status: count} of the measurements of (device, shape)."""
    return {r[0]: r[1] for r in rows(conn, """
        SELECT status, count(*) FROM measurements WHERE device_name = ? AND M = ? AND N = ? AND K = ? AND problem = ?
        GROUP BY status ORDER BY count(*) DESC, status""", [device, *shape.sql_args()])}


def describe_counts(counts):
    return ", ".join(f"{n} {s}" for s, n in counts.items()) or "nothing measured"
