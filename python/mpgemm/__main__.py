"""``python -m mpgemm``: the package's version and where its CUDA pieces come from; ``python -m mpgemm plan DB M N K``
says how a GEMM would run on the winners of a database, for the current GPU or a named one (no GPU needed)."""

from __future__ import annotations

import argparse
import os
import shutil
import sys


def _environment(_: argparse.Namespace) -> int:
    import mpgemm

    env = mpgemm.environment()
    print(f"mpgemm {mpgemm.__version__} at {mpgemm.__file__}")
    print(env)
    beside = os.path.dirname(sys.executable)  # a virtual environment's bin/, where pip put the tools
    for tool in ("mpgemm-tune", "mpgemm-worker", "mpgemm-query", "mpgemm-run", "mpgemm-export"):
        found = shutil.which(tool) or shutil.which(tool, path=beside)
        print(f"{tool}: {found or 'not found on PATH nor beside ' + sys.executable}")
    return 0 if env.ok else 1


def _plan(args: argparse.Namespace) -> int:
    import mpgemm

    lib = mpgemm.Library(args.db, min_ratio=args.min_ratio)
    try:
        d = lib.plan(args.m, args.n, args.k, args.problem, device=args.device)
    except mpgemm.GemmError as error:
        hint = " (--device NAME plans for a GPU the file names, without one)" if isinstance(error, mpgemm.NoDevice) else ""
        print(f"mpgemm plan: {error}{hint}", file=sys.stderr)
        return 1
    print(f"path:    {d.path}\nconfig:  {d.config}\nproblem: {d.problem}")
    if d.tuned_m:
        print(f"tuned:   {d.tuned_m}x{d.tuned_n}x{d.tuned_k} (ratio to cuBLAS there {d.ratio_cublas:.3f})")
    print(f"reason:  {d.reason}")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m mpgemm", description=__doc__)
    sub = parser.add_subparsers(dest="command")
    sub.add_parser("env", help="the version, where cuBLAS/NVRTC/the CUDA headers and the tools are found (default)")
    plan = sub.add_parser("plan", help="how a GEMM would run on a database's winners")
    plan.add_argument("db", help="a results database or an mpgemm-export JSON file")
    plan.add_argument("m", type=int)
    plan.add_argument("n", type=int)
    plan.add_argument("k", type=int)
    plan.add_argument("--problem", default="mk_kn_fp16_fp32", help="the kind (default mk_kn_fp16_fp32)")
    plan.add_argument("--device", help='plan for this GPU as the file names it (e.g. "NVIDIA H200"): no GPU needed')
    plan.add_argument("--min-ratio", type=float, default=1.0, help="Library's min_ratio (default 1)")
    args = parser.parse_args(argv)
    return _plan(args) if args.command == "plan" else _environment(args)


if __name__ == "__main__":
    sys.exit(main())
