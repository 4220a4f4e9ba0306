"""A worker process keeps the memory it frees (simulator/worker_memory.py, issue #25): after its
first chunk, memory freed at the top of its heap is not given back to the system, so the next
chunk's arrays reuse pages already there instead of faulting in fresh, zeroed ones."""

import ctypes
import ctypes.util
import multiprocessing
import platform
import resource
from concurrent.futures import ProcessPoolExecutor

import pytest

from simulator.config import parse_experiment
from simulator.plan import build_plan
from simulator.runner import play_chunk

pytestmark = pytest.mark.skipif(platform.libc_ver()[0] != "glibc", reason="the setting is glibc's (a no-op elsewhere)")

DOCUMENT = {"name": "memory", "seed": 3, "games": 8, "chunk_games": 8,
            "studies": [{"game": "katz", "rules": {"players": 2}}]}
# Freed in blocks small enough for the heap (below glibc's default mmap threshold), in all more
# than glibc's default trim threshold ever grows to (twice its 32 MiB mmap maximum).
BLOCK_BYTES, BLOCKS = 64 << 10, 1536
PAGE_BYTES = resource.getpagesize()


def refaulted_share() -> float:
    """Allocate, touch and free 96 MiB in heap blocks, then again: the share of the second
    round's pages that faulted (1.0: the memory went back to the system in between)."""
    libc = ctypes.CDLL(ctypes.util.find_library("c"))
    libc.malloc.restype = ctypes.c_void_p
    libc.malloc.argtypes = (ctypes.c_size_t,)
    libc.free.argtypes = (ctypes.c_void_p,)
    faults = 0
    for _ in range(2):
        blocks = [libc.malloc(BLOCK_BYTES) for _ in range(BLOCKS)]
        before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
        for block in blocks:
            ctypes.memset(block, 1, BLOCK_BYTES)
        faults = resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before
        for block in reversed(blocks):
            libc.free(block)
    return faults / (BLOCK_BYTES * BLOCKS / PAGE_BYTES)


def play_a_chunk_then_measure(chunk, run_dir) -> tuple[float, float]:
    """In a fresh worker process: the refaulted share before and after it played a chunk."""
    before = refaulted_share()
    play_chunk(chunk, run_dir)
    return before, refaulted_share()


def test_a_worker_process_keeps_freed_memory_once_it_played_a_chunk(tmp_path):
    """In a process of its own, started for this test: joblib's loky workers outlive a test, so
    one of them may have played a chunk (and kept its memory) for an earlier test already."""
    chunk = build_plan(parse_experiment(DOCUMENT)).cells[0].all_chunks()[0]
    with ProcessPoolExecutor(max_workers=1, mp_context=multiprocessing.get_context("spawn")) as fresh:
        before, after = fresh.submit(play_a_chunk_then_measure, chunk, tmp_path).result()
    assert before > 0.9  # glibc's default: freed memory at the top of the heap goes back to the system
    assert after < 0.05  # kept for the next chunk
