"""Runs the sections and writes report.md (every picture with its numbers and notes) and numbers.json (exactly the
numbers drawn, for tests and for other tools)."""
import json

from . import convergence, db, ladder, outcomes, params, profiles, roofline, shapes

# In report order: the headline first, what failed last.
SECTIONS = {m.__name__.rsplit(".", 1)[1]: m for m in (ladder, shapes, convergence, params, roofline, profiles,
                                                       outcomes)}


def numeric(cell):
    text = cell.replace(",", "").replace("–", "").replace(" ", "")
    try:
        float(text or "0")
        return True
    except ValueError:
        return False


def cell(text):
    """A table cell's text on one line: a stored string (a device name, a run's notes) cannot end the row or the
    table."""
    return " ".join(db.printable(text, 400).replace("\\n", " ").split()).replace("|", "\\|")


def md_table(table):
    """A markdown table; columns of numbers are right-aligned."""
    if not table:
        return ""
    head, *body = table
    align = ["--:" if body and all(numeric(row[i]) for row in body) else "---" for i in range(len(head))]
    lines = ["| " + " | ".join(head) + " |", "|" + "|".join(align) + "|"]
    lines += ["| " + " | ".join(cell(c) for c in row) + " |" for row in body]
    return "\n".join(lines) + "\n"


def runs_table(conn):
    table = [["run", "started (UTC)", "status", "mode", "space", "device", "git", "notes"]]
    for r in db.rows(conn, "SELECT * FROM runs ORDER BY id"):
        table.append([str(r["id"]), r["started_at"], r["status"], r["mode"], f"`{r['space_path'] or '–'}`",
                      r["device_name"] or "–", f"`{r['git_sha']}`", r["notes"] or ""])
    return table


def anchor(title):
    return "".join(c for c in title.lower().replace(" ", "-") if c.isalnum() or c in "-_")


def write(ctx, db_path, built):
    """report.md and numbers.json in ctx.out_dir from the built sections."""
    scope = ctx.scope
    parts = [f"device {scope.device}" if scope.device else "", f"shape {scope.shape.title()}" if scope.shape else "",
             f"problem kind {scope.problem}" if scope.problem else ""]
    what = ", ".join(x for x in parts if x) or "every device and shape"
    version = ctx.conn.execute("PRAGMA user_version").fetchone()[0]  # the file's, SCHEMA_VERSION or older
    migrated = f", read migrated to {db.SCHEMA_VERSION} in memory" if version < db.SCHEMA_VERSION else ""
    md = [f"# mpgemm report: `{db_path.name}`\n"]
    if ctx.note:
        md.append(f"> {ctx.note}\n")
    md.append(f"Database `{db_path}` (schema version {version}{migrated}), read-only; scope: {what}. "
              "Made by `mpgemm-report`; numbers.json beside this file holds every number drawn.\n")
    md.append("## Runs\n")
    md.append(md_table(runs_table(ctx.conn)))
    md.append("## Contents\n")
    md += [f"{i}. [{s.title}](#{anchor(f'{i}. {s.title}')})" for i, s in enumerate(built, start=1)]
    md.append("")
    for i, s in enumerate(built, start=1):
        md.append(f"## {i}. {s.title}\n")
        md.append(s.intro + "\n")
        md += [f"> **Note.** {n}\n" for n in s.notes]
        for item in s.items:
            md.append(f"### {item.heading}\n")
            if item.image:
                md.append(f"![{s.title}: {item.heading}]({item.image})\n")
            md.append(md_table(item.table))
            md += [f"> **Note.** {n}\n" for n in item.notes]
    (ctx.out_dir / "report.md").write_text("\n".join(md))
    numbers = dict(database=str(db_path), schema_version=version,
                   scope=dict(device=scope.device, shape=scope.shape.as_list() if scope.shape else None,
                              problem=scope.problem),
                   note=ctx.note, heatmap=list(ctx.heatmap),
                   sections={s.key: dict(numbers=s.numbers, notes=s.notes + [n for it in s.items for n in it.notes],
                                         images=[it.image for it in s.items if it.image]) for s in built})
    remove_stale_pictures(ctx.out_dir, numbers)
    (ctx.out_dir / "numbers.json").write_text(json.dumps(numbers, indent=1, ensure_ascii=False) + "\n")
    return numbers


def remove_stale_pictures(out_dir, numbers):
    """Deletes the pictures an earlier report in out_dir drew (its numbers.json lists them) that this one did not,
    so the folder holds one report; files the reports did not write are left alone."""
    try:
        old = json.loads((out_dir / "numbers.json").read_text())
        old_images = {img for s in old.get("sections", {}).values() for img in s.get("images", [])
                      if isinstance(img, str)}
    except (OSError, ValueError, AttributeError, TypeError):  # none, or not one of ours: nothing to clear
        return
    new_images = {img for s in numbers["sections"].values() for img in s["images"]}
    for img in sorted(old_images - new_images):
        path = out_dir / img
        if path.parent == out_dir and path.suffix == ".png":  # only a picture beside report.md, nothing outside
            path.unlink(missing_ok=True)
