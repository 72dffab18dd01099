"""What happened to every candidate: measurements per status, per device and shape. The first thing to look at when
a database holds failures only: it says which kind of failure, where the other pictures can only say "nothing"."""
from . import db, style
from .section import Item, Section, slug


def build(ctx):
    section = Section("outcomes", "Outcomes",
                      "How many measurements ended in each status (ok, incorrect, compile_failed, ...), per shape. "
                      "`mpgemm-query DB failures` lists the failed ones with their messages.")
    by_device = {}
    for device, shape in db.device_shapes(ctx.conn, ctx.scope):
        counts = db.status_counts(ctx.conn, device, shape)
        if counts:
            by_device.setdefault(device, []).append((shape, counts))
    for device, shapes in by_device.items():
        item = Item(device)
        item.image = ctx.image("outcomes", slug(device))
        statuses = [s for s in style.STATUS_ORDER if any(s in c for _, c in shapes)]
        fig, ax = style.figure(max(6.0, 1.6 * len(shapes) + 3), 4.8)
        bottoms = [0] * len(shapes)
        for status in statuses:
            heights = [c.get(status, 0) for _, c in shapes]
            bars = ax.bar(range(len(shapes)), heights, 0.6, bottom=bottoms, color=style.STATUS_COLOURS[status],
                          edgecolor="white", linewidth=0.5, label=status)
            for bar, h, b in zip(bars, heights, bottoms):
                if h:
                    ax.text(bar.get_x() + bar.get_width() / 2, b + h / 2, str(h), ha="center", va="center",
                            fontsize=8, color="white" if status in ("runtime_fault", "ok", "launch_failed",
                                                                    "incorrect") else "black")
            bottoms = [b + h for b, h in zip(bottoms, heights)]
        ax.set_xticks(range(len(shapes)), [s.title() for s, _ in shapes])
        ax.set_xlabel("shape (M×N×K)")
        ax.set_ylabel("measurements (count)")
        ax.set_title(f"{device}: outcome of every measurement, per shape")
        ax.legend(loc="upper left", bbox_to_anchor=(1.0, 1.0))
        fig.subplots_adjust(bottom=0.14, top=0.9, left=0.09, right=0.8)
        style.save(fig, ctx.out_dir / item.image, ctx.footnote())
        item.table = [["shape"] + statuses + ["total"]]
        for shape, counts in shapes:
            cells = [str(counts.get(s, 0)) for s in statuses]
            item.table.append([shape.title()] + cells + [str(sum(counts.values()))])
            if "ok" not in counts:
                item.notes.append(f"{shape.title()}: no verified measurement ({db.describe_counts(counts)}).")
        section.items.append(item)
        section.numbers.append(dict(device=device, shapes=[dict(shape=s.as_list(), counts=c) for s, c in shapes]))
    if not section.items:
        section.notes.append("The database holds no measurement in scope.")
    return section
