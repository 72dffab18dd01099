"""A roofline per device and shape: every verified config (its fastest measurement) as (arithmetic intensity,
TFLOP/s) under the device's datasheet ceilings (ceilings.py) and the measured cuBLAS / cuBLASLt throughput.

Intensity of a config = 2·M·N·K FLOPs / the bytes its tiling reads from and writes to global memory: each
BM-row panel of A (FP16) is read once per block column (⌈N/BN⌉ times), each BN-column panel of B once per block
row (⌈M/BM⌉ times), C (FP32) written once. That is the traffic when L2 catches nothing (TMA multicast in clusters
is not counted); real DRAM traffic is lower, so a point can sit above the DRAM slope. The dash-dotted line is the
shape's own minimum: A and B read once, C written once.
"""
import math

from matplotlib.ticker import LogLocator, NullFormatter, ScalarFormatter

from . import ceilings, db, style
from .section import Item, Section, slug


def near(a, b, factor=1.04):
    """Whether two positive values lie within `factor` of each other (a log axis's idea of close)."""
    return max(a, b) <= min(a, b) * factor


def tile_bytes(shape, bm, bn):
    return (2 * shape.m * shape.k * math.ceil(shape.n / bn) + 2 * shape.k * shape.n * math.ceil(shape.m / bm)
            + 4 * shape.m * shape.n)


def compulsory_bytes(shape):
    return 2 * shape.m * shape.k + 2 * shape.k * shape.n + 4 * shape.m * shape.n


def points(conn, device, shape):
    """Every verified config of (device, shape) once, with its fastest measurement."""
    out = []
    for r in db.rows(conn, """
            SELECT id, family, name, alias, params, tflops FROM (
              SELECT m.id, c.family, c.name, c.alias, c.params, m.tflops,
                     row_number() OVER (PARTITION BY c.id ORDER BY m.median_ms, m.id) AS place
              FROM measurements AS m JOIN configs AS c ON c.id = m.config_id
              WHERE m.status = 'ok' AND m.device_name = ? AND m.M = ? AND m.N = ? AND m.K = ? AND m.problem = ?)
            WHERE place = 1 ORDER BY id""", [device, *shape.sql_args()]):
        params = db.params_of(r["params"], r["name"])
        if "BM" in params and "BN" in params:
            for p in ("BM", "BN"):
                v = params[p]
                if isinstance(v, bool) or not isinstance(v, int) or not 0 < v <= db.MAX_INTEGER:
                    raise db.ReportError(f"config {db.printable(r['name'], 80)}: {p} is "
                                         f"'{db.printable(v, 40)}', not a positive whole number (a damaged or "
                                         "hand-edited database)")
            traffic, basis = tile_bytes(shape, params["BM"], params["BN"]), "tiles"
        else:
            traffic, basis = compulsory_bytes(shape), "compulsory"
        out.append(dict(measurement_id=r["id"], family=r["family"], config=r["name"], alias=r["alias"],
                        tflops=r["tflops"], intensity=shape.flops() / traffic, bytes=traffic, basis=basis))
    return out


def draw(ctx, device, shape, pts, ceiling, cublas, cublaslt, best_id, path):
    fig, ax = style.figure(10, 7)
    ax.set_xscale("log")
    ax.set_yscale("log")
    lo = min(p["intensity"] for p in pts) / 2
    minimum = shape.flops() / compulsory_bytes(shape)
    hi = max(minimum, max(p["intensity"] for p in pts)) * 2
    if ceiling:
        ridge = ceiling.peak_tflops / ceiling.bandwidth_tbps
        hi = max(hi, ridge * 2)
        xs = [lo, ridge, hi]
        ax.plot(xs, [min(ceiling.peak_tflops, x * ceiling.bandwidth_tbps) for x in xs], color=style.BLACK,
                linewidth=2, label=f"datasheet roof: {ceiling.peak_tflops:.0f} TFLOP/s; {ceiling.bandwidth_tbps} TB/s × "
                                   "intensity (if L2 caught nothing)")
        if ceiling.capped_tflops:
            ax.axhline(ceiling.capped_tflops, color=style.BLACK, linestyle=(0, (5, 1, 1, 1)), linewidth=1.2,
                       label=f"{ceiling.capped_source}: {ceiling.capped_tflops:.0f} TFLOP/s")
    for ref, line in ((cublas, "--"), (cublaslt, ":")):
        if ref.tflops:
            ax.axhline(ref.tflops, color=style.GREY, linestyle=line, linewidth=1.3,
                       label=f"{ref.name} measured: {ref.tflops:.0f} TFLOP/s")
    ax.axvline(minimum, color=style.GREEN, linestyle="-.", linewidth=1,
               label=f"{shape.title()}'s minimum traffic: {minimum:.0f} FLOP/byte")
    markers = "os^Dv<>P"
    for i, family in enumerate(sorted({p["family"] for p in pts})):
        mine = [p for p in pts if p["family"] == family]
        ax.plot([p["intensity"] for p in mine], [p["tflops"] for p in mine], markers[i % len(markers)],
                color=style.CYCLE[i % len(style.CYCLE)], alpha=0.6, markersize=5, linestyle="none",
                label=f"{family}: {len(mine)} verified configs")
    labelled = []  # (intensity, TFLOP/s, line) of the labels placed so far
    for p in pts:
        if p["alias"] or p["measurement_id"] == best_id:
            text = p["alias"] or "best tuned"
            if p["measurement_id"] == best_id:
                ax.plot(p["intensity"], p["tflops"], "*", color=style.VERMILLION, markersize=14, zorder=5)
                text = "best tuned" + (f" ({p['alias']})" if p["alias"] else "")
            # Points within 4% of each other on both log axes would print their labels on top of each other
            # (two named points of one tiling at one speed): a label takes the first line below its point that
            # no nearby label has taken.
            taken = {line for x, y, line in labelled if near(x, p["intensity"]) and near(y, p["tflops"])}
            line = next(i for i in range(len(taken) + 1) if i not in taken)
            labelled.append((p["intensity"], p["tflops"], line))
            ax.annotate(text, (p["intensity"], p["tflops"]), textcoords="offset points", xytext=(6, -10 - 10 * line),
                        fontsize=8)
    top = max([p["tflops"] for p in pts] + [ceiling.peak_tflops if ceiling else 0] +
              [r.tflops or 0 for r in (cublas, cublaslt)])
    ax.set_xlim(lo, hi)
    ax.set_ylim(min(p["tflops"] for p in pts) / 2, top * 1.6)
    ax.set_xlabel("arithmetic intensity (FLOP/byte of global-memory traffic of the tiling)")
    ax.set_ylabel("TFLOP/s")
    ax.set_title(f"{device}, {shape.title()}: roofline of every verified config")
    # Below the axes: inside, it covered the points and the named points' labels wherever they fell.
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.11), ncol=2, fontsize=8, frameon=False)
    ax.grid(True, which="both", alpha=0.2)
    for axis in (ax.xaxis, ax.yaxis):  # plain numbers at 1, 2, 5 × 10^n, not 6×10²
        axis.set_major_locator(LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
        axis.set_major_formatter(ScalarFormatter())
        axis.set_minor_formatter(NullFormatter())
    source = ceiling.source if ceiling else f"no datasheet ceilings for {device} (tools/mpgemm_report/ceilings.py)"
    fig.subplots_adjust(bottom=0.25, top=0.94, left=0.08, right=0.98)
    style.save(fig, path, ctx.footnote(f"Ceilings: {source}. Intensity: A and B re-read per block column/row, "
                                       "C written once; L2 reuse and multicast not counted, so a point above the slope is fed partly by L2."))


def build(ctx):
    section = Section("roofline", "Roofline",
                      "Every verified config (its fastest measurement) as (arithmetic intensity, TFLOP/s) under the device's datasheet "
                      "ceilings and the measured cuBLAS/cuBLASLt throughput. Intensity = 2·M·N·K / the global-"
                      "memory bytes of the config's tiling (each A panel read ⌈N/BN⌉ times, each B panel ⌈M/BM⌉ "
                      "times, C written once: what DRAM would carry if L2 caught nothing).")
    for device, shape in db.device_shapes(ctx.conn, ctx.scope):
        pts = points(ctx.conn, device, shape)
        item = Item(f"{device}, {shape.title()}")
        ceiling = ceilings.lookup(device)
        if not ceiling:
            item.notes.append(f"No datasheet ceilings for {device} in tools/mpgemm_report/ceilings.py: only the "
                              "measured cuBLAS line is drawn.")
        best = db.best_per_shape(ctx.conn, device, shape)
        cublas, cublaslt = db.references(ctx.conn, device, shape, best)
        if pts:
            item.image = ctx.image("roofline", slug(device), shape.key())
            draw(ctx, device, shape, pts, ceiling, cublas, cublaslt, best["measurement_id"], ctx.out_dir / item.image)
            by_family = {}
            for p in pts:
                by_family.setdefault(p["family"], []).append(p)
            item.table = [["family", "verified", "intensity (FLOP/byte)", "TFLOP/s", "best config"]]
            for family, mine in by_family.items():
                top = max(mine, key=lambda p: p["tflops"])
                intensity = [p["intensity"] for p in mine]
                item.table.append([family, str(len(mine)), f"{min(intensity):.1f} – {max(intensity):.1f}",
                                   f"{min(p['tflops'] for p in mine):.1f} – {top['tflops']:.1f}",
                                   f"`{top['config']}`"])
            if ceiling:
                item.notes.append(f"Ceilings: {ceiling.source}; ridge at "
                                  f"{ceiling.peak_tflops / ceiling.bandwidth_tbps:.0f} FLOP/byte.")
        else:
            item.notes.append(f"No verified measurement at {shape.title()} "
                              f"({db.describe_counts(db.status_counts(ctx.conn, device, shape))}): no roofline.")
        section.items.append(item)
        section.numbers.append(dict(device=device, shape=shape.as_list(), problem=shape.problem, points=pts,
                                    ceilings=ceiling.__dict__ if ceiling else None,
                                    cublas_tflops=cublas.tflops, cublaslt_tflops=cublaslt.tflops))
    return section
