"""Tuning convergence: the best TFLOP/s found so far against evaluations and against wall time, one line per run.

An evaluation is one measurement the run recorded for the shape, in the order it recorded them (ids), failures
included: they cost the tuner time too. Wall time is the measurement's created_at minus its run's started_at, so
it includes the run's compile phase and the other shapes it measured before this one.
"""
from datetime import datetime

from . import db, style
from .section import Item, Section, fmt, slug


def seconds_between(start, end):
    parse = lambda t: datetime.fromisoformat(t.replace("Z", "+00:00"))  # noqa: E731
    return (parse(end) - parse(start)).total_seconds()


def series(conn, device, shape):
    """One record per run that measured (device, shape): the running best after every evaluation."""
    out = []
    runs = db.rows(conn, """
        SELECT DISTINCT r.id, r.started_at, r.mode, r.space_path
        FROM measurements AS m JOIN runs AS r ON r.id = m.run_id
        WHERE m.device_name = ? AND m.M = ? AND m.N = ? AND m.K = ? AND m.problem = ?
        ORDER BY r.id""", [device, *shape.sql_args()])
    for run in runs:
        best, points = None, []
        for i, m in enumerate(db.rows(conn, """
                SELECT id, status, tflops, created_at FROM measurements
                WHERE run_id = ? AND device_name = ? AND M = ? AND N = ? AND K = ? AND problem = ? ORDER BY id""",
                                      [run["id"], device, *shape.sql_args()]), start=1):
            if m["status"] == "ok" and m["tflops"] is not None and (best is None or m["tflops"] > best):
                best = m["tflops"]
            points.append([i, seconds_between(run["started_at"], m["created_at"]), best])
        out.append(dict(run_id=run["id"], mode=run["mode"], space=run["space_path"], evaluations=len(points),
                        final_best_tflops=best, points=points))
    return out


def draw(ctx, device, shape, runs, references, path):
    fig, (by_eval, by_time) = style.figure(11, 5.2, ncols=2, sharey=True)
    lowest = []
    for colour, run in zip(style.CYCLE * 4, runs):
        pts = [p for p in run["points"] if p[2] is not None]
        if not pts:
            continue
        lowest.append(pts[0][2])
        label = f"run {run['run_id']} ({run['mode']}, {run['space'] or 'no space'}): {run['evaluations']} evaluations"
        by_eval.step([p[0] for p in pts], [p[2] for p in pts], where="post", color=colour, label=label)
        by_time.step([p[1] for p in pts], [p[2] for p in pts], where="post", color=colour, label=label)
        by_eval.plot(pts[0][0], pts[0][2], "o", color=colour, markersize=4)
        by_time.plot(pts[0][1], pts[0][2], "o", color=colour, markersize=4)
        by_eval.annotate(f"{pts[-1][2]:.0f}", (run["points"][-1][0], pts[-1][2]), textcoords="offset points",
                         xytext=(2, 3), fontsize=8, color=colour)
    timed = [r for r in references if r.tflops]
    for ax in (by_eval, by_time):
        for ref, line in zip(timed, ("--", ":")):
            ax.axhline(ref.tflops, color=style.BLACK, linestyle=line, linewidth=1,
                       label=f"{ref.name} {ref.tflops:.0f} TFLOP/s (run {ref.run_id})")
    top = max([r["final_best_tflops"] or 0 for r in runs] + [r.tflops for r in timed])
    floor = min(lowest + [r.tflops for r in timed])
    by_eval.set_ylim(floor * 0.95, top * 1.03)  # zoomed on the improvements: the axis need not start at 0
    by_time.set_xlim(left=0)
    by_eval.set_xlim(0, max(r["evaluations"] for r in runs) * 1.08)
    by_eval.set_xlabel("evaluations (measurements recorded for this shape, failures included)")
    by_time.set_xlabel("wall time since the run started (s)")
    by_eval.set_ylabel("best TFLOP/s so far")
    by_eval.legend(loc="lower right")
    fig.suptitle(f"{device}, {shape.title()}: tuning convergence (best verified TFLOP/s found so far)")
    fig.subplots_adjust(bottom=0.14, top=0.9, left=0.07, right=0.98, wspace=0.06)
    style.save(fig, path, ctx.footnote("A dot marks each run's first verified config."))


def build(ctx):
    section = Section("convergence", "Tuning convergence",
                      "Best verified TFLOP/s found so far, against the number of evaluations and against wall "
                      "time, one line per run. An evaluation is one recorded measurement of the shape (failures "
                      "included); wall time is measured from the run's start, compile phase included.")
    for device, shape in db.device_shapes(ctx.conn, ctx.scope):
        runs = series(ctx.conn, device, shape)
        if not runs:
            continue  # reference timings only
        item = Item(f"{device}, {shape.title()}")
        if any(r["final_best_tflops"] is not None for r in runs):
            references = db.references(ctx.conn, device, shape, db.best_per_shape(ctx.conn, device, shape))
            item.image = ctx.image("convergence", slug(device), shape.key())
            draw(ctx, device, shape, runs, references, ctx.out_dir / item.image)
        else:
            item.notes.append(f"No run found a verified config at {shape.title()} "
                              f"({db.describe_counts(db.status_counts(ctx.conn, device, shape))}).")
        item.table = [["run", "mode", "space", "evaluations", "first verified at", "best TFLOP/s",
                       "best reached at evaluation", "… after (s)"]]
        for r in runs:
            ok = [p for p in r["points"] if p[2] is not None]
            reached = next((p for p in ok if p[2] == r["final_best_tflops"]), None)
            item.table.append([str(r["run_id"]), r["mode"], r["space"] or "–", str(r["evaluations"]),
                               str(ok[0][0]) if ok else "–", fmt(r["final_best_tflops"]),
                               str(reached[0]) if reached else "–", fmt(reached[1], 1) if reached else "–"])
        section.items.append(item)
        section.numbers.append(dict(device=device, shape=shape.as_list(), problem=shape.problem, runs=runs))
    if not section.items:
        section.notes.append("No run recorded a measurement in scope.")
    return section
