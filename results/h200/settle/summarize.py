#!/usr/bin/env python3
"""Tables of results/h200/settle/: cuBLAS per-launch time after idle gaps, relative to the sustained pace, and the
spread of the A/A winner's median over ten processes with 20 and with 200 re-rank rounds. Run from this folder."""
import collections
import csv
import io
import lzma
import statistics as st

WINDOWS = [(0, 5), (5, 20), (20, 50), (50, 100), (100, 200), (200, 500), (500, 1000), (1000, 2000), (2000, 2500)]


def read_phases(path, first_phase):
    """(phase, gap_ms) -> [(ms since the phase's first launch, launch ms)] for phases from first_phase on."""
    phases = collections.defaultdict(list)
    with lzma.open(path, "rt") as f:
        for r in csv.DictReader(f):
            if int(r["phase"]) >= first_phase:
                phases[(int(r["phase"]), int(r["gap_ms"]))].append((float(r["t_ms"]), float(r["launch_ms"])))
    return phases


def print_windows(phases, steady, windows):
    print("| phase | idle gap (ms) | " + " | ".join(f"{a}-{b}" for a, b in windows) + " |")
    print("|--:|--:|" + "--:|" * len(windows))
    for key in sorted(phases):
        cells = []
        for a, b in windows:
            s = [x for t, x in phases[key] if a <= t < b]
            cells.append(f"{100 * (st.median(s) / steady - 1):+.2f}%" if s else "")
        print(f"| {key[0]} | {key[1]} | " + " | ".join(cells) + " |")


for shape in ("4096", "8192x2048x4096"):
    phases = read_phases(f"idle_{shape}_launches.csv.xz", 0)
    steady = st.median([x for t, x in phases[(0, 0)] if t > 4000])
    print(f"\n{shape}: sustained median {steady:.4f} ms per launch (phase 0 after 4 s); median per window after "
          "the gap (ms after the first launch), relative to it")
    print_windows(phases, steady, WINDOWS)

# After a load: 8192x2048x4096 right after 10 s of 16384x4096x8192 (phase -1), with idle gaps between (call 6).
phases = read_phases("after_16384x4096x8192_8192x2048x4096_launches.csv.xz", 1)
steady = st.median([x for v in phases.values() for t, x in v if t > 2000])
print(f"\n8192x2048x4096 after 10 s of 16384x4096x8192: sustained median {steady:.4f} ms (2-3 s into each phase)")
print_windows(phases, steady, WINDOWS[:-1] + [(2000, 3000)])

rows = [r for r in csv.reader(open("aa_20_vs_200_rounds.csv")) if len(r) > 8 and r[2] == "1"]
print("\nA/A: the 4096^3 winner re-ranked alone with cuBLAS by 20 separate processes (10 x 20 rounds, 10 x 200)")
print("| rounds | medians (ms) | max/min - 1 | stdev/mean | ratio to cuBLAS max/min - 1 |")
print("|--:|---|--:|--:|--:|")
for rounds in ("20", "200"):
    v = [float(r[7]) for r in rows if r[1] == rounds]
    q = [float(r[8]) for r in rows if r[1] == rounds]
    print(f"| {rounds} | {', '.join(f'{x:.4f}' for x in v)} | {100 * (max(v) / min(v) - 1):.2f}% | "
          f"{100 * st.pstdev(v) / st.mean(v):.2f}% | {100 * (max(q) / min(q) - 1):.2f}% |")
