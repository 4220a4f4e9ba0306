"""Peak memory and time of a large run and of its analysis (issue: memory stays flat).

    python benchmarks/memory.py katz 10000000
    python benchmarks/memory.py nyz 1000000 --players 2

Plays GAMES games of GAME with the default policy in every seat through `zoosim run` (all cores,
logs only), then re-renders the report with `zoosim report`, sampling the resident memory of the
whole process tree (the CLI and its workers, summed) every 0.1 s from /proc. Linux only.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

PAGE = os.sysconf("SC_PAGE_SIZE")


def tree_rss(root: int) -> int:
    """Resident bytes of a process and all its descendants."""
    children: dict[int, list[int]] = {}
    rss: dict[int, int] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as handle:
                fields = handle.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        pid, parent = int(entry), int(fields[1])
        children.setdefault(parent, []).append(pid)
        rss[pid] = int(fields[21]) * PAGE
    total, stack = 0, [root]
    while stack:
        pid = stack.pop()
        total += rss.get(pid, 0)
        stack.extend(children.get(pid, []))
    return total


def measure(command: list[str]) -> tuple[float, int]:
    """(seconds, peak tree RSS in bytes) of a command."""
    started = time.perf_counter()
    process = subprocess.Popen(command)
    peak = 0
    while process.poll() is None:
        peak = max(peak, tree_rss(process.pid))
        time.sleep(0.1)
    if process.returncode:
        sys.exit(f"{' '.join(command)} failed with status {process.returncode}")
    return time.perf_counter() - started, peak


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("game", choices=["katz", "nyz"])
    parser.add_argument("games", type=int)
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--jobs", type=int, default=os.cpu_count())
    parser.add_argument("--chunk-games", type=int, default=100_000)
    arguments = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        experiment = Path(folder) / "memory.yaml"
        experiment.write_text(
            f"name: memory\nseed: 1\ngames: {arguments.games}\nchunk_games: {arguments.chunk_games}\n"
            f"studies: [{{game: {arguments.game}, rules: {{players: {arguments.players}}}}}]\n"
        )
        zoosim = [sys.executable, "-m", "simulator.cli"]
        out = Path(folder) / "run"
        run_seconds, run_peak = measure(
            zoosim + ["run", str(experiment), "--out", str(out), "--jobs", str(arguments.jobs), "--quiet", "--no-report"]
        )
        report_seconds, report_peak = measure(zoosim + ["report", str(out)])
    print(f"{arguments.game}, {arguments.players} players, {arguments.games:,} games, {arguments.jobs} jobs")
    print(f"  run:    {run_seconds:8.1f} s  ({arguments.games / run_seconds / arguments.jobs:,.0f} games/s per core)  peak RSS {run_peak / 2**20:,.0f} MiB")
    print(f"  report: {report_seconds:8.1f} s  peak RSS {report_peak / 2**20:,.0f} MiB")


if __name__ == "__main__":
    main()
