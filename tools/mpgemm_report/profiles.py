"""Nsight Compute counters of the profiled kernels side by side (what `mpgemm-query DB --compare A,B` prints for two
labels, drawn for every label of a shape): one panel per counter, one bar per profiled kernel.

Counters come from table profile_metrics (tools/profile_layer2.sh -> mpgemm-profile); the newest value of each
(label, shape, metric) counts, as in --compare. ncu's CSV names the device only by its index, so a profile may
have no device name (mpgemm-profile without --device) or, imported before that was fixed, the index; a profile
whose device_name is not a device of the database is attributed to the database's device when it has one.
"""
import math

from matplotlib.patches import Patch
from matplotlib.ticker import FuncFormatter

from . import db, style
from .section import Item, Section, slug

# The writeup's counters (tools/profile_layer2.sh), then Nsight Compute's speed-of-light section: drawn in this
# order when at least two kernels have them; --metrics chooses others.
PREFERRED = {
    "gpu__time_duration.sum": "kernel duration",
    "Duration": "kernel duration",
    "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum": "global load sectors (LSU loads)",
    "l1tex__t_sectors_pipe_lsu_mem_global_op_ldgsts.sum": "global load sectors (cp.async LDGSTS)",
    "smsp__warp_issue_stalled_long_scoreboard_per_warp_active.pct": "long-scoreboard stalls per active warp",
    "smsp__average_warp_latency_issue_stalled_long_scoreboard.ratio": "long-scoreboard stall latency",
    "sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_active": "tensor pipe active of peak (every MMA)",
    "sm__inst_executed_pipe_tensor_op_hmma.avg.pct_of_peak_sustained_active": "HMMA-instruction pipe of peak (low for wgmma)",
    "smsp__issue_active.avg.pct_of_peak_sustained_active": "issue active of peak",
    "l1tex__t_sector_hit_rate.pct": "L1 hit rate",
    "dram__throughput.avg.pct_of_peak_sustained_elapsed": "DRAM throughput of peak",
    "launch__registers_per_thread": "registers",
    "Compute (SM) Throughput": "SM throughput of peak",
    "Memory Throughput": "memory throughput of peak",
    "L2 Cache Throughput": "L2 throughput of peak",
    "L1/TEX Cache Throughput": "L1/TEX throughput of peak",
    "DRAM Throughput": "DRAM throughput of peak",
    "Elapsed Cycles": "elapsed cycles",
    "SM Frequency": "SM clock",
    "Registers Per Thread": "registers",
}
LABEL_ORDER = ["wmma_naive", "wmma_shared", "wmma_cp_async", "best"]
# The ladder's colours for the labels tools/profile_layer2.sh uses, so a kernel looks the same in both pictures.
LABEL_COLOURS = {"wmma_naive": style.VERMILLION, "wmma_shared": style.ORANGE, "wmma_cp_async": style.PURPLE,
                 "best": style.BLUE, "cublas": style.BLACK}
MAX_PANELS = 12
# ncu's unit names as a reader writes them (titles only; the tables keep ncu's).
UNITS = {"hz": "Hz", "cycle": "cycles", "nsecond": "ns", "usecond": "µs", "msecond": "ms", "second": "s",
         "register/thread": "per thread"}


# Units of one quantity that ncu picks per kernel by magnitude ("ms" for a slow kernel, "us" for a fast one):
# factors to the first of each family, so that one panel and one table row use one unit.
SCALES = [
    {"ns": 1e-9, "nsecond": 1e-9, "us": 1e-6, "usecond": 1e-6, "ms": 1e-3, "msecond": 1e-3, "s": 1.0, "second": 1.0},
    {"byte": 1.0, "Kbyte": 1e3, "Mbyte": 1e6, "Gbyte": 1e9, "Tbyte": 1e12},
    {"hz": 1.0, "Khz": 1e3, "Mhz": 1e6, "Ghz": 1e9},
    {"byte/second": 1.0, "Kbyte/second": 1e3, "Mbyte/second": 1e6, "Gbyte/second": 1e9, "Tbyte/second": 1e12},
]


def common_units(labels):
    """Rewrites, per metric, the values of every label into one unit (the one of its largest value) when the
    labels' units differ by scale only; units it does not know are left as ncu wrote them."""
    metrics = {m for lab in labels.values() for m in lab["metrics"]}
    for m in metrics:
        entries = [lab["metrics"][m] for lab in labels.values() if m in lab["metrics"]]
        units = {u for u, _ in entries}
        if len(units) < 2:
            continue
        family = next((f for f in SCALES if units <= f.keys()), None)
        if not family:
            continue
        target = max(entries, key=lambda e: e[1] * family[e[0]])[0]
        for lab in labels.values():
            if m in lab["metrics"]:
                u, v = lab["metrics"][m]
                lab["metrics"][m] = (target, v * family[u] / family[target])


def groups(conn, scope):
    """{(device, shape): {label: {"kernel": str, "metrics": {metric: (unit, value)}}}}, newest value per metric."""
    known = db.devices(conn)
    out, attributed = {}, set()
    for r in db.rows(conn, """
            SELECT label, kernel, device_name, M, N, K, metric, unit, value FROM (
              SELECT *, row_number() OVER (PARTITION BY label, M, N, K, metric ORDER BY id DESC) AS place
              FROM profile_metrics) WHERE place = 1 ORDER BY id"""):
        device = r["device_name"]
        if device not in known:
            attributed.add(device)
            device = known[0] if len(known) == 1 else "unknown device"
        shape = db.Shape(r["M"], r["N"], r["K"])  # profiles have no kind: the default's
        if ((scope.device and device != scope.device) or (scope.shape and shape.as_list() != scope.shape.as_list())
                or (scope.problem and scope.problem != shape.problem)):
            continue
        label = out.setdefault((device, shape), {}).setdefault(r["label"], dict(kernel=r["kernel"], metrics={}))
        label["metrics"][r["metric"]] = (r["unit"] or "", r["value"])
    for labels in out.values():
        common_units(labels)
    return out, attributed


def choose_metrics(labels, wanted):
    """The metrics to draw: `wanted` (--metrics) in its order, else the preferred ones that at least two labels
    have (one when only one label was profiled), else the first common ones by name."""
    have = lambda m: sum(m in lab["metrics"] for lab in labels.values())  # noqa: E731
    need = min(2, len(labels))
    if wanted:
        return [m for m in wanted if have(m) >= 1]
    chosen = [m for m in PREFERRED if have(m) >= need]
    if not chosen:
        chosen = sorted({m for lab in labels.values() for m in lab["metrics"] if have(m) >= need})
    return chosen[:MAX_PANELS]


def si(value):
    """134.2 M for 134217728: counters span nine decades, and exponents are hard to compare at a glance."""
    for factor, suffix in ((1e9, " G"), (1e6, " M"), (1e3, " k")):
        if abs(value) >= factor:
            return f"{value / factor:.4g}{suffix}"
    return f"{value:.4g}"


def order(labels):
    rank = lambda name: (LABEL_ORDER.index(name) if name in LABEL_ORDER  # noqa: E731
                         else len(LABEL_ORDER) + (1 if name == "cublas" else 0), name)
    return sorted(labels, key=rank)


def draw(ctx, device, shape, names, labels, metrics, path):
    cols = min(3, len(metrics))
    rows = math.ceil(len(metrics) / cols)
    fig, axes = style.figure(4.0 * cols, 0.35 * len(names) * rows + 1.1 * rows + 1.4, nrows=rows, ncols=cols,
                             squeeze=False)
    others = iter([c for c in style.CYCLE if c not in LABEL_COLOURS.values()] + style.CYCLE * 4)
    colours = {name: LABEL_COLOURS.get(name) or next(others) for name in names}
    for ax, metric in zip(axes.flat, metrics):
        present = [n for n in names if metric in labels[n]["metrics"]]
        values = [labels[n]["metrics"][metric][1] for n in present]
        unit = next(labels[n]["metrics"][metric][0] for n in present)
        ys = range(len(present))
        ax.barh(list(ys), values, color=[colours[n] for n in present])
        ax.invert_yaxis()
        ax.set_yticks([])
        top = max(values) if values and max(values) > 0 else 1
        ax.set_xlim(0, top * 1.35)
        for y, v in zip(ys, values):
            ax.text(v + top * 0.02, y, si(v), va="center", fontsize=7)
        unit = UNITS.get(unit, unit)
        ax.set_title(f"{PREFERRED.get(metric, metric)}" + (f" ({unit})" if unit else ""), fontsize=8)
        ax.tick_params(axis="x", labelsize=7)
        ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: si(v)))
    for ax in list(axes.flat)[len(metrics):]:
        ax.set_visible(False)
    handles = [Patch(color=colours[n]) for n in names]
    fig.legend(handles, names, loc="lower center", ncol=min(3, len(names)), fontsize=8, frameon=False,
               bbox_to_anchor=(0.5, 0.02))
    fig.suptitle(f"{device}, {shape.title()}: Nsight Compute counters of the profiled kernels", fontsize=10)
    legend_rows = math.ceil(len(names) / 3)
    fig.tight_layout(rect=(0, 0.04 + 0.035 * legend_rows, 1, 0.95))
    style.save(fig, path, ctx.footnote())


def build(ctx):
    section = Section("profiles", "Nsight Compute counters side by side",
                      "The counters tools/profile_layer2.sh recorded (table profile_metrics), the newest per "
                      "label and metric, one panel per counter: `mpgemm-query DB --compare A,B` for every "
                      "profiled kernel of a shape at once.")
    found, attributed = groups(ctx.conn, ctx.scope)
    if not found:
        section.notes.append("No Nsight Compute counters in this database (in scope): tools/profile_layer2.sh "
                             "records them (ncu on a GPU, then mpgemm-profile).")
        return section
    for (device, shape), labels in sorted(found.items(), key=lambda kv: (kv[0][0], kv[0][1].as_list())):
        names = order(labels)
        metrics = choose_metrics(labels, ctx.metrics)
        item = Item(f"{device}, {shape.title()}")
        if attributed and device != "unknown device":
            named = sorted(str(a) for a in attributed if a is not None)
            how = (f"ncu recorded the device as {', '.join(named)} (its index)" if named
                   else "the profiles do not name their device")
            item.notes.append(f"{how}; the counters are attributed to the database's only device, {device}.")
        if metrics:
            item.image = ctx.image("profiles", slug(device), shape.key())
            draw(ctx, device, shape, names, labels, metrics, ctx.out_dir / item.image)
            item.table = [["metric", "unit"] + [f"`{n}`" for n in names]]
            for m in metrics:
                unit = next(labels[n]["metrics"][m][0] for n in names if m in labels[n]["metrics"])
                item.table.append([f"`{m}`", unit] + [
                    f"{labels[n]['metrics'][m][1]:,.6g}" if m in labels[n]["metrics"] else "–" for n in names])
        else:
            item.notes.append("None of the requested metrics (--metrics) was recorded for these kernels.")
        item.notes.append("Kernels: " + "; ".join(f"{n}: `{labels[n]['kernel']}`" for n in names) + ".")
        section.items.append(item)
        section.numbers.append(dict(device=device, shape=shape.as_list(), problem=shape.problem, labels=names,
                                    kernels={n: labels[n]["kernel"] for n in names},
                                    metrics=[dict(metric=m,
                                                  unit=next(labels[n]["metrics"][m][0] for n in names
                                                            if m in labels[n]["metrics"]),
                                                  values={n: labels[n]["metrics"][m][1] for n in names
                                                          if m in labels[n]["metrics"]})
                                             for m in metrics]))
    return section
