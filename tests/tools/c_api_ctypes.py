#!/usr/bin/env python3
"""The C interface is enough for a Python binding: ctypes alone (no compiler, no headers) opens a recorded database
through libmpgemm.so, counts its tuned shapes and reads a failure's status and message. No GPU needed.
Usage: c_api_ctypes.py LIBMPGEMM.so DATABASE"""
import ctypes
import sys


def main() -> int:
    lib = ctypes.CDLL(sys.argv[1])
    lib.mpgemm_open.argtypes = [ctypes.c_char_p, ctypes.c_void_p, ctypes.POINTER(ctypes.c_void_p)]
    lib.mpgemm_open.restype = ctypes.c_int
    lib.mpgemm_tuned_shapes.argtypes = [ctypes.c_void_p]
    lib.mpgemm_tuned_shapes.restype = ctypes.c_size_t
    lib.mpgemm_close.argtypes = [ctypes.c_void_p]
    lib.mpgemm_last_error.restype = ctypes.c_char_p
    lib.mpgemm_status_name.restype = ctypes.c_char_p

    handle = ctypes.c_void_p()
    status = lib.mpgemm_open(sys.argv[2].encode(), None, ctypes.byref(handle))
    if status != 0:
        print(f"open failed: {lib.mpgemm_status_name(status).decode()}: {lib.mpgemm_last_error().decode()}")
        return 1
    shapes = lib.mpgemm_tuned_shapes(handle)
    lib.mpgemm_close(handle)
    missing = lib.mpgemm_open(b"/nonexistent.db", None, ctypes.byref(handle))
    message = lib.mpgemm_last_error().decode()
    print(f"{shapes} tuned shapes; a missing file: {lib.mpgemm_status_name(missing).decode()}: {message}")
    return 0 if shapes == 3 and missing == 1 and "/nonexistent.db" in message and not handle.value else 1


if __name__ == "__main__":
    sys.exit(main())
