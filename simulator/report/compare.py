"""`zoosim compare RUN_A RUN_B`: did my change fix it? A before/after of two runs.

The page (and the command's output) leads with one sentence per cell: the seat that moved most,
its change with its interval and what that means (toward fair, further away, overcorrected, now
the weakest or strongest seat), the verdicts before and after with the players that produced
them, then the largest seat deviation before and after and how many games would settle what is
still open. Cells only one run played are listed as such. Above it stand the rule knobs and
settings in which the runs differ; below it a forest plot and the seat-by-seat table.

Cells are matched by the games they play (`simulator.report.matching`): game, player count and
seating, then the fewest differences in the resolved rules, however the knobs were written.

Intervals: a seat's change B - A gets Newcombe's interval, Bonferroni-corrected over every seat of
every matched cell (`stats.simultaneous_difference_intervals`), so "some seat changed" is wrong at
most 5% of the time; the change of the largest seat deviation gets the conservative bootstrap
bound of `stats.max_deviation_change_interval` (fixed seed: the page is deterministic). Both count
a run's games as its effective games (`stats.design_effects`: the deal, with all its rotations, is
the sampling unit). The two runs are treated as independent samples, which is conservative when
B replays A's deals. "Games to tell the change" is the count at which the change's interval
would exclude 0 with 80% probability (`stats.games_to_exclude_zero`).

Below the seats stand the changes of the "How the game plays" figures (analysis/gameplay:
game length, victory reasons, component strength) of every matched cell, each with its own 95%
interval (`gameplay.compare_gameplay`; not corrected for the many figures shown).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import jinja2
import numpy as np
import pandas as pd

from simulator.analysis import stats
from simulator.analysis.gameplay import cell_gameplay, cell_games, compare_gameplay
from simulator.analysis.tables import analyze_run
from simulator.config import Experiment
from simulator.errors import ZoosimError
from simulator.manifest_cell import ManifestCell
from simulator.report import charts
from simulator.report.build import DETAIL_CELLS, experiment_settings, flat_differences, players_text, table_view
from simulator.report.matching import match_cells
from simulator.rundir import read_manifest, write_text_atomic

SEAT_COLUMNS = [
    ("label", "cell", "text"),
    ("seat", "seat", "int"),
    ("rate_a", "win rate A", "pct"),
    ("rate_b", "win rate B", "pct"),
    ("change_points", "B − A (pts)", "signed"),
    ("change_low_points", "simultaneous 95% low", "signed"),
    ("change_high_points", "simultaneous 95% high", "signed"),
    ("significant", "changed?", "text"),
]
CELL_COLUMNS = [
    ("label", "cell", "text"),
    ("games_a", "games A", "int"),
    ("games_b", "games B", "int"),
    ("verdict_a", "verdict A", "text"),
    ("verdict_b", "verdict B", "text"),
    ("deviation_a", "largest seat deviation A (pts)", "signed"),
    ("deviation_b", "largest seat deviation B (pts)", "signed"),
    ("size_change", "change in size (pts)", "signed"),
    ("size_change_low", "95% low", "signed"),
    ("size_change_high", "95% high", "signed"),
    ("mean_turns_a", "mean turns A", "num"),
    ("mean_turns_b", "mean turns B", "num"),
]
GAMEPLAY_COLUMNS = [
    ("label", "cell", "text"),
    ("figure", "figure", "text"),
    ("item", "", "text"),
    ("unit", "unit", "text"),
    ("estimate_before", "A", "num"),
    ("estimate_after", "B", "num"),
    ("change", "B − A", "signed"),
    ("change_low", "95% low", "signed"),
    ("change_high", "95% high", "signed"),
    ("changed", "changed?", "text"),
]


@dataclass
class Comparison:
    seats: pd.DataFrame  # one row per seat of every matched cell: change and joint interval
    cells: pd.DataFrame  # one row per matched cell: largest deviation before/after, sentence
    differences: list[str]  # what differs between the runs (settings, and knobs per cell)
    only_a: list[str]  # labels of finished cells no cell of B plays
    only_b: list[str]  # labels of finished cells no cell of A plays
    gameplay: pd.DataFrame  # one row per gameplay figure item of the matched cells in `gameplay_pairs`: its change
    gameplay_pairs: int  # how many matched cells' gameplay figures were compared (`_gameplay_pairs`)


def compare_runs(run_a: Path, run_b: Path, gameplay_pairs: int = DETAIL_CELLS) -> Comparison:
    """Run B against run A, cell by matched cell; the gameplay figures (which read both cells'
    logs) of at most `gameplay_pairs` matched cells, those whose largest seat deviation changed most."""
    manifest_a, manifest_b = read_manifest(run_a, Experiment), read_manifest(run_b, Experiment)
    a, b = analyze_run(run_a, manifest_a), analyze_run(run_b, manifest_b)
    finished_a = _finished_cells(manifest_a, a)
    finished_b = _finished_cells(manifest_b, b)
    pairs = match_cells(finished_a, finished_b)
    if not pairs:
        raise ZoosimError(
            f"the runs share no cell: no cell of B plays the game with the player count and seating of "
            f"one in A (A has {', '.join(c.label for c in finished_a) or 'no finished cell'}; "
            f"B has {', '.join(c.label for c in finished_b) or 'no finished cell'})",
            file=str(run_b),
        )
    seats = _seat_changes(pairs, a, b)
    margin = float(manifest_b["experiment"].get("margin_points", 1.0))
    seats_of_pair = {label: rows for label, rows in seats.groupby("label", sort=False)}  # one pass, not one per pair
    cells = pd.DataFrame([_cell_change(cell_a, cell_b, a, b, seats_of_pair, margin) for cell_a, cell_b in pairs])
    paired_a = {cell_a.index for cell_a, _ in pairs}
    paired_b = {cell_b.index for _, cell_b in pairs}
    compared = _most_changed(pairs, cells, gameplay_pairs)
    return Comparison(
        seats=seats, cells=cells, differences=_differences(manifest_a, manifest_b, pairs),
        only_a=[cell.label for cell in finished_a if cell.index not in paired_a],
        only_b=[cell.label for cell in finished_b if cell.index not in paired_b],
        gameplay=_gameplay_changes(run_a, run_b, compared), gameplay_pairs=len(compared),
    )


def _most_changed(pairs: list[tuple[ManifestCell, ManifestCell]], cells: pd.DataFrame,
                  count: int) -> list[tuple[ManifestCell, ManifestCell]]:
    """Every pair when there are at most `count`, else the `count` whose largest seat deviation
    changed most (`cells` has a row per pair, in their order), in their order."""
    if len(pairs) <= count:
        return pairs
    changed = cells["size_change"].abs().fillna(-1.0).sort_values(ascending=False, kind="stable")
    return [pairs[position] for position in sorted(changed.index[:count])]


def _gameplay_changes(run_a: Path, run_b: Path, pairs: list[tuple[ManifestCell, ManifestCell]]) -> pd.DataFrame:
    """The change B - A of every gameplay figure of every matched cell (compare_gameplay)."""
    frames = []
    for cell_a, cell_b in pairs:
        label = _pair_label(cell_a, cell_b)
        before = cell_gameplay(cell_games(run_a, cell_a)).assign(label=label)
        after = cell_gameplay(cell_games(run_b, cell_b)).assign(label=label)
        frames.append(compare_gameplay(before, after))
    changes = pd.concat(frames, ignore_index=True)
    changes["changed"] = np.where(changes["changed"], "yes", "no")
    return changes


def _finished_cells(manifest: dict[str, Any], analysis) -> list[ManifestCell]:
    """Manifest cells with finished games and more than one seat (a solo cell has no seats to
    compare)."""
    done = set(analysis.cells["cell"]) if len(analysis.cells) else set()
    return [cell for cell in manifest["cells"] if cell.index in done and cell.players > 1]


def _pair_label(cell_a: ManifestCell, cell_b: ManifestCell) -> str:
    return cell_a.label if cell_a.label == cell_b.label else f"{cell_a.label} → {cell_b.label}"


def _seat_changes(pairs: list[tuple[ManifestCell, ManifestCell]], a, b) -> pd.DataFrame:
    frames = []
    for cell_a, cell_b in pairs:
        seats_a = a.of_cell("seats", cell_a.index).reset_index(drop=True)
        seats_b = b.of_cell("seats", cell_b.index).reset_index(drop=True)
        frames.append(pd.DataFrame({
            "label": _pair_label(cell_a, cell_b), "seat": seats_a["seat"],
            # effective games (the deal as the unit): what the intervals' widths stand on
            "rate_a": seats_a["win_rate"], "games_a": seats_a["effective_games"],
            "rate_b": seats_b["win_rate"], "games_b": seats_b["effective_games"],
            "deviation_a": seats_a["deviation_points"], "deviation_b": seats_b["deviation_points"],
        }))
    seats = pd.concat(frames, ignore_index=True)
    low, high = stats.simultaneous_difference_intervals(
        seats["rate_b"].to_numpy(), seats["games_b"].to_numpy(), seats["rate_a"].to_numpy(), seats["games_a"].to_numpy()
    )
    seats["change_points"] = (seats["rate_b"] - seats["rate_a"]) * 100
    seats["change_low_points"] = low * 100
    seats["change_high_points"] = high * 100
    seats["significant"] = ["yes" if lo > 0 or hi < 0 else "no" for lo, hi in zip(low, high)]
    return seats


def _cell_change(cell_a: ManifestCell, cell_b: ManifestCell, a, b, seats_of_pair: dict[str, pd.DataFrame],
                 margin: float) -> dict[str, Any]:
    row_a = a.of_cell("cells", cell_a.index).iloc[0]
    row_b = b.of_cell("cells", cell_b.index).iloc[0]
    rates_a = a.of_cell("seats", cell_a.index)["win_rate"].to_numpy()
    rates_b = b.of_cell("seats", cell_b.index)["win_rate"].to_numpy()
    games_a = int(a.totals[cell_a.index].rated_games)
    games_b = int(b.totals[cell_b.index].rated_games)
    low, high = stats.max_deviation_change_interval(
        rates_a, _effective_games(a, cell_a), rates_b, _effective_games(b, cell_b))
    change = float(row_b["max_deviation_points"] - row_a["max_deviation_points"])
    label = _pair_label(cell_a, cell_b)
    pair_seats = seats_of_pair[label]
    moved = pair_seats.loc[pair_seats["change_points"].abs().idxmax()]
    row = {
        "label": label,
        "games_a": int(row_a["games"]), "games_b": int(row_b["games"]),
        "verdict_a": row_a["verdict"], "verdict_b": row_b["verdict"],
        "players_a": players_text(cell_a.seats), "players_b": players_text(cell_b.seats),
        "deviation_a": float(row_a["max_signed_deviation_points"]),
        "deviation_b": float(row_b["max_signed_deviation_points"]),
        "seat_a": int(row_a["most_deviant_seat"]), "seat_b": int(row_b["most_deviant_seat"]),
        "moved_seat": int(moved["seat"]), "moved_points": float(moved["change_points"]),
        "moved_low": float(moved["change_low_points"]), "moved_high": float(moved["change_high_points"]),
        "moved_from": float(moved["deviation_a"]), "moved_to": float(moved["deviation_b"]),
        "moved_rank": seat_rank(float(moved["deviation_b"]), pair_seats["deviation_b"].to_numpy(), margin),
        "margin": margin,
        "size_change": change, "size_change_low": low, "size_change_high": high,
        # same seed entropy and games: B replays exactly A's games of this cell (plan.py, seeds)
        "same_games": cell_a.seed_entropy == cell_b.seed_entropy and games_a == games_b,
        "games_to_tell_change": stats.games_to_exclude_zero(change, low, high, min(games_a, games_b)),
        "games_to_decide_b": float(row_b["games_to_decide"]),
        "mean_turns_a": float(row_a["mean_turns"]), "mean_turns_b": float(row_b["mean_turns"]),
    }
    row["sentence"] = change_sentence(row)
    return row


def _effective_games(analysis, cell: ManifestCell) -> int:
    """A cell's games counted with its largest seat design effect (the deal as the unit)."""
    seats = analysis.of_cell("seats", cell.index)
    return max(1, int(seats["games"].iloc[0] / seats["design_effect"].max()))


def seat_rank(deviation: float, deviations: np.ndarray, margin: float) -> str | None:
    """"weakest" or "strongest" when a seat, after the change, is the furthest below or above
    fair of its cell and outside the margin; else None."""
    if deviation < -margin and deviation == deviations.min():
        return "weakest"
    if deviation > margin and deviation == deviations.max():
        return "strongest"
    return None


def moved_seat_meaning(row: dict[str, Any]) -> str:
    """What the change of the seat that moved most means, e.g. "the change overcorrected; seat 0
    is now the weakest"."""
    seat, before, after, margin = row["moved_seat"], row["moved_from"], row["moved_to"], row["margin"]
    if row["moved_low"] <= 0 <= row["moved_high"]:
        meaning = "no seat changed detectably"
    elif before * after < 0 and abs(after) > margin:
        meaning = "the change overcorrected"
    elif abs(after) < abs(before):
        meaning = (f"seat {seat} is now within {margin:g} points of fair" if abs(after) <= margin
                   else f"seat {seat} moved toward fair")
    else:
        meaning = f"seat {seat} moved further from fair"
    if row["moved_rank"]:
        meaning += f"; seat {seat} is now the {row['moved_rank']}"
    return meaning


def change_sentence(row: dict[str, Any]) -> str:
    """One cell's before/after in words, led by the seat that moved most, e.g. "seat 0 -6.2
    points [-6.9, -5.5] (from +2.9 to -3.3 points from fair): the change overcorrected; seat 0 is
    now the weakest. Verdict: unbalanced (greedy in every seat) -> unbalanced (greedy in every
    seat). Largest seat deviation +2.90 (seat 0) -> -3.30 (seat 0) points (size change +0.40, 95%
    -0.2 to +1.0): no detectable worsening." and how many games would settle what is open."""
    change, low, high = row["size_change"], row["size_change_low"], row["size_change_high"]
    verdicts = (f"{row['verdict_a']} ({row['players_a']}) → {row['verdict_b']} ({row['players_b']})"
                if row["players_a"] != row["players_b"] else
                f"{row['verdict_a']} → {row['verdict_b']} ({row['players_b']})")
    if row.get("same_games"):
        return (
            f"no change: B replays A's games of this cell (same rules, seating and seeds); verdict "
            f"still {row['verdict_b']} ({row['players_b']}), largest seat deviation {row['deviation_b']:+.2f} "
            f"(seat {row['seat_b']})."
        )
    if high < 0:
        direction = "smaller: a real improvement"
    elif low > 0:
        direction = "larger: a real worsening"
    else:
        direction = "no detectable " + ("change" if change == 0 else "improvement" if change < 0 else "worsening")
    sentence = (
        f"seat {row['moved_seat']} {row['moved_points']:+.1f} points [{row['moved_low']:+.1f}, {row['moved_high']:+.1f}] "
        f"(from {row['moved_from']:+.1f} to {row['moved_to']:+.1f} points from fair): {moved_seat_meaning(row)}. "
        f"Verdict {verdicts}. Largest seat deviation {row['deviation_a']:+.2f} (seat {row['seat_a']}) → "
        f"{row['deviation_b']:+.2f} (seat {row['seat_b']}) points (size change {change:+.2f}, "
        f"95% {low:+.1f} to {high:+.1f}): {direction}."
    )
    open_questions = []
    tell = row["games_to_tell_change"]  # None: not estimated (the studio's anytime intervals)
    if low <= 0 <= high and tell is not None:
        open_questions.append(
            "no number of games would show a change as small as this one" if not np.isfinite(tell) else
            f"about {stats.count_text(tell)} games per run would tell whether a change this size is real"
        )
    if row["verdict_b"] == "inconclusive" and np.isfinite(row["games_to_decide_b"]):
        open_questions.append(
            f"about {stats.count_text(row['games_to_decide_b'])} games in B would decide its verdict"
        )
    if open_questions:
        text = "; ".join(open_questions)
        sentence += f" {text[0].upper()}{text[1:]} (80% power, if the rates hold)."
    return sentence


def _differences(manifest_a: dict[str, Any], manifest_b: dict[str, Any], pairs: list[tuple[ManifestCell, ManifestCell]]) -> list[str]:
    """Settings that differ (without the studies, whose knobs are compared cell by cell), then the
    knob and seating differences of matched cells; a difference every pair shares is said once."""
    settings = (experiment_settings(manifest["experiment"]) for manifest in (manifest_a, manifest_b))
    lines = [f"setting {line}" for line in flat_differences(*settings)]
    cells_by_difference: dict[str, list[str]] = {}
    for cell_a, cell_b in pairs:
        found = flat_differences(cell_a.rules, cell_b.rules)
        if cell_a.seats != cell_b.seats:
            found.append(f"seating: {', '.join(cell_a.seats)} → {', '.join(cell_b.seats)}")
        for line in found:
            cells_by_difference.setdefault(line, []).append(_pair_label(cell_a, cell_b))
    for line, labels in cells_by_difference.items():
        lines.append(f"every cell: {line}" if len(labels) == len(pairs) else f"{line} (in {', '.join(labels)})")
    return lines


def render_comparison(run_a: Path, run_b: Path, out: Path) -> tuple[Path, Comparison]:
    environment = jinja2.Environment(
        loader=jinja2.PackageLoader("simulator.report", "templates"), autoescape=True,
        trim_blocks=True, lstrip_blocks=True,
    )
    with charts.library_warnings_quiet():
        comparison = compare_runs(run_a, run_b)
        page = environment.get_template("compare.html").render(
            run_a=str(run_a), run_b=str(run_b),
            cells=comparison.cells.to_dict("records"),
            only_a=comparison.only_a, only_b=comparison.only_b,
            differences=comparison.differences,
            forest=charts.forest_plot(comparison.cells, comparison.seats),
            seats_table=table_view(comparison.seats, "seat-changes", SEAT_COLUMNS),
            cells_table=table_view(comparison.cells, "cell-changes", CELL_COLUMNS),
            gameplay_table=table_view(comparison.gameplay, "gameplay-changes", GAMEPLAY_COLUMNS),
            gameplay_pairs=comparison.gameplay_pairs, pairs=len(comparison.cells),
        )
    write_text_atomic(out, page)
    return out, comparison
