#!/usr/bin/env python3
"""Host cost of mpgemm from Python (issue 59): Library.mm per call against the C++ Library::gemm() of the same
call in the same process, the torch op's eager cost and torch's own call beside them. Needs a CUDA device, torch and
the mpgemm package (pip install, or PYTHONPATH=build/python).

    python3 tools/python_bench.py DB [--shape 4096x4096x4096] [--problem mk_nk_bf16_bf16] [--json OUT]

Each figure is the median over batches of host microseconds per call (the stream drained before each batch, outside
the clock); the kernel itself runs asynchronously and is not what is measured. Target: Library.mm <= 5 us above the
C++ gemm(). Prints the plan (tuned / nearest / cublas) of the call: the cost of a path is its own.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections.abc import Callable
from typing import Any

TARGET_US = 5.0


def per_call_us(fn: Callable[[], Any], stream: Any, calls: int, batches: int) -> list[float]:
    out = []
    for _ in range(batches):
        stream.synchronize()
        start = time.perf_counter()
        for _ in range(calls):
            fn()
        out.append((time.perf_counter() - start) * 1e6 / calls)
    return out


def summary(name: str, us: list[float]) -> dict[str, Any]:
    q = statistics.quantiles(us, n=10)
    return {"call": name, "median_us": statistics.median(us), "p10_us": q[0], "p90_us": q[-1]}


def operands(torch: Any, problem: Any, m: int, n: int, k: int) -> tuple[Any, Any, Any]:
    dtype = {"fp16": torch.float16, "bf16": torch.bfloat16}[problem.dtype_in]
    out_dtype = {"fp16": torch.float16, "bf16": torch.bfloat16, "fp32": torch.float32}[problem.dtype_out]
    a = torch.randn(m, k, device="cuda", dtype=dtype) if problem.a == "mk" else torch.randn(k, m, device="cuda", dtype=dtype).t()
    b = torch.randn(k, n, device="cuda", dtype=dtype) if problem.b == "kn" else torch.randn(n, k, device="cuda", dtype=dtype).t()
    return a, b, torch.empty(m, n, device="cuda", dtype=out_dtype)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("db", help="a results database or an exported JSON file")
    parser.add_argument("--shape", default="4096x4096x4096", help="MxNxK (default 4096x4096x4096)")
    parser.add_argument("--problem", default="mk_nk_bf16_bf16", help="the kind (default mk_nk_bf16_bf16)")
    parser.add_argument("--calls", type=int, default=64, help="calls per batch (default 64)")
    parser.add_argument("--batches", type=int, default=200, help="batches (default 200)")
    parser.add_argument("--json", help="also write the figures to this file")
    args = parser.parse_args()

    import torch

    import mpgemm
    import mpgemm.torch as mt

    if not torch.cuda.is_available():
        print("python_bench: no CUDA device: nothing measured", file=sys.stderr)
        return 3
    m, n, k = (int(x) for x in args.shape.lower().split("x"))
    problem = mpgemm.Problem.parse(args.problem)
    lib = mpgemm.Library(args.db)
    a, b, out = operands(torch, problem, m, n, k)
    plan = lib.plan_mm(a, b, out_dtype=out.dtype)
    print(f"{torch.cuda.get_device_name()}, {args.shape} {problem.name}: {plan.path} {plan.config} ({plan.reason})")
    stream = torch.cuda.current_stream()
    handle = stream.cuda_stream
    lib.mm(a, b, out=out)  # decides, compiles or loads, prepares the stream: outside every figure
    torch.cuda.synchronize()
    ref = (a.float() @ b.float()).to(out.dtype)
    err = (out.float() - ref.float()).abs().max().item()

    rows = []
    cpp = mpgemm._core.host_cost_us(
        lib._lib, problem.name, a.data_ptr(), b.data_ptr(), out.data_ptr(), m, n, k, handle, args.calls, args.batches
    )
    rows.append(summary("C++ Library::gemm()", cpp))
    rows.append(summary("Library.mm(a, b, out=out)", per_call_us(lambda: lib.mm(a, b, out=out), stream, args.calls, args.batches)))
    rows.append(summary("Library.mm(a, b)", per_call_us(lambda: lib.mm(a, b), stream, args.calls, args.batches)))
    if problem.b == "nk" and problem.a == "mk" and problem.dtype_out == problem.dtype_in:
        x, w = a, b.t()
        with mt.use(lib):
            torch.ops.mpgemm.linear(x, w)
            rows.append(summary("torch.ops.mpgemm.linear(x, w)", per_call_us(lambda: torch.ops.mpgemm.linear(x, w), stream, args.calls, args.batches)))
        rows.append(summary("torch.nn.functional.linear(x, w)", per_call_us(lambda: torch.nn.functional.linear(x, w), stream, args.calls, args.batches)))
    rows.append(summary("torch.mm(a, b)", per_call_us(lambda: torch.mm(a, b), stream, args.calls, args.batches)))
    torch.cuda.synchronize()

    print(f"host time per call, median of {args.batches} batches of {args.calls} calls (stream drained between batches):")
    width = max(len(r["call"]) for r in rows)
    print(f"{'call':<{width}}  median_us  p10_us  p90_us")
    for r in rows:
        print(f"{r['call']:<{width}}  {r['median_us']:9.3f}  {r['p10_us']:6.3f}  {r['p90_us']:6.3f}")
    over = rows[1]["median_us"] - rows[0]["median_us"]
    verdict = "met" if over <= TARGET_US else "missed"
    print(f"Library.mm over the C++ gemm(): {over:+.3f} us per call (target <= {TARGET_US} us): {verdict}")
    print(f"max |difference| from torch (FP32 product rounded to {out.dtype}): {err:.4g}")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump({"device": torch.cuda.get_device_name(), "shape": args.shape, "problem": problem.name,
                       "path": plan.path, "config": plan.config, "rows": rows, "over_us": over, "max_abs_err": err}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
