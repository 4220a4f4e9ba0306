"""From a run folder's logs to the tables a report shows.

Each cell's sums (`CellTotals`) are merged from the summaries the workers wrote beside the logs
(summary.py), or recomputed from the logs one chunk at a time with `from_logs`; either way
analysis memory and time do not grow with the number of games. Tables are then pandas DataFrames with plain
column names; the report renders them and offers each as CSV.

Conventions:
- *Win share*: a game's win is split between its winners (a 3-way shared win gives each 1/3), so
  seat shares sum to 1 per game and a fair seat's expected share is 1/n. Rates are win shares per
  game with Wilson intervals on the share sum (the score interval accepts fractional counts),
  counted on the effective games: the deal, with all its rotations, is the sampling unit
  (`stats.design_effects`, docs/statistics.md).
- *Score margin* of a seat: its score minus the best score among the other seats.
- *Deal*: with seat rotation a deal is played once per rotation; the per-deal mean of a seat's
  share is what the common-random-numbers design averages, and comparing its variance with the
  single-game variance gives the variance reduction shown in the report.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from simulator.analysis import stats
from simulator.analysis.summary import (
    JACKKNIFE_BATCHES, CellTotals, empty_totals, merged_summaries, precision_halfwidth, summarize_columns,
)
from simulator.analysis.turn_order import TurnOrder, turn_order_from_totals
from simulator.manifest_cell import ManifestCell
from simulator.rundir import each_warning_once, iter_chunk_tables


def summarize_cell(run_dir: Path, cell: ManifestCell, from_logs: bool = False) -> CellTotals:
    """A cell's totals over its verified chunks: their summaries merged, or (`from_logs`) every
    chunk's Parquet file summarized again, which gives the same totals."""
    if not from_logs:
        return merged_summaries(run_dir, cell)
    totals = empty_totals(cell)
    games_per_deal = cell.players if cell.rotate else 1
    for table in iter_chunk_tables(run_dir, cell):
        columns = {name: table.column(name).to_numpy() for name in table.column_names}
        totals.merge(summarize_columns(columns, cell.players, totals.mixed, games_per_deal))
    return totals


@dataclass
class Analysis:
    """Everything the report shows, as tables."""

    cells: pd.DataFrame  # one row per cell: uniformity test, verdict, lengths
    seats: pd.DataFrame  # one row per (cell, seat)
    policies: pd.DataFrame  # one row per (cell, policy) for mixed seatings
    lengths: pd.DataFrame  # one row per (cell, measure, value): histogram counts
    measures: pd.DataFrame  # one row per (cell, seat measure, seat): mean with its interval
    ratings: pd.DataFrame  # one row per (study, policy) of tournaments: strength and seat effect
    ladder_seats: pd.DataFrame  # one row per (ladder study, players, rung, seat): Elo and deviation
    ladder: pd.DataFrame  # one row per (ladder study, players): the verdict across rungs
    totals: dict[int, CellTotals]
    # one row per (ladder study, players, seat): what holds for the seat across the top two rungs
    ladder_claims: pd.DataFrame = field(default_factory=pd.DataFrame)
    # per seat-bias cell (2+ players): its turn-order facts, None for a run that predates them
    turn_order: dict[int, TurnOrder | None] = field(default_factory=dict)
    # table name -> cell -> its rows, built on first use by `of_cell`
    _cell_rows: dict[str, dict[int, pd.DataFrame]] = field(default_factory=dict, repr=False, compare=False)

    def of_cell(self, table: str, cell: int) -> pd.DataFrame:
        """The rows of a per-cell table (`cells`, `seats`, `lengths`, `measures`, `policies`) of
        one cell, as `frame[frame["cell"] == cell]` gives them, from an index built on first use:
        a report and a comparison look up every cell's rows, and a mask over the whole table per
        cell costs cells x rows (minutes at 10,000 cells)."""
        frame = getattr(self, table)
        if table not in self._cell_rows:
            groups = frame.groupby("cell", sort=False) if len(frame) else ()
            self._cell_rows[table] = {int(key): rows for key, rows in groups}
        rows = self._cell_rows[table].get(int(cell))
        return frame.iloc[0:0] if rows is None else rows


MIN_GAMES = 2  # an interval needs a spread: at least 2 games, and 2 with a winner for win rates


def analysable(totals: CellTotals) -> bool:
    """Whether a cell's games give its tables: a cell with fewer (none played yet, a single
    game, or games that all stopped without a winner) is listed without numbers."""
    return totals.games >= MIN_GAMES and totals.rated_games >= MIN_GAMES


def analyze_run(run_dir: Path, manifest: dict[str, Any], confidence: float = 0.95, from_logs: bool = False) -> Analysis:
    with each_warning_once():  # a damaged chunk is named in one line, however many readers meet it
        return _analyze_run(run_dir, manifest, confidence, from_logs)


def _analyze_run(run_dir: Path, manifest: dict[str, Any], confidence: float, from_logs: bool) -> Analysis:
    margin = float(manifest["experiment"].get("margin_points", 1.0))
    cell_rows, seat_rows, policy_rows, length_rows, measure_rows = [], [], [], [], []
    totals_by_cell: dict[int, CellTotals] = {}
    turn_orders: dict[int, TurnOrder | None] = {}
    for cell in manifest["cells"]:
        totals = summarize_cell(run_dir, cell, from_logs)
        totals_by_cell[cell.index] = totals
        if not analysable(totals):
            continue
        if cell.players > 1:
            turn_orders[cell.index] = turn_order_from_totals(totals, confidence)
        seat_columns = _seat_columns(cell, totals, confidence)
        balance = _balance_columns(cell.players, totals, seat_columns, margin, confidence)
        seat_rows.append(seat_columns)
        measure_rows.append(_measure_rows(cell, totals, confidence))
        row = {
            "cell": cell.index,
            "label": cell.label,
            "game": cell.game,
            "players": cell.players,
            "seating": " / ".join(dict.fromkeys(cell.seats)),
            **{f"sweep:{k}": _cell_value(v) for k, v in cell.sweep_values.items()},
            "games": totals.games,
            "deals": totals.deals,
            "no_winner_rate": totals.no_winner_games / totals.games,
            **balance,
            "tie_rate": totals.tied_games / totals.games,
            "tie_rate_se": stats.mean_standard_error(totals.games, totals.tied_games, totals.tied_games,
                                                     totals.tie_design_effect()),
            **_precision_columns(manifest["experiment"]["games"], totals),
            "crn_gain": _crn_gain(totals),
        }
        for column in cell.length_columns:
            row.update(length_mean_columns(totals, column, confidence))
            histogram = totals.histogram(column)
            for value in np.flatnonzero(histogram):
                length_rows.append(
                    {"cell": cell.index, "label": cell.label, "measure": column,
                     "value": int(value), "games": int(histogram[value])}
                )
        reasons = cell.end_reasons
        for code, count in enumerate(totals.histogram("end_reason")):
            name = reasons[code] if code < len(reasons) else f"reason {code}"
            row[f"end:{name}"] = count / totals.games
        cell_rows.append(row)
        if len(set(cell.seats)) > 1:
            policy_rows.append(_policy_rows(cell, totals, confidence))
    cells = pd.DataFrame(cell_rows)
    ratings = [_study_ratings(study_cells, totals_by_cell, confidence) for study_cells in _mixed_studies(manifest, totals_by_cell)]
    if len(cells):
        tested = cells["p_value"].notna()
        cells["p_holm"] = np.nan
        cells.loc[tested, "p_holm"] = stats.holm_adjust(cells.loc[tested, "p_value"].to_numpy())
    seats = _joined_columns(seat_rows)
    ratings = pd.concat(ratings, ignore_index=True) if ratings else pd.DataFrame()
    ladder_seats = _ladder_seat_rows(manifest, cells, seats, ratings)
    ladder, ladder_claims = _ladder_rows(ladder_seats, margin, confidence)
    return Analysis(
        cells=cells,
        seats=seats,
        policies=pd.concat(policy_rows, ignore_index=True) if policy_rows else pd.DataFrame(),
        lengths=pd.DataFrame(length_rows),
        measures=_measures_table(measure_rows),
        ratings=ratings,
        ladder_seats=ladder_seats,
        ladder=ladder,
        ladder_claims=ladder_claims,
        totals=totals_by_cell,
        turn_order=turn_orders,
    )


def _cell_value(value: Any) -> Any:
    """A knob value as a table cell: lists and groups (per-seat knobs) as their JSON text, so that
    tables can group and compare them."""
    return json.dumps(value) if isinstance(value, (list, dict)) else value


def cell_balance(cell: ManifestCell, totals: CellTotals, margin: float, confidence: float) -> tuple[pd.DataFrame, dict[str, Any]]:
    """One analysable cell's seat rows (rates and their intervals) and its balance columns (test,
    verdict, sentence): what the report shows of a cell's seats, and what the calibration suite
    (tests/analysis/test_calibration.py) checks."""
    seats = _seat_columns(cell, totals, confidence)
    return pd.DataFrame(seats), _balance_columns(cell.players, totals, seats, margin, confidence)


def _joined_columns(per_cell: list[dict[str, Any]]) -> pd.DataFrame:
    """One table from every cell's columns of equal length (`_seat_columns`): numeric columns
    joined as arrays, text columns as lists, so the table is what concatenating a DataFrame per
    cell gave, at a fraction of its cost (a 10,000-cell run)."""
    if not per_cell:
        return pd.DataFrame()
    return pd.DataFrame({
        name: (np.concatenate([rows[name] for rows in per_cell]) if isinstance(per_cell[0][name], np.ndarray)
               else [value for rows in per_cell for value in rows[name]])
        for name in per_cell[0]
    })


def _balance_columns(
    players: int, totals: CellTotals, seats: dict[str, Any], margin: float, confidence: float
) -> dict[str, Any]:
    """Seat uniformity test (Rao-Scott corrected for deal correlation), effect sizes and the
    equivalence verdict in words, all with the deal as the sampling unit; a solo cell has no
    seats to compare and reports its win rate instead."""
    rates, lows, highs = (seats[c] for c in ("win_rate", "sim_low", "sim_high"))
    tost_lows, tost_highs, effects = (seats[c] for c in ("tost_low", "tost_high", "design_effect"))
    if players == 1:
        return {
            "chi2": np.nan, "p_value": np.nan, "max_deviation_points": np.nan, "cohens_w": np.nan,
            "most_deviant_seat": np.nan, "max_signed_deviation_points": np.nan, "games_to_decide": np.nan,
            "design_effect": float(effects[0]), "verdict": "solo",
            "sentence": f"Solo win rate {rates[0]:.1%} (95% interval {lows[0]:.1%} to {highs[0]:.1%}).",
        }
    uniformity = stats.seat_uniformity(totals.share_sum, totals.rated_games, effects)
    worst = int(uniformity.most_deviant_seat)
    verdict = stats.equivalence_verdict(rates, lows, highs, players, margin, tost_lows, tost_highs)
    return {
        "chi2": float(uniformity.chi_square),
        "p_value": float(uniformity.p_value),
        "max_deviation_points": float(uniformity.max_deviation_points),
        # the same deviation with its sign: negative when the most deviant seat wins too rarely
        "most_deviant_seat": worst,
        "max_signed_deviation_points": float((rates[worst] - 1.0 / players) * 100),
        "cohens_w": float(uniformity.cohens_w),
        "design_effect": float(np.max(effects)),
        "verdict": verdict,
        "games_to_decide": (
            stats.games_to_decide(rates, totals.rated_games, players, margin, confidence, effects)
            if verdict == "inconclusive" else np.nan
        ),
        "sentence": stats.verdict_sentence(
            rates, lows, highs, players, margin_points=margin, confidence=confidence, games=totals.rated_games,
            tost_lows=tost_lows, tost_highs=tost_highs, effects=effects,
        ),
    }


def length_mean_columns(totals: CellTotals, column: str, confidence: float) -> dict[str, float]:
    """A game-length column's mean per game (its total over the seats, for a per-seat column)
    with its t interval and standard error, the deal as the unit (design effect from the
    per-deal means, deals - 1 degrees of freedom): `mean_<column>`, `_low`, `_high`, `_se`."""
    total, total_sq = totals.moments(column)
    effect = totals.total_design_effect(column)
    low, high = stats.mean_interval_from_moments(totals.games, total, total_sq, confidence, effect, totals.deals)
    return {
        f"mean_{column}": total / totals.games,
        f"mean_{column}_low": float(low),
        f"mean_{column}_high": float(high),
        f"mean_{column}_se": stats.mean_standard_error(totals.games, total, total_sq, effect),
    }


def _precision_columns(games_setting: Any, totals: CellTotals) -> dict[str, float]:
    if not isinstance(games_setting, dict):
        return {}
    return {
        "target_halfwidth": games_setting["until"]["halfwidth"],
        "reached_halfwidth": precision_halfwidth(totals),
    }


def _share_variance_ratio(share_sq_sum, rate, rated) -> np.ndarray:
    """Per seat: the variance of a game's win share over rate (1 - rate); NaN without the moments."""
    if share_sq_sum is None:
        return np.full_like(rate, np.nan)
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = (np.asarray(share_sq_sum, dtype=float) / rated - rate**2) / (rate * (1 - rate))
    return np.where(rate * (1 - rate) > 0, ratio, np.nan)


def _seat_columns(cell: ManifestCell, totals: CellTotals, confidence: float) -> dict[str, Any]:
    """A cell's seat rows as columns of one length per seat (numeric ones as arrays, text ones
    as lists), joined over the cells by `_joined_columns`."""
    n, games, rated, deals = cell.players, totals.games, totals.rated_games, totals.deals
    effects = totals.seat_design_effects()
    intervals = stats.seat_intervals(totals.share_sum, rated, effects, confidence)
    score_effects = stats.design_effects(games, deals, totals.score_sum, totals.score_sq_sum,
                                         totals.deal_score_sum, totals.deal_score_sq_sum)
    margin_effects = stats.design_effects(games, deals, totals.margin_sum, totals.margin_sq_sum,
                                          totals.deal_margin_sum, totals.deal_margin_sq_sum)
    score_low, score_high = stats.mean_interval_from_moments(
        games, totals.score_sum, totals.score_sq_sum, confidence, score_effects, deals)
    margin_low, margin_high = stats.mean_interval_from_moments(
        games, totals.margin_sum, totals.margin_sq_sum, confidence, margin_effects, deals)
    rate = totals.share_sum / rated
    solo = n == 1  # nothing to compare a lone seat with: no deviation from fair, no margin
    undefined = np.full(n, np.nan)
    mixed_and_rotating = cell.rotate and len(set(cell.seats)) > 1
    return {
        "cell": np.full(n, cell.index, dtype=np.int64),
        "label": [cell.label] * n,
        "seat": np.arange(n),
        "policy": ["(all, rotating)"] * n if mixed_and_rotating else list(cell.seats),
        "games": np.full(n, rated, dtype=np.int64),
        "design_effect": effects,
        "effective_games": rated / effects,  # Kish: as many independent games would do as well
        "win_rate": rate,
        "ci_low": intervals.low,
        "ci_high": intervals.high,
        "sim_low": intervals.sim_low,
        "sim_high": intervals.sim_high,
        "tost_low": intervals.tost_low,  # 1 - 2 alpha: the equivalence verdict's intervals
        "tost_high": intervals.tost_high,
        "rate_se": np.sqrt(rate * (1 - rate) * effects / rated),  # standard error, deal as the unit
        # a game's win share varies less than a win (0 or 1) when wins are shared: the share's
        # variance over rate (1 - rate), the intervals' variance (1 without shared wins)
        "share_variance_ratio": _share_variance_ratio(totals.share_sq_sum, rate, rated),
        "deviation_points": undefined if solo else (rate - 1.0 / n) * 100,
        "outright_wins": totals.outright_wins.astype(np.int64),
        "shared_wins": totals.shared_wins.astype(np.int64),
        "mean_score": totals.score_sum / games,
        "score_low": score_low,
        "score_high": score_high,
        "mean_margin": undefined if solo else totals.margin_sum / games,
        "margin_low": undefined if solo else margin_low,
        "margin_high": undefined if solo else margin_high,
    }


MEASURE_COLUMNS = ("cell", "label", "column", "measure", "seat", "games", "mean", "ci_low", "ci_high")


def _measure_rows(cell: ManifestCell, totals: CellTotals, confidence: float) -> dict[str, list]:
    """Mean per game of each of the game's seat measures (`Game.seat_measures`) at each seat,
    with a t interval from the per-seat sums and sums of squares over all games of the cell, the
    deal as the unit (design effect and deals - 1 degrees of freedom). As columns (MEASURE_COLUMNS)
    of values, joined over all cells by `_measures_table`: a DataFrame per cell would cost more
    than the numbers."""
    n, games = cell.players, totals.games
    rows: dict[str, list] = {name: [] for name in MEASURE_COLUMNS}
    for column, name in cell.seat_measures:
        total, total_sq = totals.column_sums[column], totals.column_squares[column]
        low, high = stats.mean_interval_from_moments(games, total, total_sq, confidence,
                                                     totals.column_design_effects(column), totals.deals)
        for key, value in (("cell", cell.index), ("label", cell.label), ("column", column),
                           ("measure", name), ("games", games)):
            rows[key] += [value] * n
        rows["seat"] += range(n)
        for key, values in (("mean", total / games), ("ci_low", low), ("ci_high", high)):
            rows[key] += np.broadcast_to(values, n).tolist()
    return rows


def _measures_table(per_cell: list[dict[str, list]]) -> pd.DataFrame:
    """The measures table from every cell's columns (`_measure_rows`); empty without a measure."""
    if not any(rows["cell"] for rows in per_cell):
        return pd.DataFrame()
    return pd.DataFrame({name: [value for rows in per_cell for value in rows[name]] for name in MEASURE_COLUMNS})


def _policy_rows(cell: ManifestCell, totals: CellTotals, confidence: float) -> pd.DataFrame:
    """Win rate of each seating slot's policy over all seats, and per seat (seat x policy)."""
    rows = []
    effects = totals.slot_design_effects()
    for slot, policy in enumerate(cell.seats):
        games = totals.slot_games[:, slot].sum()
        share = totals.slot_share_sum[:, slot].sum()
        effective = games / effects[slot]  # the deal as the unit
        low, high = stats.wilson_interval(np.array([share / games * effective]), np.array([effective]), confidence)
        row = {
            "cell": cell.index, "label": cell.label, "slot": slot, "policy": policy,
            "games": int(games), "win_rate": share / games, "ci_low": float(low[0]), "ci_high": float(high[0]),
        }
        for seat in range(cell.players):
            seat_games = totals.slot_games[seat, slot]
            row[f"seat_{seat}_rate"] = totals.slot_share_sum[seat, slot] / seat_games if seat_games else np.nan
        rows.append(row)
    return pd.DataFrame(rows)


def _crn_gain(totals: CellTotals) -> float:
    """Variance reduction of the seat win-rate estimates bought by replaying deals in rotation:
    the inverse of the seats' design effects (unfloored), averaged over seats. 1.0 means rotation
    bought nothing; 3.0 means each game counted as much as three games on independent deals
    would have; infinite when rotation removed all deal luck."""
    effects = totals.seat_design_effects(floor=0.0)
    with np.errstate(divide="ignore"):
        return float(np.mean(np.where(effects > 0, 1.0 / effects, np.inf)))


def _mixed_studies(manifest: dict[str, Any], totals_by_cell: dict[int, CellTotals]) -> list[list[ManifestCell]]:
    """Cells of each study in which different policies meet and whose games can be analysed,
    grouped by study (an interrupted run may not have played every cell yet)."""
    studies: dict[str, list[ManifestCell]] = {}
    for cell in manifest["cells"]:
        if len(set(cell.seats)) > 1 and analysable(totals_by_cell[cell.index]):
            studies.setdefault(cell.study, []).append(cell)
    return list(studies.values())


def _study_ratings(cells: list[ManifestCell], totals_by_cell: dict[int, CellTotals], confidence: float) -> pd.DataFrame:
    """Bradley-Terry strength (Elo scale) of each policy over a study's mixed cells, its pooled
    win rate, and the seat x policy interaction: how much more often the policy wins from the
    first seat than on average over the seats it played."""
    policies = list(dict.fromkeys(label for cell in cells for label in cell.seats))
    index = {label: i for i, label in enumerate(policies)}
    k = len(policies)
    pairwise = np.zeros((JACKKNIFE_BATCHES, k, k))
    share, games, effective = np.zeros(k), np.zeros(k), np.zeros(k)
    first_share, first_games = np.zeros(k), np.zeros(k)
    fair_share = np.zeros(k)
    for cell in cells:
        totals = totals_by_cell[cell.index]
        ids = np.array([index[label] for label in cell.seats])
        for batch in range(JACKKNIFE_BATCHES):
            np.add.at(pairwise[batch], (ids[:, None], ids[None, :]), totals.slot_pairwise_wins[batch])
        np.add.at(share, ids, totals.slot_share_sum.sum(axis=0))
        np.add.at(games, ids, totals.slot_games.sum(axis=0))
        np.add.at(effective, ids, totals.slot_games.sum(axis=0) / totals.slot_design_effects())
        np.add.at(fair_share, ids, totals.slot_games.sum(axis=0) / cell.players)
        np.add.at(first_share, ids, totals.slot_share_sum[0])
        np.add.at(first_games, ids, totals.slot_games[0])
    elo, low, high = _jackknife_elo(pairwise, confidence)
    # the pooled rate's interval counts each cell's games as its effective games (deal as the unit)
    rate_low, rate_high = stats.wilson_interval(share / games * effective, effective, confidence)
    with np.errstate(divide="ignore", invalid="ignore"):
        first_rate = first_share / first_games
    return pd.DataFrame(
        {
            "study": cells[0].study,
            "policy": policies,
            "games": games.astype(np.int64),
            "win_rate": share / games,
            "ci_low": rate_low,
            "ci_high": rate_high,
            "fair_rate": fair_share / games,
            "elo": elo,
            "elo_low": low,
            "elo_high": high,
            "first_seat_advantage_points": (first_rate - share / games) * 100,
        }
    )


def _ladder_seat_rows(manifest: dict[str, Any], cells: pd.DataFrame, seats: pd.DataFrame,
                      ratings: pd.DataFrame) -> pd.DataFrame:
    """Per ladder study, player count, rung and seat: the rung's Elo (from the study's
    head-to-heads, one scale over all player counts) and the seat's signed deviation from fair
    in its self-play cell, with the simultaneous interval the cell verdict uses (points)."""
    ladders = [study.get("name") or study["game"] for study in manifest["experiment"]["studies"] if study.get("ladder")]
    rows = []
    for cell in manifest["cells"]:
        if cell.study not in ladders or len(set(cell.seats)) > 1 or cell.players < 2:
            continue
        found = cells[cells["cell"] == cell.index] if len(cells) else cells
        if len(found) == 0:
            continue  # not played yet
        rung, n = cell.seats[0], cell.players
        rating = ratings[(ratings["study"] == cell.study) & (ratings["policy"] == rung)] if len(ratings) else ratings
        elo = rating.iloc[0][["elo", "elo_low", "elo_high"]].to_numpy(dtype=float) if len(rating) else np.full(3, np.nan)
        cell_seats = seats[seats["cell"] == cell.index]
        rows.append(pd.DataFrame({
            "study": cell.study, "players": n, "rung": rung, "cell": cell.index,
            "elo": elo[0], "elo_low": elo[1], "elo_high": elo[2],
            "verdict": found.iloc[0]["verdict"], "sentence": found.iloc[0]["sentence"],
            "seat": cell_seats["seat"].to_numpy(),
            "deviation_points": cell_seats["deviation_points"].to_numpy(),
            "low_points": (cell_seats["sim_low"].to_numpy() - 1.0 / n) * 100,
            "high_points": (cell_seats["sim_high"].to_numpy() - 1.0 / n) * 100,
            "se_points": cell_seats["rate_se"].to_numpy() * 100,
            "games": cell_seats["games"].to_numpy(),
        }))
    return pd.concat(rows, ignore_index=True) if rows else pd.DataFrame()


# Per-seat claims across a ladder's two strongest rungs (`seat_claims`, docs/statistics.md).
# Size: the difference of the seat's two deviations against the margin.
AGREES = "agrees"  # shown equal: its 90% interval inside ±margin
DIFFERS = "differs"  # shown different: its Bonferroni 95% interval entirely outside ±margin
UNDECIDED = "undecided"
# Side of fair: where each rung's simultaneous interval puts the seat.
SIDE_HOLDS = "holds"  # both intervals exclude fair on the same side
SIDE_FLIPS = "flips"  # both exclude fair, on opposite sides
SIDE_OPEN = "open"  # some rung's interval includes fair
# The one word a seat's claim is said with, strongest claim first: its deviation agrees; it flips
# side; its edge holds (with a size shown different or not yet shown equal); it differs in size
# only; nothing shown.
CLAIM_AGREES, CLAIM_FLIPS, CLAIM_HOLDS, CLAIM_DIFFERS, CLAIM_OPEN = (
    "agrees", "flips", "edge holds", "differs", "open")


def _seat_claim(size: str, side: str) -> str:
    if size == AGREES:
        return CLAIM_AGREES
    if side == SIDE_FLIPS:
        return CLAIM_FLIPS
    if side == SIDE_HOLDS:
        return CLAIM_HOLDS
    return CLAIM_DIFFERS if size == DIFFERS else CLAIM_OPEN


def seat_claims(strongest: pd.DataFrame, runner_up: pd.DataFrame, margin: float = 1.0,
                confidence: float = 0.95) -> pd.DataFrame:
    """Per seat, what holds across two rungs' self-play cells, from their seat rows (seat,
    deviation_points, se_points, low_points, high_points: the simultaneous interval).

    - size: the difference d_s of the two deviations (strongest minus runner-up; independent
      cells, se_s^2 = se_strong^2 + se_runner^2) *agrees* when its (1 - 2 alpha) interval lies
      inside ±margin (two one-sided tests at alpha), *differs* when its interval Bonferroni over
      the seats at 1 - alpha lies entirely outside ±margin, else *undecided*;
    - side: the seat's edge *holds* when both cells' simultaneous intervals exclude fair on the
      same side (favoured, or disfavoured, with both players), *flips* when they exclude it on
      opposite sides, else *open*;
    - claim: the one word it is said with (`_seat_claim`).
    Also, per rung, the seats each seat is shown above (simultaneous intervals apart)."""
    a, b = strongest.sort_values("seat"), runner_up.sort_values("seat")
    difference = a["deviation_points"].to_numpy() - b["deviation_points"].to_numpy()
    se = np.hypot(a["se_points"].to_numpy(), b["se_points"].to_numpy())
    z = stats.two_sided_z(stats.equivalence_confidence(confidence))
    z_joint = stats.two_sided_z(stats.bonferroni_confidence(confidence, len(difference)))
    low, high = difference - z * se, difference + z * se
    size = np.where((low >= -margin) & (high <= margin), AGREES,
                    np.where(np.abs(difference) - margin - z_joint * se > 0, DIFFERS, UNDECIDED))
    side_a, side_b = _shown_side(a), _shown_side(b)
    side = np.where((side_a == 0) | (side_b == 0), SIDE_OPEN, np.where(side_a == side_b, SIDE_HOLDS, SIDE_FLIPS))
    return pd.DataFrame({
        "seat": a["seat"].to_numpy(),
        "strongest_points": a["deviation_points"].to_numpy(), "runner_up_points": b["deviation_points"].to_numpy(),
        "difference_points": difference, "difference_low": low, "difference_high": high, "difference_se": se,
        "size": size, "side": side, "claim": [_seat_claim(s, d) for s, d in zip(size, side)],
    })


def _shown_side(rung: pd.DataFrame) -> np.ndarray:
    """Per seat of a rung's seat rows: +1 above fair, -1 below, 0 not shown either way (its
    simultaneous interval includes fair)."""
    return np.where(rung["low_points"].to_numpy() > 0, 1, np.where(rung["high_points"].to_numpy() < 0, -1, 0))


def seat_swaps(strongest: pd.DataFrame, runner_up: pd.DataFrame) -> list[tuple[int, int]]:
    """Pairs of seats (i < j) whose order the two rungs show opposite ways: in each rung's
    self-play cell the two seats' simultaneous intervals are apart (which shows the order
    whatever the seats' correlation, for every pair at once at the cell's level), one above the
    other in one rung and below it in the other."""
    def order(rung: pd.DataFrame) -> np.ndarray:  # [i, j]: +1 i shown above j, -1 below, 0 not shown
        low, high = rung.sort_values("seat")[["low_points", "high_points"]].to_numpy().T
        return np.where(low[:, None] > high[None, :], 1, np.where(high[:, None] < low[None, :], -1, 0))

    product = order(strongest) * order(runner_up)
    return [(int(i), int(j)) for i, j in zip(*np.nonzero(np.triu(product < 0)))]


@dataclass
class LadderComparison:
    """The verdict across a ladder's two strongest rungs, with the numbers behind it."""

    verdict: str  # "stable", "strength-dependent" or "unresolved"
    reason: str  # why, in words (a clause that follows "Across the ladder: <verdict>")
    difference_points: np.ndarray  # per seat: strongest rung's deviation minus the runner-up's
    low_points: np.ndarray  # per seat: the difference's 1 - 2 alpha interval (the stable test)
    high_points: np.ndarray
    games_to_settle: float  # games per self-play cell that would settle it with 80% power
    claims: pd.DataFrame | None = None  # `seat_claims`, None without two comparable rungs
    swaps: list[tuple[int, int]] = field(default_factory=list)  # `seat_swaps`


def ladder_comparison(strongest: pd.DataFrame, runner_up: pd.DataFrame | None,
                      margin: float = 1.0, confidence: float = 0.95) -> LadderComparison:
    """Whether a seat verdict holds across playing strength, from the seat rows (seat, elo,
    elo_low, elo_high, deviation_points, se_points, low_points, high_points, games) of the two
    strongest rungs' self-play cells: the whole player count's word, derived from the per-seat
    claims (`seat_claims`).

    The two rungs must be separated in rating (the strongest one's Elo interval entirely above
    the runner-up's), or which is stronger is not known: *unresolved* (the seat claims are still
    given). Then:
    - *stable* when every seat's size *agrees* (the intersection-union test at level alpha:
      shown equivalent, as for a cell's verdict);
    - *strength-dependent* when some seat's size *differs* (shown different);
    - *unresolved* otherwise.
    Every verdict but stable names the seat whose deviation differs most, by how much (with its
    interval); an unresolved one also the games per cell that would settle it with 80% power if
    the numbers are as estimated: for rungs not separated in rating the games that would
    separate them (the Elo intervals narrow as 1/sqrt(games)), otherwise the games that would
    show the differences equal (worst seat) or different (furthest-out seat).
    """
    nan = np.full(len(strongest), np.nan)
    if runner_up is None:
        return LadderComparison("unresolved", "there is no runner-up rung", nan, nan, nan, math.inf)
    claims = seat_claims(strongest, runner_up, margin, confidence)
    swaps = seat_swaps(strongest, runner_up)
    if strongest["elo"].isna().any() or runner_up["elo"].isna().any():
        return LadderComparison("unresolved", "a rung's rating is not estimable", nan, nan, nan, math.inf, claims, swaps)
    a, b = strongest.sort_values("seat"), runner_up.sort_values("seat")
    difference, se = claims["difference_points"].to_numpy(), claims["difference_se"].to_numpy()
    low, high = claims["difference_low"].to_numpy(), claims["difference_high"].to_numpy()
    z = stats.two_sided_z(stats.equivalence_confidence(confidence))
    z_joint = stats.two_sided_z(stats.bonferroni_confidence(confidence, len(difference)))
    z_power = stats.one_sided_z(stats.PLANNING_POWER)
    largest = int(np.argmax(np.abs(difference)))
    by_how_much = (f"seat {largest}'s deviation differs by {difference[largest]:+.1f} points "
                   f"[{low[largest]:+.1f}, {high[largest]:+.1f}] between them")
    games = float(min(a["games"].min(), b["games"].min()))

    def unresolved(reason: str, factor: float, settles: str) -> LadderComparison:
        needed = math.inf if not np.isfinite(factor) else float(math.ceil(games * max(factor, 1.0)))
        settle = (f"no number of games would {settles}" if not np.isfinite(needed)
                  else f"about {stats.count_text(needed)} games per cell would {settles}")
        return LadderComparison("unresolved", f"{reason}; {by_how_much}; {settle}", difference, low, high, needed,
                                claims, swaps)

    top, second = a.iloc[0], b.iloc[0]
    if not top["elo_low"] > second["elo_high"]:
        gap = float(top["elo"] - second["elo"])
        spread = (top["elo_high"] - top["elo_low"] + second["elo_high"] - second["elo_low"]) / 2.0
        z_rating = stats.two_sided_z(confidence)
        factor = ((z_rating + z_power) / z_rating * spread / gap) ** 2 if gap > 0 else math.inf
        return unresolved(f"the two strongest rungs are not separated in rating ({gap:.0f} Elo apart, "
                          f"intervals ±{(top['elo_high'] - top['elo_low']) / 2:.0f} and "
                          f"±{(second['elo_high'] - second['elo_low']) / 2:.0f})",
                          factor, "separate them, if their ratings are as estimated")
    if (claims["size"] == AGREES).all():
        return LadderComparison("stable", f"every seat's deviation differs by less than ±{margin:g} points",
                                difference, low, high, np.nan, claims, swaps)
    if (claims["size"] == DIFFERS).any():
        return LadderComparison("strength-dependent", f"{by_how_much}, more than the ±{margin:g}-point margin",
                                difference, low, high, np.nan, claims, swaps)
    beyond = np.abs(difference) - margin
    with np.errstate(divide="ignore"):
        if np.any(beyond > 0):
            factor = np.min(np.where(beyond > 0, ((z_joint + z_power) * se / beyond) ** 2, np.inf))
        else:
            factor = np.max(((z + z_power) * se / -beyond) ** 2)
    return unresolved("the rungs' seat deviations are not yet shown equal or different", factor, "settle it")


def ladder_verdict(strongest: pd.DataFrame, runner_up: pd.DataFrame | None,
                   margin: float = 1.0, confidence: float = 0.95) -> str:
    """The word of `ladder_comparison`: stable, strength-dependent or unresolved."""
    return ladder_comparison(strongest, runner_up, margin, confidence).verdict


def _ladder_rows(ladder_seats: pd.DataFrame, margin: float = 1.0,
                 confidence: float = 0.95) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Per ladder study and player count: the strongest rung (highest Elo), the runner-up, the
    ladder verdict (`ladder_comparison`) and a sentence leading with the strongest rung's seat
    verdict and ending with each seat's claim; and the seat claims as a table (one row per
    study, player count and seat)."""
    rows, claim_frames = [], []
    for (study, players), group in ladder_seats.groupby(["study", "players"], sort=False) if len(ladder_seats) else []:
        rungs = group.drop_duplicates("rung").sort_values("elo", ascending=False, na_position="last")
        top = group[group["rung"] == rungs.iloc[0]["rung"]]
        second = group[group["rung"] == rungs.iloc[1]["rung"]] if len(rungs) > 1 else None
        comparison = ladder_comparison(top, second, margin, confidence)
        strongest = rungs.iloc[0]
        runner_up = None if second is None else rungs.iloc[1]["rung"]
        against = "" if second is None else f" against its runner-up {runner_up}"
        per_seat = ""
        if comparison.claims is not None:
            claim_frames.append(comparison.claims.assign(study=study, players=players, strongest=strongest["rung"],
                                                         runner_up=runner_up))
            per_seat = " " + claims_sentence(comparison.claims, comparison.swaps, margin)
        rows.append({
            "study": study, "players": players, "strongest": strongest["rung"],
            "runner_up": runner_up,
            "strongest_elo": strongest["elo"], "verdict": comparison.verdict, "seat_verdict": strongest["verdict"],
            "largest_difference_points": (
                float(comparison.difference_points[np.nanargmax(np.abs(comparison.difference_points))])
                if np.isfinite(comparison.difference_points).any() else np.nan),
            "games_to_settle": comparison.games_to_settle,
            "seats_agreeing": np.nan if comparison.claims is None else int((comparison.claims["size"] == AGREES).sum()),
            # the sentence without its per-seat claims, for a report that lists them apart
            "headline": f"{players} players, strongest rung {strongest['rung']}: {strongest['sentence']} "
                        f"Across the ladder: {comparison.verdict}{against} ({comparison.reason}).",
        })
        rows[-1]["sentence"] = rows[-1]["headline"] + per_seat
    claims = pd.concat(claim_frames, ignore_index=True) if claim_frames else pd.DataFrame()
    return pd.DataFrame(rows), claims


PER_SEAT = "Per seat (strongest rung, then runner-up):"


def claim_phrases(claims: pd.DataFrame, swaps: list[tuple[int, int]], margin: float) -> list[str]:
    """The seat claims in words, a phrase per seat (deviations strongest rung first), then one
    per pair of seats whose order the two rungs show opposite ways: "seat 0 (first) agrees within
    ±1 (+12.0 and +11.7 points, difference +0.3 [-0.4, +1.0])", ..., "seats 2 and 4 swap places"."""
    return [_claim_phrase(row, margin) for _, row in claims.iterrows()] + [f"seats {i} and {j} swap places" for i, j in swaps]


def claims_sentence(claims: pd.DataFrame, swaps: list[tuple[int, int]], margin: float) -> str:
    """`claim_phrases` as one sentence: "Per seat (strongest rung, then runner-up): seat 0 (first)
    agrees within ±1 (...); ..."."""
    return f"{PER_SEAT} {'; '.join(claim_phrases(claims, swaps, margin))}."


def _claim_phrase(row: pd.Series, margin: float) -> str:
    seat = f"seat {row['seat']}" + (" (first)" if row["seat"] == 0 else "")
    points = f"{row['strongest_points']:+.1f} and {row['runner_up_points']:+.1f} points"
    difference = f"difference {row['difference_points']:+.1f} [{row['difference_low']:+.1f}, {row['difference_high']:+.1f}]"
    claim = row["claim"]
    if claim == CLAIM_AGREES:
        return f"{seat} agrees within ±{margin:g} ({points}, {difference})"
    if claim == CLAIM_FLIPS:
        return f"{seat} flips side of fair ({points})"
    if claim == CLAIM_HOLDS:
        side = "favoured" if row["strongest_points"] > 0 else "disfavoured"
        size = "its size differs" if row["size"] == DIFFERS else "its size not yet shown equal"
        return f"{seat}'s edge holds ({side} by both: {points}; {size}, {difference})"
    if claim == CLAIM_DIFFERS:
        return f"{seat} differs by more than ±{margin:g} ({points}, {difference})"
    return f"{seat} is open ({points}, {difference}: neither shown within ±{margin:g} nor beyond it, nor on one side at both)"


def _jackknife_elo(batch_wins: np.ndarray, confidence: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Bradley-Terry Elo of all games, with delete-one-batch jackknife intervals (batches of
    deals are independent, so the intervals account for correlated games), t on batches - 1
    degrees of freedom. Every pair of policies that met also counts half a win each way, a weak
    prior that keeps the fit finite; but a policy outside the largest group of policies that
    have all beaten and lost to each other (directly or through others: random that never beats
    greedy in New York Zoo) has a strength the games cannot bound, only the prior: its rating
    is NaN (not estimable), and the others' Elo is centred on their own mean. NaN everywhere
    when the policies did not all meet, directly or through others."""
    k = batch_wins.shape[1]
    # a policy meeting itself (a seating that lists it twice) says nothing about strength
    batch_wins = batch_wins * (1.0 - np.eye(k))
    total = batch_wins.sum(axis=0)
    prior = 0.5 * ((total + total.T) > 0)
    nan = np.full(k, np.nan)
    try:
        elo = stats.bradley_terry(total + prior).elo
        leave_one_out = np.array([stats.bradley_terry(total - batch + prior).elo for batch in batch_wins])
    except ValueError:
        return nan, nan, nan
    estimable = stats.estimable_policies(total)
    elo = np.where(estimable, elo - elo[estimable].mean(), np.nan)
    leave_one_out = np.where(estimable, leave_one_out - leave_one_out[:, estimable].mean(axis=1, keepdims=True), np.nan)
    batches = len(batch_wins)
    spread = leave_one_out - leave_one_out.mean(axis=0)
    standard_error = np.sqrt((batches - 1) / batches * (spread**2).sum(axis=0))
    t = stats.two_sided_t(confidence, batches - 1)
    return elo, elo - t * standard_error, elo + t * standard_error
