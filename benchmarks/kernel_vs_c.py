"""zoosim's Katz kernel against a plain C engine of the same game (issue #25: kernel / C >= 1.0
per core at every batch size).

    python benchmarks/kernel_vs_c.py                         # fidelity (2-5 players), then speed
    python benchmarks/kernel_vs_c.py --fidelity-games 50000 --repeats 3
    python benchmarks/kernel_vs_c.py --no-fidelity --batches 50000

benchmarks/reference/katz_random.c is compiled with `cc -O2 -march=native` into a temporary
folder. First, fidelity: for 2, 3, 4 and 5 players both engines play --fidelity-games random
games (box rules) and every record column (turns, rounds, end reason, the counters, score and
win per seat) is compared: a z test of the means and a chi-square test of the distributions
(values with few games pooled into their neighbours). Any test below alpha / (number of tests)
(Bonferroni) fails the run, loudly, before any speed is measured: a faster engine of another game
would prove nothing. The two engines draw different random streams, so they agree in
distribution, not game by game.

Then speed, four players by default: for each batch size (1,000 / 50,000 / 400,000 games), the
kernel (`play_batch` in this process, after compiling) and the C engine (its own process) play
alternately, --repeats times each; the medians of CPU seconds per game of the playing thread
(per core) and of wall seconds give games per second, and kernel / C their ratio. The machine
(CPU model, load average) and the date are printed with the figures.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "benchmarks"))

from machine import machine_line  # noqa: E402  (benchmarks/machine.py)

SOURCE = REPO / "benchmarks" / "reference" / "katz_random.c"
COMPILE_FLAGS = ("-O2", "-march=native")
# The C engine's binary record: int16 fields per game, in this order (R_* in katz_random.c),
# named as zoosim's record columns; then score and win per seat for seats 0..4.
GAME_FIELDS = ("turns", "rounds", "end_reason", "draws", "replacements", "keepers_placed",
               "covered_keepers", "extra_turns", "skips_earned", "skips", "no_fit_draws")
MAX_PLAYERS = 5
RECORD_FIELDS = len(GAME_FIELDS) + 2 * MAX_PLAYERS
FIDELITY_PLAYERS = (2, 3, 4, 5)
BATCH_SIZES = (1_000, 50_000, 400_000)
KERNEL_BATCH = 100_000  # games per play_batch call when collecting fidelity records
MIN_POOLED_GAMES = 50  # a chi-square bin holds at least this many games of both engines together


class NoCompiler(RuntimeError):
    """No C compiler on this machine."""


def compile_reference(folder: Path, source: Path = SOURCE) -> Path:
    """The C engine compiled into `folder` (tests compile altered copies of `source`)."""
    compiler = next((path for path in map(shutil.which, (os.environ.get("CC", "cc"), "gcc", "clang")) if path), None)
    if compiler is None:
        raise NoCompiler("no C compiler found (looked for $CC, cc, gcc, clang); install one, "
                         "e.g. `apt-get install gcc`, to build benchmarks/reference/katz_random.c")
    binary = folder / "katz_random"
    result = subprocess.run([compiler, *COMPILE_FLAGS, "-o", str(binary), str(source)],
                            capture_output=True, text=True)
    if result.returncode:
        raise RuntimeError(f"{compiler} could not compile {source}:\n{result.stderr}")
    return binary


def reference_records(binary: Path, players: int, games: int, seed: int) -> dict[str, np.ndarray]:
    """Record columns of `games` C games: GAME_FIELDS, score_s and win_s per seat in turn order."""
    output = subprocess.run([str(binary), "records", str(players), str(games), str(seed)],
                            capture_output=True, check=True).stdout
    table = np.frombuffer(output, dtype=np.int16).reshape(games, RECORD_FIELDS)
    columns = {name: table[:, index] for index, name in enumerate(GAME_FIELDS)}
    for seat in range(players):
        columns[f"score_{seat}"] = table[:, len(GAME_FIELDS) + seat]
        columns[f"win_{seat}"] = table[:, len(GAME_FIELDS) + MAX_PLAYERS + seat]
    return columns


def katz_batch(players: int):
    """(play(seeds) -> play_batch's columns) for random Katz, box rules, rotation 0."""
    from simulator.games import get_game

    game = get_game("katz")
    params = game.make_params({"players": players})
    seats = game.seat_policies([("random", {})] * players)

    def play(seeds: np.ndarray) -> dict[str, np.ndarray]:
        return game.play_batch(params, seats, seeds, np.zeros(len(seeds), dtype=np.int8))
    return play


def kernel_records(players: int, games: int, seed: int) -> dict[str, np.ndarray]:
    """The same record columns from zoosim's kernel."""
    play = katz_batch(players)
    seeds = np.random.SeedSequence(seed).generate_state(games, dtype=np.uint64)
    parts = [play(seeds[first:first + KERNEL_BATCH]) for first in range(0, games, KERNEL_BATCH)]
    batch = {name: np.concatenate([part[name] for part in parts]) for name in parts[0]}
    columns = {name: batch[name] for name in GAME_FIELDS}
    for seat in range(players):
        columns[f"score_{seat}"] = batch["score"][:, seat]
        columns[f"win_{seat}"] = batch["win"][:, seat]
    return columns


@dataclass(frozen=True)
class Comparison:
    column: str
    test: str  # "mean" (z test) or "distribution" (chi-square)
    p_value: float
    detail: str


def mean_test(a: np.ndarray, b: np.ndarray) -> tuple[float, str]:
    """Two-sided z test of equal means (large samples, unequal variances)."""
    from scipy.stats import norm

    a, b = a.astype(np.float64), b.astype(np.float64)
    error = np.sqrt(a.var(ddof=1) / len(a) + b.var(ddof=1) / len(b))
    difference = a.mean() - b.mean()
    if error == 0:
        return (1.0 if difference == 0 else 0.0), f"{a.mean():.4f} vs {b.mean():.4f} (no variance)"
    z = difference / error
    return float(2 * norm.sf(abs(z))), f"{a.mean():.4f} vs {b.mean():.4f} (z = {z:+.2f})"


def distribution_test(a: np.ndarray, b: np.ndarray) -> tuple[float, str]:
    """Chi-square test that two integer samples come from one distribution; neighbouring values
    are pooled until each bin holds MIN_POOLED_GAMES games of both samples together."""
    from scipy.stats import chi2_contingency

    values = np.union1d(a, b)
    counts = np.stack([np.searchsorted(values, a, side="left"), np.searchsorted(values, b, side="left")])
    table = np.stack([np.bincount(counts[0], minlength=len(values)), np.bincount(counts[1], minlength=len(values))])
    bins, current = [], np.zeros(2, dtype=np.int64)
    for column in table.T:
        current = current + column
        if current.sum() >= MIN_POOLED_GAMES:
            bins.append(current)
            current = np.zeros(2, dtype=np.int64)
    if current.sum():
        if bins:
            bins[-1] = bins[-1] + current
        else:
            bins.append(current)
    if len(bins) < 2:
        return 1.0, "one value"
    statistic, p_value, freedom, _ = chi2_contingency(np.array(bins).T)
    return float(p_value), f"chi2 = {statistic:.1f}, {freedom} df"


def compare(reference: dict[str, np.ndarray], kernel: dict[str, np.ndarray]) -> list[Comparison]:
    """Both tests for every column the two engines share."""
    results = []
    for column in reference:
        for test, function in (("mean", mean_test), ("distribution", distribution_test)):
            p_value, detail = function(reference[column], kernel[column])
            results.append(Comparison(column, test, p_value, detail))
    return results


def fidelity_problems(binary: Path, players_counts, games: int, seed: int, alpha: float) -> tuple[list[str], int]:
    """(lines naming every test that failed, number of tests) over the player counts; a test fails
    below alpha / number of tests."""
    comparisons = []
    for players in players_counts:
        reference = reference_records(binary, players, games, seed)
        kernel = kernel_records(players, games, seed)
        comparisons += [(players, comparison) for comparison in compare(reference, kernel)]
    threshold = alpha / len(comparisons)
    problems = [f"{players} players, {c.column}, {c.test}: p = {c.p_value:.2e} < {threshold:.1e} "
                f"(C vs kernel {c.detail})" for players, c in comparisons if c.p_value < threshold]
    return problems, len(comparisons)


def time_reference(binary: Path, players: int, batch: int, seed: int) -> tuple[float, float]:
    """(CPU seconds, wall seconds) of one C batch, measured inside the C program."""
    output = subprocess.run([str(binary), "time", str(players), str(batch), "1", str(seed)],
                            capture_output=True, text=True, check=True).stdout
    cpu, wall, _ = output.split()
    return float(cpu), float(wall)


def time_kernel(play, batch: int, seed: int) -> tuple[float, float]:
    """(CPU seconds of this thread, wall seconds) of one play_batch call of fresh seeds."""
    seeds = np.random.SeedSequence(seed).generate_state(batch, dtype=np.uint64)
    cpu, wall = time.thread_time(), time.perf_counter()
    play(seeds)
    return time.thread_time() - cpu, time.perf_counter() - wall


def speed_lines(binary: Path, players: int, batches, repeats: int) -> list[str]:
    play = katz_batch(players)
    play(np.arange(100, dtype=np.uint64))  # compile or load the kernel cache
    lines = [f"{'batch':>8} {'kernel games/s':>15} {'C games/s':>12} {'kernel / C':>10}   "
             f"(per core: CPU time of the playing thread; wall in brackets)"]
    for batch in batches:
        kernel, reference = [], []
        for repeat in range(repeats):  # alternating, so both see the same machine
            kernel.append(time_kernel(play, batch, 1_000 + repeat))
            reference.append(time_reference(binary, players, batch, 1_000 + repeat))
        kernel_cpu, kernel_wall = (statistics.median(part) for part in zip(*kernel))
        c_cpu, c_wall = (statistics.median(part) for part in zip(*reference))
        lines.append(f"{batch:>8,} {batch / kernel_cpu:>15,.0f} {batch / c_cpu:>12,.0f} {c_cpu / kernel_cpu:>10.2f}   "
                     f"(wall {batch / kernel_wall:,.0f} / {batch / c_wall:,.0f} = {c_wall / kernel_wall:.2f})")
    return lines


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--players", type=int, default=4, help="player count of the speed runs")
    parser.add_argument("--fidelity-games", type=int, default=200_000, help="games per engine and player count")
    parser.add_argument("--alpha", type=float, default=1e-3, help="family-wise error rate of the fidelity tests")
    parser.add_argument("--no-fidelity", action="store_true", help="speed only (the engines were checked before)")
    parser.add_argument("--batches", default=",".join(map(str, BATCH_SIZES)), help="comma-separated batch sizes")
    parser.add_argument("--repeats", type=int, default=5)
    arguments = parser.parse_args()
    print(machine_line())
    with tempfile.TemporaryDirectory() as folder:
        try:
            binary = compile_reference(Path(folder))
        except (NoCompiler, RuntimeError) as error:
            print(error, file=sys.stderr)
            return 2
        if not arguments.no_fidelity:
            problems, tests = fidelity_problems(binary, FIDELITY_PLAYERS, arguments.fidelity_games, 1, arguments.alpha)
            if problems:
                print(f"FIDELITY FAILED: the C engine and the kernel do not play the same game "
                      f"({len(problems)} of {tests} tests):", file=sys.stderr)
                for line in problems:
                    print(f"  {line}", file=sys.stderr)
                return 1
            print(f"fidelity: {tests} tests over {', '.join(map(str, FIDELITY_PLAYERS))} players, "
                  f"{arguments.fidelity_games:,} games each, all agree (family-wise alpha {arguments.alpha})")
        print(f"speed: katz, {arguments.players} players, random, box rules, median of {arguments.repeats}")
        batches = [int(size) for size in arguments.batches.split(",")]
        for line in speed_lines(binary, arguments.players, batches, arguments.repeats):
            print(f"  {line}")
    print(machine_line())
    return 0


if __name__ == "__main__":
    sys.exit(main())
