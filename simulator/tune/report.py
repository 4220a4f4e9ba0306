"""The tune report (`TUNE_DIR/tune.html`): trial history, Pareto front, the best settings as a
ready-to-paste `rules:` block, and the confirmation run's verdicts.

Tables and charts come from `simulator.report` (its `table_view`, its table template and its
matplotlib helpers), so the tune report reads like the run report; the confirmation run has its
own ordinary run report in `TUNE_DIR/confirm/report.html`.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jinja2
import numpy as np
import optuna
import pandas as pd

from simulator.report import charts
from simulator.report.build import table_view
from simulator.rundir import write_text_atomic
from simulator.tune.best import Choice, completed
from simulator.tune.config import OBJECTIVES, TuneExperiment, dump_yaml
from simulator.tune.search import OPENING_PHASE
from simulator.tune.space import Parameter

TRIAL_COLUMNS_HEAD = [("trial", "trial", "int"), ("state", "state", "text"), ("rung", "rung", "int"),
                      ("games", "games (result rests on)", "int"), ("games_played", "games played (0: same setting as an earlier trial)", "int")]
TRIAL_COLUMNS_TAIL = [("feasible", "meets constraints", "text"), ("changes", "knobs changed", "int"),
                      ("proposed_by", "proposed by", "text"), ("settings_text", "effective setting", "text")]
SINGLE_COLUMNS = [("trial", "trial", "int"), ("settings_text", "change", "text"), ("rung", "rung", "int"),
                  ("games", "games (result rests on)", "int")]
CONFIRM_COLUMNS = [("label", "cell", "text"), ("players", "players", "int"), ("games", "games", "int"),
                   ("verdict", "verdict", "text"), ("max_deviation_points", "largest seat deviation (pts)", "num"),
                   ("mean_turns", "mean turns", "num"), ("sentence", "in words", "text")]


def trials_frame(study: optuna.Study, experiment: TuneExperiment, parameters: list[Parameter]) -> pd.DataFrame:
    """One row per trial: its rung, games, objectives, feasibility, changes and settings."""
    decode = {p.name: p.decode for p in parameters}
    rows = []
    for trial in study.get_trials(deepcopy=False):
        attrs = trial.user_attrs
        row = {"trial": trial.number, "state": trial.state.name.lower(), "rung": attrs.get("rung", np.nan),
               "games": attrs.get("games", 0), "games_played": attrs.get("games_played", 0)}
        for index, name in enumerate(experiment.tune.objectives):
            row[name] = attrs["objectives"][index] if "objectives" in attrs else np.nan
        row["feasible"] = ("yes" if attrs["feasible"] else "no") if "feasible" in attrs else attrs.get("invalid", "")
        row["changes"] = attrs.get("changes", np.nan)
        row["proposed_by"] = attrs.get("proposed_by", "")
        row["phase"] = attrs.get("phase", "search")
        settings = {name: _short(decode[name](raw)) for name, raw in trial.params.items()}
        row["settings"] = json.dumps(settings)  # exact and machine-readable, for the CSV
        # what the page shows: the effective setting (space.effective_setting), else as proposed
        row["settings_text"] = attrs.get("setting_text") or settings_text(settings)
        rows.append(row)
    return pd.DataFrame(rows)


def settings_text(settings: dict[str, Any]) -> str:
    """A trial's settings as a designer reads them: "first_seat_bonus = 0.1, hand_size = 6"
    (lists as [1, 0, 0], true/false in lower case)."""
    def shown(value: Any) -> str:
        return json.dumps(value) if isinstance(value, (bool, list, dict)) or value is None else str(value)
    return ", ".join(f"{name} = {shown(value)}" for name, value in settings.items()) or "the printed rules"


def _short(value: Any) -> Any:
    """A continuous parameter's value to 4 significant digits, for reading (best.yaml is exact)."""
    return float(f"{value:.4g}") if isinstance(value, float) else value


def single_changes_frame(frame: pd.DataFrame, objectives: list[str]) -> pd.DataFrame:
    """The printed rules and the single changes (singles.py), best first: the trials of the
    highest rung first (they rest on the most games), then by the objectives."""
    opening = frame[(frame["phase"] == OPENING_PHASE) & (frame["state"] == "complete")]
    return opening.sort_values(["rung", *objectives, "trial"], ascending=[False] + [True] * (len(objectives) + 1))


def history_chart(frame: pd.DataFrame, objective: str, last_rung: int) -> str:
    """Each trial's objective against its number, coloured by the rung it reached; the line is
    the best so far among trials of the last rung."""
    figure, axes = charts.pyplot().subplots(figsize=(9.5, 3.0))
    done = frame[frame["state"] == "complete"]
    scatter = axes.scatter(done["trial"], done[objective], c=done["rung"], cmap="viridis", vmin=0,
                           vmax=max(1, last_rung), s=18)
    finalists = done[done["rung"] == done["rung"].max()].sort_values("trial")
    if len(finalists):
        axes.step(finalists["trial"], finalists[objective].cummin(), where="post", color=charts.FAIR_COLOUR,
                  linewidth=1, label="best of the most-played trials so far")
        axes.legend(fontsize=7, frameon=False)
    figure.colorbar(scatter, ax=axes, label="rung reached (games ×2 each)")
    axes.set_xlabel("trial")
    axes.set_ylabel(objective.replace("_", " "))
    axes.set_title(f"trial history: {OBJECTIVES[objective]}", loc="left", fontsize=8)
    return charts.to_svg(figure)


def pareto_chart(choice: Choice, objectives: list[str]) -> str:
    """The two first objectives of the most-played trials, the Pareto front joined."""
    figure, axes = charts.pyplot().subplots(figsize=(5.2, 3.2))
    x, y = objectives[:2]
    values = np.array([t.user_attrs["objectives"][:2] for t in choice.leaders])
    axes.plot(values[:, 0], values[:, 1], "o", color=charts.FAIR_COLOUR, mfc="none", label="trials")
    front = np.array([t.user_attrs["objectives"][:2] for t in choice.front])
    axes.plot(front[:, 0], front[:, 1], "o-", color=charts.POINT_COLOUR, label="Pareto front")
    if choice.best is not None:
        axes.plot(*choice.best.user_attrs["objectives"][:2], "*", color="#c0392b", markersize=12, label="chosen")
    axes.set_xlabel(x.replace("_", " "))
    axes.set_ylabel(y.replace("_", " "))
    axes.legend(fontsize=7, frameon=False)
    axes.set_title("Pareto front (trials of the last rung reached)", loc="left", fontsize=8)
    return charts.to_svg(figure)


def _games_without_racing(frame: pd.DataFrame, experiment: TuneExperiment) -> int:
    """Games the trials that played would have needed had each played the last rung."""
    played = int((frame["games_played"] > 0).sum()) if len(frame) else 0
    games = experiment.tune.budget.games
    return played * len(experiment.tune.players) * games.start * 2 ** games.last_rung()


def render_tune_report(
    out: Path, experiment: TuneExperiment, parameters: list[Parameter], study: optuna.Study, choice: Choice, *, sampler: str,
    best_document: dict[str, Any] | None, confirm_cells: pd.DataFrame | None, experiment_text: str,
    holds: str | None = None,
) -> Path:
    frame = trials_frame(study, experiment, parameters)
    objectives = experiment.tune.objectives
    objective_columns = [(name, name.replace("_", " "), "num") for name in objectives]
    columns = TRIAL_COLUMNS_HEAD + objective_columns + TRIAL_COLUMNS_TAIL
    single_columns = SINGLE_COLUMNS[:2] + objective_columns + SINGLE_COLUMNS[2:]
    done = completed(study)
    study_block = None
    if best_document is not None:
        study = best_document["studies"][0]
        study_block = dump_yaml({"rules": study["rules"], "cases": study["cases"]})
    with charts.library_warnings_quiet():
        history = history_chart(frame, objectives[0], experiment.tune.budget.games.last_rung()) if done else None
        pareto = pareto_chart(choice, objectives) if len(objectives) > 1 and choice.leaders else None
    environment = jinja2.Environment(
        loader=jinja2.ChoiceLoader([jinja2.PackageLoader("simulator.tune", "templates"),
                                    jinja2.PackageLoader("simulator.report", "templates")]),
        autoescape=jinja2.select_autoescape(["html"]), trim_blocks=True, lstrip_blocks=True,
    )
    page = environment.get_template("tune.html").render(
        title=experiment.name,
        description=experiment.description,
        experiment=experiment,
        objectives=[(name, OBJECTIVES[name]) for name in objectives],
        sampler=sampler,
        trials=len(frame),
        games=int(frame["games_played"].sum()) if len(frame) else 0,
        games_without_racing=_games_without_racing(frame, experiment),
        choice=choice,
        history_chart=history,
        pareto_chart=pareto,
        rules_block=study_block,
        best_yaml=dump_yaml(best_document) if best_document else None,
        confirm_table=table_view(confirm_cells, "confirm", CONFIRM_COLUMNS) if confirm_cells is not None else None,
        confirm_cells=confirm_cells.to_dict("records") if confirm_cells is not None else [],
        trials_table=table_view(frame, "trials", columns),
        singles_table=table_view(single_changes_frame(frame, objectives), "singles", single_columns) if len(frame) else None,
        experiment_text=experiment_text,
        holds=holds,
    )
    path = out / "tune.html"
    write_text_atomic(path, page)
    write_text_atomic(out / "trials.csv", frame.to_csv(index=False))
    return path
