"""Play speed with the trajectory figures on and off (issue #43 goal: on >= 0.85 of off, and off
unchanged), on cells of the quick start's sizes (experiments/seat_bias.yaml) with the players it
seated when the goal was measured: Katz greedy_tuned, New York Zoo learned(destinations=best,
width=3) (the quick start seats expert since 2026-12-04).

    python benchmarks/gameplay_speed.py                            # 2-player cells of the quick start's sizes
    python benchmarks/gameplay_speed.py --players 5 --katz-games 250000 --nyz-games 10000
    /work/main/.venv/bin/python benchmarks/gameplay_speed.py --repo /work/main --off-only   # the code before

Each cell is played into a fresh run folder by `run_plan` in this process (one job, threading
backend), `trajectory_deals: auto` (on: one deal in 500 replayed round by round through the step
API after the chunks, simulator/trajectories.py) and `0` (off: no replay is queued); the order
alternates over `--repeats` rounds and the fastest of each is kept (other load on the machine
only slows a run down). Two speeds: games per second of wall-clock play (the run's time less its
kernel compiling) and games per CPU second of this process (workers are its threads), which
other load on the machine hardly changes; the warm-up run compiles or loads the play kernels and
replays two deals, so the step kernels are loaded before anything is timed. `--repo`
imports simulator from another checkout (one without the setting: the off run leaves the key
out), to compare "off" with the code before the figures existed. The machine, load and date are
printed before and after the figures (benchmarks/machine.py).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from machine import machine_line  # noqa: E402  (benchmarks/machine.py)

WARM_UP_GAMES = 200
WARM_UP_DEALS = 2  # replayed in the warm-up run: the step kernels loaded before timing
CELLS = {  # game -> (study as the quick start writes it, games option)
    "katz": ({"name": "Alles für die Katz", "game": "katz", "seats": ["greedy_tuned"]}, "katz_games"),
    "nyz": ({"name": "New York Zoo", "game": "nyz",
             "seats": [{"policy": "learned", "params": {"destinations": "best", "width": 3}}]}, "nyz_games"),
}


def play_seconds(study: dict, players: int, games: int, trajectory_deals: str | int | None,
                 out: Path) -> tuple[float, float]:
    """(wall seconds `run_plan` played the cell, compiling excluded; CPU seconds of this process
    meanwhile); trajectory_deals None leaves the key out."""
    from simulator.config import parse_experiment
    from simulator.plan import build_plan
    from simulator.runner import run_plan

    document = {"name": "gameplay_speed", "seed": 20261204, "games": games, "chunk_games": 50_000,
                "studies": [{**study, "rules": {"players": players}}]}
    if trajectory_deals is not None:
        document["trajectory_deals"] = trajectory_deals
    plan = build_plan(parse_experiment(document))
    cpu = time.process_time()
    summary = run_plan(plan, out, "benchmark\n", jobs=1, progress=False)
    return summary.seconds - summary.compile_seconds, time.process_time() - cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--katz-games", type=int, default=250_000)
    parser.add_argument("--nyz-games", type=int, default=10_000)
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--repo", type=Path, help="import simulator from this checkout")
    parser.add_argument("--off-only", action="store_true", help="time only the run without the setting's key")
    options = parser.parse_args()
    if options.repo is not None:
        sys.path.insert(0, str(options.repo.resolve()))
    import simulator

    print(f"simulator from {Path(simulator.__file__).parent}; {machine_line()}")
    settings = {"off": None} if options.off_only else {"on": "auto", "off": 0}
    with tempfile.TemporaryDirectory() as scratch:
        for game, (study, games_option) in CELLS.items():
            games = getattr(options, games_option)
            warm = WARM_UP_DEALS if "on" in settings else None  # the code before knows no such key
            play_seconds(study, options.players, WARM_UP_GAMES, warm, Path(scratch) / f"{game}-warm")
            wall: dict[str, float] = {}
            cpu: dict[str, float] = {}
            for repeat in range(options.repeats):
                order = list(settings.items()) if repeat % 2 == 0 else list(settings.items())[::-1]
                for name, value in order:
                    seconds, cpu_seconds = play_seconds(study, options.players, games, value,
                                                        Path(scratch) / f"{game}-{name}-{repeat}")
                    wall[name] = min(wall.get(name, float("inf")), seconds)
                    cpu[name] = min(cpu.get(name, float("inf")), cpu_seconds)
            line = ", ".join(f"{name} {games / wall[name]:,.0f} games/s ({wall[name]:.2f} s), "
                             f"{games / cpu[name]:,.0f} games/CPU s ({cpu[name]:.2f} s)" for name in settings)
            ratio = (f"; on / off = {wall['off'] / wall['on']:.3f} (wall), {cpu['off'] / cpu['on']:.3f} (CPU)"
                     if "on" in settings else "")
            print(f"{game} {options.players} players, {games:,} games: {line}{ratio}", flush=True)
    print(machine_line())


if __name__ == "__main__":
    main()
