"""Parameter effects, per device, shape and family: the best TFLOP/s over two parameters as a heat map (default
BM × BN, --heatmap P,Q), and the spread of TFLOP/s over each value of every parameter that varies.

Each config counts once, with its fastest verified measurement of the shape (a config measured by several runs
is one point, not several).
"""
import math
import statistics

import numpy as np

from . import db, style
from .section import Item, Section, fmt, slug


def configs(conn, device, shape):
    """{family: [(config name, params dict, tflops)]}: each config's fastest verified measurement."""
    out = {}
    for r in db.rows(conn, """
            SELECT c.family, c.name, c.params, max(m.tflops) AS tflops FROM measurements AS m
            JOIN configs AS c ON c.id = m.config_id
            WHERE m.status = 'ok' AND m.device_name = ? AND m.M = ? AND m.N = ? AND m.K = ? AND m.problem = ?
            GROUP BY c.id ORDER BY c.family, c.name""", [device, *shape.sql_args()]):
        out.setdefault(r["family"], []).append((r["name"], db.params_of(r["params"], r["name"]), r["tflops"]))
    return out


def ordered(values):
    values = set(values)
    if all(isinstance(v, (int, float)) for v in values):
        return sorted(values)
    return sorted(values, key=str)


def measured(conn, device, shape, family):
    """The params of every config of `family` measured on (device, shape), whatever the outcome."""
    return [db.params_of(r[0], r[1]) for r in db.rows(conn, """
        SELECT DISTINCT c.params, c.name FROM measurements AS m JOIN configs AS c ON c.id = m.config_id
        WHERE c.family = ? AND m.device_name = ? AND m.M = ? AND m.N = ? AND m.K = ? AND m.problem = ?""",
                                               [family, device, *shape.sql_args()])]


def heatmap(points, tried, p, q):
    """(p values, q values, cells): cells[i][j] = the best TFLOP/s and the number of verified configs with
    p = ps[i] and q = qs[j], and how many configs were measured there at all (`tried`: params of each)."""
    ps = ordered(params[p] for params in tried if p in params)
    qs = ordered(params[q] for params in tried if q in params)
    cells = []
    for pv in ps:
        row = []
        for qv in qs:
            t = [tf for _, params, tf in points if params[p] == pv and params[q] == qv]
            n = sum(1 for params in tried if params.get(p) == pv and params.get(q) == qv)
            row.append(dict(max_tflops=max(t) if t else None, configs=len(t), measured=n))
        cells.append(row)
    return ps, qs, cells


def spread(points):
    """Per parameter with at least two values: per value the count, min, median and max TFLOP/s."""
    out = {}
    for name in sorted({k for _, params, _ in points for k in params}):
        values = ordered(params.get(name) for _, params, _ in points)
        if len(values) < 2:
            continue
        out[name] = []
        for v in values:
            t = sorted(tf for _, params, tf in points if params.get(name) == v)
            out[name].append(dict(value=v, configs=len(t), min_tflops=t[0], median_tflops=statistics.median(t),
                                  max_tflops=t[-1], tflops=t))
    return out


def constants(points):
    names = sorted({k for _, params, _ in points for k in params})
    return {n: points[0][1].get(n) for n in names if len({str(p.get(n)) for _, p, _ in points}) == 1}


def draw_heatmap(ctx, title, p, q, ps, qs, cells, path):
    grid = np.array([[c["max_tflops"] if c["max_tflops"] is not None else np.nan for c in row] for row in cells])
    fig, ax = style.figure(max(6.0, 1.1 * len(qs) + 3.5), max(4.5, 0.7 * len(ps) + 2.5))
    image = ax.imshow(np.ma.masked_invalid(grid), cmap=style.HEATMAP, aspect="auto", origin="lower")
    ax.grid(False)
    bar = fig.colorbar(image, ax=ax)
    bar.set_label("best TFLOP/s of the configs in the cell")
    finite = grid[np.isfinite(grid)]
    middle = (finite.min() + finite.max()) / 2 if finite.size else 0
    for i, row in enumerate(cells):
        for j, c in enumerate(row):
            if c["max_tflops"] is None:
                text = f"none verified\n({c['measured']} measured)" if c["measured"] else "not measured"
                ax.text(j, i, text, ha="center", va="center", fontsize=7, color=style.GREY)
            else:
                configs = f"{c['configs']} config" + ("s" if c["configs"] != 1 else "")
                ax.text(j, i, f"{c['max_tflops']:.0f}\n({configs})", ha="center", va="center",
                        fontsize=8, color="black" if c["max_tflops"] > middle else "white")
    ax.set_xticks(range(len(qs)), [str(v) for v in qs])
    ax.set_yticks(range(len(ps)), [str(v) for v in ps])
    ax.set_xlabel(q)
    ax.set_ylabel(p)
    ax.set_title(title, fontsize=9)
    fig.tight_layout(rect=(0, 0.03, 1, 1))
    style.save(fig, path, ctx.footnote())


def draw_spread(ctx, title, spreads, path):
    n = len(spreads)
    cols = min(4, n)
    rows = math.ceil(n / cols)
    fig, axes = style.figure(3.0 * cols + 1, 2.9 * rows + 0.8, nrows=rows, ncols=cols, squeeze=False, sharey=True)
    for ax, (name, groups) in zip(axes.flat, spreads.items()):
        data = [g["tflops"] for g in groups]
        ax.boxplot(data, widths=0.55, medianprops=dict(color=style.VERMILLION), showfliers=False)
        for i, t in enumerate(data, start=1):  # every config as a dot, spread sideways by a fixed pattern
            offsets = [((k * 7) % 11 - 5) * 0.05 for k in range(len(t))]
            ax.plot([i + o for o in offsets], t, ".", color=style.BLUE, alpha=0.5, markersize=4)
        ax.set_xticks(range(1, len(groups) + 1), [str(g["value"]) for g in groups], fontsize=8)
        ax.set_xlabel(name)
    for ax in axes[:, 0]:
        ax.set_ylabel("TFLOP/s (axis not from 0)")
    for ax in list(axes.flat)[n:]:
        ax.set_visible(False)
    fig.suptitle(title, fontsize=10)
    fig.tight_layout(rect=(0, 0.03, 1, 0.95))
    style.save(fig, path, ctx.footnote("Box: quartiles and median, whiskers: 1.5 IQR; dots: every config."))


def build(ctx):
    p, q = ctx.heatmap
    section = Section("params", "Parameter effects",
                      f"Per device, shape and kernel family: the best TFLOP/s over {p} × {q} (a heat map; choose the "
                      "two with --heatmap P,Q), and the TFLOP/s of every config per value of each parameter that "
                      "varies. Each config counts once, with its fastest verified measurement.")
    for device, shape in db.device_shapes(ctx.conn, ctx.scope):
        families = configs(ctx.conn, device, shape)
        if not families:
            section.items.append(Item(f"{device}, {shape.title()}", notes=[
                f"No verified config at {shape.title()} "
                f"({db.describe_counts(db.status_counts(ctx.conn, device, shape))}): no parameter effects to draw."]))
            continue
        for family, points in families.items():
            where = f"{device}, {shape.title()}, {family} ({len(points)} verified configs)"
            record = dict(device=device, shape=shape.as_list(), problem=shape.problem, family=family, heatmap=None,
                          spread={}, constants=constants(points))
            item = Item(where)
            if all(p in params and q in params for _, params, _ in points):
                ps, qs, cells = heatmap(points, measured(ctx.conn, device, shape, family), p, q)
                record["heatmap"] = dict(rows=p, columns=q, row_values=ps, column_values=qs, cells=cells)
                item.image = ctx.image("heatmap", slug(device), shape.key(), family, p, q)
                draw_heatmap(ctx, f"{where}: best TFLOP/s over {p} × {q}", p, q, ps, qs, cells,
                             ctx.out_dir / item.image)
                item.table = [[f"{p} \\ {q}"] + [str(v) for v in qs]]
                for pv, row in zip(ps, cells):
                    item.table.append([str(pv)] + [fmt(c["max_tflops"]) for c in row])
            else:
                absent = [x for x in (p, q) if not all(x in params for _, params, _ in points)]
                item.notes.append(f"The {family} configs have no parameter {' or '.join(absent)}: no heat map "
                                  f"(choose two of {', '.join(sorted(points[0][1]))} with --heatmap P,Q).")
            section.items.append(item)
            spreads = spread(points)
            record["spread"] = {name: [{k: v for k, v in g.items() if k != "tflops"} for g in groups]
                                for name, groups in spreads.items()}
            spread_item = Item(f"{where}: TFLOP/s per parameter value")
            if spreads:
                spread_item.image = ctx.image("spread", slug(device), shape.key(), family)
                draw_spread(ctx, f"{where}: TFLOP/s per parameter value", spreads, ctx.out_dir / spread_item.image)
                spread_item.table = [["parameter", "value", "configs", "min", "median", "max TFLOP/s"]]
                for name, groups in spreads.items():
                    for g in groups:
                        spread_item.table.append([name, str(g["value"]), str(g["configs"]), fmt(g["min_tflops"]),
                                                  fmt(g["median_tflops"]), fmt(g["max_tflops"])])
            else:
                spread_item.notes.append("No parameter takes more than one value among the verified configs.")
            if record["constants"]:
                spread_item.notes.append("The same in every verified config: " + ", ".join(
                    f"{k}={v}" for k, v in record["constants"].items()) + ".")
            section.items.append(spread_item)
            section.numbers.append(record)
    return section
