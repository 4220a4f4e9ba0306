"""The trajectory sample of a run (issue #43): each cell's first `trajectory_deals` deals
replayed round by round through the game's per-round score (`Game.round_scores`), kept in
`RUN_DIR/trajectories/cell=NNNN.parquet` (rundir.write_trajectories) for the trajectory figures
(analysis/gameplay/trajectories.py: lead changes, comebacks, decisiveness, drama).

A replay plays exactly the game play_batch plays for the same seed and rotation, so a cell's
sample depends on its seeds alone: the same for any --jobs, backend or resume. The runner queues
one task per cell whose file is missing or belongs to another sample (`cells_to_replay`), beside
the chunks; a cell that asks for no sample (trajectory_deals: 0), or whose game declares no
per-round score, costs nothing.
"""

from __future__ import annotations

from pathlib import Path
from typing import Callable

import numpy as np

from simulator.errors import ZoosimError
from simulator.games import get_game
from simulator.games.base import call_game, round_scores_problem
from simulator.plan import Cell, Plan
from simulator.rundir import trajectories_kept, write_trajectories


def sampled_games(cell: Cell) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(deal index, seed, rotation) of every game of the cell's sampled deals (its first
    `trajectory_deals`), as the chunks play them."""
    wanted = min(cell.trajectory_deals, cell.deals)
    deals, seeds, rotations = [], [], []
    for chunk in cell.all_chunks():
        if chunk.first_deal >= wanted:
            break
        chunk_seeds, chunk_rotations = chunk.game_seeds_and_rotations()
        games = (min(wanted, chunk.first_deal + chunk.deals) - chunk.first_deal) * cell.games_per_deal
        deals.append(chunk.first_deal + np.arange(games) // cell.games_per_deal)
        seeds.append(chunk_seeds[:games])
        rotations.append(chunk_rotations[:games])
    if not deals:
        return np.zeros(0, np.int64), np.zeros(0, np.uint64), np.zeros(0, np.int8)
    return np.concatenate(deals), np.concatenate(seeds), np.concatenate(rotations)


def cells_to_replay(plan: Plan, run_dir: Path) -> list[Cell]:
    """The cells whose sample is asked for and not yet kept (or kept for another sample)."""
    return [cell for cell in plan.cells
            if cell.trajectory_deals and cell.games and not trajectories_kept(run_dir, cell.describe())]


def trajectory_table(cell: Cell, between: Callable[[], None] = lambda: None):
    """The cell's sample as a table: one row per (game, round) with deal, rotation, round (from
    1), score_<seat> and win_<seat>; `between()` is called after each game (the runner stops an
    abandoned replay there)."""
    import pyarrow as pa

    game = get_game(cell.game)
    policies = cell.seat_policies()
    parts: dict[str, list[np.ndarray]] = {}
    for deal, seed, rotation in zip(*sampled_games(cell)):
        scores, win = call_game(game, "round_scores()", game.round_scores, cell.params, policies, int(seed), int(rotation))
        problem = round_scores_problem(scores, win, cell.players)
        if problem is not None:
            raise ZoosimError(f"game '{cell.game}': {problem} (seed {int(seed)}, rotation {int(rotation)}; "
                              f"replay: {cell.replay_command(int(seed), int(rotation))})")
        rounds = len(scores)
        columns = {"deal": np.full(rounds, deal, np.int64), "rotation": np.full(rounds, rotation, np.int8),
                   "round": np.arange(1, rounds + 1, dtype=np.int16)}
        for seat in range(cell.players):
            columns[f"score_{seat}"] = np.asarray(scores[:, seat], dtype=np.float64)
            columns[f"win_{seat}"] = np.full(rounds, bool(win[seat]))
        for name, values in columns.items():
            parts.setdefault(name, []).append(values)
        between()
    return pa.table({name: np.concatenate(values) for name, values in parts.items()})


def record_trajectories(cell: Cell, run_dir: Path, between: Callable[[], None] = lambda: None) -> int:
    """Replay the cell's sample and write its file; returns the games replayed."""
    write_trajectories(run_dir, cell.describe(), trajectory_table(cell, between))
    return min(cell.trajectory_deals, cell.deals) * cell.games_per_deal
