"""A test-only game with known seat win shares and controllable deal correlation (issue 20).

Each deal is played in every seat rotation (games_per_deal = players), as with
`rotate_seats: true`. A deal has one lucky seat; in each game, with probability `luck` the lucky
seat wins outright, otherwise the winner is drawn from base probabilities chosen so that every
seat's expected win share is exactly `shares`. Where the luck sits is the regime:
- "none": a fresh lucky seat for every game (games independent);
- "hand": the luck travels with the hand through the rotations (rotation r makes seat
  (lucky + r) % n lucky), so a seat's games within a deal are negatively correlated;
- "seat": the luck stays with the seat position in every rotation, positively correlated.
Records are the columns the real games write (`win_s`, `score_s`, `slot_s`), fed through
`summarize_columns` and `tables.cell_balance`, the functions a report uses.
"""

from __future__ import annotations

import numpy as np

from simulator.analysis import stats
from simulator.analysis.summary import precision_games_needed, summarize_columns
from simulator.analysis.tables import cell_balance

REGIMES = ("none", "hand", "seat")
LUCK = 0.5  # probability that a game goes to its deal's lucky seat


def play_records(rng: np.random.Generator, shares, deals: int, regime: str, luck: float = LUCK) -> dict[str, np.ndarray]:
    """Record columns of `deals` deals x players rotations, deal-major (rotation fastest)."""
    shares = np.asarray(shares, dtype=float)
    n = len(shares)
    base = (shares - luck / n) / (1.0 - luck)
    if np.any(base < 0):
        raise ValueError("every seat's share must be at least luck / players")
    games = deals * n
    rotation = np.tile(np.arange(n), deals)
    if regime == "none":
        lucky = rng.integers(n, size=games)
    elif regime == "hand":
        lucky = (np.repeat(rng.integers(n, size=deals), n) + rotation) % n
    elif regime == "seat":
        lucky = np.repeat(rng.integers(n, size=deals), n)
    else:
        raise ValueError(f"regime must be one of {REGIMES}")
    drawn = np.minimum(np.searchsorted(np.cumsum(base), rng.random(games)), n - 1)
    winner = np.where(rng.random(games) < luck, lucky, drawn)
    columns = {"deal": np.repeat(np.arange(deals), n), "rotation": rotation}
    for seat in range(n):
        won = winner == seat
        columns[f"win_{seat}"] = won
        # a score that follows the win and the luck, so scores are correlated within a deal too
        columns[f"score_{seat}"] = (10 * won + 3 * (lucky == seat) + rng.integers(0, 6, size=games)).astype(np.int64)
        # the policy of slot k sits at seat (k + r) % n in rotation r: it moves with the hand,
        # so in the "hand" regime the luck travels with a slot's policy
        columns[f"slot_{seat}"] = (seat - rotation) % n
    return columns


def cell_result(rng, shares, deals: int, regime: str, margin: float = 1.0, confidence: float = 0.95):
    """(seat rows, balance columns) of one simulated cell, as the report computes them."""
    n = len(shares)
    totals = summarize_columns(play_records(rng, shares, deals, regime), n, mixed=False, games_per_deal=n)
    cell = {"index": 0, "label": "calibration", "players": n, "rotate": True, "seats": ["p"] * n}
    return cell_balance(cell, totals, margin, confidence)


def replicate(shares, deals: int, regime: str, replications: int, seed: int, margin: float = 1.0):
    """Per replication: per-seat coverage (bool, seats), simultaneous coverage, verdict, p-value."""
    rng = np.random.default_rng(seed)
    shares = np.asarray(shares, dtype=float)
    covered, joint, verdicts, p_values = [], [], [], []
    for _ in range(replications):
        seats, balance = cell_result(rng, shares, deals, regime, margin)
        covered.append((seats["ci_low"].to_numpy() <= shares) & (shares <= seats["ci_high"].to_numpy()))
        joint.append(bool(np.all((seats["sim_low"].to_numpy() <= shares) & (shares <= seats["sim_high"].to_numpy()))))
        verdicts.append(balance["verdict"])
        p_values.append(balance["p_value"])
    return {
        "seat_coverage": float(np.mean(covered)),
        "joint_coverage": float(np.mean(joint)),
        "balanced": float(np.mean([v == "balanced" for v in verdicts])),
        "unbalanced": float(np.mean([v == "unbalanced" for v in verdicts])),
        "rejects_at_5": float(np.mean(np.array(p_values) < 0.05)),
    }


def precision_run(rng, shares, regime: str, target: float, start_deals: int = 250, chunk_deals: int = 125):
    """Precision mode's loop (runner.run_experiment) on the calibration game: a pilot of
    `start_deals`, then growth to the games `precision_games_needed` asks for, in whole chunks,
    until the shown simultaneous intervals meet `target`. Returns (totals, covered), covered
    saying whether every seat's shown simultaneous interval holds its true share."""
    n = len(shares)
    totals = summarize_columns(play_records(rng, shares, start_deals, regime), n, mixed=False, games_per_deal=n)
    while (needed := precision_games_needed(totals, target)) > totals.games:
        more = -(-max(-(-needed // n) - totals.deals, 1) // chunk_deals) * chunk_deals
        totals.merge(summarize_columns(play_records(rng, shares, more, regime), n, mixed=False, games_per_deal=n))
    intervals = stats.seat_intervals(totals.share_sum, totals.rated_games, totals.seat_design_effects())
    return totals, bool(np.all((intervals.sim_low <= shares) & (shares <= intervals.sim_high)))
