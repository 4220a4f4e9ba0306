"""The training report (DIR/report.html): strength per round with 95% intervals (against the
previous best, the shipped weights and the game's heuristic), which rounds were kept, the fit's
quality, the rules trained on and the command. Self-contained like the run report: its style
sheet and table template and its matplotlib helpers come from `simulator.report`."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jinja2
import pandas as pd

from simulator.report import charts
from simulator.report.build import table_view
from simulator.rundir import write_text_atomic

MEASURES = (("gate", "against the best so far"), ("shipped", "against the shipped weights"),
            ("heuristic", "against the heuristic"))
ROUND_COLUMNS = [("round", "round", "int"), ("kept", "kept", "text"), ("training_games", "games recorded (all rounds)", "int"),
                 ("training_positions", "positions fitted", "int")]
PRIOR_AGREEMENT = "prior_agreement"


def rounds_frame(cards: list[dict[str, Any]]) -> pd.DataFrame:
    rows = []
    for card in cards:
        row = {"round": card["round"], "kept": "yes" if card["kept"] else "no",
               "training_games": card["training_games"], "training_positions": card["training_positions"]}
        measured = {"gate": card["gate"], **(card["strength"] or {})}
        for name, _ in MEASURES:
            figures = measured.get(name)
            row[name] = _share_text(figures) if figures else ""
            for key in ("share", "low", "high"):
                row[f"{name}_{key}"] = figures[key] if figures else float("nan")
        for set_name, quality in (card["fit"] or {}).items():
            row[f"r2:{set_name}"] = quality.get("holdout_r2", float("nan"))
            if "move_priors" in quality:
                row[PRIOR_AGREEMENT] = quality["move_priors"]["holdout_top_move_agreement"]
        rows.append(row)
    return pd.DataFrame(rows)


def _share_text(figures: dict[str, Any]) -> str:
    return (f"{100 * figures['share']:.1f}% [{100 * figures['low']:.1f}, {100 * figures['high']:.1f}] "
            f"over {figures['deals']} deals vs {figures['opponent']}")


def strength_chart(frame: pd.DataFrame) -> str:
    """Each measured win share per round with its 95% interval; 50% dashed."""
    figure, axes = charts.pyplot().subplots(figsize=(7.5, 3.0), layout="constrained")
    axes.axhline(50, color=charts.FAIR_COLOUR, linestyle="--", linewidth=1)
    for number, (name, meaning) in enumerate(MEASURES):
        shown = frame[frame[f"{name}_share"].notna()]
        if not len(shown):
            continue
        x = shown["round"] + (number - 1) * 0.08
        axes.errorbar(x, shown[f"{name}_share"] * 100,
                      yerr=[(shown[f"{name}_share"] - shown[f"{name}_low"]) * 100,
                            (shown[f"{name}_high"] - shown[f"{name}_share"]) * 100],
                      fmt="o-", markersize=4, capsize=2, color=f"C{number}", label=meaning)
    axes.set_xlabel("round")
    axes.set_ylabel("win share of the round's weights (%)")
    axes.set_xticks(list(frame["round"]))
    axes.legend(fontsize=7, frameon=False)
    axes.set_title("strength per round (two-player games, seats rotated, 95% intervals over deals)",
                   loc="left", fontsize=8)
    return charts.to_svg(figure)


def render_train_report(path: Path, settings, cards: list[dict[str, Any]], best: int | None, command: str) -> Path:
    """Write the report of the rounds finished (`cards`; `best` the round in best.npz) to `path`."""
    frame = rounds_frame(cards)
    columns = ROUND_COLUMNS + [(name, meaning, "text") for name, meaning in MEASURES]
    columns += [(column, f"held-out R² ({column[3:]})", "num") for column in frame.columns if column.startswith("r2:")]
    priors = PRIOR_AGREEMENT in frame.columns
    if priors:
        columns.append((PRIOR_AGREEMENT, "move priors: held-out decisions whose top move is the search's most visited",
                        "num"))
    with charts.library_warnings_quiet():
        chart = strength_chart(frame) if len(frame) else None
    environment = jinja2.Environment(
        loader=jinja2.ChoiceLoader([jinja2.PackageLoader("simulator.train", "templates"),
                                    jinja2.PackageLoader("simulator.report", "templates")]),
        autoescape=jinja2.select_autoescape(["html"]), trim_blocks=True, lstrip_blocks=True,
    )
    page = environment.get_template("train.html").render(
        settings=settings, cards=cards, best=best, best_file=str(path.parent / "best.npz"), chart=chart,
        table=table_view(frame, "rounds", columns), command=command,
        rules_set=json.dumps(settings.rules, sort_keys=True) if settings.rules else "", priors=priors,
        play_params=json.dumps(settings.play_params, sort_keys=True),
        played_rules=json.dumps(cards[-1]["rules"], indent=1, sort_keys=True) if cards else "",
        players=", ".join(f"{count} at {players} players" for players, count in settings.player_games().items()),
    )
    write_text_atomic(path, page)
    return path
