"""Renders a run folder into one self-contained HTML report (`RUN_DIR/report.html`).

Reads only the run folder (manifest, run.json, logs), so `zoosim report RUN_DIR` re-renders a
report without replaying a game. Charts are inline SVG, tables are plain HTML (each number also
carried raw in a `data-value` attribute) with a CSV download as a data URL; nothing is fetched.
"""

from __future__ import annotations

import base64
import json
import os
from importlib import metadata
from pathlib import Path
from typing import Any

import jinja2
import numpy as np
import pandas as pd

from simulator import __version__
from simulator.analysis.tables import Analysis, analyze_run
from simulator.report import charts
from simulator.rundir import REPORT, read_experiment_text, read_manifest, read_run_info, resume_command

PACKAGES = ("numpy", "numba", "pandas", "pyarrow", "scipy", "matplotlib", "joblib", "pydantic")


def build_report(run_dir: Path, out: Path | None = None, from_logs: bool = False) -> tuple[Path, Analysis]:
    """Write the report; the numbers come from the chunks' summaries, or with `from_logs` from
    the logs themselves (the same numbers, slower)."""
    run_dir = Path(run_dir)
    manifest = read_manifest(run_dir)
    analysis = analyze_run(run_dir, manifest, from_logs=from_logs)
    page = render_html(manifest, read_run_info(run_dir), analysis, read_experiment_text(run_dir),
                       resume_command(manifest.get("experiment_file"), run_dir))
    out = Path(out) if out else run_dir / REPORT
    temporary = out.with_name(f".{out.name}.tmp")
    temporary.write_text(page, encoding="utf-8")
    os.replace(temporary, out)
    return out, analysis


def render_html(manifest: dict[str, Any], run_info: dict[str, Any], analysis: Analysis, experiment_text: str,
                resume: str | None = None) -> str:
    """The report page; a cell without a finished game yet shows how to resume the run."""
    experiment = manifest["experiment"]
    margin = float(experiment.get("margin_points", 1.0))
    studies = []
    for study_name, study_cells in _group_by_study(manifest["cells"]).items():
        cells = [_cell_view(cell, analysis, margin) or {"index": cell["index"], "label": cell["label"], "pending": True}
                 for cell in study_cells]
        studies.append(
            {
                "name": study_name,
                "game": study_cells[0]["game"],
                "cells": cells,
                "sweep_charts": _sweep_charts(study_cells, analysis, margin),
                **_tournament_view(study_name, analysis),
            }
        )
    sessions = run_info.get("sessions", [])
    environment = jinja2.Environment(
        loader=jinja2.PackageLoader("simulator.report", "templates"),
        autoescape=jinja2.select_autoescape(["html"]),
        trim_blocks=True,
        lstrip_blocks=True,
    )
    template = environment.get_template("report.html")
    return template.render(
        title=experiment.get("name") or "zoosim run",
        description=experiment.get("description", ""),
        summary=_summary(analysis),
        studies=studies,
        margin=margin,
        cells_table=table_view(analysis.cells, "cells", CELL_COLUMNS),
        games_played=int(analysis.cells["games"].sum()) if len(analysis.cells) else 0,
        run_seconds=sum(s["seconds"] for s in sessions),
        sessions=sessions,
        experiment_text=experiment_text,
        experiment_json=json.dumps(experiment, indent=2),
        run_hash=manifest["run_hash"],
        resume=resume,
        cells=manifest["cells"],
        versions=_versions(),
    )


def _group_by_study(cells: list[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    groups: dict[str, list[dict[str, Any]]] = {}
    for cell in cells:
        groups.setdefault(cell["study"], []).append(cell)
    return groups


def _summary(analysis: Analysis) -> list[dict[str, str]]:
    return [
        {"label": row["label"], "verdict": row["verdict"], "sentence": row["sentence"]}
        for _, row in analysis.cells.iterrows()
    ]


def _cell_view(cell: dict[str, Any], analysis: Analysis, margin: float) -> dict[str, Any] | None:
    rows = analysis.cells[analysis.cells["cell"] == cell["index"]] if len(analysis.cells) else analysis.cells
    if len(rows) == 0:
        return None  # no finished game yet
    row = rows.iloc[0]
    seats = analysis.seats[analysis.seats["cell"] == cell["index"]]
    lengths = analysis.lengths[(analysis.lengths["cell"] == cell["index"])] if len(analysis.lengths) else analysis.lengths
    length_charts = []
    for measure in dict.fromkeys(lengths["measure"]) if len(lengths) else []:
        subset = lengths[lengths["measure"] == measure]
        if subset["value"].nunique() > 1:
            length_charts.append(charts.length_histogram(subset, measure, f"{measure} per game"))
    policies = analysis.policies[analysis.policies["cell"] == cell["index"]] if len(analysis.policies) else None
    return {
        "index": cell["index"],
        "label": cell["label"],
        "row": row,
        "seats_chart": charts.seat_win_rates(seats, cell["players"], margin, "win rate by seat") if cell["players"] > 1 else None,
        "seats_table": table_view(seats, f"seats-cell-{cell['index']}", SEAT_COLUMNS),
        "policies_table": table_view(policies, f"policies-cell-{cell['index']}", None) if policies is not None and len(policies) else None,
        "length_charts": length_charts,
        "knobs": json.dumps(cell["params"], indent=2),
        "end_reasons": ", ".join(
            f"{name[4:]} {_share_text(share)}" for name, share in row.items() if name.startswith("end:") and share > 0
        ),
        "seating": cell["seats"],
        "rotate": cell["rotate"],
        "games": int(row["games"]),
    }


def _tournament_view(study_name: str, analysis: Analysis) -> dict[str, Any]:
    if len(analysis.ratings) == 0:
        return {}
    ratings = analysis.ratings[analysis.ratings["study"] == study_name]
    if len(ratings) == 0:
        return {}
    chart = charts.strength_chart(ratings, "seat advantage against strength") if ratings["elo"].notna().all() else None
    return {"ratings_table": table_view(ratings, f"ratings-{study_name}", RATING_COLUMNS), "ratings_chart": chart}


def _share_text(share: float) -> str:
    """A share as a percentage that never shows a nonzero share as 0.0%."""
    return "< 0.1%" if share < 0.001 else f"{share:.1%}"


def _sweep_charts(study_cells: list[dict[str, Any]], analysis: Analysis, margin: float) -> list[str]:
    knobs = list(study_cells[0]["sweep_values"])
    if len(study_cells) < 2 or not knobs or len(analysis.cells) == 0:
        return []
    indices = [cell["index"] for cell in study_cells]
    cells = analysis.cells[analysis.cells["cell"].isin(indices) & (analysis.cells["players"] > 1)]
    svgs = []
    for knob in knobs:
        if f"sweep:{knob}" in cells and cells[f"sweep:{knob}"].nunique() > 1:
            svgs.append(charts.sweep_chart(cells, analysis.seats, knob, knobs, margin))
    return svgs


# (column, heading, format) for the tables; format "pct" shows a rate as a percentage.
SEAT_COLUMNS = [
    ("seat", "seat", "int"),
    ("policy", "policy", "text"),
    ("games", "games", "int"),
    ("win_rate", "win rate", "pct"),
    ("ci_low", "95% low", "pct"),
    ("ci_high", "95% high", "pct"),
    ("sim_low", "simult. low", "pct"),
    ("sim_high", "simult. high", "pct"),
    ("deviation_points", "vs fair (pts)", "signed"),
    ("outright_wins", "sole wins", "int"),
    ("shared_wins", "shared wins", "int"),
    ("mean_score", "mean score", "num"),
    ("mean_margin", "mean margin", "signed"),
]
RATING_COLUMNS = [
    ("policy", "policy", "text"),
    ("games", "games", "int"),
    ("win_rate", "win rate", "pct"),
    ("ci_low", "95% low", "pct"),
    ("ci_high", "95% high", "pct"),
    ("fair_rate", "fair rate", "pct"),
    ("elo", "Elo", "signed"),
    ("elo_low", "Elo low", "signed"),
    ("elo_high", "Elo high", "signed"),
    ("first_seat_advantage_points", "first seat vs own average (pts)", "signed"),
]
CELL_COLUMNS = [
    ("label", "cell", "text"),
    ("players", "players", "int"),
    ("games", "games", "int"),
    ("verdict", "verdict", "text"),
    ("max_deviation_points", "largest seat deviation (pts)", "num"),
    ("chi2", "χ²", "num"),
    ("p_value", "p", "p"),
    ("p_holm", "p (Holm)", "p"),
    ("tie_rate", "ties", "pct"),
    ("mean_turns", "mean turns", "num"),
    ("crn_gain", "CRN gain", "num"),
]


def _format(value: Any, style: str) -> str:
    if value is None or (isinstance(value, float) and np.isnan(value)):
        return "–"
    if style == "pct":
        return f"{value * 100:.2f}%"
    if style == "signed":
        return f"{value:+.2f}"
    if style == "int":
        return f"{int(value):,}"
    if style == "p":
        return "< 0.0001" if value < 1e-4 else f"{value:.4f}"
    if style == "num":
        return f"{value:.3g}" if abs(value) >= 1000 else f"{value:.2f}"
    return str(value)


def table_view(frame: pd.DataFrame | None, table_id: str, columns: list[tuple[str, str, str]] | None) -> dict[str, Any]:
    """A table view: headings, formatted cells with raw values, and the CSV as a data URL."""
    if frame is None:
        frame = pd.DataFrame()
    if columns is None:
        columns = [
            (c, c.replace("_", " "), "num" if pd.api.types.is_numeric_dtype(frame[c]) else "text")
            for c in frame.columns
            if c != "cell"
        ]
    columns = [c for c in columns if c[0] in frame.columns]
    rows = []
    for _, record in frame.iterrows():
        rows.append(
            [
                {"text": _format(record[name], style), "raw": _raw(record[name]), "numeric": style != "text"}
                for name, _, style in columns
            ]
        )
    csv = frame.to_csv(index=False)
    return {
        "id": table_id,
        "headings": [(name, heading) for name, heading, _ in columns],
        "rows": rows,
        "csv_url": "data:text/csv;base64," + base64.b64encode(csv.encode()).decode(),
        "csv_name": f"{table_id}.csv",
    }


def _raw(value: Any) -> str:
    if isinstance(value, (float, np.floating)):
        return repr(float(value))
    if isinstance(value, (int, np.integer)):
        return str(int(value))
    return str(value)


def _versions() -> dict[str, str]:
    versions = {"zoosim": __version__}
    for name in PACKAGES:
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            versions[name] = "not installed"
    return versions
