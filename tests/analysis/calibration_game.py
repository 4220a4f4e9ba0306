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

The reference precision mode is measured against, the games the former precision mode played
(a data-blind Hoeffding confidence sequence, `hoeffding_sequence_games`), lives here too: the
product no longer uses it.
"""

from __future__ import annotations

import math

import numpy as np
from scipy import optimize

from simulator.analysis import stats
from simulator.analysis.summary import precision_games_needed, summarize_columns
from simulator.analysis.tables import cell_balance
from simulator.manifest_cell import ManifestCell

REGIMES = ("none", "hand", "seat")
# Hoeffding's lemma: a variable in [0, 1] is sub-Gaussian with variance proxy 1/4.
BOUNDED_VARIANCE_PROXY = 0.25
LUCK = 0.5  # probability that a game goes to its deal's lucky seat


# With `lengths`, a game's `turns` is TURNS_BASE plus a deal's length (uniform on 0 ..
# DEAL_TURNS - 1, the same in all its rotations) plus the game's own (0 .. GAME_TURNS - 1).
TURNS_BASE, DEAL_TURNS, GAME_TURNS = 20, 10, 5
MEAN_TURNS = TURNS_BASE + (DEAL_TURNS - 1) / 2 + (GAME_TURNS - 1) / 2


def expected_scores(shares) -> np.ndarray:
    """Each seat's true mean score: 10 per win share, 3 when lucky (1 / n of the games), and a
    uniform 0 .. 5."""
    shares = np.asarray(shares, dtype=float)
    return 10 * shares + 3 / len(shares) + 2.5


def play_records(rng: np.random.Generator, shares, deals: int, regime: str, luck: float = LUCK,
                 lengths: bool = False) -> dict[str, np.ndarray]:
    """Record columns of `deals` deals x players rotations, deal-major (rotation fastest); with
    `lengths` also a per-game `turns` column whose deal part is shared by the deal's rotations
    (drawn after the rest, so the other columns are the same either way)."""
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
    if lengths:
        columns["turns"] = TURNS_BASE + np.repeat(rng.integers(DEAL_TURNS, size=deals), n) + rng.integers(GAME_TURNS, size=games)
    return columns


def cell_result(rng, shares, deals: int, regime: str, margin: float = 1.0, confidence: float = 0.95):
    """(seat rows, balance columns) of one simulated cell, as the report computes them."""
    n = len(shares)
    totals = summarize_columns(play_records(rng, shares, deals, regime), n, mixed=False, games_per_deal=n)
    cell = ManifestCell.model_construct(index=0, label="calibration", players=n, rotate=True, seats=["p"] * n)
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


def hoeffding_sequence_halfwidth(trials, confidence: float = 0.95, tuned_trials: float = 100_000) -> np.ndarray:
    """Half-width of the former precision mode's anytime-valid confidence sequence for the mean
    of values in [0, 1] (finding 4 of issue 20: its width depends on the trials only).

    Method: Robbins' two-sided normal-mixture boundary. A value in [0, 1] is sub-Gaussian with
    variance proxy 1/4 (Hoeffding's lemma), so S_t = sum_{i<=t} (X_i - mu) has intrinsic time
    V_t = t / 4, and Ville's inequality gives, with alpha = 1 - confidence,
        P(exists t: |S_t| >= sqrt((V_t + rho) log((V_t + rho) / (rho alpha^2)))) <= alpha.
    rho makes the boundary tightest at `tuned_trials`: minimising over rho at V = v gives
    rho = v / u where u solves u - log(1 + u) = 2 log(1 / alpha).
    References: Robbins, H. (1970), Ann. Math. Statist. 41:1397-1409; Howard, S. R., Ramdas, A.,
    McAuliffe, J. and Sekhon, J. (2021), Ann. Statist. 49:1055-1080.
    """
    trials = np.asarray(trials, dtype=float)
    alpha = 1.0 - confidence
    log_term = 2.0 * math.log(1.0 / alpha)
    u = optimize.brentq(lambda u: u - math.log1p(u) - log_term, log_term, 2.0 * log_term + 10.0)
    rho = tuned_trials * BOUNDED_VARIANCE_PROXY / u
    intrinsic_time = trials * BOUNDED_VARIANCE_PROXY
    return np.sqrt((intrinsic_time + rho) * np.log((intrinsic_time + rho) / (rho * alpha * alpha))) / trials


def hoeffding_sequence_games(target: float, seats: int, start: int = 1000) -> int:
    """The games the former precision mode played for `target`: it doubled from `start` until
    its Hoeffding confidence sequence (Bonferroni over the seats, tuned to 1.5 / sqrt(t)) was
    narrow enough."""
    games = start
    tuned = (1.5 / target) ** 2
    while hoeffding_sequence_halfwidth(games, stats.bonferroni_confidence(0.95, seats), tuned_trials=tuned) > target:
        games *= 2
    return games
