#!/usr/bin/env python3
"""libmpgemm.so exports its public API (include/mpgemm/gemm.hpp and gemm.h: MPGEMM_API) and nothing else of
mpgemm's, nor the libraries linked into it statically (SQLite, spdlog). Usage: lib_exports.py LIBMPGEMM.so"""
import subprocess
import sys

ALLOWED = (
    "mpgemm::Library::",  # the class and its members (Impl's included: opaque, declared in the header)
    "mpgemm::to_string(mpgemm::Path)",
    "mpgemm::to_string[abi:cxx11](mpgemm::Problem const&)",  # the public kind (include/mpgemm/gemm.hpp)
    "mpgemm::parse_problem(",
    "mpgemm::operator==(mpgemm::Problem const&, mpgemm::Problem const&)",
    "mpgemm::GemmError::",
    "typeinfo for mpgemm::GemmError",
    "typeinfo name for mpgemm::GemmError",
    "vtable for mpgemm::GemmError",
    "mpgemm_",  # the C interface (include/mpgemm/gemm.h)
)
FORBIDDEN = ("sqlite3", "spdlog::", "nlohmann::", "nvrtc")
LIMIT = 100  # the public API is ~25 symbols; 787 before the library hid its internals


def main() -> int:
    lib = sys.argv[1]
    out = subprocess.run(["nm", "-D", "--defined-only", "-C", lib], check=True, capture_output=True, text=True).stdout
    names = [line.split(" ", 2)[2] for line in out.splitlines() if line.count(" ") >= 2]
    bad = [n for n in names if "mpgemm" in n and not n.startswith(ALLOWED)]
    bad += [n for n in names if any(f in n for f in FORBIDDEN)]
    for needed in ("mpgemm::Library::gemm(", "mpgemm_gemm"):
        if not any(n.startswith(needed) for n in names):
            bad.append(f"({needed} is not exported)")
    for n in bad:
        print(f"exported but not public API: {n}")
    if len(names) > LIMIT:
        print(f"{len(names)} exported symbols (limit {LIMIT}): internals leak")
        bad.append("count")
    print(f"{lib}: {len(names)} exported symbols, {len(bad)} problems")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
