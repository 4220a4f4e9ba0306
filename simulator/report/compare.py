"""`zoosim compare RUN_A RUN_B`: a designer's before/after of two runs, seat by seat.

Cells are matched by label (the study name and sweep values), so a rule change made in the rules
of a study compares like with like. Each seat's win-rate change B - A gets Newcombe's interval;
runs are independent samples, so the intervals are conservative when both replay deals.
"""

from __future__ import annotations

from pathlib import Path

import jinja2
import pandas as pd

from simulator.analysis import stats
from simulator.analysis.tables import analyze_run
from simulator.errors import ZoosimError
from simulator.report.build import table_view
from simulator.rundir import read_manifest

COMPARE_COLUMNS = [
    ("label", "cell", "text"),
    ("seat", "seat", "int"),
    ("rate_a", "win rate A", "pct"),
    ("rate_b", "win rate B", "pct"),
    ("change_points", "B − A (pts)", "signed"),
    ("change_low_points", "95% low", "signed"),
    ("change_high_points", "95% high", "signed"),
    ("significant", "changed?", "text"),
]


def compare_runs(run_a: Path, run_b: Path) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(seat changes, cell changes) between two run folders."""
    manifest_a, manifest_b = read_manifest(run_a), read_manifest(run_b)
    a, b = analyze_run(run_a, manifest_a), analyze_run(run_b, manifest_b)
    common = [label for label in a.cells["label"] if label in set(b.cells["label"])] if len(a.cells) and len(b.cells) else []
    if not common:
        raise ZoosimError(
            f"the runs share no cell (A has {', '.join(a.cells.get('label', []))}; "
            f"B has {', '.join(b.cells.get('label', []))})",
            file=str(run_b),
        )
    seats = a.seats.merge(b.seats, on=["label", "seat"], suffixes=("_a", "_b"))
    low, high = stats.difference_interval(seats["win_rate_b"], seats["games_b"], seats["win_rate_a"], seats["games_a"])
    seat_changes = pd.DataFrame(
        {
            "label": seats["label"],
            "seat": seats["seat"],
            "rate_a": seats["win_rate_a"],
            "rate_b": seats["win_rate_b"],
            "change_points": (seats["win_rate_b"] - seats["win_rate_a"]) * 100,
            "change_low_points": low * 100,
            "change_high_points": high * 100,
        }
    )
    seat_changes["significant"] = [
        "yes" if lo > 0 or hi < 0 else "no" for lo, hi in zip(low, high)
    ]
    cells = a.cells.merge(b.cells, on="label", suffixes=("_a", "_b"))
    cell_changes = cells[["label", "verdict_a", "verdict_b", "max_deviation_points_a", "max_deviation_points_b",
                          "mean_turns_a", "mean_turns_b", "games_a", "games_b"]]
    return seat_changes, cell_changes


def render_comparison(run_a: Path, run_b: Path, out: Path) -> tuple[Path, pd.DataFrame, pd.DataFrame]:
    seat_changes, cell_changes = compare_runs(run_a, run_b)
    environment = jinja2.Environment(
        loader=jinja2.PackageLoader("simulator.report", "templates"), autoescape=True,
        trim_blocks=True, lstrip_blocks=True,
    )
    page = environment.get_template("compare.html").render(
        run_a=str(run_a), run_b=str(run_b),
        seats_table=table_view(seat_changes, "seat-changes", COMPARE_COLUMNS),
        cells_table=table_view(cell_changes, "cell-changes", None),
    )
    out.write_text(page, encoding="utf-8")
    return out, seat_changes, cell_changes
