"""The writeup's ladder: naive -> shared -> cp_async -> best tuned -> cuBLAS (-> cuBLASLt), per device and shape.

The best tuned config is the view best_per_shape's (any family, any arch). The three steps are the named points
(configs.alias); each is taken from the best config's run when that run measured it, else its fastest verified
measurement in any run. When the database holds other families than the best config's, each one's fastest verified
config is a step "best <family>" just before "best tuned" (e.g. the WMMA family's best under the Hopper family's).
cuBLAS and cuBLASLt are the timings the best config was compared against. Every bar's percentage is of the cuBLAS
bar drawn beside it; a bar measured in another run than the best config's says so.
"""
from . import db, style
from .section import Item, Section, fmt, fmt_ms, slug

POINTS = [("naive", "wmma_naive"), ("shared", "wmma_shared"), ("cp_async", "wmma_cp_async")]
COLOURS = {"naive": style.VERMILLION, "shared": style.ORANGE, "cp_async": style.PURPLE, "best tuned": style.BLUE,
           "cuBLAS": style.BLACK, "cuBLASLt": style.SKY_BLUE}
OTHER_FAMILY_COLOUR = style.GREEN  # "best <family>" steps


def colour(step):
    return COLOURS.get(step, OTHER_FAMILY_COLOUR)


def family_bests(conn, device, shape, skip_family):
    """The fastest verified config of every family but `skip_family`, slowest family first."""
    found = db.rows(conn, """
        SELECT id, run_id, median_ms, tflops, family, arch, name FROM (
          SELECT m.id, m.run_id, m.median_ms, m.tflops, c.family, m.arch, c.name,
                 row_number() OVER (PARTITION BY c.family ORDER BY m.median_ms, m.id) AS place
          FROM measurements AS m JOIN configs AS c ON c.id = m.config_id
          WHERE m.status = 'ok' AND m.device_name = ? AND m.M = ? AND m.N = ? AND m.K = ? AND m.problem = ?
                AND c.family != ?)
        WHERE place = 1 ORDER BY median_ms DESC, id""", [device, *shape.sql_args(), skip_family])
    return [dict(step=f"best {r['family']}", config=r["name"], run_id=r["run_id"], measurement_id=r["id"],
                 median_ms=r["median_ms"], tflops=r["tflops"], family=r["family"], arch=r["arch"]) for r in found]


def point(conn, alias, device, shape, prefer_run):
    """The bar of named point `alias`, or (None, note) when it has no verified measurement."""
    found = db.rows(conn, """
        SELECT m.id, m.run_id, m.median_ms, m.tflops, c.name
        FROM measurements AS m JOIN configs AS c ON c.id = m.config_id
        WHERE c.alias = ? AND m.status = 'ok' AND m.device_name = ? AND m.M = ? AND m.N = ? AND m.K = ?
              AND m.problem = ?
        ORDER BY (m.run_id = ?) DESC, m.median_ms, m.id LIMIT 1""", [alias, device, *shape.sql_args(), prefer_run])
    if found:
        r = found[0]
        return dict(config=r["name"], run_id=r["run_id"], measurement_id=r["id"], median_ms=r["median_ms"],
                    tflops=r["tflops"]), None
    failed = db.rows(conn, """
        SELECT m.status, m.message FROM measurements AS m JOIN configs AS c ON c.id = m.config_id
        WHERE c.alias = ? AND m.device_name = ? AND m.M = ? AND m.N = ? AND m.K = ? AND m.problem = ?
        ORDER BY m.id DESC LIMIT 1""",
                     [alias, device, *shape.sql_args()])
    if failed:
        why = failed[0]["message"].splitlines()[0][:120] if failed[0]["message"] else ""
        return None, f"{alias}: {failed[0]['status']}" + (f" ({why})" if why else "")
    return None, f"{alias}: not measured"


def collect(conn, device, shape):
    """The bars of one ladder, its notes, and the steps without a bar (one phrase each)."""
    best = db.best_per_shape(conn, device, shape)
    if best is None:
        counts = db.status_counts(conn, device, shape)
        return [], [f"No verified measurement on {device} at {shape.title()} ({db.describe_counts(counts)}): "
                    "no ladder to draw."], []
    bars, notes, missing = [], [], []
    for step, alias in POINTS:
        bar, note = point(conn, alias, device, shape, best["run_id"])
        if bar:
            bars.append(dict(step=step, **bar))
        else:
            missing.append(note)
    if missing:
        notes.append("Steps without a bar: " + "; ".join(missing) +
                     ". The ladder's first steps are the named points wmma_naive, wmma_shared, wmma_cp_async "
                     "(configs/sm86.json, configs/sm90.json).")
    bars.extend(family_bests(conn, device, shape, best["family"]))
    bars.append(dict(step="best tuned", config=best["config_name"], run_id=best["run_id"],
                     measurement_id=best["measurement_id"], median_ms=best["median_ms"], tflops=best["tflops"],
                     family=best["family"], arch=best["arch"]))
    for ref in db.references(conn, device, shape, best):
        if ref.tflops is None:
            notes.append(ref.note + ".")
            continue
        if ref.note:
            notes.append(ref.note + ".")
        bars.append(dict(step=ref.name, config=ref.detail or "cublasGemmEx COMPUTE_32F", run_id=ref.run_id,
                         timing_id=ref.timing_id, median_ms=ref.median_ms, tflops=ref.tflops))
    cublas = next((b["tflops"] for b in bars if b["step"] == "cuBLAS"), None)
    for b in bars:
        b["pct_of_cublas"] = 100.0 * b["tflops"] / cublas if cublas else None
    elsewhere = [b for b in bars if b["run_id"] != best["run_id"]]
    if elsewhere:
        notes.append("Measured in another run than the best config's (run {0}): {1}; their % is of the cuBLAS bar, "
                     "timed in run {0}.".format(best["run_id"], ", ".join(f"{b['step']} (run {b['run_id']})"
                                                                          for b in elsewhere)))
    return bars, notes, missing


def draw(ctx, device, shape, bars, missing, path):
    fig, ax = style.figure(10, 5.6)
    x = range(len(bars))
    heights = [b["tflops"] for b in bars]
    drawn = ax.bar(x, heights, width=0.65, color=[colour(b["step"]) for b in bars],
                   edgecolor="white", linewidth=0.5)
    for bar, b in zip(drawn, bars):
        if b["step"] in ("cuBLAS", "cuBLASLt"):
            bar.set_hatch("//")
    ax.set_ylim(0, max(heights) * 1.2)
    style.bar_labels(ax, drawn, [f"{b['tflops']:.0f} TFLOP/s" + (
        f"\n{b['pct_of_cublas']:.1f}% of cuBLAS" if b["pct_of_cublas"] is not None else "") for b in bars])
    best = next(b for b in bars if b["step"] == "best tuned")
    ticks = []
    for b in bars:
        if "family" in b:
            under = f"{b['family']}, {b['arch']}"
        else:
            under = {"cuBLAS": "cublasGemmEx", "cuBLASLt": "best of its heuristics"}.get(b["step"], "wmma_" + b["step"])
        if b["run_id"] != best["run_id"]:
            under += f"\nrun {b['run_id']}"
        ticks.append(f"{b['step']}\n{under}")
    ax.set_xticks(list(x), ticks)
    for i in range(1, len(bars)):  # each step's gain over the previous one, in the gap between the two bars
        ax.text(i - 0.5, max(heights) * 0.02, f"×{bars[i]['tflops'] / bars[i - 1]['tflops']:.2f}", ha="center",
                va="bottom", fontsize=8, color=style.GREY)
    ax.set_ylabel("TFLOP/s  (2·M·N·K / median time per launch)")
    what = "FP16 GEMM, FP32 accumulate and output" if shape.is_default() else f"GEMM {shape.problem}"
    ax.set_title(f"{device}, {shape.title()}: {what} — from naive to cuBLAS")
    if missing:
        ax.text(0.01, 0.98, "no bar: " + "; ".join(missing), transform=ax.transAxes, ha="left", va="top", fontsize=8,
                bbox=dict(facecolor="white", edgecolor=style.GREY))
    fig.text(0.5, 0.085, f"best tuned: {best['config']} (run {best['run_id']})", ha="center", fontsize=8)
    fig.subplots_adjust(bottom=0.22, top=0.92, left=0.08, right=0.98)
    style.save(fig, path, ctx.footnote("Bars: median of the timed batches; % of the cuBLAS bar (timed in the same "
                                       "run as the best tuned config); ×: gain over the bar before."))


def build(ctx):
    section = Section("ladder", "The ladder: naive → shared → cp_async → best tuned → cuBLAS",
                      "TFLOP/s of the writeup's three WMMA kernels (the named points), the fastest verified config "
                      "of any family, cuBLAS and cuBLASLt, on one device and shape. Percentages are of the cuBLAS "
                      "bar: the cuBLAS timing the best config was compared against. Each point comes from the best "
                      "config's run when that run measured it, else from its fastest verified measurement.")
    for device, shape in db.device_shapes(ctx.conn, ctx.scope):
        bars, notes, missing = collect(ctx.conn, device, shape)
        item = Item(f"{device}, {shape.title()}", notes=notes)
        if bars:
            item.image = ctx.image("ladder", slug(device), shape.key())
            draw(ctx, device, shape, bars, missing, ctx.out_dir / item.image)
            item.table = [["step", "config", "run", "ms", "TFLOP/s", "% of cuBLAS", "× previous"]]
            previous = None
            for b in bars:
                gain = b["tflops"] / previous if previous else None
                item.table.append([b["step"], f"`{b['config']}`", str(b["run_id"]), fmt_ms(b["median_ms"]),
                                   fmt(b["tflops"]), fmt(b["pct_of_cublas"]), fmt(gain, 2)])
                previous = b["tflops"]
        section.items.append(item)
        section.numbers.append(dict(device=device, shape=shape.as_list(), problem=shape.problem, bars=bars,
                                    notes=notes))
    if not section.items:
        section.notes.append("The database holds no measurement and no reference timing in scope.")
    return section

