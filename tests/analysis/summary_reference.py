"""The chunk summary as numpy computed it before issue #25 moved it into numba kernels
(simulator/analysis/summary_kernels.py), kept as the reference the kernels must equal bit for
bit (test_summary_kernels.py). Not used by zoosim itself."""

from __future__ import annotations

from typing import Mapping

import numpy as np

from simulator.analysis.summary import (
    HISTOGRAM_LIMIT, CellTotals, _seat_bases, slot_pairwise_wins, summed_columns,
)
from simulator.logs import TURN_ORDER_GAME_COLUMNS, TURN_ORDER_SEAT_COLUMNS, unequal_turns


def numpy_summary(columns: Mapping[str, np.ndarray], players: int, mixed: bool, games_per_deal: int) -> CellTotals:
    """The totals of one chunk from its record columns (Parquet names: `c` and `c_0 .. c_{n-1}`).

    Per-seat columns are stacked seat-major, (players, games), so every sum runs over
    contiguous memory (this runs in the workers, for every chunk)."""
    n = players
    seat = {base: np.stack([columns[f"{base}_{s}"] for s in range(n)]) for base in _seat_bases(columns, n)}
    wins = seat["win"].astype(np.float64)
    scores = seat["score"].astype(np.float64)
    winners = wins.sum(axis=0)
    shares = np.divide(wins, winners, out=np.zeros(wins.shape), where=winners > 0)
    margins = scores - _best_other(scores)

    def per_deal(values: np.ndarray) -> np.ndarray:  # (rows, games) -> (rows, deals) means
        return _deal_sums(values, games_per_deal) / games_per_deal

    def deal_squares(values: np.ndarray) -> np.ndarray:  # (rows, games) -> (rows,)
        means = per_deal(values)
        return (means * means).sum(axis=1)

    deal_shares, deal_scores, deal_margins = per_deal(shares), per_deal(scores), per_deal(margins)
    slots = seat["slot"].astype(np.int64)
    slot_shares = np.stack([(shares * (slots == slot)).sum(axis=0) for slot in range(n)])  # (slots, games)
    deal_slots = per_deal(slot_shares)
    totals = CellTotals(
        players=n,
        mixed=mixed,
        games=len(winners),
        deals=deal_shares.shape[1],
        tied_games=int(np.count_nonzero(winners > 1)),
        deal_tied_sq_sum=float(deal_squares((winners > 1)[None, :].astype(np.float64))[0]),
        no_winner_games=int(np.count_nonzero(winners == 0)),
        share_sum=shares.sum(axis=1),
        share_sq_sum=(shares * shares).sum(axis=1),
        outright_wins=(wins * (winners == 1)).sum(axis=1),
        shared_wins=(wins * (winners > 1)).sum(axis=1),
        margin_sum=margins.sum(axis=1),
        margin_sq_sum=(margins * margins).sum(axis=1),
        deal_share_sum=deal_shares.sum(axis=1),
        deal_share_sq_sum=(deal_shares * deal_shares).sum(axis=1),
        deal_score_sum=deal_scores.sum(axis=1),
        deal_score_sq_sum=(deal_scores * deal_scores).sum(axis=1),
        deal_margin_sum=deal_margins.sum(axis=1),
        deal_margin_sq_sum=(deal_margins * deal_margins).sum(axis=1),
        slot_total_sq_sum=(slot_shares * slot_shares).sum(axis=1),
        deal_slot_sum=deal_slots.sum(axis=1),
        deal_slot_sq_sum=(deal_slots * deal_slots).sum(axis=1),
    )
    for s in range(n):
        totals.slot_share_sum[s] = np.bincount(slots[s], weights=shares[s], minlength=n)
        totals.slot_games[s] = np.bincount(slots[s], minlength=n)
    if mixed:
        totals.slot_pairwise_wins = slot_pairwise_wins(columns, seat, slots, n)
    for name, values in summed_columns(columns, seat, n):
        wide = values.astype(np.int64) if values.dtype.kind in "biu" else values.astype(np.float64)
        totals.column_sums[name] = wide.sum(axis=1)
        totals.column_squares[name] = (wide * wide).sum(axis=1)
        totals.deal_column_squares[name] = deal_squares(wide.astype(np.float64))
        totals.deal_total_squares[name] = float(deal_squares(wide.sum(axis=0, keepdims=True).astype(np.float64))[0])
        totals.histograms[name] = _histogram(wide.sum(axis=0)) if wide.dtype.kind == "i" else None
    _add_turn_order(totals, columns, seat, shares, winners, games_per_deal)
    return totals


def _deal_sums(values: np.ndarray, games_per_deal: int) -> np.ndarray:
    """(rows, games) -> (rows, deals): each deal's games added in order (a chunk holds whole
    deals, game g of deal d at d * games_per_deal + g). Divided by games_per_deal this is
    .mean(axis=2) of the (rows, deals, games_per_deal) view (bit for bit below 8 games per deal,
    where numpy's sum is not yet pairwise), without numpy's slow reduction over a short axis
    (issue #25)."""
    total = values[:, 0::games_per_deal].astype(np.float64)
    for game in range(1, games_per_deal):
        total += values[:, game::games_per_deal]
    return total


def _add_turn_order(totals: CellTotals, columns: Mapping[str, np.ndarray], seat: Mapping[str, np.ndarray],
                    shares: np.ndarray, winners: np.ndarray, games_per_deal: int) -> None:
    """The chunk's turn-order facts (CellTotals.turn_order_kept and what follows it), from its
    columns; logs without them (written before they existed) keep none."""
    from simulator.analysis.stats import ratio_moments

    if any(name not in columns for name in TURN_ORDER_GAME_COLUMNS) or any(base not in seat for base in TURN_ORDER_SEAT_COLUMNS):
        totals.turn_order_kept = False
        return
    seats = np.arange(totals.players)[:, None]
    totals.last_mover_games = np.count_nonzero(columns["last_mover"][None, :] == seats, axis=1).astype(np.float64)
    totals.ender_games = np.count_nonzero(columns["ender"][None, :] == seats, axis=1).astype(np.float64)
    unequal = unequal_turns(seat["seat_turns"].T)
    deal_games = np.full(totals.deals, float(games_per_deal))
    totals.unequal_moments = ratio_moments(_deal_sums(unequal[None, :], games_per_deal)[0], deal_games)
    for split, games in enumerate((unequal, ~unequal)):
        rated_games = _deal_sums(((winners > 0) & games)[None, :], games_per_deal)[0]
        split_shares = _deal_sums(shares * games, games_per_deal)
        for s in range(totals.players):
            totals.split_win_moments[split, s] = ratio_moments(split_shares[s], rated_games)


def _histogram(values: np.ndarray) -> np.ndarray | None:
    if len(values) == 0:
        return np.zeros(0, dtype=np.int64)
    if values.min() < 0 or values.max() >= HISTOGRAM_LIMIT:
        return None
    return np.bincount(values).astype(np.int64)


def _best_other(scores: np.ndarray) -> np.ndarray:
    """For each seat of a (players, games) array, the highest score among the other seats."""
    if len(scores) == 1:
        return np.zeros_like(scores)
    top = scores.max(axis=0)
    at_top = scores == top
    second = np.where(at_top, -np.inf, scores).max(axis=0)  # best below the top, if any
    second = np.where(np.count_nonzero(at_top, axis=0) > 1, top, second)  # a shared top
    return np.where(at_top, second, top)
