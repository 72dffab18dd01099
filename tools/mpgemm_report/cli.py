"""The command line: arguments, --help, exit codes (0 written, 1 a problem with the database or the output folder,
2 a usage error)."""
import argparse
import os
import pathlib
import sqlite3
import subprocess
import sys
import traceback

from . import db, report
from .section import Context

DESCRIPTION = """\
Draws an mpgemm results database as PNG pictures and writes report.md, which shows each picture with the numbers
it draws and a note wherever there is nothing to draw, and numbers.json, every number drawn. Sections:
  ladder       naive -> shared -> cp_async -> best tuned -> cuBLAS (-> cuBLASLt), % of cuBLAS, per device and shape
  shapes       per shape: best tuned vs cuBLAS vs cuBLASLt, with the ratios
  convergence  best TFLOP/s so far against evaluations and against wall time, one line per run
  params       heat map of the best TFLOP/s over two parameters (default BM x BN), spread per parameter value
  roofline     every verified config as (arithmetic intensity, TFLOP/s) under the device's ceilings
  profiles     Nsight Compute counters of the profiled kernels side by side (tools/profile_layer2.sh)
  outcomes     measurements per status (ok, incorrect, compile_failed, ...), per shape
The database is opened read-only and nothing is created beside it (no -wal or -shm file), unless a writer has
it open (its -wal exists), when SQLite's read-only mode shares the writer's -wal and -shm."""

EPILOG = """\
examples:
  mpgemm-report results/results.db                          # into results/results_report/
  mpgemm-report /tmp/suite.db -o /tmp/suite_report                  # xz -dkc results/suite/suite.db.xz > /tmp/suite.db
  mpgemm-report h200.db --shape 4096x4096x4096 --heatmap STAGES,BN --sections ladder,params
  mpgemm-report h200.db --metrics gpu__time_duration.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed

exit status: 0 report written (notes say what could not be drawn), 1 the database or the output folder could not
be used, 2 wrong arguments."""


class VersionAction(argparse.Action):
    """--version: this build's version line, as mpgemm-query (the launcher's $MPGEMM_QUERY) prints it."""

    def __call__(self, parser, namespace, values, option_string=None):
        query = os.environ.get("MPGEMM_QUERY", "mpgemm-query")
        try:
            line = subprocess.run([query, "--version"], capture_output=True, text=True, check=True).stdout.strip()
        except (OSError, subprocess.CalledProcessError) as e:
            parser.exit(1, f"mpgemm-report: cannot read the version from {query}: {e}\n")
        parser.exit(0, "mpgemm-report" + line[line.find(" "):] + "\n")


def parse_args(argv):
    p = argparse.ArgumentParser(prog="mpgemm-report", description=DESCRIPTION, epilog=EPILOG,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--version", action=VersionAction, nargs=0,
                   help="print the version and the commit it was built from (those of $MPGEMM_QUERY), and exit")
    p.add_argument("db", metavar="DB", help="the results database (mpgemm-tune --db), read-only")
    p.add_argument("-o", "--out", metavar="DIR",
                   help="folder for report.md, numbers.json and the PNGs (default: DB's folder/<DB name>_report)")
    p.add_argument("--device", metavar="NAME", help="only this device, as the database names it ('NVIDIA H200')")
    p.add_argument("--shape", metavar="MxNxK", type=shape_arg,
                   help="only this shape, e.g. 4096x4096x4096 (of every problem kind, unless --problem names one)")
    p.add_argument("--problem", metavar="KIND", type=problem_arg,
                   help=f"only this problem kind, e.g. mk_nk_bf16_bf16 (the default kind: {db.DEFAULT_PROBLEM})")
    p.add_argument("--heatmap", metavar="P,Q", type=pair_arg, default=("BM", "BN"),
                   help="the two parameters of the heat map (default BM,BN)")
    p.add_argument("--metrics", metavar="LIST", type=list_arg,
                   help="Nsight Compute metrics to draw, comma-separated (default: the writeup's counters and "
                        "Nsight Compute's speed-of-light ones, where at least two kernels have them)")
    p.add_argument("--sections", metavar="LIST", type=sections_arg, default=list(report.SECTIONS),
                   help="sections to make, comma-separated, in the order given (default: all: "
                        + ",".join(report.SECTIONS) + ")")
    p.add_argument("--note", metavar="TEXT", default="",
                   help="a provenance note printed under every picture and atop report.md")
    return p.parse_args(argv)


def shape_arg(text):
    try:
        return db.Shape.parse(text)
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e)) from None


def problem_arg(text):
    why = db.why_not_problem(text)
    if why:
        raise argparse.ArgumentTypeError(f"not a problem kind: {why}")
    return text


def list_arg(text):
    items = [x.strip() for x in text.split(",") if x.strip()]
    if not items:
        raise argparse.ArgumentTypeError("expected a comma-separated list")
    return items


def pair_arg(text):
    items = list_arg(text)
    if len(items) != 2 or items[0] == items[1]:
        raise argparse.ArgumentTypeError(f"'{text}' is not two different parameter names P,Q")
    return tuple(items)


def sections_arg(text):
    items = list_arg(text)
    unknown = [x for x in items if x not in report.SECTIONS]
    if unknown:
        raise argparse.ArgumentTypeError(f"unknown section(s) {', '.join(unknown)}; choose from "
                                         + ", ".join(report.SECTIONS))
    twice = sorted({x for x in items if items.count(x) > 1})
    if twice:
        raise argparse.ArgumentTypeError(f"section(s) given twice: {', '.join(twice)}")
    return items


def check_scope(conn, scope):
    """ReportError when --device, --shape or --problem names nothing in the database."""
    if db.device_shapes(conn, scope):
        return
    everything = db.device_shapes(conn, db.Scope())
    known = "; ".join(f"{d} {s.key()}" for d, s in everything) or "none"
    kind = f" of kind {scope.problem}" if scope.problem else ""
    raise db.ReportError(f"nothing measured for {db.printable(scope.device or 'any device')} at "
                         f"{scope.shape.as_text() if scope.shape else 'any shape'}{kind} (the database has: "
                         f"{db.printable(known, 600)})")


def main(argv=None):
    """The exit status; every problem is one line on standard error, never a traceback."""
    args = parse_args(sys.argv[1:] if argv is None else argv)
    try:
        status = run(args)
        sys.stdout.flush()
    except OSError as e:  # standard output on a full disk or a closed pipe
        print(f"mpgemm-report: cannot write to standard output: {e.strerror or e}", file=sys.stderr)
        # What is still buffered would fail again at exit, with a message of Python's and exit status 120.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1
    except (RecursionError, MemoryError, sqlite3.Error) as e:
        print(f"mpgemm-report: {args.db}: reading the database failed: {db.printable(e, 300)}", file=sys.stderr)
        return 1
    except Exception as e:  # a bug: say it in one line, with where
        where = traceback.extract_tb(e.__traceback__)[-1]
        print(f"mpgemm-report: internal error: {type(e).__name__}: {db.printable(e, 300)} "
              f"({pathlib.Path(where.filename).name}:{where.lineno}); please report it", file=sys.stderr)
        return 1
    return status


def run(args):
    """main's work: the report written and summed up on standard output."""
    db_path = pathlib.Path(args.db)
    out = pathlib.Path(args.out) if args.out else db_path.parent / f"{db_path.stem}_report"
    try:
        conn = db.open_readonly(db_path)
        try:
            scope = db.Scope(args.device, args.shape, args.problem)
            if args.device or args.shape or args.problem:
                check_scope(conn, scope)
            try:
                out.mkdir(parents=True, exist_ok=True)
            except OSError as e:
                raise db.ReportError(f"cannot create the output folder {out}: {e.strerror}") from None
            ctx = Context(conn, scope, out, note=args.note, heatmap=args.heatmap, metrics=args.metrics)
            built = [report.SECTIONS[name].build(ctx) for name in args.sections]
            numbers = report.write(ctx, db_path, built)
        finally:
            conn.close()
    except db.ReportError as e:
        print(f"mpgemm-report: {e}", file=sys.stderr)
        return 1
    except OSError as e:
        print(f"mpgemm-report: {db.printable(e, 300)}", file=sys.stderr)
        return 1
    images = sum(len(s["images"]) for s in numbers["sections"].values())
    print(f"mpgemm-report: {images} pictures, report.md and numbers.json in {out}")
    for key, s in numbers["sections"].items():
        # A note that holds for several pictures of a section (one per shape, say) is printed once, with its count.
        counts = {}
        for note in s["notes"]:
            counts[note] = counts.get(note, 0) + 1
        for note, n in counts.items():
            print(f"  {key}: {db.printable(note, 400)}" + (f" (x{n})" if n > 1 else ""))
    return 0
