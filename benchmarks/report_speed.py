"""How long `zoosim report` takes on a large run folder (issue #11 goal: 10 M games within 1 s).

    python benchmarks/report_speed.py                     # 10 M four-player random Katz games
    python benchmarks/report_speed.py --games 4000000 --repeats 5

Playing 10 M games to measure a report would take minutes of a shared machine, so the folder is
built from one real chunk: `zoosim run` plays a single 50,000-game chunk, then the chunk and its
sidecar are copied to the other chunk numbers with their identities (chunk, first game) rewritten
and the manifest and experiment copy enlarged to the whole game count. A report of that folder
reads, verifies and merges exactly as much as a report of a real run of that size (the copies
have the same sizes and summaries; only their games repeat). Prints the whole `zoosim report`
process's wall-clock and CPU seconds per repeat, and their medians.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from end_to_end import REPO, children_cpu  # noqa: E402

CHUNK_GAMES = 50_000


def zoosim(*arguments: str) -> None:
    result = subprocess.run([sys.executable, "-m", "simulator.cli", *arguments], capture_output=True, text=True, cwd=REPO)
    if result.returncode:
        sys.exit(f"zoosim {' '.join(arguments)} failed:\n{result.stderr}")


def enlarge(run: Path, games: int) -> None:
    """Make the one-chunk run in `run` a run of `games` games (see the module docstring)."""
    manifest = json.loads((run / "manifest.json").read_text())
    cell = manifest["cells"][0]
    per_deal = cell["players"] if cell["rotate"] else 1
    chunks = games // CHUNK_GAMES
    cell.update(games=games, deals=games // per_deal, chunks=chunks)
    manifest["experiment"]["games"] = games
    (run / "manifest.json").write_text(json.dumps(manifest, indent=2, sort_keys=True))
    copy = run / "experiment.yaml"
    copy.write_text(re.sub(r"^games: \d+$", f"games: {games}", copy.read_text(), flags=re.MULTILINE))
    folder = run / "logs" / "cell=0000"
    sidecar = json.loads((folder / "_chunk-000000.json").read_text())
    for chunk in range(1, chunks):
        shutil.copy(folder / "chunk-000000.parquet", folder / f"chunk-{chunk:06d}.parquet")
        sidecar["identity"].update(chunk=chunk, first_game=chunk * CHUNK_GAMES)
        (folder / f"_chunk-{chunk:06d}.json").write_text(json.dumps(sidecar, indent=2, sort_keys=True))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=10_000_000, help="a multiple of 50,000")
    parser.add_argument("--repeats", type=int, default=3)
    arguments = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        experiment = Path(folder) / "report_speed.yaml"
        experiment.write_text(f"name: report_speed\nseed: 1\ngames: {CHUNK_GAMES}\nchunk_games: {CHUNK_GAMES}\n"
                              "studies: [{game: katz, rules: {players: 4}, seats: [random]}]\n")
        run = Path(folder) / "run"
        zoosim("run", str(experiment), "--out", str(run), "--jobs", "1", "--quiet", "--no-report")
        enlarge(run, arguments.games)
        zoosim("report", str(run))  # once, so that the files are in the page cache as after a run
        walls, cpus = [], []
        for _ in range(arguments.repeats):
            started, cpu = time.perf_counter(), children_cpu()
            zoosim("report", str(run))
            walls.append(time.perf_counter() - started)
            cpus.append(children_cpu() - cpu)
    print(f"zoosim report, {arguments.games:,} games ({arguments.games // CHUNK_GAMES} chunks), "
          f"load average {os.getloadavg()[0]:.1f}")
    print(f"  wall seconds: {' '.join(f'{w:.2f}' for w in walls)}   median {statistics.median(walls):.2f}")
    print(f"  CPU seconds:  {' '.join(f'{c:.2f}' for c in cpus)}   median {statistics.median(cpus):.2f}")


if __name__ == "__main__":
    main()
