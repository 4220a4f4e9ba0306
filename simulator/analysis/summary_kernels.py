"""The chunk summary's numba kernels (issue #25): the sums `summary.summarize_columns` keeps, in
few passes over the record columns and without the interpreter lock, so that a worker thread's
summary costs little CPU and lets the other workers' Python run meanwhile.

Bit for bit what the numpy expressions they replace gave (tests/analysis/test_summary_kernels.py
compares them on both games and a plugin): integer sums are exact in any order, element-wise
float operations are the same IEEE operations in the same order, and every float sum over
games or deals runs in numpy's order (`pairwise_sum`). Arrays are seat-major, (rows, games): a
chunk holds whole deals, game g of deal d at column d * games_per_deal + g.

The kernels are cached with the game kernels (games/kernel_cache.py), which is imported first.
"""

from __future__ import annotations

from simulator.games import kernel_cache  # noqa: F401  (installs the cache locator before any kernel)

import numba
import numpy as np

# numpy's float sum of a contiguous run (numpy/_core/src/umath/loops_utils.h.src, pairwise_sum):
# under PAIRWISE_UNROLL values one by one; up to PAIRWISE_BLOCK values in PAIRWISE_UNROLL
# interleaved partial sums, added as a tree, then the rest one by one; a longer run split in two
# halves (the first a multiple of PAIRWISE_UNROLL long), each summed so.
PAIRWISE_UNROLL = 8
PAIRWISE_BLOCK = 128
# seat_statistics' seat sums: one row per summary.SEAT_FIELDS, in that order
SEAT_SUM_ROWS = 15


# deepest halving of pairwise_sum: far beyond 2**MAX_HALVINGS values
MAX_HALVINGS = 64


@numba.njit(nogil=True, cache=True)
def _block_sum(values: np.ndarray, start: int, count: int) -> float:
    """numpy's sum of a run of at most PAIRWISE_BLOCK values (pairwise_sum's leaves)."""
    if count < PAIRWISE_UNROLL:
        total = -0.0
        for i in range(start, start + count):
            total += values[i]
        return total
    r0, r1, r2, r3 = values[start], values[start + 1], values[start + 2], values[start + 3]
    r4, r5, r6, r7 = values[start + 4], values[start + 5], values[start + 6], values[start + 7]
    i = PAIRWISE_UNROLL
    unrolled = count - count % PAIRWISE_UNROLL
    while i < unrolled:
        at = start + i
        r0 += values[at]
        r1 += values[at + 1]
        r2 += values[at + 2]
        r3 += values[at + 3]
        r4 += values[at + 4]
        r5 += values[at + 5]
        r6 += values[at + 6]
        r7 += values[at + 7]
        i += PAIRWISE_UNROLL
    total = ((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7))
    while i < count:
        total += values[start + i]
        i += 1
    return total


@numba.njit(nogil=True, cache=True)
def pairwise_sum(values: np.ndarray, start: int, count: int) -> float:
    """numpy's sum of values[start : start + count] (float64), in numpy's order: its recursion
    (first half + second half) run on an explicit stack, since numba cannot load a cached
    recursive kernel safely (it crashed the process)."""
    if count <= PAIRWISE_BLOCK:
        return _block_sum(values, start, count)
    starts = np.empty(MAX_HALVINGS, dtype=np.int64)
    counts = np.empty(MAX_HALVINGS, dtype=np.int64)
    halves_done = np.zeros(MAX_HALVINGS, dtype=np.int64)  # 0: none yet, 1: the first half's sum is in `firsts`
    firsts = np.zeros(MAX_HALVINGS)
    top, returned = 0, 0.0
    starts[0], counts[0] = start, count
    while top >= 0:
        run_start, run_count = starts[top], counts[top]
        half = run_count // 2
        half -= half % PAIRWISE_UNROLL
        if run_count <= PAIRWISE_BLOCK:
            returned = _block_sum(values, run_start, run_count)
            top -= 1
        elif halves_done[top] == 0:  # sum the first half
            halves_done[top] = 1
            top += 1
            starts[top], counts[top], halves_done[top] = run_start, half, 0
        elif halves_done[top] == 1:  # keep the first half's sum, sum the second
            firsts[top] = returned
            halves_done[top] = 2
            top += 1
            starts[top], counts[top], halves_done[top] = run_start + half, run_count - half, 0
        else:
            returned = firsts[top] + returned
            top -= 1
    return returned


@numba.njit(nogil=True, cache=True)
def _sum(values: np.ndarray) -> float:
    """numpy's `values.sum()` of a contiguous float64 vector."""
    return 0.0 + pairwise_sum(values, 0, len(values))


@numba.njit(nogil=True, cache=True)
def _deal_means(values: np.ndarray, games_per_deal: int, means: np.ndarray) -> None:
    """Each deal's mean of a (games,) row into `means` (deals,): its games added in order, then
    divided (summary._deal_sums / games_per_deal)."""
    for deal in range(len(means)):
        first = deal * games_per_deal
        total = np.float64(values[first])
        for game in range(1, games_per_deal):
            total += np.float64(values[first + game])
        means[deal] = total / games_per_deal


@numba.njit(nogil=True, cache=True)
def _deal_moments(values: np.ndarray, games_per_deal: int, means: np.ndarray, squares: np.ndarray) -> tuple[float, float]:
    """(sum over deals of the per-deal mean, sum of its squares) of a (games,) row; `means` and
    `squares` are scratch of one float64 per deal."""
    _deal_means(values, games_per_deal, means)
    for deal in range(len(means)):
        squares[deal] = means[deal] * means[deal]
    return _sum(means), _sum(squares)


@numba.njit(nogil=True, cache=True)
def _row_moments(values: np.ndarray, squares: np.ndarray) -> tuple[float, float]:
    """(sum, sum of squares) of a contiguous float64 row; `squares` is scratch of its length."""
    for game in range(len(values)):
        squares[game] = values[game] * values[game]
    return _sum(values), _sum(squares)


@numba.njit(nogil=True, cache=True)
def seat_statistics(wins: np.ndarray, scores: np.ndarray, slots: np.ndarray, games_per_deal: int):
    """The seat statistics of a chunk: wins, scores (float64) and slots (int64), each (seats,
    games). Returns (shares (seats, games), winners (games,), counts [tied, no winner], the
    per-deal tie indicator's squared mean summed, seat sums (SEAT_SUM_ROWS, seats), slot_share_sum (seats, slots), slot_games (seats, slots))."""
    seats, games = wins.shape
    deals = games // games_per_deal
    winners = np.zeros(games)
    shares = np.zeros((seats, games))
    margins = np.zeros((seats, games))
    slot_shares = np.zeros((seats, games))  # (slots, games): the share of the policy in each slot
    outright = np.zeros((seats, games))
    shared = np.zeros((seats, games))
    tied = np.zeros(games)
    counts = np.zeros(2, dtype=np.int64)
    for game in range(games):
        total = 0.0
        for seat in range(seats):
            total += wins[seat, game]
        winners[game] = total
        counts[0] += total > 1
        counts[1] += total == 0
        tied[game] = 1.0 if total > 1 else 0.0
        # the best score among the other seats (summary._best_other's reading of a shared top)
        top = scores[0, game]
        for seat in range(1, seats):
            top = max(top, scores[seat, game])
        at_top, second = 0, -np.inf
        for seat in range(seats):
            if scores[seat, game] == top:
                at_top += 1
            else:
                second = max(second, scores[seat, game])
        if at_top > 1:
            second = top
        for seat in range(seats):
            share = wins[seat, game] / total if total > 0 else 0.0
            shares[seat, game] = share
            best_other = 0.0 if seats == 1 else (second if scores[seat, game] == top else top)
            margins[seat, game] = scores[seat, game] - best_other
            outright[seat, game] = wins[seat, game] * (total == 1)
            shared[seat, game] = wins[seat, game] * (total > 1)
            slot_shares[slots[seat, game], game] += share
    sums = np.zeros((SEAT_SUM_ROWS, seats))
    scratch, means, deal_squares = np.zeros(games), np.zeros(deals), np.zeros(deals)
    for seat in range(seats):
        sums[0, seat], sums[1, seat] = _row_moments(shares[seat], scratch)
        sums[2, seat] = _sum(outright[seat])
        sums[3, seat] = _sum(shared[seat])
        sums[4, seat], sums[5, seat] = _row_moments(margins[seat], scratch)
        sums[6, seat], sums[7, seat] = _deal_moments(shares[seat], games_per_deal, means, deal_squares)
        sums[8, seat], sums[9, seat] = _deal_moments(scores[seat], games_per_deal, means, deal_squares)
        sums[10, seat], sums[11, seat] = _deal_moments(margins[seat], games_per_deal, means, deal_squares)
        sums[12, seat] = _row_moments(slot_shares[seat], scratch)[1]
        sums[13, seat], sums[14, seat] = _deal_moments(slot_shares[seat], games_per_deal, means, deal_squares)
    tied_squares = _deal_moments(tied, games_per_deal, means, deal_squares)[1]
    slot_share_sum = np.zeros((seats, seats))
    slot_games = np.zeros((seats, seats))
    for seat in range(seats):
        for game in range(games):
            slot_share_sum[seat, slots[seat, game]] += shares[seat, game]
            slot_games[seat, slots[seat, game]] += 1
    return shares, winners, counts, tied_squares, sums, slot_share_sum, slot_games


@numba.njit(nogil=True, cache=True)
def integer_column_moments(values: np.ndarray, games_per_deal: int, histogram_limit: int):
    """The moments of an integer record column, (rows, games) int64 (a per-game column is one
    row): (per-row sums, per-row sums of squares (both int64, exact), per-row sums over deals of
    the squared per-deal mean, the same of the per-game total over the rows, the histogram of
    that total (np.bincount), and whether the totals fit one: all in 0 .. histogram_limit - 1).
    One pass over each row, deal by deal."""
    rows, games = values.shape
    deals = games // games_per_deal
    sums = np.zeros(rows, dtype=np.int64)
    squares = np.zeros(rows, dtype=np.int64)
    deal_squares = np.zeros(rows)
    totals = np.zeros(games, dtype=np.int64)
    squared_means = np.zeros(deals)
    for r in range(rows):
        row_sum, row_squares = 0, 0
        for deal in range(deals):
            first = deal * games_per_deal
            deal_total = 0.0
            for game in range(first, first + games_per_deal):
                value = values[r, game]
                row_sum += value
                row_squares += value * value
                totals[game] += value
                deal_total += np.float64(value)  # 0.0 + v0 is v0: summary._deal_sums' order
            mean = deal_total / games_per_deal
            squared_means[deal] = mean * mean
        sums[r], squares[r] = row_sum, row_squares
        deal_squares[r] = _sum(squared_means)
    means = np.zeros(deals)
    total_squares = _deal_moments(totals, games_per_deal, means, squared_means)[1]
    if games == 0:
        return sums, squares, deal_squares, total_squares, np.zeros(0, dtype=np.int64), True
    if totals.min() < 0 or totals.max() >= histogram_limit:
        return sums, squares, deal_squares, total_squares, np.zeros(0, dtype=np.int64), False
    histogram = np.zeros(totals.max() + 1, dtype=np.int64)
    for game in range(games):
        histogram[totals[game]] += 1
    return sums, squares, deal_squares, total_squares, histogram, True


@numba.njit(nogil=True, cache=True)
def float_column_moments(values: np.ndarray, games_per_deal: int):
    """`integer_column_moments` of a float64 column, without a histogram: float sums in numpy's
    order."""
    rows, games = values.shape
    sums, squares = np.zeros(rows), np.zeros(rows)
    row, scratch = np.zeros(games), np.zeros(games)
    for r in range(rows):
        row[:] = values[r]
        sums[r], squares[r] = _row_moments(row, scratch)
    deal_squares, total_squares = _deal_squares(values, games_per_deal, np.zeros(games))
    return sums, squares, deal_squares, total_squares


@numba.njit(nogil=True, cache=True)
def _deal_squares(values: np.ndarray, games_per_deal: int, totals: np.ndarray) -> tuple[np.ndarray, float]:
    """(per row of `values`, the squared per-deal mean summed over deals; the same of the
    per-game total over the rows, which is added into `totals` (games,), zeros on entry)."""
    rows, games = values.shape
    deals = games // games_per_deal
    means, scratch = np.zeros(deals), np.zeros(deals)
    deal_squares = np.zeros(rows)
    for r in range(rows):
        for game in range(games):
            totals[game] += values[r, game]
        deal_squares[r] = _deal_moments(values[r], games_per_deal, means, scratch)[1]
    return deal_squares, _deal_moments(totals, games_per_deal, means, scratch)[1]


@numba.njit(nogil=True, cache=True)
def _ratio_moments(successes: np.ndarray, trials: np.ndarray, out: np.ndarray, scratch: np.ndarray) -> None:
    """stats.ratio_moments of per-deal successes and trials into `out`; `scratch` holds one
    float64 per deal."""
    out[0] = _sum(successes)
    out[1] = _sum(trials)
    for deal in range(len(trials)):
        scratch[deal] = successes[deal] * successes[deal]
    out[2] = _sum(scratch)
    for deal in range(len(trials)):
        scratch[deal] = successes[deal] * trials[deal]
    out[3] = _sum(scratch)
    for deal in range(len(trials)):
        scratch[deal] = trials[deal] * trials[deal]
    out[4] = _sum(scratch)
    out[5] = np.count_nonzero(trials)


@numba.njit(nogil=True, cache=True)
def _deal_totals(values: np.ndarray, games_per_deal: int, totals: np.ndarray) -> None:
    """Each deal's games of a (games,) float64 row added in order, into `totals` (deals,)."""
    for deal in range(len(totals)):
        first = deal * games_per_deal
        total = values[first]
        for game in range(1, games_per_deal):
            total += values[first + game]
        totals[deal] = total


@numba.njit(nogil=True, cache=True)
def turn_order_moments(shares: np.ndarray, winners: np.ndarray, seat_turns: np.ndarray, last_mover: np.ndarray,
                       ender: np.ndarray, games_per_deal: int, moments: int, splits: int):
    """The turn-order facts of a chunk (summary.CellTotals' TURN_ORDER_FIELDS): shares and
    winners as `seat_statistics` gives them, seat_turns (seats, games) int64, last_mover and
    ender (games,) int64 seats (-1: none); `moments` = len(stats.RATIO_MOMENTS), `splits` =
    len(summary.TURN_ORDER_SPLITS) (unequal turns, then equal)."""
    seats, games = shares.shape
    deals = games // games_per_deal
    last_mover_games, ender_games = np.zeros(seats), np.zeros(seats)
    unequal = np.zeros(games)  # 1.0 where the game ended before some seat's turn of the last round
    for game in range(games):
        low, high = seat_turns[0, game], seat_turns[0, game]
        for seat in range(1, seats):
            low, high = min(low, seat_turns[seat, game]), max(high, seat_turns[seat, game])
        unequal[game] = 1.0 if low != high else 0.0
        if last_mover[game] >= 0:
            last_mover_games[last_mover[game]] += 1
        if ender[game] >= 0:
            ender_games[ender[game]] += 1
    successes, trials, scratch = np.zeros(deals), np.full(deals, float(games_per_deal)), np.zeros(deals)
    unequal_moments = np.zeros(moments)
    _deal_totals(unequal, games_per_deal, successes)
    _ratio_moments(successes, trials, unequal_moments, scratch)
    split_win_moments = np.zeros((splits, seats, moments))
    in_split, row = np.zeros(games), np.zeros(games)
    for split in range(splits):
        for game in range(games):
            inside = unequal[game] == (1.0 if split == 0 else 0.0)
            in_split[game] = 1.0 if inside and winners[game] > 0 else 0.0
        _deal_totals(in_split, games_per_deal, trials)
        for seat in range(seats):
            for game in range(games):
                inside = unequal[game] == (1.0 if split == 0 else 0.0)
                row[game] = shares[seat, game] * inside
            _deal_totals(row, games_per_deal, successes)
            _ratio_moments(successes, trials, split_win_moments[split, seat], scratch)
    return last_mover_games, ender_games, unequal_moments, split_win_moments
