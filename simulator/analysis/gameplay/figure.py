"""What a gameplay figure is (issue #43, "one metric, one unit of code"): the `Figure` a unit
declares, the `CellGames` it reads, the tidy `ROW_COLUMNS` it returns, and the per-deal
reductions the units share.

A figure unit is one module of this package that calls `register(Figure(...))` at import. The
figure declares what it reads (per-game record columns, per-seat record bases, and whether it
reads the game's component columns, `Game.components`), how it reduces a cell's games to rows
with a 95% interval on the deal as the unit (`reduce`), and how the report shows it (`shown`:
the columns of its table). Comparison between two runs is the same for every figure
(`gameplay.compare_gameplay`), so a figure needs to declare nothing for it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Mapping

import numpy as np
import pandas as pd

from simulator.analysis import stats

# The tidy rows every figure returns, one per item (a percentile, an end reason, a component):
# `estimate` with its interval (`low`, `high`) in `unit`, over `games` games in `deals` deals,
# `method` naming how the interval was made, `flag` set when the item is out of line (a
# figure that flags nothing leaves it False).
ROW_COLUMNS = ("figure", "item", "estimate", "low", "high", "unit", "games", "deals", "method", "flag")


class Dealt:
    """Games with their deals (`deal`, one per game, the sampling unit): their count, their
    deals' count and the deals numbered for per-deal sums."""

    deal: np.ndarray

    @property
    def games(self) -> int:
        return len(self.deal)

    @property
    def deals(self) -> int:
        return len(np.unique(self.deal))

    def deal_codes(self) -> tuple[np.ndarray, int]:
        """(each game's deal numbered 0 .. D - 1, D), for per-deal sums with np.bincount."""
        _, codes = np.unique(self.deal, return_inverse=True)
        return codes, int(codes.max()) + 1 if len(codes) else 0


@dataclass(frozen=True)
class Trajectories(Dealt):
    """The per-round scores of a cell's trajectory sample (simulator/trajectories.py; a run keeps
    them for its cells' first `trajectory_deals` deals): `deal` (games,) each sampled game's deal,
    `rounds` (games,) its rounds, `scores` (games, max rounds, players) each seat's score after
    each round by the game's per-round score (Game.round_scores), a game's last row carried on
    past its end, and `win` (games, players) its winners."""

    deal: np.ndarray
    rounds: np.ndarray
    scores: np.ndarray
    win: np.ndarray

    def leaders(self) -> np.ndarray:
        """(games, max rounds) the seat leading alone after each round, -1 where the top score
        is shared (past a game's end: its final leader)."""
        top = self.scores.max(axis=2, keepdims=True)
        at_top = self.scores == top
        return np.where(at_top.sum(axis=2) == 1, at_top.argmax(axis=2), -1)

    def sole_winner(self) -> np.ndarray:
        """(games,) the seat that won alone, -1 for a shared win or none."""
        return np.where(self.win.sum(axis=1) == 1, self.win.argmax(axis=1), -1)

    def at_round(self, values: np.ndarray, rounds: np.ndarray) -> np.ndarray:
        """values[g, rounds[g] - 1] per game (round numbers from 1)."""
        return values[np.arange(self.games), rounds - 1]

    @classmethod
    def from_table(cls, table: Mapping[str, np.ndarray], players: int) -> "Trajectories":
        """From a trajectory file's columns (rundir.write_trajectories: one row per (game,
        round), a game's rows in round order from round 1)."""
        rounds_column = np.asarray(table["round"])
        starts = np.flatnonzero(rounds_column == 1)
        rounds = np.diff(np.append(starts, len(rounds_column)))
        longest = int(rounds.max()) if len(rounds) else 0
        scores = np.zeros((len(starts), longest, players))
        flat = np.stack([np.asarray(table[f"score_{seat}"], dtype=float) for seat in range(players)], axis=1)
        for index, (start, length) in enumerate(zip(starts, rounds)):
            scores[index, :length] = flat[start:start + length]
            scores[index, length:] = flat[start + length - 1]
        win = np.stack([np.asarray(table[f"win_{seat}"], dtype=bool)[starts] for seat in range(players)], axis=1)
        return cls(np.asarray(table["deal"])[starts], rounds, scores, win)


@dataclass(frozen=True)
class CellGames(Dealt):
    """A cell's finished games as the figures read them: per-game columns `(games,)` and per-seat
    columns `(games, players)` by their record name without the seat suffix, `deal` the deal
    of each game (the sampling unit), the end reasons' names and the game's components (per-seat
    column -> human name)."""

    players: int
    deal: np.ndarray
    game: Mapping[str, np.ndarray]
    seat: Mapping[str, np.ndarray]
    end_reasons: tuple[str, ...] = ()
    components: Mapping[str, str] = field(default_factory=dict)
    trajectories: Trajectories | None = None  # the cell's trajectory sample, if the run kept one

    def win_shares(self) -> tuple[np.ndarray, np.ndarray]:
        """(win shares (games, players), mask of games with a winner): a k-way shared win gives
        each winner 1/k, as in the seat table; games without a winner get zeros."""
        wins = np.asarray(self.seat["win"], dtype=float)
        winners = wins.sum(axis=1)
        shares = np.divide(wins, winners[:, None], out=np.zeros_like(wins), where=winners[:, None] > 0)
        return shares, winners > 0


@dataclass(frozen=True)
class Figure:
    """One per-cell figure: its `name` (the `figure` column of its rows), its `title` (the
    report's heading), what it reads, how it reduces (`reduce(games, confidence, options) ->
    rows`, options being `GameplayOptions`), which cells it applies to (`applies`, e.g. not to a
    solo cell) and the columns its report table shows (`shown`, (column, heading, style) as
    report.build.table_view takes them)."""

    name: str
    title: str
    reduce: Callable[[CellGames, float, "GameplayOptions"], pd.DataFrame]
    game_columns: tuple[str, ...] = ()
    seat_columns: tuple[str, ...] = ()
    reads_components: bool = False
    reads_trajectories: bool = False  # it reads the cell's trajectory sample (CellGames.trajectories)
    applies: Callable[[CellGames], bool] = lambda games: games.games > 0
    shown: tuple[tuple[str, str, str], ...] = (
        ("item", "", "text"), ("estimate", "estimate", "num"), ("low", "95% low", "num"),
        ("high", "95% high", "num"), ("unit", "unit", "text"), ("games", "games", "int"),
        ("deals", "deals", "int"),
    )
    note: str = ""  # a sentence the report prints under the figure's heading
    chart: Chart | None = None  # how the report draws it above its table; None: a table only
    order: int = 100  # place among the figures (report, tables): lower first


# The kinds of chart the report draws for a figure (report/charts.py `gameplay_chart`).
CHART_KINDS = ("bars", "curve", "forest", "length")


@dataclass(frozen=True)
class Chart:
    """How the report draws a figure (report/charts.py `gameplay_chart`), from its rows:
    - "bars": a bar per item (its estimate) with its interval, the items across;
    - "curve": a point per item with its interval, joined across the items;
    - "forest": a row per item, its estimate and interval across, zero and the ±`margin` column's
      band drawn (component strength);
    - "length": the cell's distribution of a game length (the report's length histogram): the
      first of `measures` that takes more than one value, the items in that unit marked
      (percentiles).
    `items` picks the rows drawn (default all), `tick` gives an item's short label, `value_label`
    names the value axis; `percent` shows shares as %."""

    kind: str
    title: str
    value_label: str
    percent: bool = False
    items: Callable[[Mapping[str, Any]], bool] = lambda row: True
    tick: Callable[[Mapping[str, Any]], str] = lambda row: str(row["item"])
    measures: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if self.kind not in CHART_KINDS:
            raise ValueError(f"a gameplay chart's kind is one of {', '.join(CHART_KINDS)}, got {self.kind!r}")


# The margin, in win-share points, beyond which a component's win-share difference is flagged
# out of line (when its whole interval lies beyond it), unless the designer sets another.
DEFAULT_COMPONENT_MARGIN_POINTS = 5.0


@dataclass(frozen=True)
class GameplayOptions:
    """What a designer sets for the figures: `component_margin_points`, the win-share
    difference (in points) beyond which a component counts as out of line."""

    component_margin_points: float = DEFAULT_COMPONENT_MARGIN_POINTS


FIGURES: dict[str, Figure] = {}


def register(figure: Figure) -> Figure:
    """Add a figure to the registry (each unit calls this once, at import), kept in `order`."""
    if figure.name in FIGURES:
        raise ValueError(f"two gameplay figures are named {figure.name!r}")
    ordered = sorted([*FIGURES.values(), figure], key=lambda known: (known.order, known.name))
    FIGURES.clear()
    FIGURES.update((known.name, known) for known in ordered)
    return figure


def item(name: str, interval: tuple[float, float, float], unit: str, **more: Any) -> dict[str, Any]:
    """One item of a figure: its name, (estimate, low, high), unit and any further columns."""
    estimate, low, high = interval
    return {"item": name, "estimate": estimate, "low": low, "high": high, "unit": unit, **more}


def rows(figure: str, items: list[dict[str, Any]], games: CellGames | None, method: str) -> pd.DataFrame:
    """A figure's tidy rows (ROW_COLUMNS, then any further keys of the items as columns of
    their own) from per-item dicts holding item, estimate, low, high, unit and optionally
    games, deals and flag (`item` makes them); no items, no rows."""
    if not items:
        return pd.DataFrame(columns=list(ROW_COLUMNS))
    frame = pd.DataFrame(items)
    frame.insert(0, "figure", figure)
    frame["games"] = frame["games"] if "games" in frame else games.games
    frame["deals"] = frame["deals"] if "deals" in frame else games.deals
    frame["method"] = method
    frame["flag"] = frame["flag"].astype(bool) if "flag" in frame else False
    return frame[[*ROW_COLUMNS, *(column for column in frame.columns if column not in ROW_COLUMNS)]]


def deal_share(codes: np.ndarray, deals: int, hits: np.ndarray, counted: np.ndarray, confidence: float):
    """(rate, low, high) of the share of counted items (games, or seats of games) that are hits,
    each item's deal in `codes` (0 .. deals - 1), the deal as the unit (stats.clustered_rate_interval)."""
    successes = np.bincount(codes, weights=(hits & counted).astype(float), minlength=deals)
    trials = np.bincount(codes, weights=counted.astype(float), minlength=deals)
    return stats.clustered_rate_interval(successes, trials, confidence)


def deal_mean(codes: np.ndarray, deals: int, values: np.ndarray, counted: np.ndarray, confidence: float):
    """(mean, low, high) of `values` over the counted items, each item's deal in `codes`, the
    deal as the unit. Method: the ratio mean sum(y_d) / sum(n_d) over deals (y_d the deal's
    summed values, n_d its counted items) with its Taylor-linearised variance D / (D - 1)
    sum_d (y_d - m n_d)^2 / N^2 and a t interval on D - 1 degrees of freedom (NaN below 2 deals
    with items). Reference: Cochran, W. G. (1977), Sampling Techniques, 3rd ed., Wiley, 6.13."""
    y = np.bincount(codes, weights=np.where(counted, values, 0.0), minlength=deals)
    n = np.bincount(codes, weights=counted.astype(float), minlength=deals)
    total = n.sum()
    used = int(np.count_nonzero(n))
    if total == 0 or used < 2:
        return (float(y.sum() / total) if total else float("nan")), float("nan"), float("nan")
    mean = float(y.sum() / total)
    variance = used / (used - 1) * float(np.square(y - mean * n).sum()) / total ** 2
    half = stats.two_sided_t(confidence, used - 1) * float(np.sqrt(variance))
    return mean, mean - half, mean + half


def clustered_share(games: CellGames, hits: np.ndarray, confidence: float, counted: np.ndarray | None = None):
    """(rate, low, high) of the share of games (those `counted`, default all) that are `hits`,
    the deal as the unit (stats.clustered_rate_interval)."""
    codes, deals = games.deal_codes()
    counted = np.ones(games.games, dtype=bool) if counted is None else counted
    return deal_share(codes, deals, hits, counted, confidence)


def sample_rows(figure: str, items: list[dict[str, Any]], sample: Trajectories, method: str) -> pd.DataFrame:
    """A trajectory figure's tidy rows (`rows`), its `games` and `deals` those of the trajectory
    sample (the sample size shown with every interval)."""
    return rows(figure, [{"games": sample.games, "deals": sample.deals, **entry} for entry in items], None, method)


# The columns a trajectory figure's report table shows: the sample's games and deals with the interval.
SAMPLE_SHOWN = (
    ("item", "", "text"), ("estimate", "estimate", "num"), ("low", "95% low", "num"), ("high", "95% high", "num"),
    ("unit", "unit", "text"), ("games", "sampled games", "int"), ("deals", "sampled deals", "int"),
)


def trajectory_figure(**fields: Any) -> Figure:
    """A figure of the cell's trajectory sample (`fields`: Figure's fields): it reads the sample,
    applies to games of two or more seats (it follows who leads), and its table shows the
    sample's games and deals (SAMPLE_SHOWN unless `fields` give `shown`)."""
    return Figure(**{"reads_trajectories": True, "applies": lambda games: games.players > 1, "shown": SAMPLE_SHOWN,
                     **fields})
