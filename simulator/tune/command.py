"""What `zoosim tune` does, in order: validate the file (nothing is written for a bad one),
prepare and lock the tune folder (one tune per folder, as one run per run folder), optimise,
write the best settings as an experiment file, confirm them with an ordinary run on fresh seeds,
and render the tune report."""

from __future__ import annotations

import math
import shlex
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from simulator.errors import WriteFailed
from simulator.rundir import RunLock
from simulator.runner import backend_session
from simulator.tune import best as best_module
from simulator.tune.config import TuneExperiment, load_tune
from simulator.tune.report import render_tune_report
from simulator.tune.search import optimise, prepare_tune_dir, resolve_sampler, start_tune_dir, tune_hash
from simulator.tune.space import Parameter, build_space


@dataclass
class TuneOutcome:
    out: Path
    report: Path
    choice: best_module.Choice
    best_file: Path | None
    confirm_cells: pd.DataFrame | None
    games_played: int
    experiment_name: str


def load_checked(path: Path, *, games: int | None = None, trials: int | None = None) -> tuple[TuneExperiment, str, list[Parameter]]:
    """The tune file, fully checked against the game (knobs, values, seats, player counts);
    `games` and `trials` are the command line's overrides (config.with_tune_overrides)."""
    experiment, text = load_tune(path, games=games, trials=trials)
    parameters = build_space(experiment.tune, file=str(path))
    return experiment, text, parameters


def default_out(reports: Path, experiment: TuneExperiment) -> Path:
    return reports / f"{experiment.name}-tune-{tune_hash(experiment)[:8]}"


def run_tune(
    path: Path, out: Path, *, jobs: int, backend: str, scheduler: str | None,
    resume: bool, force: bool, progress: bool, games: int | None = None, trials: int | None = None,
) -> TuneOutcome:
    experiment, text, parameters = load_checked(path, games=games, trials=trials)
    sampler = resolve_sampler(experiment, parameters)
    with backend_session(backend, scheduler):  # an unreachable cluster is refused before the folder is made
        prepare_tune_dir(out, experiment, resume=resume, force=force)
        with RunLock(out):  # one tune per folder: a second would propose trials into the same journal
            try:
                return _tune_in(out, path, experiment, text, parameters, sampler, jobs=jobs, backend=backend,
                                scheduler=scheduler, force=force, progress=progress)
            except (OSError, WriteFailed) as error:  # the tune's own files, or one of its runs
                reason = error.reason if isinstance(error, WriteFailed) else error.strerror or str(error)
                raise WriteFailed(reason, str(out), resume_tune_command(path, out, games, trials), what="the tune",
                                  kept="every finished trial") from None


def confirmation_lines(outcome: TuneOutcome) -> list[str]:
    """The confirmation's verdicts as the tune's closing lines, one per cell, each naming the
    whole setting it played (every knob of the effective setting, or the printed rules) and its
    players, then whether the chosen setting holds for every seating (best.holds_text)."""
    from simulator.analysis import stats
    from simulator.report.build import players_text

    if outcome.confirm_cells is None or outcome.choice.best is None:
        return []
    best = outcome.choice.best
    setting = best.user_attrs.get("setting_text", "")
    best_study = best_module.best_study_name(outcome.experiment_name, best.number)
    lines = []
    for _, row in outcome.confirm_cells.iterrows():
        what = f"trial {best.number} ({setting})" if row["label"].startswith(best_study) else "the printed rules"
        players = players_text(row["seating"].split(" / "))
        decide = ""
        if row["verdict"] == "inconclusive" and math.isfinite(row.get("games_to_decide", math.nan)):
            decide = (f" About {stats.count_text(row['games_to_decide'])} games per player count would decide it "
                      f"({100 * stats.PLANNING_POWER:g}% power, if the rates are as measured).")
        lines.append(f"confirmation of {what} at {row['players']} players: {row['verdict']}. "
                     f"{row['sentence']} (players: {players}){decide}")
    return lines + [best_module.holds_text(outcome.confirm_cells, best_study)]


def resume_tune_command(path: Path, out: Path, games: int | None = None, trials: int | None = None) -> str:
    """The command that resumes a tune (with its --games/--trials overrides), quoted for a shell."""
    overrides = [*(["--games", str(games)] if games is not None else []), *(["--trials", str(trials)] if trials is not None else [])]
    return shlex.join(["zoosim", "tune", str(path), *overrides, "--out", str(out), "--resume"])


def _tune_in(out: Path, path: Path, experiment: TuneExperiment, text: str, parameters: list[Parameter], sampler: str,
             *, jobs: int, backend: str, scheduler: str | None, force: bool, progress: bool) -> TuneOutcome:
    start_tune_dir(out, experiment, text, str(path), sampler, force)
    run = optimise(out, experiment, parameters, sampler, jobs=jobs, backend=backend, scheduler=scheduler, progress=progress)
    choice = best_module.choose_best(run.study, experiment)
    best_file, document, confirm_cells = None, None, None
    if choice.best is not None:
        choice.explanation += " " + best_module.confirmation_power_text(experiment, choice.best)
        document = best_module.best_document(experiment, parameters, choice.best)
        best_file = best_module.write_best(out, document)
        _, analysis = best_module.confirm(best_file, out, jobs=jobs, backend=backend, scheduler=scheduler, progress=progress)
        confirm_cells = analysis.cells
    holds = (best_module.holds_text(confirm_cells, best_module.best_study_name(experiment.name, choice.best.number))
             if confirm_cells is not None else None)
    report = render_tune_report(
        out, experiment, parameters, run.study, choice, sampler=sampler, best_document=document,
        confirm_cells=confirm_cells, experiment_text=text, holds=holds,
    )
    return TuneOutcome(out, report, choice, best_file, confirm_cells, run.games_played, experiment.name)
