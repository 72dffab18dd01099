#!/usr/bin/env python3
"""Writes the schema block of docs/schema.md from the code: the text `mpgemm-query --schema` prints
(mpgemm::schema_sql(), src/store/schema.cpp) goes between the page's schema markers, nothing else changes.

    tools/gen_schema_doc.py [--query build/bin/mpgemm-query] [--page docs/schema.md] [--check]

--check changes nothing and exits 1 when the page's block differs from the code's schema (the unit test
SchemaDoc.MatchesSchemaSql checks the same, in CTest).
"""
import argparse
import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
BEGIN = "<!-- schema:begin -->\n```sql\n"
END = "```\n<!-- schema:end -->"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--query", default=str(ROOT / "build/bin/mpgemm-query"), help="the mpgemm-query binary")
    ap.add_argument("--page", default=str(ROOT / "docs/schema.md"), help="the page to write")
    ap.add_argument("--check", action="store_true", help="only compare; exit 1 when the page is stale")
    args = ap.parse_args()

    try:
        schema = subprocess.run([args.query, "--schema"], check=True, capture_output=True, text=True).stdout
    except (OSError, subprocess.CalledProcessError) as e:
        print(f"{args.query}: cannot print the schema ({e}); build it first: "
              "cmake --build build --target mpgemm-query", file=sys.stderr)
        return 2
    page_path = pathlib.Path(args.page)
    page = page_path.read_text(encoding="utf-8")
    b, e = page.find(BEGIN), page.find(END)
    if b < 0 or e < b:
        print(f"{args.page}: the schema markers are missing (a line '<!-- schema:begin -->' then '```sql', "
              "and '```' then '<!-- schema:end -->')", file=sys.stderr)
        return 2
    updated = page[: b + len(BEGIN)] + schema + page[e:]
    if args.check:
        if updated != page:
            print(f"{args.page}: the schema block is stale: run tools/gen_schema_doc.py", file=sys.stderr)
            return 1
        return 0
    if updated != page:
        tmp = page_path.with_name(page_path.name + ".tmp")
        tmp.write_text(updated, encoding="utf-8")
        tmp.replace(page_path)
        print(f"{args.page}: schema block rewritten")
    else:
        print(f"{args.page}: already up to date")
    return 0


if __name__ == "__main__":
    sys.exit(main())
