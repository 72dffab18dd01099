#!/usr/bin/env python3
"""No test reads results/: the records there may be archived or replaced at any time, so a test's fixtures live
in tests/data/. Scans the test sources (C++, CMake, Python, shell) for a string that names a path under the
source tree's results/ ("results/...", "/results/...", ${...}/results/...) and lists each one found.

Usage: tests_read_no_results.py TESTS_DIR    exit 0: none; 1: some (listed); 2: bad usage
"""
import pathlib
import re
import sys

# Files whose "results/" strings are not paths into the source tree, and why.
EXEMPT = {
    "unit/cli_results_archive_script_test.cpp": "builds its own results/ in a scratch git repository",
    "unit/store_open_test.cpp": "a database name inside an error message, never opened",
    "tools/tests_read_no_results.py": "this check",
}
SUFFIXES = {".cpp", ".hpp", ".h", ".cmake", ".py", ".sh"}
# A string literal that starts with results/ or /results/, or a CMake variable joined to results/.
PATTERN = re.compile(r'"/?results/|\}/results/')


def main(argv):
    if len(argv) != 2 or not pathlib.Path(argv[1]).is_dir():
        print("usage: tests_read_no_results.py TESTS_DIR", file=sys.stderr)
        return 2
    root = pathlib.Path(argv[1])
    found = []
    for path in sorted(root.rglob("*")):
        if not path.is_file() or (path.suffix not in SUFFIXES and path.name != "CMakeLists.txt"):
            continue
        rel = path.relative_to(root).as_posix()
        if rel in EXEMPT:
            continue
        for number, line in enumerate(path.read_text(errors="replace").splitlines(), 1):
            code = line.split("//", 1)[0] if path.suffix in {".cpp", ".hpp", ".h"} else line
            if PATTERN.search(code):
                found.append(f"tests/{rel}:{number}: {line.strip()}")
    for f in found:
        print(f)
    if found:
        print(f"{len(found)} line(s) under tests/ name a path in results/: copy what the test needs into tests/data/")
        return 1
    print("no test names a path in results/")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
