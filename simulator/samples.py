"""The sample game a report draws for each study: the final position of its first playable cell's
first game, replayed from that game's seed, with the `zoosim play` command that shows it move by
move.

Drawing replays a game, which needs the game's compiled kernels, and loading them costs a
process about a second of CPU (numba's start-up). A run's workers have them loaded, so the first of
them to run out of chunks draws the samples (runner.py) and the run keeps them in
`RUN_DIR/samples.json` under the run hash; a report takes them from `samples_of_run`, which reads
them there and draws them again only when the file is missing or belongs to another run (an
interrupted run, a folder written by an older zoosim). Either way the drawings are the same: a
game is fixed by its seed.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from simulator.config import parse_experiment
from simulator.errors import ZoosimError
from simulator.games import get_game
from simulator.plan import build_plan
from simulator.rundir import SAMPLES, read_json, write_json_atomic

SAMPLE_KEYS = ("label", "svg", "command")


def draw_samples(cells: list) -> dict[str, dict[str, str]]:
    """Study name -> {label, svg, command} for every study with a drawable game (plan cells)."""
    samples: dict[str, dict[str, str]] = {}
    for cell in cells:
        if cell.study in samples or cell.games == 0:
            continue
        game = get_game(cell.game)
        if game.final_position_svg is None:
            continue
        seeds, rotations = cell.chunk(0).game_seeds_and_rotations()
        seed, rotation = int(seeds[0]), int(rotations[0])
        samples[cell.study] = {
            "label": cell.label,
            "svg": game.final_position_svg(cell.params, cell.seat_policies(), seed, rotation),
            "command": cell.replay_command(seed, rotation),
        }
    return samples


def write_samples(run_dir: Path, run_hash: str, samples: dict[str, dict[str, str]]) -> None:
    write_json_atomic(Path(run_dir) / SAMPLES, {"run_hash": run_hash, "samples": samples})


def read_samples(run_dir: Path, run_hash: str) -> dict[str, dict[str, str]] | None:
    """The samples a run kept, or None when there are none for this run (or they are unreadable)."""
    try:
        kept: Any = read_json(Path(run_dir) / SAMPLES)
    except ValueError:
        return None
    if not isinstance(kept, dict) or kept.get("run_hash") != run_hash or not isinstance(kept.get("samples"), dict):
        return None
    samples = kept["samples"]
    if not all(isinstance(sample, dict) and all(isinstance(sample.get(key), str) for key in SAMPLE_KEYS)
               for sample in samples.values()):
        return None
    return samples


def samples_of_run(run_dir: Path, manifest: dict[str, Any]) -> dict[str, dict[str, str]]:
    """Per study with a drawable game: its sample game, as the run kept it, else drawn again from
    the run's experiment (the module docstring says when); the report asks here, so that it never
    builds a plan or loads a game itself."""
    kept = read_samples(run_dir, manifest["run_hash"])
    if kept is not None:
        return kept
    try:
        plan = build_plan(parse_experiment(manifest["experiment"]))
    except ZoosimError:
        return {}
    return draw_samples(plan.cells)
