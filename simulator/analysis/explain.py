"""Explain studies: where a cell's largest seat deviation comes from (issue 24).

An explain study plays every cell once as written and once per subset of its mechanisms switched
off (`simulator.plan.explain_settings`); all these settings share the cell's seeds, so they play
the same deals in the same seat rotations (common random numbers). This module reads each
setting's per-deal win shares from its logs, pairs the settings deal by deal, and computes:

- the **deviation** to explain: the seat whose win share in the rules as written lies furthest
  from fair (1/n), in points (percentage points of win share);
- each mechanism's **Shapley share** of it (Shapley method): with v(S) the deviation removed by
  switching off the subset S, phi_i = sum over S without i of |S|! (k - |S| - 1)! / k! *
  (v(S + i) - v(S)). The shares sum to v(all) exactly, deal by deal (efficiency);
- each mechanism's **one-at-a-time effect** v({i}), the deviation removed by switching it off alone;
- the **unexplained rest**: the deviation minus the named shares (with Shapley, the deviation
  left when every mechanism is off);
- the **explained fraction**: the named shares' mean over the deviation's mean, a ratio of means
  over the paired deals, with its delta-method interval (stats.ratio_of_means_interval);
- **interactions**: a mechanism whose Shapley share and one-at-a-time effect differ (their per-deal
  difference's interval excludes 0) acts through the others;
- the **pairing gain**: how many times more games two independent runs of the rules as written and
  of every mechanism off would need for the same interval on the total effect (the variance of the
  difference of independent means over the variance of the paired per-deal difference), against
  independent runs with the same seat rotation (`pairing_gain`) and against independent single
  games, neither paired nor rotated (`design_gain`: what the whole design buys);
- the **changed deals**: the share of deals whose seat outcome (the explained seat's mean win
  share over the deal's rotations) differs between the two settings (`changed_deals` for every
  mechanism off, `alone_changed_deals` for each alone). A changed rule sends a deal down another
  game, and only unchanged deals cancel exactly in the paired difference: with a share p of the
  games changed by whole win/loss flips, the gain is about 2q(1 - q) / p (q the seat's win rate),
  so a rule that changes many deals cannot gain much from pairing (docs/findings.md).

Every other quantity is a mean over deals of a per-deal value (linear in the settings' per-deal
shares), so its interval is Student's t on deals - 1 degrees of freedom with the deal as the unit,
as the report's other mean intervals (docs/statistics.md, "Where the seat edge comes from").
Deals missing from some setting (a run still in progress) are left out of all of them.

With Shapley shares the deviation, the unexplained rest and the explained fraction depend on two
settings alone, the rules as written and every mechanism off, so a study may give those two more
games (`games_as_written_and_all_off`): their extra deals narrow those intervals, and the
selected seat, the deviation, the rest, the explained fraction, the pairing gains and the changed
deals come from the deals both of them played, the shares from the deals every setting played
(the first ones: a chunk's deal seeds depend on its index alone).
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from simulator.analysis import stats
from simulator.manifest_cell import ManifestCell
from simulator.rundir import iter_chunk_tables

POINTS = 100.0  # win shares are reported in points (percentage points)
# What the rest is called: with Shapley shares it is the deviation left with every mechanism off;
# one at a time it also holds the mechanisms' interactions.
REST_NAMES = {"shapley": "unexplained", "one_at_a_time": "unexplained or interactions"}
# Below this lower end of the explained fraction's interval a cell's named mechanisms are not
# shown to account for its seat edge, and its sentence points at the knobs not yet used as
# mechanisms (plan.unused_knobs) (issue #39's goal: at least 75% explained at the 95% level).
EXPLAINED_ENOUGH = 0.75


@dataclass
class ExplainAnalysis:
    """What the report shows of a run's explain studies."""

    cells: pd.DataFrame  # one row per explained cell (group): the deviation, its rest, the pairing gain
    shares: pd.DataFrame  # one row per (group, mechanism): Shapley share, one-at-a-time effect, interaction


def deal_shares(run_dir: Path, cell: ManifestCell) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(deal numbers, per-deal mean win share per seat, per-deal mean of its square: both
    (deals, players)) of a cell's verified chunks. A win shared by k seats gives each 1/k; a game
    without a winner gives nobody a share."""
    players = cell.players
    deals, sums, square_sums, counts = [], [], [], []
    for table in iter_chunk_tables(run_dir, cell, columns=["deal"] + [f"win_{seat}" for seat in range(players)]):
        wins = np.column_stack([table.column(f"win_{seat}").to_numpy(zero_copy_only=False) for seat in range(players)])
        shares = wins / np.maximum(wins.sum(axis=1, keepdims=True), 1)
        numbers, position = np.unique(table.column("deal").to_numpy(), return_inverse=True)
        for values, into in ((shares, sums), (np.square(shares), square_sums)):
            total = np.zeros((len(numbers), players))
            np.add.at(total, position, values)
            into.append(total)
        deals.append(numbers)
        counts.append(np.bincount(position, minlength=len(numbers))[:, None])
    if not deals:
        return np.zeros(0, dtype=np.int64), np.zeros((0, players)), np.zeros((0, players))
    numbers, count = np.concatenate(deals), np.concatenate(counts)
    order = np.argsort(numbers, kind="stable")
    return numbers[order], (np.concatenate(sums) / count)[order], (np.concatenate(square_sums) / count)[order]


def shapley_weights(mechanisms: int) -> dict[int, float]:
    """|S|! (k - |S| - 1)! / k! by the size |S| of a subset without the mechanism."""
    return {size: math.factorial(size) * math.factorial(mechanisms - size - 1) / math.factorial(mechanisms)
            for size in range(mechanisms)}


def per_deal_effects(deviation: dict[tuple[int, ...], np.ndarray], mechanisms: int, method: str) -> dict[str, np.ndarray]:
    """Per-deal effects from the chosen seat's per-deal deviation in each setting (subset of
    mechanisms switched off -> (deals,)): `total` (the deviation as written), `shares` (k, deals)
    (Shapley shares, or the one-at-a-time effects with method one_at_a_time), `alone` (k, deals)
    (one-at-a-time effects), `unexplained` (total minus the shares) and `all_off` (the deviation
    with every mechanism off)."""
    written = deviation[()]
    alone = np.array([written - deviation[(index,)] for index in range(mechanisms)])
    if method == "shapley":
        weights = shapley_weights(mechanisms)
        shares = np.zeros_like(alone)
        for subset, values in deviation.items():
            for index in range(mechanisms):
                if index not in subset:
                    with_index = tuple(sorted(subset + (index,)))
                    shares[index] += weights[len(subset)] * (values - deviation[with_index])
    else:
        shares = alone
    return {"total": written, "shares": shares, "alone": alone, "unexplained": written - shares.sum(axis=0),
            "all_off": deviation[tuple(range(mechanisms))]}


def interval(values: np.ndarray, confidence: float) -> tuple[float, float, float]:
    """(mean, low, high) of per-deal values, Student's t on deals - 1 degrees of freedom; no
    interval (NaN) from fewer than 2 deals."""
    mean = float(np.mean(values)) if len(values) else math.nan
    if len(values) < 2:
        return mean, math.nan, math.nan
    low, high = stats.mean_interval(values, confidence)
    return mean, float(low), float(high)


def pairing_gain(first: np.ndarray, second: np.ndarray) -> float:
    """How many times the deals two independent runs would need for the interval the paired
    difference `first - second` has: (var first + var second) / var(first - second); NaN when the
    difference does not vary (nothing to gain or measure)."""
    if len(first) < 2:
        return math.nan
    paired = float(np.var(first - second, ddof=1))
    return float((np.var(first, ddof=1) + np.var(second, ddof=1)) / paired) if paired > 0 else math.nan


def changed_share(first: np.ndarray, second: np.ndarray) -> float:
    """The share of deals whose per-deal value differs between two settings (the same deal
    played the same way gives exactly the same value)."""
    return float(np.mean(first != second)) if len(first) else math.nan


def design_gain(first: np.ndarray, second: np.ndarray, first_game_variance: float, second_game_variance: float,
                games_per_deal: int) -> float:
    """How many times the games two independent runs of single games (no pairing, no seat rotation)
    would need for the interval the paired, rotated difference `first - second` (per-deal means of
    `games_per_deal` games) has: ((per-game variances summed) / games per deal) / var(first - second)."""
    if len(first) < 2:
        return math.nan
    paired = float(np.var(first - second, ddof=1))
    return (first_game_variance + second_game_variance) / games_per_deal / paired if paired > 0 else math.nan


def explain_cell(shares_by_setting: dict[tuple[int, ...], np.ndarray], players: int, mechanisms: list[dict[str, Any]],
                 method: str, confidence: float = 0.95, squares_by_setting: dict[tuple[int, ...], np.ndarray] | None = None,
                 games_per_deal: int = 1, ends: dict[tuple[int, ...], tuple[np.ndarray, np.ndarray]] | None = None
                 ) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The explanation of one cell from its settings' paired per-deal seat shares (subset switched
    off -> (deals, players), the same deals in every setting): (cell row, one row per mechanism).
    With the per-deal means of the squared shares (`squares_by_setting`) and the games per deal,
    also the gain of the whole design (pairing and rotation) against independent games.
    `ends` (Shapley only): the rules as written and every mechanism off (subset -> (per-deal
    shares, per-deal squares)) on the deals both played, more than every setting played
    (`games_as_written_and_all_off`): the seat, the deviation, the unexplained rest (the
    deviation with every mechanism off) and the explained fraction come from them, the shares
    from the deals every setting played."""
    everything = tuple(range(len(mechanisms)))
    if ends is None:
        ends = {subset: (shares_by_setting[subset], None if squares_by_setting is None else squares_by_setting[subset])
                for subset in ((), everything)}
    written = ends[()][0]
    seat = int(np.argmax(np.abs(written.mean(axis=0) - 1.0 / players)))
    deviation = {subset: POINTS * (values[:, seat] - 1.0 / players) for subset, values in shares_by_setting.items()}
    effects = per_deal_effects(deviation, len(mechanisms), method)
    end_total, end_all_off = (POINTS * (ends[subset][0][:, seat] - 1.0 / players) for subset in ((), everything))
    # with Shapley shares the rest is the deviation with every mechanism off (efficiency)
    end_rest = end_all_off if method == "shapley" else effects["unexplained"]
    game_variance = {subset: POINTS ** 2 * (float(np.mean(squares[:, seat])) - float(np.mean(shares[:, seat])) ** 2)
                     for subset, (shares, squares) in ends.items()} if squares_by_setting is not None else None
    total, total_low, total_high = interval(end_total, confidence)
    rest, rest_low, rest_high = interval(end_rest, confidence)
    fraction, fraction_low, fraction_high = stats.ratio_of_means_interval(end_total - end_rest, end_total, confidence)
    row = {
        "seat": seat, "deals": len(end_total), "share_deals": len(effects["total"]), "method": method,
        "deviation": total, "deviation_low": total_low, "deviation_high": total_high,
        "unexplained": rest, "unexplained_low": rest_low, "unexplained_high": rest_high,
        "explained_fraction": fraction, "explained_fraction_low": fraction_low,
        "explained_fraction_high": fraction_high,
        "pairing_gain": pairing_gain(end_total, end_all_off),
        "changed_deals": changed_share(end_total, end_all_off),
        "design_gain": design_gain(end_total, end_all_off, game_variance[()], game_variance[everything],
                                   games_per_deal) if game_variance is not None else math.nan,
    }
    rows = []
    for index, mechanism in enumerate(mechanisms):
        share, share_low, share_high = interval(effects["shares"][index], confidence)
        alone, alone_low, alone_high = interval(effects["alone"][index], confidence)
        gap, gap_low, gap_high = interval(effects["shares"][index] - effects["alone"][index], confidence)
        rows.append({
            "mechanism": mechanism["name"], "rules": ", ".join(mechanism["rules"]),
            "knobs": ", ".join(f"{knob}: {json.dumps(value)}" for knob, value in mechanism["knobs"].items()),
            "share": share, "share_low": share_low, "share_high": share_high,
            "alone": alone, "alone_low": alone_low, "alone_high": alone_high,
            # Shapley share minus the effect alone: beyond its interval, the mechanism interacts
            "interaction": gap if method == "shapley" else math.nan,
            "interacts": bool(method == "shapley" and len(mechanisms) > 1 and (gap_low > 0 or gap_high < 0)),
            "alone_pairing_gain": pairing_gain(deviation[()], deviation[(index,)]),
            "alone_changed_deals": changed_share(deviation[()], deviation[(index,)]),
        })
    return row, rows


def explain_run(run_dir: Path, manifest: dict[str, Any], confidence: float = 0.95) -> ExplainAnalysis:
    """Every explained cell of a run: its settings' logs paired on the deals all of them have."""
    groups: dict[int, list[ManifestCell]] = {}
    for cell in manifest["cells"]:
        if cell.explain:
            groups.setdefault(cell.explain["group"], []).append(cell)
    cell_rows, share_rows = [], []
    for group, settings in groups.items():
        written = next(cell for cell in settings if cell.index == group)
        explain = written.explain
        names = [mechanism["name"] for mechanism in explain["mechanisms"]]
        read = {tuple(names.index(name) for name in cell.explain["off"]): deal_shares(run_dir, cell) for cell in settings}
        common = read[()][0]
        for numbers, _, _ in read.values():
            common = np.intersect1d(common, numbers)
        paired = {subset: shares[np.searchsorted(numbers, common)] for subset, (numbers, shares, _) in read.items()}
        squares = {subset: square[np.searchsorted(numbers, common)] for subset, (numbers, _, square) in read.items()}
        everything = tuple(range(len(names)))
        both_ends = np.intersect1d(read[()][0], read[everything][0])  # games_as_written_and_all_off
        ends = {subset: tuple(values[np.searchsorted(read[subset][0], both_ends)] for values in read[subset][1:])
                for subset in ((), everything)} if explain["method"] == "shapley" else None
        base = {"group": group, "label": written.label, "study": written.study, "game": written.game,
                "players": written.players, "seating": " / ".join(dict.fromkeys(written.seats)),
                "unused_knobs": explain.get("unused_knobs", [])}  # absent in runs from before it
        if len(common) < 2:
            cell_rows.append({**base, "deals": len(common), "share_deals": len(common)})
            continue
        row, rows = explain_cell(paired, written.players, explain["mechanisms"], explain["method"], confidence,
                                 squares, written.players if written.rotate else 1, ends)
        cell_rows.append({**base, **row})
        share_rows += [{"group": group, "label": written.label, **mechanism} for mechanism in rows]
    return ExplainAnalysis(pd.DataFrame(cell_rows), pd.DataFrame(share_rows))


def points_text(value: float, signed: bool = False) -> str:
    """1 decimal, a typographic minus; `signed` puts + before a positive value. A value that rounds
    to zero is 0.0, without a sign."""
    value = 0.0 if round(value, 1) == 0 else value
    text = f"{value:+.1f}" if signed and value else f"{value:.1f}"
    return text.replace("-", "−")


def ordered_shares(shares: pd.DataFrame) -> pd.DataFrame:
    """A cell's mechanisms by the size of their share, largest first (the sentence's and the
    waterfall's order)."""
    return shares.reindex(shares["share"].abs().sort_values(ascending=False, kind="stable").index)


def explain_sentence(cell: pd.Series, shares: pd.DataFrame) -> str:
    """The sentences of an explained cell, led by the finding: "Seat 0's +3.1 points from fair:
    the largest share, 2.2 points, from extra turns. Shares (Shapley shares): 2.2 [1.8, 2.6] from
    extra turns (K-3.5.1), 0.6 [0.3, 0.9] from ..., 0.3 [-0.1, 0.7] unexplained." Mechanisms by
    the size of their share; then how much is explained, interactions, and the pairing gain."""
    if cell.get("deals", 0) < 2 or pd.isna(cell.get("deviation")):
        return "not enough deals played in every setting yet to explain its seat edge."
    ordered = ordered_shares(shares)
    parts = []
    for _, share in ordered.iterrows():
        rules = f" ({share['rules']})" if share["rules"] else ""
        parts.append(f"{_with_interval(share['share'], share['share_low'], share['share_high'])} from "
                     f"{share['mechanism']}{rules}")
    parts.append(f"{_with_interval(cell['unexplained'], cell['unexplained_low'], cell['unexplained_high'])} "
                 f"{REST_NAMES[cell['method']]}")
    what = "Shapley shares" if cell["method"] == "shapley" else "one at a time"
    # The lead, the finding in at most about 120 characters (issue #41); the detail follows.
    sentence = f"Seat {int(cell['seat'])}'s {points_text(cell['deviation'], signed=True)} points from fair"
    if len(ordered):
        largest = ordered.iloc[0]
        sentence += f": the largest share, {points_text(largest['share'])} points, from {largest['mechanism']}"
    sentence += f". Shares ({what}): " + ", ".join(parts) + "."
    if cell.get("share_deals", cell["deals"]) < cell["deals"]:
        sentence += (f" The shares are from the {int(cell['share_deals']):,} deals every setting played; the "
                     f"deviation, the rest and the explained share from the {int(cell['deals']):,} deals of the "
                     "rules as written and every mechanism off.")
    if not pd.isna(cell["explained_fraction"]):
        sentence += f" The named mechanisms explain {_fraction_with_interval(cell)} of it."
    if much_unexplained(cell) and cell.get("unused_knobs"):
        sentence += (f" {not_shown_explained_text(cell)}: {len(cell['unused_knobs'])} of "
                     f"{cell['game']}'s knobs or knob groups are not yet used as mechanisms (the report lists them; "
                     f"`zoosim rules {cell['game']}`).")
    interacting = shares[shares["interacts"]]["mechanism"].tolist()
    if interacting:
        sentence += (f" Interactions: {', '.join(interacting)} "
                     f"{'acts' if len(interacting) == 1 else 'act'} differently alone than with the others.")
    if not pd.isna(cell["pairing_gain"]):
        sentence += (f" For the same interval on the total, pairing the settings' deals needs "
                     f"{times_fewer_text(cell['pairing_gain'])} games than independent runs with seat rotation")
        if not pd.isna(cell.get("design_gain", math.nan)):
            sentence += f", and {times_fewer_text(cell['design_gain'])} than independent single games"
        sentence += "."
        if not pd.isna(cell.get("changed_deals", math.nan)):
            sentence += (f" Switching every mechanism off changes the seat's outcome in {cell['changed_deals']:.0%} "
                         "of the deals (a changed deal plays another game, which bounds what pairing can save).")
    return sentence


def much_unexplained(cell: pd.Series) -> bool:
    """Whether the named mechanisms are not shown to account for EXPLAINED_ENOUGH of the cell's
    seat edge: the explained fraction's interval reaches below it, or it has none."""
    low = cell.get("explained_fraction_low", math.nan)
    return bool(pd.isna(low) or low < EXPLAINED_ENOUGH)


def not_shown_explained_text(cell: pd.Series) -> str:
    """Why the knobs not yet used are listed, in words: an explained share of 87% [70, 104] is not
    "less than 75% explained", but its interval does not show 75%."""
    low = cell.get("explained_fraction_low", math.nan)
    if pd.isna(low):
        return f"No interval shows {EXPLAINED_ENOUGH:.0%} of it explained yet"
    return f"Its interval does not show {EXPLAINED_ENOUGH:.0%} of it explained (its lower end: {low:.0%})"


def unused_knobs_text(cell: pd.Series) -> str:
    """The knobs not yet used as mechanisms in words: "animal_supply (N-1.2), geometry.* (N-2.1,
    N-2.2; 60 knobs), ..."."""
    return ", ".join(f"{group['name']} ({', '.join(group['rules'])}"
                     + (f"; {group['knobs']} knobs)" if group["knobs"] > 1 else ")")
                     for group in cell["unused_knobs"])


def times_fewer_text(gain: float) -> str:
    """A gain in games as words: 2.3 -> "2.3 times fewer", 0.9 -> "1.1 times more" (issue #41:
    "0.9x fewer games" said a loss as a gain)."""
    return f"{gain:.1f} times fewer" if gain >= 1 else f"{1 / gain:.1f} times more"


def _with_interval(value: float, low: float, high: float) -> str:
    if pd.isna(low):
        return points_text(value)
    return f"{points_text(value)} [{points_text(low)}, {points_text(high)}]"


def _fraction_with_interval(cell: pd.Series) -> str:
    """The explained fraction in percent with its interval: "97% [91, 104]"."""
    text = f"{cell['explained_fraction']:.0%}"
    low, high = cell.get("explained_fraction_low", math.nan), cell.get("explained_fraction_high", math.nan)
    if pd.isna(low):
        return text
    return f"{text} [{100 * low:.0f}, {100 * high:.0f}]".replace("-", "−")
