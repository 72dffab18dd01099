"""Two decoder blocks in plain torch, captured, then run on mpgemm's winners.

A GPT-style block (LayerNorm, attention through SDPA, an MLP with bias and GELU) and a Llama-style one (RMSNorm,
grouped-query attention, a SwiGLU MLP, no bias), random weights, BF16, at prefill (2048 tokens) and decode (16
tokens: the GEMM shapes of one decode step of 16 sequences; attention runs over those 16 tokens, with no KV cache,
and no rotary embedding, which has no GEMM).

    python decoder_blocks.py capture --out captured.json            # meta tensors unless --device says otherwise
    mpgemm-tune SPACE --shapes captured.json --leaders-from suite.db --db blocks.db
    python decoder_blocks.py run --db blocks.db                       # CUDA: eager, torch.compile, mpgemm

``--small`` shrinks the blocks and token counts so that capture (and run, on the CPU with ``--device cpu``
and no ``--db``) finishes in seconds.
"""

from __future__ import annotations

import argparse
import dataclasses
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

import torch
import torch.nn as nn
import torch.nn.functional as F

try:
    import mpgemm.torch as mpt
except ImportError:  # run from a checkout without installing: the package is in python/
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "python"))
    import mpgemm.torch as mpt


@dataclasses.dataclass(frozen=True)
class Dims:
    """A block's sizes."""

    d_model: int
    heads: int
    kv_heads: int  # < heads: grouped-query attention (the Llama block)
    ffn: int  # the MLP's hidden width
    prefill: int  # tokens of the prefill pass
    decode: int  # tokens of the decode pass


GPT = Dims(d_model=4096, heads=32, kv_heads=32, ffn=16384, prefill=2048, decode=16)  # GPT-3 6.7B's widths
LLAMA = Dims(d_model=4096, heads=32, kv_heads=8, ffn=14336, prefill=2048, decode=16)  # Llama 3 8B's widths
GPT_SMALL = Dims(d_model=256, heads=4, kv_heads=4, ffn=1024, prefill=64, decode=4)
LLAMA_SMALL = Dims(d_model=256, heads=4, kv_heads=2, ffn=704, prefill=64, decode=4)


def _attention(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, heads: int, kv_heads: int) -> torch.Tensor:
    """Causal attention of (B, T, features) projections through SDPA, back to (B, T, heads * head_dim)."""
    b, t, _ = q.shape
    q = q.view(b, t, heads, -1).transpose(1, 2)
    k = k.view(b, t, kv_heads, -1).transpose(1, 2)
    v = v.view(b, t, kv_heads, -1).transpose(1, 2)
    y = F.scaled_dot_product_attention(q, k, v, is_causal=True, enable_gqa=kv_heads != heads)
    return y.transpose(1, 2).reshape(b, t, -1)


class GPTBlock(nn.Module):
    """Pre-norm GPT block: x + attn(LN(x)), then x + MLP(LN(x)) with GELU; every linear layer has a bias."""

    def __init__(self, dims: Dims, **factory: object) -> None:
        super().__init__()
        d = dims.d_model
        self.heads = dims.heads
        self.ln1 = nn.LayerNorm(d, **factory)
        self.qkv = nn.Linear(d, 3 * d, **factory)
        self.proj = nn.Linear(d, d, **factory)
        self.ln2 = nn.LayerNorm(d, **factory)
        self.fc1 = nn.Linear(d, dims.ffn, **factory)
        self.fc2 = nn.Linear(dims.ffn, d, **factory)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        q, k, v = self.qkv(self.ln1(x)).chunk(3, dim=-1)
        x = x + self.proj(_attention(q, k, v, self.heads, self.heads))
        return x + self.fc2(F.gelu(self.fc1(self.ln2(x)), approximate="tanh"))


class RMSNorm(nn.Module):
    """Llama's RMSNorm: computed in FP32, scaled, back to the input's type."""

    def __init__(self, d: int, eps: float = 1e-5, **factory: object) -> None:
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(d, **factory))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x32 = x.float()
        return (x32 * torch.rsqrt(x32.pow(2).mean(-1, keepdim=True) + self.eps)).to(x.dtype) * self.weight


class LlamaBlock(nn.Module):
    """Pre-norm Llama block: grouped-query attention, a SwiGLU MLP (down(silu(gate(x)) * up(x))), no bias."""

    def __init__(self, dims: Dims, **factory: object) -> None:
        super().__init__()
        d, kv = dims.d_model, dims.d_model // dims.heads * dims.kv_heads
        self.heads, self.kv_heads = dims.heads, dims.kv_heads
        self.norm1 = RMSNorm(d, **factory)
        self.wq = nn.Linear(d, d, bias=False, **factory)
        self.wk = nn.Linear(d, kv, bias=False, **factory)
        self.wv = nn.Linear(d, kv, bias=False, **factory)
        self.wo = nn.Linear(d, d, bias=False, **factory)
        self.norm2 = RMSNorm(d, **factory)
        self.gate = nn.Linear(d, dims.ffn, bias=False, **factory)
        self.up = nn.Linear(d, dims.ffn, bias=False, **factory)
        self.down = nn.Linear(dims.ffn, d, bias=False, **factory)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = self.norm1(x)
        x = x + self.wo(_attention(self.wq(h), self.wk(h), self.wv(h), self.heads, self.kv_heads))
        h = self.norm2(x)
        return x + self.down(F.silu(self.gate(h)) * self.up(h))


def blocks(small: bool, device: str, dtype: torch.dtype = torch.bfloat16) -> dict[str, tuple[nn.Module, Dims]]:
    """The two blocks, random weights, in inference mode (eval, no gradients)."""
    torch.manual_seed(0)
    gpt, llama = (GPT_SMALL, LLAMA_SMALL) if small else (GPT, LLAMA)
    made = {
        "gpt": (GPTBlock(gpt, device=device, dtype=dtype), gpt),
        "llama": (LlamaBlock(llama, device=device, dtype=dtype), llama),
    }
    for module, _ in made.values():
        module.eval().requires_grad_(False)
    return made


def inputs(dims: Dims, device: str, dtype: torch.dtype = torch.bfloat16) -> dict[str, torch.Tensor]:
    """The prefill (1 sequence of ``prefill`` tokens) and decode (``decode`` tokens) inputs."""
    return {
        "prefill": torch.randn(1, dims.prefill, dims.d_model, device=device, dtype=dtype),
        "decode": torch.randn(1, dims.decode, dims.d_model, device=device, dtype=dtype),
    }


def capture(args: argparse.Namespace) -> int:
    """Runs both blocks at both token counts under mpgemm's capture and writes the shape file."""
    cap = mpt.capture(f"decoder_blocks.py: GPT- and Llama-style blocks, BF16{' (small)' if args.small else ''}")
    with torch.inference_mode(), cap:
        for _name, (block, dims) in blocks(args.small, args.device).items():
            for x in inputs(dims, args.device).values():
                block(x)
    cap.save(args.out)
    print(cap.summary())
    print(f"wrote {args.out}")
    return 0


def _time_ms(fn: Callable[[], torch.Tensor], iters: int, device: str) -> float:
    """The median time of ``fn`` in ms over ``iters`` calls after warm-up (CUDA events on a GPU)."""
    for _ in range(3):
        fn()
    times = []
    for _ in range(iters):
        if device == "cuda":
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            start.record()
            fn()
            end.record()
            end.synchronize()
            times.append(start.elapsed_time(end))
        else:
            t0 = time.perf_counter()
            fn()
            times.append((time.perf_counter() - t0) * 1e3)
    return statistics.median(times)


def _open_library(db: str | None) -> object | None:
    if db is None:
        return None
    import mpgemm  # the extension: needs the built package

    return mpgemm.Library(db)


def run(args: argparse.Namespace) -> int:
    """Times each block and pass: eager torch, torch.compile, and the blocks patched onto the library's winners."""
    lib = _open_library(args.db)
    if lib is None and args.device == "cuda":
        print("run on CUDA needs --db (a results database or an exported file)", file=sys.stderr)
        return 2
    print(
        f"{'block':6} {'pass':8} {'eager ms':>9} {'compile ms':>10} {'mpgemm ms':>9} {'vs eager':>8} {'max |diff|':>10}"
    )
    with torch.inference_mode():
        for name, (block, dims) in blocks(args.small, args.device).items():
            compiled = torch.compile(block) if args.compile else None
            for pass_name, x in inputs(dims, args.device).items():
                _run_one(args, lib, name, block, compiled, pass_name, x)
    return 0


def _run_one(
    args: argparse.Namespace,
    lib: object | None,
    name: str,
    block: nn.Module,
    compiled: object | None,
    pass_name: str,
    x: torch.Tensor,
) -> None:
    reference = block(x)
    eager = _time_ms(lambda: block(x), args.iters, args.device)
    compile_ms = _time_ms(lambda: compiled(x), args.iters, args.device) if compiled is not None else float("nan")
    if lib is None:
        print(f"{name:6} {pass_name:8} {eager:9.3f} {compile_ms:10.3f} {'-':>9} {'-':>8} {'-':>10}")
        return
    with mpt.capture() as cap:  # the shapes this pass runs, so nothing compiles while it is timed
        block(x)
    lib.preload([(s.problem.name, s.m, s.n, s.k) for s in cap.shapes()])  # type: ignore[attr-defined]
    with mpt.patch(block, lib, verbose=args.verbose) as handle:
        ours = _time_ms(lambda: block(x), args.iters, args.device)
        diff = (block(x).float() - reference.float()).abs().max().item()
        if args.verbose:
            print(handle.report())
    print(f"{name:6} {pass_name:8} {eager:9.3f} {compile_ms:10.3f} {ours:9.3f} {eager / ours:7.2f}x {diff:10.4g}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="mode", required=True)
    cap = sub.add_parser("capture", help="record the blocks' GEMMs into a shape file")
    cap.add_argument("--out", default="captured.json", help="the shape file to write (default captured.json)")
    cap.add_argument("--device", default="meta", help="where the blocks run while captured (default meta: no memory)")
    rn = sub.add_parser("run", help="time eager torch, torch.compile and the blocks on the winners")
    rn.add_argument("--db", help="results database or exported file of the winners (mpgemm.Library)")
    rn.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    rn.add_argument("--iters", type=int, default=20, help="timed calls per figure (the median is printed)")
    rn.add_argument("--no-compile", dest="compile", action="store_false", help="skip the torch.compile figure")
    rn.add_argument("--verbose", action="store_true", help="print which layer ran where")
    for p in (cap, rn):
        p.add_argument("--small", action="store_true", help="small widths and token counts (CPU, tests)")
    args = parser.parse_args(argv)
    return capture(args) if args.mode == "capture" else run(args)


if __name__ == "__main__":
    sys.exit(main())
