"""Choosing the best trial of a tune, writing it as an experiment file, and confirming it.

Which trial is best. Only trials that reached the highest rung any feasible trial reached
compete (they played the most games, on the same deals). Their Pareto front over the objectives
is reported; the best is the one with the lowest first objective. With `prefer: fewer_changes`,
every competitor whose first objective is within noise of the best's, meaning the difference is
less than twice its standard error (sqrt(se_a^2 + se_b^2), each the objective's standard error
with the deal as the unit (search.py), ignoring the extra precision that trials sharing deals
give, which makes the test generous), is as good,
and among those the one setting the fewest knobs away from the printed rules wins (then the
fewest seat entries, then the lower objective), counted on its effective setting
(`space.effective_setting`: what changes nothing, such as a bonus common to every seat, removed).

The best setting becomes an ordinary experiment file (`best.yaml`), in its effective form: one study whose `rules` hold
the knobs shared by all player counts and whose `cases` hold each player count with its own
(per-seat) knobs, and beside it a study of the printed rules (the tune's fixed `rules` only),
both played on fresh seeds with `confirm.games` games per cell and judged at
`confirm.margin_points`. `zoosim run best.yaml` replays exactly the confirmation.
"""

from __future__ import annotations

import copy
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import optuna

from simulator.config import SeatSpec
from simulator.digest import SHORT, json_digest
from simulator.rundir import MANIFEST, RunLock, read_json, set_chunk_aside, write_manifest, write_text_atomic
from simulator.tune.config import BEST_SUFFIX, TuneExperiment, dump_yaml
from simulator.tune.search import trial_rules
from simulator.tune.space import Parameter, effective_setting, game_of

NOISE_STANDARD_ERRORS = 2.0
CONFIRM_DIR = "confirm"  # the confirmation's run folder inside the tune folder


@dataclass
class Choice:
    best: optuna.trial.FrozenTrial | None
    leaders: list[optuna.trial.FrozenTrial]  # trials of the highest rung
    front: list[optuna.trial.FrozenTrial]  # their Pareto front
    within_noise: list[optuna.trial.FrozenTrial]  # as good as the lowest within noise
    explanation: str


def completed(study: optuna.Study) -> list[optuna.trial.FrozenTrial]:
    return study.get_trials(deepcopy=False, states=(optuna.trial.TrialState.COMPLETE,))


def choose_best(study: optuna.Study, experiment: TuneExperiment) -> Choice:
    trials = completed(study)
    feasible = [t for t in trials if t.user_attrs["feasible"]]
    if not trials:
        return Choice(None, [], [], [], "No trial produced a valid game.")
    pool = feasible or trials
    top = max(t.user_attrs["rung"] for t in pool)
    leaders = [t for t in pool if t.user_attrs["rung"] == top]
    front = pareto_front(leaders)
    lowest = min(leaders, key=lambda t: (t.user_attrs["objectives"][0], t.number))
    name = experiment.tune.objectives[0]
    games = leaders[0].user_attrs["games"]
    text = (f"{len(leaders)} trial(s) played the most games ({games:,} each, rung {top})"
            + ("" if feasible else "; no trial met the constraints, so all are considered")
            + f"; trial {lowest.number} has the lowest {name} ({lowest.user_attrs['objectives'][0]:.2f}).")
    within = [lowest]
    best = lowest
    if experiment.tune.prefer == "fewer_changes":
        within = [t for t in leaders if _within_noise(t, lowest)]
        best = min(within, key=lambda t: (t.user_attrs["changes"], t.user_attrs.get("values_changed", 0),
                                          t.user_attrs["objectives"][0], t.number))
        setting = best.user_attrs.get("setting_text")
        text += (f" {len(within)} trial(s) are within {NOISE_STANDARD_ERRORS:g} standard errors of it "
                 f"(not distinguishable from deal noise); trial {best.number} changes the fewest knobs "
                 f"({best.user_attrs['changes']}{': ' + setting if setting else ''}) and is chosen.")
    return Choice(best, leaders, front, within, text)


def confirmation_power(experiment: TuneExperiment, trial: optuna.trial.FrozenTrial) -> dict[int, tuple[float, float]]:
    """Before the confirmation runs: per player count, the probability that `confirm.games`
    fresh games show the chosen setting balanced at `confirm.margin_points` (the equivalence
    test the confirmation runs: every seat's interval inside the margin), with the design
    effects and win-share variances (shared wins vary less) the trial measured and the seat
    rates it measured, shrunk towards fair by as much
    as deal noise explains them (`shrunk_rates`), each known only to within its remaining
    standard error (`stats.balanced_assurance`: the power averaged over the true rates the
    measurement allows), and the games that would give 80% (`stats.games_to_assure`)."""
    from simulator.analysis import stats

    confirm = experiment.tune.confirm
    powers = {}
    for players, measured in trial.user_attrs["by_players"].items():
        n = int(players)
        rates = np.array([1.0 / n + d / 100 for d in measured["seat_deviation_points"]])
        # absent in trials measured before they were kept: design effects 1, wins not shared
        effects = np.array(measured.get("seat_design_effects") or [1.0] * n)
        noise = np.nan_to_num(np.array(measured.get("seat_share_variance_ratios") or [1.0] * n), nan=1.0)
        errors = np.sqrt(rates * (1 - rates) * effects * noise / measured["games"])
        rates, errors = shrunk_rates(rates, errors, n)
        powers[n] = (stats.balanced_assurance(rates, errors, confirm.games, n, confirm.margin_points, effects=effects, noise=noise),
                     stats.games_to_assure(rates, errors, 1, n, confirm.margin_points, effects=effects, noise=noise))
    return powers


def shrunk_rates(rates: np.ndarray, errors: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
    """What the trial's seat rates say about the true ones (empirical Bayes, the positive-part
    James-Stein rule): the true deviations from fair 1/n are taken to spread with variance
    tau^2 = max(0, mean(deviation^2) - mean(error^2)), the part of the measured spread that deal
    noise does not explain. Each seat's deviation is shrunk towards fair by tau^2 / (tau^2 +
    error^2) and its standard error becomes error x sqrt(that factor). A trial whose deviations
    are all noise (a fair setting) is then taken as fair, not as unfair by its noise; a seat far
    beyond the noise keeps its deviation. (The deviations of the seats sum to zero, and so do
    their errors' sum; each seat's own variance is its error squared, so the moments match.)
    Reference: Efron, B. and Morris, C. (1975), Data analysis using Stein's estimator and its
    generalizations, JASA 70:311-319."""
    deviations = rates - 1.0 / n
    spread = max(0.0, float(np.mean(deviations**2) - np.mean(errors**2)))
    keep = spread / (spread + errors**2) if spread > 0 else np.zeros_like(errors)
    return 1.0 / n + keep * deviations, errors * np.sqrt(keep)


def confirmation_power_text(experiment: TuneExperiment, trial: optuna.trial.FrozenTrial) -> str:
    """`confirmation_power` in words, for the explanation of the choice."""
    from simulator.analysis import stats

    confirm = experiment.tune.confirm
    parts = []
    for n, (power, needed) in confirmation_power(experiment, trial).items():
        enough = (f"about {stats.count_text(needed)} would give {100 * stats.PLANNING_POWER:g}%"
                  if math.isfinite(needed) else
                  f"no number of games would give {100 * stats.PLANNING_POWER:g}%, as the trial's measurement "
                  "leaves a seat too likely at or beyond the margin")
        parts.append(f"{n} players: {100 * power:.0f}% ({enough})")
    return (f"Power of the confirmation ({confirm.games:,} games per player count, ±{confirm.margin_points:g} points, "
            f"if the rates are as trial {trial.number} measured them, to within their standard errors) "
            "to show balance: " + "; ".join(parts) + ".")


def _within_noise(trial: optuna.trial.FrozenTrial, best: optuna.trial.FrozenTrial) -> bool:
    gap = trial.user_attrs["objectives"][0] - best.user_attrs["objectives"][0]
    error = math.hypot(trial.user_attrs["errors"][0], best.user_attrs["errors"][0])
    return gap <= NOISE_STANDARD_ERRORS * error


def pareto_front(trials: list[optuna.trial.FrozenTrial]) -> list[optuna.trial.FrozenTrial]:
    """Trials no other trial beats on every objective (all minimised)."""
    def dominates(a, b):
        x, y = a.user_attrs["objectives"], b.user_attrs["objectives"]
        return all(p <= q for p, q in zip(x, y)) and any(p < q for p, q in zip(x, y))

    return sorted((t for t in trials if not any(dominates(o, t) for o in trials)),
                  key=lambda t: (t.user_attrs["objectives"], t.number))


def _played(game, rules: dict[str, Any], case: dict[str, Any]) -> dict[str, Any]:
    """The rules a case of a study plays, defaults filled in (as plan.py builds a cell's): a
    trial that set a knob to its printed value plays the printed rules."""
    return game.make_params({**rules, **case}).model_dump(mode="json")


def confirm_seed(experiment: TuneExperiment) -> int:
    """Fresh seeds for the confirmation: a master seed derived from, and unlike, the tune's."""
    return int(json_digest(["confirm", experiment.seed], SHORT), 16) % 2**63


def best_study_name(tune_name: str, number: int) -> str:
    """The best setting's study in best.yaml (its cells' labels start with it)."""
    return f"{tune_name}: trial {number}"


def seating_text(seats: list | None, game) -> str:
    """A confirmation seating as the study names show it: "learned", "greedy / learned"."""
    entries = seats or [game.default_policy]
    return " / ".join(entry.policy if isinstance(entry, SeatSpec) else entry for entry in entries)


def holds_text(cells, best_study: str) -> str:
    """Whether the chosen setting holds for every seating and player count of the confirmation
    (its cells whose label starts with `best_study`), in one sentence."""
    mine = cells[cells["label"].str.startswith(best_study)]
    failing = mine[mine["verdict"] != "balanced"]
    seatings = list(dict.fromkeys(mine["seating"]))
    if failing.empty:
        return f"The chosen setting is confirmed balanced for every seating ({'; '.join(seatings)}) at every player count."
    where = "; ".join(f"{row['seating']} at {row['players']} players: {row['verdict']}" for _, row in failing.iterrows())
    return f"The chosen setting is not confirmed balanced for every seating ({where})."


def best_document(experiment: TuneExperiment, parameters: list[Parameter], trial: optuna.trial.FrozenTrial) -> dict[str, Any]:
    """The best setting as an experiment file's document (`zoosim run` accepts it as it is)."""
    section = experiment.tune
    game = game_of(section, None)
    effective = effective_setting(section, parameters, trial.params, game)
    rules, cases = trial_rules(experiment, parameters, effective, game)
    printed_rules = dict(section.rules)
    printed_cases = [{"players": players} for players in section.players]
    # The printed rules beside it, on fresh deals of the same confirmation: what the tune changed,
    # measured on games it never saw (the tune's own trials chose the best on their deals); left
    # out when the best setting is the printed rules.
    same = all(_played(game, rules, best) == _played(game, printed_rules, plain) for best, plain in zip(cases, printed_cases))
    seatings = section.confirm.seat_lists(section.seats)
    studies = []
    for seats in seatings:
        suffix = f" · {seating_text(seats, game)}" if section.confirm.seatings is not None else ""
        # every study its own copies, so that best.yaml spells each out (no YAML anchors)
        study: dict[str, Any] = {"name": best_study_name(experiment.name, trial.number) + suffix, "game": section.game,
                                 "rules": copy.deepcopy(rules)}
        if seats is not None:
            study["seats"] = [s.model_dump(mode="json") if isinstance(s, SeatSpec) else s for s in seats]
        studies.append({**study, "cases": copy.deepcopy(cases)})
        if not same:
            studies.append({**copy.deepcopy(study), "name": f"{experiment.name}: printed rules{suffix}",
                            "rules": copy.deepcopy(printed_rules), "cases": copy.deepcopy(printed_cases)})
    return {
        "name": experiment.name + BEST_SUFFIX,
        "description": f"Best rules found by zoosim tune ({experiment.name}, trial {trial.number}), "
                       "confirmed on fresh seeds.",
        "seed": confirm_seed(experiment),
        "games": section.confirm.games,
        "rotate_seats": experiment.rotate_seats,
        "margin_points": section.confirm.margin_points,
        "studies": studies,
    }


def write_best(out: Path, document: dict[str, Any]) -> Path:
    path = out / "best.yaml"
    header = "# Written by `zoosim tune`; run it with `zoosim run` to repeat the confirmation.\n"
    write_text_atomic(path, header + dump_yaml(document))
    return path


def confirm(best_file: Path, out: Path, *, jobs: int, backend: str, scheduler: str | None, progress: bool):
    """Run the best-settings file as an ordinary `zoosim run` into out/confirm; its analysis. A
    confirmation of fewer games there (`--confirm-games`) grows to best.yaml's (`_grow_confirmation`)."""
    from simulator.config import load_experiment
    from simulator.plan import build_plan
    from simulator.report.build import build_report
    from simulator.runner import run_experiment

    model, text = load_experiment(best_file)
    plan = build_plan(model, file=str(best_file))
    run_dir = out / CONFIRM_DIR
    _grow_confirmation(run_dir, model, plan, text, str(best_file))
    run_experiment(plan, run_dir, text, source=str(best_file), jobs=jobs, backend=backend,
                   scheduler=scheduler, resume=True, progress=progress)
    _, analysis = build_report(run_dir)
    return run_dir, analysis


def confirmation_games(out: Path) -> int | None:
    """The games per player count of the confirmation in a tune folder, played or started (its
    run's manifest), or None when there is none (or one too damaged to say: the runner judges it)."""
    try:
        games = read_json(out / CONFIRM_DIR / MANIFEST)["experiment"]["games"]
    except (ValueError, KeyError, TypeError):
        return None
    return games if isinstance(games, int) and not isinstance(games, bool) else None


def _grow_confirmation(run_dir: Path, model, plan, text: str, source: str) -> None:
    """`--confirm-games`: a confirmation of this very experiment with fewer games per cell (its
    manifest's run hash is this plan's at those games) becomes this plan's run, so that every
    finished chunk counts towards it and the run plays only the rest. A cell's short last chunk
    (fewer games than a whole chunk) is set aside and played again whole, as a confirmation of
    these games from the start plays it; every game is then the same as in that one (a chunk's
    seeds depend on its cell and index only: plan.py). Anything else is the runner's to judge."""
    from simulator.plan import build_plan

    played = confirmation_games(run_dir.parent)
    if played is None or played >= model.games:
        return
    smaller = build_plan(model.model_copy(update={"games": played}))
    if read_json(run_dir / MANIFEST).get("run_hash") != smaller.run_hash:
        return
    with RunLock(run_dir):
        for cell in smaller.cells:
            last = cell.chunk(cell.chunks - 1)
            if last.deals < cell.chunk_deals:
                set_chunk_aside(run_dir, cell.index, last.index,
                                f"a short last chunk ({last.games:,} games) of the {played:,}-game confirmation")
        write_manifest(run_dir, plan, text, source)
