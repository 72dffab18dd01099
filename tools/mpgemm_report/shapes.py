"""Per device, over its shapes: each shape's winner against cuBLAS and cuBLASLt, with the ratios.

The winner is the one mpgemm-query's `best` crowns (and mpgemm-run --config best, the export and the library run):
the winner of the shape's latest re-rank, drawn with cuBLAS's and cuBLASLt's medians from that re-rank's rounds;
else the first pass's fastest verified config (best_per_shape) with the reference timings it was compared against.
`chosen_by` says which. Ratios are reference time / winner time (> 1: ours is faster), as the README's table.
"""
from . import db, style
from .section import Item, Section, fmt, slug

SERIES = [("winner", "best_tflops", style.BLUE, None), ("cuBLAS", "cublas_tflops", style.BLACK, "//"),
          ("cuBLASLt", "cublaslt_tflops", style.SKY_BLUE, "//")]
RERANK = "re-rank"  # chosen_by: the winner of the shape's latest re-rank, references from its rounds
FIRST_PASS = "first pass"  # chosen_by: the first pass's fastest, references from its run


def tflops(shape, ms):
    """TFLOP/s of a median of `ms` per launch; None without one."""
    return shape.flops() / (ms * 1e9) if ms else None


def from_rerank(shape, winner):
    """The row of a re-rank winner: its median and its references' from the same rounds, the view's ratios."""
    row = dict(shape=shape.as_list(), problem=shape.problem, config=winner["config_name"], run_id=winner["run_id"],
               chosen_by=RERANK, rerank_id=winner["rerank_id"], best_tflops=tflops(shape, winner["median_ms"]),
               cublas_tflops=tflops(shape, winner["cublas_median_ms"]),
               cublaslt_tflops=tflops(shape, winner["cublaslt_median_ms"]),
               ratio_to_cublas=winner["ratio_to_cublas"], ratio_to_cublaslt=winner["ratio_to_cublaslt"])
    notes = []
    if winner["cublaslt_median_ms"] is None:
        notes.append(f"cuBLASLt was not in the rounds of the re-rank {winner['rerank_id']} at {shape.title()}.")
    return row, notes


def from_first_pass(conn, device, shape):
    """The row of the first pass's fastest, beside the reference timings it was compared against."""
    best = db.best_per_shape(conn, device, shape)
    cublas, cublaslt = db.references(conn, device, shape, best)
    row = dict(shape=shape.as_list(), problem=shape.problem, config=best["config_name"] if best else None,
               run_id=best["run_id"] if best else None, chosen_by=FIRST_PASS if best else None, rerank_id=None,
               best_tflops=best["tflops"] if best else None, cublas_tflops=cublas.tflops,
               cublaslt_tflops=cublaslt.tflops, ratio_to_cublas=None, ratio_to_cublaslt=None)
    if best and cublas.tflops:
        row["ratio_to_cublas"] = best["tflops"] / cublas.tflops
    if best and cublaslt.tflops:
        row["ratio_to_cublaslt"] = best["tflops"] / cublaslt.tflops
    notes = [r.note + "." for r in (cublas, cublaslt) if r.note]
    if best is None:
        notes.insert(0, f"No verified config at {shape.title()} "
                        f"({db.describe_counts(db.status_counts(conn, device, shape))}).")
    return row, notes


def collect(conn, device, shape):
    winner = db.rerank_winner(conn, device, shape)
    return from_rerank(shape, winner) if winner is not None else from_first_pass(conn, device, shape)


def draw(ctx, device, shapes, rows, path, no_lt):
    fig, ax = style.figure(max(7.0, 2.2 * len(rows) + 3), 5.6)
    series = [s for s in SERIES if any(r[s[1]] is not None for r in rows)]  # a group per shape, centred
    width = 0.8 / len(series)
    offset = {s[1]: (i - (len(series) - 1) / 2) * width for i, s in enumerate(series)}
    top = max(r[key] for r in rows for _, key, _, _ in series if r[key] is not None)
    ax.set_ylim(0, top * 1.32)  # room for two ratios and chosen_by above the bars
    for name, key, colour, hatch in series:
        xs = [j + offset[key] for j, r in enumerate(rows) if r[key] is not None]
        hs = [r[key] for r in rows if r[key] is not None]
        bars = ax.bar(xs, hs, width, color=colour, hatch=hatch, edgecolor="white", linewidth=0.5, label=name)
        style.bar_labels(ax, bars, [f"{h:.0f}" for h in hs])
    for j, r in enumerate(rows):
        if r["best_tflops"] is None:  # where the ratios would be
            ax.text(j, top * 1.12, "no verified config", ha="center", va="bottom", fontsize=8, fontweight="bold",
                    color=style.VERMILLION)
            continue
        ratios = []
        if r["ratio_to_cublas"] is not None:
            ratios.append(f"{r['ratio_to_cublas']:.3f}× cuBLAS")
        if r["ratio_to_cublaslt"] is not None:
            ratios.append(f"{r['ratio_to_cublaslt']:.3f}× cuBLASLt")
        ratios.append(f"({r['chosen_by']})")
        ax.text(j, top * 1.12, "\n".join(ratios), ha="center", va="bottom", fontsize=8, fontweight="bold")
    ax.set_xticks(range(len(rows)), [s.title() for s in shapes])
    ax.set_xlabel("shape (M×N×K)")
    ax.set_ylabel("TFLOP/s  (2·M·N·K / median time per launch)")
    ax.set_title(f"{device}: each shape's winner vs cuBLAS vs cuBLASLt (ratio > 1: ours is faster)")
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.1), ncol=3, frameon=False)
    if no_lt:
        ax.text(0.99, 0.98, "cuBLASLt: not measured on this device", transform=ax.transAxes, ha="right",
                va="top", fontsize=9, bbox=dict(facecolor="white", edgecolor=style.GREY))
    fig.subplots_adjust(bottom=0.2, top=0.92, left=0.08, right=0.98)
    style.save(fig, path, ctx.footnote("TFLOP/s of medians; ratio = reference time / winner time. re-rank: the "
                                       "latest re-rank's winner, references from its rounds; first pass: the "
                                       "fastest verified, references from its run."))


def build(ctx):
    section = Section("shapes", "Per shape: the winner vs cuBLAS vs cuBLASLt",
                      "For each shape of a device its winner, as mpgemm-query's best view crowns it: the latest "
                      "re-rank's winner beside cuBLAS and cuBLASLt timed in the same rounds, else (chosen by "
                      "first pass) the fastest verified config beside the timings it was compared against; "
                      "ratio = reference time / winner time.")
    by_device = {}
    for device, shape in db.device_shapes(ctx.conn, ctx.scope):
        by_device.setdefault(device, []).append(shape)
    for device, shapes in by_device.items():
        rows, notes = [], []
        for shape in shapes:
            row, shape_notes = collect(ctx.conn, device, shape)
            rows.append(row)
            notes += shape_notes
        no_lt = all(r["cublaslt_tflops"] is None for r in rows)
        if no_lt:
            notes = [n for n in notes if not n.startswith("cuBLASLt")]
            notes.append(f"cuBLASLt has no timing on {device} at any shape: "
                         + ("it was not measured (mpgemm-tune --no-cublaslt, or a run from before schema "
                            "version 4)." if not db.rows(ctx.conn, "SELECT 1 FROM cublaslt_timings WHERE "
                                                         "device_name = ? LIMIT 1", [device])
                            else "none of its algorithms verified (see mpgemm-query DB references)."))
        item = Item(device, notes=notes)
        if any(r["best_tflops"] is not None or r["cublas_tflops"] is not None for r in rows):
            item.image = ctx.image("shapes", slug(device))
            draw(ctx, device, shapes, rows, ctx.out_dir / item.image, no_lt)
        item.table = [["shape", "winner", "chosen by", "TFLOP/s", "cuBLAS TFLOP/s", "cuBLASLt TFLOP/s", "× cuBLAS",
                       "× cuBLASLt"]]
        for shape, r in zip(shapes, rows):
            item.table.append([shape.title(), f"`{r['config']}`" if r["config"] else "–", r["chosen_by"] or "–",
                               fmt(r["best_tflops"]),
                               fmt(r["cublas_tflops"]), fmt(r["cublaslt_tflops"]), fmt(r["ratio_to_cublas"], 3),
                               fmt(r["ratio_to_cublaslt"], 3)])
        section.items.append(item)
        section.numbers.append(dict(device=device, shapes=rows, notes=notes))
    if not section.items:
        section.notes.append("The database holds no measurement and no reference timing in scope.")
    return section
