"""Sufficient statistics of a set of games (`CellTotals`): computed per chunk, merged per cell.

A worker summarizes each chunk it plays (`summarize_columns`) and the run folder keeps the
summary in the chunk's sidecar (rundir.py). The analysis merges a cell's summaries
(`merged_summaries`) instead of re-reading its logs, so a report costs the same however many
games a run has; `zoosim report --from-logs` summarizes the Parquet files again instead
(tables.py), which gives the same numbers.

Generic over the record columns: every per-game column `c` and per-seat column `c` (Parquet
`c_0 .. c_{n-1}`) gets its sum and sum of squares (per seat), and an integer column with small
non-negative values a histogram (a per-seat column: of its total over the seats in each game).
A column a game adds to its records is therefore summarized without a change here. On top come
what the seat statistics need (tables.py's conventions): win shares (a win shared by k players
counts 1/k), score margins, per-deal mean shares, scores and margins, and the per-deal means'
squares of every column and of the tie indicator (the deal is the sampling unit under seat
rotation: stats.design_effects), shares by seat x slot,
and, where different policies meet, placements between slots by batch of deals (jackknife).

Merging adds sums and pads histograms, so it is associative: any grouping of chunks gives the
same totals (exactly for counts and integer columns; floating sums up to rounding, and the
analysis merges in chunk order, so a run's numbers never depend on --jobs or on resuming).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping

import numpy as np

from simulator.logs import TURN_ORDER_GAME_COLUMNS, TURN_ORDER_SEAT_COLUMNS
from simulator.manifest_cell import ManifestCell

# Tournament strengths get jackknife intervals over this many batches of deals: the games of one
# deal (its seat rotations) and the placements within one game are correlated, which the
# Bradley-Terry Fisher intervals would ignore.
JACKKNIFE_BATCHES = 20
# Record columns that identify a game rather than describe it.
IDENTIFIERS = ("cell", "game_index", "deal", "seed", "rotation", "players", "slot")
# Histograms are kept for integer columns whose values lie in 0 .. HISTOGRAM_LIMIT - 1.
HISTOGRAM_LIMIT = 10_000
# Seat statistics, each an array of shape (players,) (sums over games, or over deals for deal_*).
SEAT_FIELDS = ("share_sum", "share_sq_sum", "outright_wins", "shared_wins", "margin_sum", "margin_sq_sum",
               "deal_share_sum", "deal_share_sq_sum", "deal_score_sum", "deal_score_sq_sum",
               "deal_margin_sum", "deal_margin_sq_sum", "slot_total_sq_sum", "deal_slot_sum", "deal_slot_sq_sum")
# Per-deal moments added after the first summaries were written: a summary without them reads as
# NaN there, so the intervals that need them under seat rotation (score, margin, policy win
# rates) are not shown.
LATER_SEAT_FIELDS = ("deal_score_sum", "deal_score_sq_sum", "deal_margin_sum", "deal_margin_sq_sum",
                     "slot_total_sq_sum", "deal_slot_sum", "deal_slot_sq_sum")
COUNT_FIELDS = ("games", "deals", "tied_games", "no_winner_games")
# Sums over deals of a squared per-deal mean kept as plain numbers (the tie indicator's), added
# after the first summaries were written: NaN when a summary lacks them, like LATER_SEAT_FIELDS.
LATER_SCALAR_FIELDS = ("deal_tied_sq_sum",)
ARRAY_FIELDS = SEAT_FIELDS + ("slot_share_sum", "slot_games", "slot_pairwise_wins")
# The turn-order facts (turn_order.py), added after the first summaries were written: a summary
# without them (or of logs without their columns) has none, and the report says so.
TURN_ORDER_FIELDS = ("last_mover_games", "ender_games", "unequal_moments", "split_win_moments")
# The games a seat's win rate is split into by the turn-order facts (split_win_moments' first axis).
TURN_ORDER_SPLITS = ("unequal", "equal")


@dataclass
class CellTotals:
    """Sums over a set of games of one cell (a chunk, or every finished chunk of the cell)."""

    players: int
    mixed: bool = False  # different policies meet: placements between slots are counted
    games: int = 0
    deals: int = 0
    tied_games: int = 0
    no_winner_games: int = 0
    deal_tied_sq_sum: float = 0.0  # per-deal share of tied games, squared, summed over deals
    share_sum: np.ndarray = field(default=None)  # (n,) win share per seat
    share_sq_sum: np.ndarray = field(default=None)
    outright_wins: np.ndarray = field(default=None)  # (n,) sole winner
    shared_wins: np.ndarray = field(default=None)  # (n,) among several winners
    margin_sum: np.ndarray = field(default=None)  # (n,) own score minus the best other score
    margin_sq_sum: np.ndarray = field(default=None)
    deal_share_sum: np.ndarray = field(default=None)  # (n,) per-deal mean share, summed over deals
    deal_share_sq_sum: np.ndarray = field(default=None)
    deal_score_sum: np.ndarray = field(default=None)  # (n,) per-deal mean score, summed over deals
    deal_score_sq_sum: np.ndarray = field(default=None)
    deal_margin_sum: np.ndarray = field(default=None)  # (n,) per-deal mean margin, summed over deals
    deal_margin_sq_sum: np.ndarray = field(default=None)
    # (n slots,) the win share of the policy in each seating slot, wherever it sits: the sum over
    # games of its square, and its per-deal mean summed over deals with the sum of its squares
    slot_total_sq_sum: np.ndarray = field(default=None)
    deal_slot_sum: np.ndarray = field(default=None)
    deal_slot_sq_sum: np.ndarray = field(default=None)
    slot_share_sum: np.ndarray = field(default=None)  # (n seats, n slots) share by seat and slot
    slot_games: np.ndarray = field(default=None)  # (n seats, n slots)
    # (JACKKNIFE_BATCHES, slots, slots): [b, i, j] = how often slot i placed above slot j in the
    # games of deals d with d % JACKKNIFE_BATCHES == b (deals are never split between batches);
    # zeros unless mixed
    slot_pairwise_wins: np.ndarray = field(default=None)
    column_sums: dict[str, np.ndarray] = field(default_factory=dict)  # per seat (n,), per game (1,)
    column_squares: dict[str, np.ndarray] = field(default_factory=dict)
    # per column, over deals: the per-deal mean's square summed, per seat (n,) or per game (1,),
    # and the same of the per-game total over the seats (a number); NaN in a summary written
    # before they were kept
    deal_column_squares: dict[str, np.ndarray] = field(default_factory=dict)
    deal_total_squares: dict[str, float] = field(default_factory=dict)
    histograms: dict[str, np.ndarray | None] = field(default_factory=dict)  # None: values too wide
    # Turn-order facts (logs.TURN_ORDER_*), meaningful only while `turn_order_kept`: games in
    # which each seat moved last / ended the game (n,); the deal moments (stats.RATIO_MOMENTS)
    # of the share of games that ended before some seat's turn of the last round (unequal
    # turns, logs.unequal_turns) over all games, (len(RATIO_MOMENTS),); and of each seat's win
    # share over the rated games of each TURN_ORDER_SPLITS, (splits, n, len(RATIO_MOMENTS)).
    turn_order_kept: bool = True
    last_mover_games: np.ndarray = field(default=None)
    ender_games: np.ndarray = field(default=None)
    unequal_moments: np.ndarray = field(default=None)
    split_win_moments: np.ndarray = field(default=None)

    def __post_init__(self) -> None:
        from simulator.analysis.stats import RATIO_MOMENTS

        n = self.players
        for name in SEAT_FIELDS + ("last_mover_games", "ender_games"):
            if getattr(self, name) is None:
                setattr(self, name, np.zeros(n))
        if self.slot_share_sum is None:
            self.slot_share_sum = np.zeros((n, n))
            self.slot_games = np.zeros((n, n))
            self.slot_pairwise_wins = np.zeros((JACKKNIFE_BATCHES, n, n))
        if self.unequal_moments is None:
            self.unequal_moments = np.zeros(len(RATIO_MOMENTS))
            self.split_win_moments = np.zeros((len(TURN_ORDER_SPLITS), n, len(RATIO_MOMENTS)))

    # ---- what the analysis reads ----

    @property
    def rated_games(self) -> int:
        """Denominator of seat win rates: games that had a winner (a game stopped without one,
        e.g. at a safety cap, says nothing about seats); in a solo game every game counts."""
        return self.games if self.players == 1 else self.games - self.no_winner_games

    @property
    def score_sum(self) -> np.ndarray:
        return self.column_sums["score"].astype(np.float64)

    @property
    def score_sq_sum(self) -> np.ndarray:
        return self.column_squares["score"].astype(np.float64)

    def histogram(self, column: str) -> np.ndarray:
        """Games per value of an integer column (of its per-game total over seats, for a
        per-seat column)."""
        counts = self.histograms.get(column)
        return np.zeros(0, dtype=np.int64) if counts is None else counts

    def moments(self, column: str) -> tuple[float, float]:
        """(sum, sum of squares) over games of an integer column's per-game value (total over
        the seats for a per-seat column), from its histogram."""
        counts = self.histogram(column)
        values = np.arange(len(counts), dtype=np.float64)
        return float(values @ counts), float((values**2) @ counts)

    def seat_design_effects(self, floor: float | None = None) -> np.ndarray:
        """Each seat's design effect for its win share (`stats.design_effects`; floored at
        `stats.DESIGN_EFFECT_FLOOR` unless `floor` says otherwise): 1 without rotation."""
        from simulator.analysis import stats

        floor = stats.DESIGN_EFFECT_FLOOR if floor is None else floor
        return stats.design_effects(self.games, self.deals, self.share_sum, self.share_sq_sum,
                                    self.deal_share_sum, self.deal_share_sq_sum, floor)

    def slot_design_effects(self) -> np.ndarray:
        """Each seating slot's design effect for its policy's win share (over all seats it took):
        1 without rotation; NaN for a summary written before the moments were kept."""
        from simulator.analysis import stats

        return stats.design_effects(self.games, self.deals, self.slot_share_sum.sum(axis=0), self.slot_total_sq_sum,
                                    self.deal_slot_sum, self.deal_slot_sq_sum)

    def column_design_effects(self, column: str) -> np.ndarray:
        """The design effects of a record column's per-game mean, per seat ((1,) for a per-game
        column): 1 without rotation; NaN for a summary written before the moments were kept."""
        from simulator.analysis import stats

        total = self.column_sums[column].astype(np.float64)
        return stats.design_effects(self.games, self.deals, total, self.column_squares[column],
                                    total * self.deals / max(self.games, 1), self.deal_column_squares[column])

    def total_design_effect(self, column: str) -> float:
        """The design effect of the mean per game of an integer column's total over the seats
        (`moments`), as for `column_design_effects`."""
        from simulator.analysis import stats

        total, total_sq = self.moments(column)
        return float(stats.design_effects(self.games, self.deals, total, total_sq, total * self.deals / max(self.games, 1),
                                          self.deal_total_squares[column]))

    def tie_design_effect(self) -> float:
        """The design effect of the share of tied games (a game's tie indicator is 0 or 1, so
        its sum of squares is its sum), as for `column_design_effects`."""
        from simulator.analysis import stats

        tied = float(self.tied_games)
        return float(stats.design_effects(self.games, self.deals, tied, tied, tied * self.deals / max(self.games, 1),
                                          self.deal_tied_sq_sum))

    # ---- merging and storing ----

    def merge(self, other: "CellTotals") -> "CellTotals":
        """Add another set of games of the same cell to these totals (in place)."""
        for name in COUNT_FIELDS + LATER_SCALAR_FIELDS + ARRAY_FIELDS + TURN_ORDER_FIELDS:
            setattr(self, name, getattr(self, name) + getattr(other, name))
        self.turn_order_kept = self.turn_order_kept and other.turn_order_kept
        for mine, theirs in ((self.column_sums, other.column_sums), (self.column_squares, other.column_squares),
                             (self.deal_column_squares, other.deal_column_squares),
                             (self.deal_total_squares, other.deal_total_squares)):
            for column, values in theirs.items():
                mine[column] = mine[column] + values if column in mine else np.copy(values)
        for column, counts in other.histograms.items():
            if column not in self.histograms:
                self.histograms[column] = None if counts is None else counts.copy()
            else:
                self.histograms[column] = _add_padded(self.histograms[column], counts)
        return self

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"players": self.players, "mixed": self.mixed}
        data.update({name: getattr(self, name) for name in COUNT_FIELDS + LATER_SCALAR_FIELDS})
        data.update({name: getattr(self, name).tolist() for name in ARRAY_FIELDS})
        data["column_sums"] = {c: v.tolist() for c, v in self.column_sums.items()}
        data["column_squares"] = {c: v.tolist() for c, v in self.column_squares.items()}
        data["deal_column_squares"] = {c: v.tolist() for c, v in self.deal_column_squares.items()}
        data["deal_total_squares"] = dict(self.deal_total_squares)
        data["histograms"] = {c: None if v is None else v.tolist() for c, v in self.histograms.items()}
        if self.turn_order_kept:
            data.update({name: getattr(self, name).tolist() for name in TURN_ORDER_FIELDS})
        return data

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> "CellTotals":
        nan = float("nan")
        column_sums = {c: np.asarray(v) for c, v in data["column_sums"].items()}
        turn_order_kept = all(name in data for name in TURN_ORDER_FIELDS)
        return cls(
            players=data["players"],
            mixed=data["mixed"],
            **{name: int(data[name]) for name in COUNT_FIELDS},
            **{name: np.asarray(data[name], dtype=np.float64) for name in ARRAY_FIELDS if name in data},
            **{name: np.full(data["players"], np.nan) for name in LATER_SEAT_FIELDS if name not in data},
            **{name: float(data.get(name, nan)) for name in LATER_SCALAR_FIELDS},
            column_sums=column_sums,
            column_squares={c: np.asarray(v) for c, v in data["column_squares"].items()},
            deal_column_squares={c: np.asarray(data["deal_column_squares"][c], dtype=np.float64) if "deal_column_squares" in data
                                 else np.full(len(v), nan) for c, v in column_sums.items()},
            deal_total_squares={c: float(data["deal_total_squares"][c]) if "deal_total_squares" in data else nan
                                for c in column_sums},
            histograms={c: None if v is None else np.asarray(v, dtype=np.int64) for c, v in data["histograms"].items()},
            turn_order_kept=turn_order_kept,
            **{name: np.asarray(data[name], dtype=np.float64) for name in TURN_ORDER_FIELDS if turn_order_kept},
        )


def summarize_columns(columns: Mapping[str, np.ndarray], players: int, mixed: bool, games_per_deal: int) -> CellTotals:
    """The totals of one chunk from its record columns (Parquet names: `c` and `c_0 .. c_{n-1}`).

    Per-seat columns are stacked seat-major, (players, games), and summed by the numba kernels
    of summary_kernels.py, which run without the interpreter lock (this runs in the workers, for
    every chunk; issue #25)."""
    from simulator.analysis import summary_kernels as kernels
    from simulator.analysis.stats import RATIO_MOMENTS

    n = players
    seat = {base: np.stack([columns[f"{base}_{s}"] for s in range(n)]) for base in _seat_bases(columns, n)}
    slots = seat["slot"].astype(np.int64)
    shares, winners, counts, tied_squares, seat_sums, slot_share_sum, slot_games = kernels.seat_statistics(
        seat["win"].astype(np.float64), seat["score"].astype(np.float64), slots, games_per_deal)
    totals = CellTotals(
        players=n,
        mixed=mixed,
        games=len(winners),
        deals=len(winners) // games_per_deal,
        tied_games=int(counts[0]),
        no_winner_games=int(counts[1]),
        deal_tied_sq_sum=float(tied_squares),
        **dict(zip(SEAT_FIELDS, seat_sums)),
    )
    totals.slot_share_sum, totals.slot_games = slot_share_sum, slot_games
    if mixed:
        totals.slot_pairwise_wins = slot_pairwise_wins(columns, seat, slots, n)
    for name, values in summed_columns(columns, seat, n):
        if values.dtype.kind in "biu":
            sums, squares, deal_squares, total_squares, histogram, fits = kernels.integer_column_moments(
                np.ascontiguousarray(values, dtype=np.int64), games_per_deal, HISTOGRAM_LIMIT)
            totals.histograms[name] = histogram if fits else None
        else:
            sums, squares, deal_squares, total_squares = kernels.float_column_moments(
                np.ascontiguousarray(values, dtype=np.float64), games_per_deal)
            totals.histograms[name] = None
        totals.column_sums[name], totals.column_squares[name] = sums, squares
        totals.deal_column_squares[name], totals.deal_total_squares[name] = deal_squares, float(total_squares)
    if all(name in columns for name in TURN_ORDER_GAME_COLUMNS) and all(base in seat for base in TURN_ORDER_SEAT_COLUMNS):
        (totals.last_mover_games, totals.ender_games, totals.unequal_moments,
         totals.split_win_moments) = kernels.turn_order_moments(
            shares, winners, seat["seat_turns"].astype(np.int64), columns["last_mover"].astype(np.int64),
            columns["ender"].astype(np.int64), games_per_deal, len(RATIO_MOMENTS), len(TURN_ORDER_SPLITS))
    else:  # logs written before the turn-order facts existed
        totals.turn_order_kept = False
    return totals


def compile_summary_kernels() -> None:
    """Summarize a made-up chunk of two games, so that numba compiles (or loads from its cache)
    the kernels of summary_kernels.py that every game's chunks call, with the argument types
    they pass: summarize_columns converts every column to int64 or float64 first, so those types
    do not depend on the game. The runner's warm-up calls this once per run, apart from the
    games' own warm-ups (runner._compile_kernels). Integer columns only, as the shipped games
    record: a plugin with a float column compiles float_column_moments in its workers."""
    from simulator.logs import record_columns

    players, games = 2, 2
    played = {
        "turns": np.array([3, 4], dtype=np.int16),
        "score": np.array([[2, 1], [1, 1]], dtype=np.int16),
        "win": np.array([[True, False], [True, True]]),
    }
    records = record_columns(played, first_game=0, games_per_deal=games, seeds=np.arange(games, dtype=np.uint64),
                             rotations=np.arange(games, dtype=np.int64))
    summarize_columns(records, players, mixed=False, games_per_deal=games)


def slot_pairwise_wins(columns: Mapping[str, np.ndarray], seat: Mapping[str, np.ndarray], slots: np.ndarray,
                       players: int) -> np.ndarray:
    """CellTotals.slot_pairwise_wins of a chunk: placements between slots by batch of deals."""
    from simulator.analysis.stats import pairwise_wins_from_ranks

    return pairwise_wins_from_ranks(seat["rank"].T, slots.T, players, groups=columns["deal"] % JACKKNIFE_BATCHES,
                                    n_groups=JACKKNIFE_BATCHES)


def summed_columns(columns: Mapping[str, np.ndarray], seat: Mapping[str, np.ndarray],
                   players: int) -> list[tuple[str, np.ndarray]]:
    """(name, (rows, games) values) of every record column the summary sums: the per-game ones
    (one row each), then the per-seat ones (stacked in `seat`), identifiers left out."""
    game_columns = [name for name in columns if name not in IDENTIFIERS and not _is_seat_column(name, seat, players)]
    return [(name, columns[name][None, :]) for name in game_columns] + [
        (base, values) for base, values in seat.items() if base not in IDENTIFIERS]


def _seat_bases(columns: Mapping[str, Any], players: int) -> list[str]:
    """Names `c` of per-seat columns: those present as `c_0 .. c_{players-1}`."""
    bases = {name.rsplit("_", 1)[0] for name in columns if name.endswith("_0")}
    return [base for base in sorted(bases) if all(f"{base}_{s}" in columns for s in range(players))]


def _is_seat_column(name: str, seat: Mapping[str, Any], players: int) -> bool:
    base, _, number = name.rpartition("_")
    return base in seat and number.isdigit() and int(number) < players


def _add_padded(total: np.ndarray | None, counts: np.ndarray | None) -> np.ndarray | None:
    if total is None or counts is None:
        return None
    size = max(len(total), len(counts))
    out = np.zeros(size, dtype=np.int64)
    out[: len(total)] += total
    out[: len(counts)] += counts
    return out


def empty_totals(cell: ManifestCell) -> CellTotals:
    return CellTotals(players=cell.players, mixed=len(set(cell.seats)) > 1)


def merged_summaries(run_dir: Path, cell: ManifestCell) -> CellTotals:
    """A cell's totals: the summaries of its verified chunks, merged in chunk order."""
    from simulator.rundir import verified_chunks

    totals = empty_totals(cell)
    for sidecar in verified_chunks(run_dir, cell, set_aside=False, read_logs=False).values():
        totals.merge(CellTotals.from_json(sidecar["summary"]))
    return totals


# Precision mode asks for this much more than the games at which the shown intervals' width is
# projected to meet the target, so that rounding and the rates' drift rarely need another round.
PRECISION_GAMES_SLACK = 1.01
# A projection more than this many times the games played so far is approached in two steps
# (half of it first, then projected again from the larger sample): a small pilot's design
# effects are noisy, and games played on an overestimate cannot be taken back.
PRECISION_PROJECTION_STEP = 4


def precision_halfwidth(totals: CellTotals, confidence: float = 0.95) -> float:
    """Precision mode's measure: the widest seat's half-width of the simultaneous interval the
    report shows (`stats.seat_intervals`, the deal as the unit); infinite without games."""
    from simulator.analysis import stats  # scipy: only for the parent's precision check

    if totals.rated_games < 2:
        return float("inf")
    intervals = stats.seat_intervals(totals.share_sum, totals.rated_games, totals.seat_design_effects(), confidence)
    return float(np.max((intervals.sim_high - intervals.sim_low) / 2))


def precision_games_needed(totals: CellTotals, target: float, confidence: float = 0.95) -> int:
    """Games the cell needs for its shown intervals to reach the half-width `target`, projected
    from its games so far (the pilot): a half-width h at n games shrinks as 1 / sqrt(n) at fixed
    rates and design effects, so n (h / target)^2 games, times `PRECISION_GAMES_SLACK` (half of
    that when it exceeds `PRECISION_PROJECTION_STEP` times n); the games played when the target
    is met.

    Method: sample-size re-estimation from an internal pilot (Stein 1945; Wittes and Brittain
    1990): the count depends on the pilot only through the rates' variances and the design
    effects, not on how far a rate lies from any boundary, so the final fixed-count intervals
    keep their level (the calibration suite checks it). It is not an anytime-valid sequence:
    do not stop a precision run by watching the page.
    References: Stein, C. (1945), A two-sample test for a linear hypothesis whose power is
    independent of the variance, Ann. Math. Statist. 16:243-258; Wittes, J. and Brittain, E.
    (1990), The role of internal pilot studies in increasing the efficiency of clinical trials,
    Statistics in Medicine 9:65-72.
    """
    reached = precision_halfwidth(totals, confidence)
    if reached <= target:
        return totals.games
    if not np.isfinite(reached):
        return 2 * max(totals.games, 1)
    projected = totals.games * (reached / target) ** 2 * PRECISION_GAMES_SLACK
    if projected > PRECISION_PROJECTION_STEP * totals.games:
        projected /= 2
    return int(np.ceil(projected))
