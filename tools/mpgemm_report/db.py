"""Opening an mpgemm database read-only, without creating anything beside it, and the queries every section shares.

SQLite's read-only mode still creates `DB-wal` and `DB-shm` beside a WAL database (and leaves them there when the
folder is writable). So a database with no `-wal` file beside it (no writer has it open, and the last one closed
cleanly) is opened `immutable=1`: no locks, no side files. A database with a `-wal` beside it is being written, or
its writer died before a checkpoint: its newest rows are in the `-wal`, which only the normal read-only mode reads,
and that mode uses the `-wal`/`-shm` files already there.

A database of an older schema is read as the C++ readers read it: copied into memory (SQLite's backup, one
consistent snapshot) and the copy migrated there, so every schema version mpgemm ever wrote is drawn and the file
is never written. The migrations are the C++ ones, as `mpgemm-query --schema` prints them (the schema is defined
once, in src/store/schema.cpp): the launcher names its mpgemm-query in $MPGEMM_QUERY.
"""
import os
import pathlib
import re
import shutil
import sqlite3
import stat
import subprocess
from dataclasses import dataclass

APPLICATION_ID = 0x6D706765  # "mpge": src/store/schema.hpp kStoreApplicationId
SCHEMA_VERSION = 13  # the schema the sections' queries are written for (src/store/schema.cpp); checked against
# the migrations mpgemm-query prints whenever an older database is migrated


class ReportError(Exception):
    """A problem with the database or the arguments, said in one line; exit status 1."""


@dataclass(frozen=True)
class Shape:
    m: int
    n: int
    k: int

    @staticmethod
    def parse(text):
        parts = text.lower().replace("×", "x").split("x")
        if len(parts) != 3 or not all(p.isdigit() and int(p) > 0 for p in parts):
            raise ValueError(f"'{text}' is not a shape MxNxK of positive integers (e.g. 4096x4096x4096)")
        return Shape(*(int(p) for p in parts))

    def flops(self):
        return 2.0 * self.m * self.n * self.k

    def key(self):  # in file names and JSON
        return f"{self.m}x{self.n}x{self.k}"

    def title(self):  # in titles: 2048³ for a cube
        if self.m == self.n == self.k:
            return f"{self.m}³"
        return f"{self.m}×{self.n}×{self.k}"

    def as_list(self):
        return [self.m, self.n, self.k]


@dataclass(frozen=True)
class Scope:
    """What to report on: --device and --shape, None for all."""

    device: str = None
    shape: Shape = None

    def where(self, alias=""):
        """SQL condition and parameters restricting device_name, M, N, K of table alias `alias`."""
        p = f"{alias}." if alias else ""
        terms, args = [], []
        if self.device is not None:
            terms.append(f"{p}device_name = ?")
            args.append(self.device)
        if self.shape is not None:
            terms.append(f"{p}M = ? AND {p}N = ? AND {p}K = ?")
            args += self.shape.as_list()
        return (" AND ".join(terms) or "1"), args


def open_readonly(path):
    """A read-only connection to the mpgemm database at `path`, at SCHEMA_VERSION (an older file migrated in a
    copy in memory); ReportError when it is missing, unreadable or not ours. PRAGMA user_version says the file's
    version."""
    path = pathlib.Path(path)
    why = why_not_readable(path)
    if why == "no such file":
        raise ReportError(f"{path}: no such database file")
    if why:
        raise ReportError(f"cannot read {path}: {why}")
    uri = path.resolve().as_uri() + "?mode=ro"
    if not os.path.exists(str(path) + "-wal"):
        uri += "&immutable=1"
    try:
        conn = sqlite3.connect(uri, uri=True)
        conn.execute("PRAGMA query_only = ON")
        app_id, version = conn.execute(
            "SELECT (SELECT application_id FROM pragma_application_id), "
            "(SELECT user_version FROM pragma_user_version)").fetchone()
    except sqlite3.DatabaseError as e:
        raise ReportError(f"{path}: not a readable SQLite database ({e})") from None
    if app_id != APPLICATION_ID:
        conn.close()
        raise ReportError(f"{path}: not an mpgemm results database (SQLite application_id {app_id:#x})")
    if not 1 <= version <= SCHEMA_VERSION:
        conn.close()
        raise ReportError(f"{path}: schema version {version}, this report reads versions 1 to {SCHEMA_VERSION}"
                          + ("; this mpgemm-report is older than the database" if version > SCHEMA_VERSION else ""))
    if version < SCHEMA_VERSION:
        conn = migrated_in_memory(conn, path, version)
    conn.row_factory = sqlite3.Row
    return conn


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
    query = os.environ.get("MPGEMM_QUERY") or shutil.which("mpgemm-query")
    if not query or not os.access(query, os.X_OK):
        raise ReportError("reading an older schema needs mpgemm-query (it prints the migrations): none found "
                          f"({'$MPGEMM_QUERY is ' + query if query else 'none on PATH'}); run the mpgemm-report "
                          "of a build (build/bin/mpgemm-report) or set MPGEMM_QUERY")
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
    """Every (device, shape) with a measurement or a reference timing, in scope, sorted."""
    where, args = scope.where()
    found = rows(conn, f"""
        SELECT DISTINCT device_name, M, N, K FROM (
          SELECT device_name, M, N, K FROM measurements WHERE {where}
          UNION SELECT device_name, M, N, K FROM cublas_timings WHERE {where}
          UNION SELECT device_name, M, N, K FROM cublaslt_timings WHERE {where})
        ORDER BY device_name, M * N * K, M, N, K""", args * 3)
    return [(r["device_name"], Shape(r["M"], r["N"], r["K"])) for r in found]


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
    found = rows(conn, "SELECT * FROM best_per_shape WHERE device_name = ? AND M = ? AND N = ? AND K = ?",
                 [device, *shape.as_list()])
    return found[0] if found else None


def reference(conn, table, device, shape, preferred_run, timing_id):
    """The reference timing to draw: the one the best config was compared against (`timing_id`), else the newest
    timed one of `preferred_run`, else the newest timed one of any run; with a note when it is missing."""
    name = "cuBLAS" if table == "cublas_timings" else "cuBLASLt"
    detail = "algo" if table == "cublaslt_timings" else "''"
    message = "message" if table == "cublaslt_timings" else "''"
    found = rows(conn, f"""
        SELECT id, run_id, median_ms, tflops, {detail} AS detail, {message} AS message FROM {table}
        WHERE device_name = ? AND M = ? AND N = ? AND K = ?
        ORDER BY (id = ?) DESC, (run_id = ?) DESC, (median_ms IS NOT NULL) DESC, id DESC""",
                 [device, *shape.as_list(), timing_id if timing_id is not None else -1,
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
        SELECT status, count(*) FROM measurements WHERE device_name = ? AND M = ? AND N = ? AND K = ?
        GROUP BY status ORDER BY count(*) DESC, status""", [device, *shape.as_list()])}


def describe_counts(counts):
    return ", ".join(f"{n} {s}" for s, n in counts.items()) or "nothing measured"
