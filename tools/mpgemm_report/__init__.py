"""mpgemm-report: draws an mpgemm results database (SQLite, read-only) as PNG plots and a report.md.

The package is the command `build/bin/mpgemm-report` (a launcher CMake writes); `python3 -m mpgemm_report --help`
from tools/ is the same program. Sections, one module each: ladder, shapes, convergence, params, roofline,
profiles, outcomes; db.py reads the database, style.py is how every figure looks, report.py writes report.md.
"""
