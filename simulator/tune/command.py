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

from simulator.errors import WriteFailed, ZoosimError
from simulator.rundir import RunLock
from simulator.runner import backend_session
from simulator.tune import best as best_module
from simulator.tune.config import TuneExperiment, load_tune, with_confirm_games
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
    # the games per player count that would decide the chosen setting's inconclusive
    # confirmations (the most any of them needs, as printed), when more than were played and
    # within what a confirmation may play; else None
    games_to_decide: int | None = None


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
    confirm_games: int | None = None,
) -> TuneOutcome:
    """`confirm_games` (--confirm-games) replaces confirm.games without changing the tune:
    resuming a tune with it grows its confirmation, never shrinks it (`confirmation_to_play`)."""
    experiment, text, parameters = load_checked(path, games=games, trials=trials)
    with_confirm_games(experiment, confirm_games, file=str(path))  # a bad value is refused before any check of --out
    sampler = resolve_sampler(experiment, parameters)
    with backend_session(backend, scheduler):  # an unreachable cluster is refused before the folder is made
        prepare_tune_dir(out, experiment, resume=resume, force=force)
        confirming = confirmation_to_play(out, experiment, confirm_games, force=force, file=str(path))
        with RunLock(out):  # one tune per folder: a second would propose trials into the same journal
            try:
                outcome = _tune_in(out, path, experiment, confirming, text, parameters, sampler, jobs=jobs,
                                   backend=backend, scheduler=scheduler, force=force, progress=progress)
            except (OSError, WriteFailed) as error:  # the tune's own files, or one of its runs
                reason = error.reason if isinstance(error, WriteFailed) else error.strerror or str(error)
                raise WriteFailed(reason, str(out), resume_tune_command(path, out, games, trials, confirm_games),
                                  what="the tune", kept="every finished trial") from None
    outcome.games_to_decide = _games_to_decide(outcome, confirming, str(path))
    return outcome


def confirmation_to_play(out: Path, experiment: TuneExperiment, confirm_games: int | None, *, force: bool,
                         file: str) -> TuneExperiment:
    """The tune as its confirmation plays it: with `confirm_games` when given, else with the
    games of the confirmation the folder holds (an earlier --confirm-games, perhaps interrupted),
    else as the file says. A confirmation only grows: fewer games than the folder's confirmation
    holds are refused (nothing is written)."""
    held = None if force else best_module.confirmation_games(out)
    if confirm_games is None:
        return with_confirm_games(experiment, held, file=file)
    if held is not None and confirm_games < held:
        raise ZoosimError(f"--confirm-games {confirm_games:,} is below the {held:,} games per player count of the "
                          f"confirmation this tune holds; a confirmation only grows: give at least {held:,}", file=str(out))
    return with_confirm_games(experiment, confirm_games, file=file)


def confirmation_lines(outcome: TuneOutcome) -> list[str]:
    """The confirmation's verdicts as the tune's closing lines, one per cell, each naming the
    whole setting it played (every knob of the effective setting, or the printed rules) and its
    players, then whether the chosen setting holds for every seating (best.holds_text)."""
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
        # the sentence (analysis.tables) already says how many games would decide an inconclusive one
        lines.append(f"confirmation of {what} at {row['players']} players: {row['verdict']}. "
                     f"{row['sentence']} (players: {players})")
    return lines + [best_module.holds_text(outcome.confirm_cells, best_study)]


def resume_tune_command(path: Path, out: Path, games: int | None = None, trials: int | None = None,
                        confirm_games: int | None = None) -> str:
    """The command that resumes a tune (with its --games/--trials/--confirm-games overrides),
    quoted for a shell."""
    overrides = [(option, value) for option, value in (("--games", games), ("--trials", trials),
                                                       ("--confirm-games", confirm_games)) if value is not None]
    words = [word for option, value in overrides for word in (option, str(value))]
    return shlex.join(["zoosim", "tune", str(path), *words, "--out", str(out), "--resume"])


def _games_to_decide(outcome: TuneOutcome, experiment: TuneExperiment, file: str) -> int | None:
    """The games per player count that would decide every inconclusive confirmation of the
    chosen setting (the most any needs, rounded as printed), when that is more than were
    played and a confirmation may play them; else None."""
    from simulator.analysis import stats

    if outcome.confirm_cells is None or outcome.choice.best is None:
        return None
    cells = outcome.confirm_cells
    mine = cells[cells["label"].str.startswith(best_module.best_study_name(outcome.experiment_name, outcome.choice.best.number))]
    needed = [value for value in mine.loc[mine["verdict"] == "inconclusive", "games_to_decide"] if math.isfinite(value)]
    if not needed:
        return None
    games = stats.rounded_count(max(needed))
    if games <= experiment.tune.confirm.games:
        return None
    try:
        with_confirm_games(experiment, games, file=file)
    except ZoosimError:  # more than a confirmation may play
        return None
    return games


def _tune_in(out: Path, path: Path, experiment: TuneExperiment, confirming: TuneExperiment, text: str,
             parameters: list[Parameter], sampler: str, *, jobs: int, backend: str, scheduler: str | None,
             force: bool, progress: bool) -> TuneOutcome:
    """The tune in its locked folder: `experiment` is the tune (its hash names it), `confirming`
    the same with the confirmation's games (`confirmation_to_play`)."""
    start_tune_dir(out, experiment, text, str(path), sampler, force)
    run = optimise(out, experiment, parameters, sampler, jobs=jobs, backend=backend, scheduler=scheduler, progress=progress)
    choice = best_module.choose_best(run.study, experiment)
    best_file, document, confirm_cells = None, None, None
    if choice.best is not None:
        choice.explanation += " " + best_module.confirmation_power_text(confirming, choice.best)
        document = best_module.best_document(confirming, parameters, choice.best)
        best_file = best_module.write_best(out, document)
        _, analysis = best_module.confirm(best_file, out, jobs=jobs, backend=backend, scheduler=scheduler, progress=progress)
        confirm_cells = analysis.cells
    holds = (best_module.holds_text(confirm_cells, best_module.best_study_name(experiment.name, choice.best.number))
             if confirm_cells is not None else None)
    report = render_tune_report(
        out, confirming, parameters, run.study, choice, sampler=sampler, best_document=document,
        confirm_cells=confirm_cells, experiment_text=text, holds=holds,
    )
    return TuneOutcome(out, report, choice, best_file, confirm_cells, run.games_played, experiment.name)
