"""How much memory a zoosim worker process keeps when it frees it (issue #25): the one malloc
setting of the process, applied once, before a worker plays its first chunk (runner.play_chunk).

A worker allocates and frees the same arrays chunk after chunk (record columns, summaries,
Parquet buffers). glibc's malloc by default gives freed memory back to the system: a block of
128 KiB or more is an mmap of its own, unmapped when freed, and the top of a heap is trimmed once
more than 128 KiB of it is free (glibc raises both thresholds as it sees bigger blocks freed,
up to 32 MiB). The next chunk's arrays then land on fresh pages: a page fault per 4 KiB
touched, each page zeroed by the kernel. Measured on 1 M four-player random Katz games
(docs/benchmarks.md, issue #25): about 100,000 page faults in the play phase, 13,000 with the
setting below (46,000 against 107,000-133,000 in the whole run).

`keep_freed_memory` sets, on glibc, M_TRIM_THRESHOLD to KEPT_BYTES (a heap is trimmed only when
that much of it is free) and M_MMAP_THRESHOLD to MMAP_THRESHOLD_BYTES (blocks up to that size
come from the heaps, where freed memory stays for the next chunk; larger ones are still mapped
and unmapped on their own). A worker's memory then stays at its peak until it ends, which the
next chunk reuses; a run's memory stays flat (benchmarks/memory.py). Elsewhere (musl, macOS,
Windows) it does nothing. pyarrow allocates from its own pool (mimalloc in the wheels), which
keeps its pages already: switching it to the system allocator changed no fault count.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import platform
import threading

# glibc's mallopt parameters (malloc.h)
M_TRIM_THRESHOLD = -1
M_MMAP_THRESHOLD = -3
# Free memory a heap keeps before it is trimmed: more than a worker ever frees at once.
KEPT_BYTES = 1 << 30
# The largest block served from a heap: glibc's own maximum on 64-bit systems (HEAP_MAX_SIZE / 2);
# mallopt refuses larger values.
MMAP_THRESHOLD_BYTES = 32 << 20

_applied: dict[int, bool] | None = None  # option -> whether mallopt accepted it; None until applied
_lock = threading.Lock()


def keep_freed_memory() -> dict[int, bool]:
    """Apply the setting of the module docstring once per process (later calls return at once);
    returns mallopt's answer per option, empty where the C library is not glibc."""
    global _applied
    with _lock:
        if _applied is None:
            _applied = {}
            if platform.libc_ver()[0] == "glibc":
                libc = ctypes.CDLL(ctypes.util.find_library("c") or None)
                libc.mallopt.argtypes = (ctypes.c_int, ctypes.c_int)
                for option, value in ((M_TRIM_THRESHOLD, KEPT_BYTES), (M_MMAP_THRESHOLD, MMAP_THRESHOLD_BYTES)):
                    _applied[option] = libc.mallopt(option, value) == 1
        return dict(_applied)
