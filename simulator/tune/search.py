"""The optimiser loop of `zoosim tune`: batches of trials, racing, common random numbers, and
the tune folder.

Batches. The optimiser (optuna) proposes `budget.batch` trials; their cells (one per player
count) are played together as one plan through the ordinary runner (joblib or dask), so all cores
stay busy; then every trial's result is told to the optimiser, and the next batch is proposed.
When the search has per-seat knobs and the objective is seat fairness, a quarter of each
batch after the first comes from the seat-balance step instead (balance.py: a model fitted to
every seat's deviation in every trial so far proposes the settings it predicts fairest); the
optimiser is told their results like its own.

Racing (successive halving, ASHA's rule). A trial first plays `games.start` games per player
count (rung 0). After rung r it plays on, doubling its games (rung r + 1 plays start x 2^(r+1),
including the earlier games), only while its value at rung r is among the best third of every
trial that has played rung r (for several objectives: among the best third on some objective).
The last rung is the largest start x 2^R within `games.max`. A trial's result is its value at
the last rung it reached; trials that stopped early are told with that value too (the optimiser
learns where not to look), but only trials of the highest rung compete for the best setting.

Common random numbers. The runner keys a cell's seeds by what the cell plays, knobs included, so
two rule settings would get different deals. Here every trial's cell for n players gets the same
seed entropy, keyed by the tune seed, game, player count and seating only: all trials play the
same deals, and differences between trials are not deal luck.

Determinism. The optimiser's state is the optuna journal in the tune folder, and each proposal
uses a sampler seeded by the tune seed and the number of trials proposed so far (the
seat-balance step is a pure function of the trials told); games are
determined by their seeds and the batch size comes from the file. So the same file and seed give the same trials for any --jobs or
backend, and a resumed tune proposes the trials the uninterrupted one would have.
"""

from __future__ import annotations

import dataclasses
import json
import math
import shutil
import sys
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import optuna

from simulator.config import Experiment, Study
from simulator.digest import SHORT, json_digest
from simulator.errors import ZoosimError
from simulator.rundir import LOCK, read_json, warn, write_json_atomic, write_text_atomic
from simulator.tune.balance import balance_proposals
from simulator.tune.singles import single_changes
from simulator.tune.config import TuneExperiment, dump_yaml, on_grid
from simulator.tune.journal import JOURNAL, check_journal, journal_storage
from simulator.tune.space import Parameter, changes, effective_setting, game_of, knob_values, setting_text
from simulator.version import __version__

TUNE_INFO = "tune.json"
STUDY_NAME = "tune"
TRIALS_DIR = "trials"
KEEP_FRACTION = 1 / 3  # racing: the share of a rung's trials that earn the next rung
INFEASIBLE_PENALTY = 100.0  # added (plus the distance) to every objective of a trial outside the constraints
OPENING_PHASE = "single changes"  # user attr `phase` of trial 0 and the single changes (singles.py)
BALANCE_SHARE = 1 / 4  # of each batch after the first: the seat-balance step's proposals
OWNED = (TUNE_INFO, JOURNAL, TRIALS_DIR, "confirm", "best.yaml", "tune.html", "experiment.yaml", "trials.csv")


@dataclass
class TuneRun:
    """What a finished optimisation leaves: the study and how it was set up."""

    out: Path
    experiment: TuneExperiment
    parameters: list[Parameter]
    study: optuna.Study
    sampler: str
    games_played: int


def tune_hash(experiment: TuneExperiment) -> str:
    return json_digest(experiment.model_dump(mode="json", exclude={"name", "description"}), SHORT)


def prepare_tune_dir(out: Path, experiment: TuneExperiment, *, resume: bool, force: bool) -> None:
    """Check that `out` may hold this tune before anything is written (as `zoosim run` does)."""
    if out.exists() and not out.is_dir():
        raise ZoosimError("output path exists and is not a folder", file=str(out))
    info_path = out / TUNE_INFO
    if info_path.exists() and not force:
        try:
            existing = read_json(info_path)
        except ValueError as error:
            raise ZoosimError(f"unreadable {TUNE_INFO} ({error}); pass --force to start over", file=str(out)) from None
        if not isinstance(existing, dict) or not isinstance(existing.get("tune_hash"), str):
            raise ZoosimError(f"damaged {TUNE_INFO} (no tune hash); pass --force to start over", file=str(out))
        if existing["tune_hash"] != tune_hash(experiment):
            held = _confirm_games_only_differ(existing.get("experiment"), experiment)
            if held is not None:
                raise ZoosimError(
                    f"holds this tune with confirm.games {held:,}, where this file says "
                    f"{experiment.tune.confirm.games:,}: to grow its confirmation, keep the file as the tune began "
                    "and pass --confirm-games N with --resume; or choose another --out or pass --force", file=str(out))
            raise ZoosimError(
                f"holds a different tune (hash {existing.get('tune_hash')}, this one is {tune_hash(experiment)}); "
                "choose another --out or pass --force to replace it", file=str(out),
            )
        if not resume:
            raise ZoosimError("already holds this tune; pass --resume to continue it or --force to start over", file=str(out))
        check_journal(out / JOURNAL)  # a damaged journal is refused before anything is written
    elif not info_path.exists() and out.is_dir() and any(entry.name != LOCK for entry in out.iterdir()):
        raise ZoosimError("is not empty and holds no zoosim tune (--force only replaces zoosim tunes); "
                          "choose another --out", file=str(out))
    probe = out
    while not probe.exists():
        probe = probe.parent
    if not probe.is_dir():
        raise ZoosimError(f"cannot write here ({probe} is not a folder)", file=str(out))


def _confirm_games_only_differ(recorded: Any, experiment: TuneExperiment) -> int | None:
    """The confirm.games of the tune a folder records (tune.json's experiment), when that tune is
    `experiment` but for confirm.games; else None."""
    exclude = ("name", "description")
    mine = experiment.model_dump(mode="json", exclude=set(exclude))
    try:
        theirs = {key: value for key, value in recorded.items() if key not in exclude}
        held = theirs["tune"]["confirm"]["games"]
        theirs["tune"] = {**theirs["tune"], "confirm": {**theirs["tune"]["confirm"], "games": mine["tune"]["confirm"]["games"]}}
    except (AttributeError, KeyError, TypeError):
        return None
    return held if theirs == mine and isinstance(held, int) else None


def start_tune_dir(out: Path, experiment: TuneExperiment, text: str, source: str | None, sampler: str, force: bool) -> None:
    if force and out.is_dir():
        for name in OWNED:
            target = out / name
            if target.is_dir():
                shutil.rmtree(target)
            elif target.exists():
                target.unlink()
    out.mkdir(parents=True, exist_ok=True)
    info = {
        "zoosim_version": __version__,
        "tune_hash": tune_hash(experiment),
        "experiment": experiment.model_dump(mode="json"),
        "experiment_file": source,
        "sampler": sampler,
        "optuna_version": optuna.__version__,
    }
    write_json_atomic(out / TUNE_INFO, info)
    write_text_atomic(out / "experiment.yaml", text)


def resolve_sampler(experiment: TuneExperiment, parameters: list[Parameter]) -> str:
    """`auto`: NSGA-II for several objectives, CMA-ES when every parameter is numeric, else TPE."""
    section = experiment.tune
    if section.sampler != "auto":
        return section.sampler
    if len(section.objectives) > 1:
        return "nsga2"
    numeric = all(not isinstance(p.distribution, optuna.distributions.CategoricalDistribution) for p in parameters)
    if numeric:
        return "cmaes"
    return "tpe"


def _sampler(kind: str, seed: int) -> optuna.samplers.BaseSampler:
    if kind == "tpe":
        return optuna.samplers.TPESampler(seed=seed, multivariate=True, n_startup_trials=8)
    if kind == "cmaes":
        return optuna.samplers.CmaEsSampler(seed=seed, warn_independent_sampling=False)
    if kind == "nsga2":
        return optuna.samplers.NSGAIISampler(seed=seed)
    return optuna.samplers.RandomSampler(seed=seed)


def open_study(out: Path, experiment: TuneExperiment) -> optuna.Study:
    """The tune's study, from its journal (checked and repaired first: journal.py)."""
    storage = journal_storage(out)
    directions = ["minimize"] * len(experiment.tune.objectives)
    try:
        return optuna.create_study(storage=storage, study_name=STUDY_NAME, directions=directions, load_if_exists=True)
    except Exception as error:  # noqa: BLE001 - whole records that optuna cannot replay: the journal is damaged
        raise ZoosimError(f"the optimiser's journal holds records optuna cannot replay ({type(error).__name__}: "
                          f"{error}); pass --force to start the tune over", file=str(out / JOURNAL)) from None


def optimise(
    out: Path, experiment: TuneExperiment, parameters: list[Parameter], sampler: str, *,
    jobs: int, backend: str, scheduler: str | None, progress: bool,
) -> TuneRun:
    """Propose, play and tell batches of trials until the budget's trials are done."""
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    warnings.filterwarnings("ignore", category=optuna.exceptions.ExperimentalWarning)
    study = open_study(out, experiment)
    opening = _opening(experiment, parameters)
    # Enqueued before anything is asked, so the trials the journal holds are a prefix of the
    # opening (an interruption while enqueueing leaves the rest to enqueue now).
    for number, (label, setting) in enumerate(opening[len(study.trials):], start=len(study.trials)):
        if number == 0 and len(setting) < len(parameters):
            outside = [p.name for p in parameters if p.name not in setting]
            warn(f"trial 0 plays the printed rules but {', '.join(outside)}, whose printed value lies outside the searched range")
        study.enqueue_trial(setting, user_attrs={"proposed_by": label, "phase": OPENING_PHASE})
    budget = experiment.tune.budget
    total = budget.trials + len(opening) - 1  # trial 0 counts in budget.trials, the single changes do not
    distributions = {p.name: p.distribution for p in parameters}
    played = 0
    told = (optuna.trial.TrialState.COMPLETE, optuna.trial.TrialState.FAIL)
    balance = sampler != "random" and "seat_fairness" in experiment.tune.objectives
    while True:
        finished = len(study.get_trials(deepcopy=False, states=told))
        if finished >= total:
            break
        # An interrupted batch is finished first: its trials were proposed before the interruption
        # (the running ones), and what is missing of it is proposed now. Batches are numbered
        # trials: every batch but the last has budget.batch trials.
        running = study.get_trials(deepcopy=False, states=(optuna.trial.TrialState.RUNNING,))
        first = min(t.number for t in running) // budget.batch * budget.batch if running else finished
        size = min(budget.batch, total - first)
        proposed = sum(1 for t in study.get_trials(deepcopy=False)
                       if first <= t.number < first + size and t.state != optuna.trial.TrialState.WAITING)
        batch = [_proposed(study, experiment, frozen, distributions, sampler) for frozen in running]
        if not running and balance and first >= len(opening):
            _enqueue_balance_proposals(study, parameters, size)
        for _ in range(size - proposed):
            # Each proposal's sampler is seeded by the tune seed and how many trials exist (the
            # new trial's number), so a resumed tune proposes what the uninterrupted one would have.
            trial = _proposer(study, experiment, sampler, len(study.get_trials(deepcopy=False))).ask(distributions)
            if "proposed_by" not in trial.user_attrs:  # not enqueued: the optimiser's own
                trial.set_user_attr("proposed_by", sampler)
            batch.append(trial)
        played += evaluate_batch(out, experiment, parameters, study, batch, jobs=jobs, backend=backend, scheduler=scheduler)
        if progress:
            _print_progress(study, experiment, total)
    return TuneRun(out, experiment, parameters, study, sampler, played)


def _opening(experiment: TuneExperiment, parameters: list[Parameter]) -> list[tuple[str, dict[str, Any]]]:
    """(label, optimiser values) of the trials before any sampler: trial 0, the printed rules (a
    choice list includes the printed value: space.py; a printed value outside a searched range
    is the optimiser's, and trial 0 says so), then with `single_changes` every single-knob
    change (singles.py)."""
    printed = printed_rules(parameters)
    outside = [p.name for p in parameters if p.name not in printed]
    label = "printed rules"
    if outside:
        label = f"printed rules but {', '.join(outside)} (printed value outside the searched range)"
    opening = [(label, printed)]
    if experiment.tune.single_changes:
        opening += single_changes(experiment.tune, parameters, game_of(experiment.tune, None))[1:]
    return opening


def _proposer(study: optuna.Study, experiment: TuneExperiment, sampler: str, number: int) -> optuna.Study:
    """The study with the sampler that proposes trial `number` (seeded by the tune seed and it)."""
    return optuna.load_study(study_name=STUDY_NAME, storage=study._storage,
                             sampler=_sampler(sampler, _trial_seed(experiment.seed, number)))


def _proposed(study: optuna.Study, experiment: TuneExperiment, frozen: optuna.trial.FrozenTrial,
              distributions: dict[str, Any], sampler: str) -> optuna.Trial:
    """A trial of an interrupted batch, its proposal completed: optuna writes a new trial first
    and its parameters after, so an interruption in between leaves parameters unset. They are
    proposed now by the sampler that proposed the trial, as `Study.ask` would have."""
    unset = {name: distribution for name, distribution in distributions.items() if name not in frozen.params}
    proposer = _proposer(study, experiment, sampler, frozen.number) if unset else study
    trial = optuna.trial.Trial(proposer, frozen._trial_id)
    for name, distribution in unset.items():
        trial._suggest(name, distribution)  # what Study.ask does for each of its distributions
    if "proposed_by" not in frozen.user_attrs:
        trial.set_user_attr("proposed_by", sampler)
    return trial


def _enqueue_balance_proposals(study: optuna.Study, parameters: list[Parameter], batch: int) -> None:
    """A new batch opens with the seat-balance step's proposals (balance.py), if it has any. An
    interruption may leave some waiting in the journal: those are asked, not proposed again."""
    waiting = [t.system_attrs.get("fixed_params") for t in study.get_trials(deepcopy=False, states=(optuna.trial.TrialState.WAITING,))]
    count = min(batch - 1, max(1, round(batch * BALANCE_SHARE)))  # the optimiser keeps one at least
    for proposal in balance_proposals(study.get_trials(deepcopy=False), parameters, count):
        if proposal not in waiting:
            study.enqueue_trial(proposal, user_attrs={"proposed_by": "seat balance"})


def printed_rules(parameters: list[Parameter]) -> dict[str, Any]:
    """Optimiser values of the printed rules, for the parameters whose search includes them."""
    values = {}
    for parameter in parameters:
        default = parameter.defaults[0][1]
        distribution = parameter.distribution
        if isinstance(distribution, optuna.distributions.CategoricalDistribution):
            if json.dumps(default) in distribution.choices:
                values[parameter.name] = json.dumps(default)
        elif distribution.low <= default <= distribution.high and (
            distribution.step is None or on_grid((default - distribution.low) / distribution.step)
        ):
            values[parameter.name] = default
    return values


def _trial_seed(seed: int, number: int) -> int:
    return int(json_digest(["trial", seed, number], SHORT), 16) % 2**32


def _print_progress(study: optuna.Study, experiment: TuneExperiment, total: int) -> None:
    done = [t for t in study.get_trials(deepcopy=False) if t.state == optuna.trial.TrialState.COMPLETE]
    top = max((t.user_attrs["rung"] for t in done), default=0)
    leaders = [t for t in done if t.user_attrs["rung"] == top]
    best = min(leaders, key=lambda t: t.values[0], default=None)
    games = sum(t.user_attrs["games_played"] for t in done)
    name = experiment.tune.objectives[0]
    lead = f"best {name} {best.values[0]:.2f} (trial {best.number})" if best else "no valid trial yet"
    print(f"tune: {len(study.trials)}/{total} trials (single changes included), {lead}, {games:,} games", file=sys.stderr)


def evaluate_batch(
    out: Path, experiment: TuneExperiment, parameters: list[Parameter], study: optuna.Study,
    batch: list[optuna.Trial], *, jobs: int, backend: str, scheduler: str | None,
) -> int:
    """Play a batch of trials with racing and tell each its result. Returns games played.

    A setting that was played before (optimisers do propose a setting twice) is not played
    again: on the same deals it would give the same result, so the trial gets that result."""
    section = experiment.tune
    game = game_of(section, None)
    earlier = {_settings_key(t.params): t.user_attrs for t in study.get_trials(deepcopy=False, states=(optuna.trial.TrialState.COMPLETE,))}
    to_play: dict[str, optuna.Trial] = {}
    outcome: dict[int, dict[str, Any]] = {}
    for trial in batch:
        problem = _invalid_setting(game, section, parameters, trial.params)
        key = _settings_key(trial.params)
        if problem:
            outcome[trial.number] = {"invalid": problem}
        elif key in earlier:
            outcome[trial.number] = {**earlier[key], "games_played": 0}
        elif key not in to_play:
            to_play[key] = trial
    results = _race(out, experiment, parameters, study, list(to_play.values()), jobs=jobs, backend=backend, scheduler=scheduler)
    for trial in batch:
        key = _settings_key(trial.params)
        if trial.number not in outcome:
            first = to_play[key]
            outcome[trial.number] = {**results[first.number], "games_played": results[first.number]["games"] if first is trial else 0}
        attrs = outcome[trial.number]
        for name, value in attrs.items():
            trial.set_user_attr(name, value)
        if "invalid" in attrs:
            study.tell(trial, state=optuna.trial.TrialState.FAIL)
        else:
            effective = effective_setting(section, parameters, trial.params, game)
            knobs, values = changes(parameters, effective)
            trial.set_user_attr("changes", knobs)
            trial.set_user_attr("values_changed", values)
            trial.set_user_attr("setting_text", setting_text(parameters, effective, game))
            study.tell(trial, attrs["values"] if len(attrs["values"]) > 1 else attrs["values"][0])
    return sum(results[t.number]["games"] for t in to_play.values())


def _settings_key(params: dict[str, Any]) -> str:
    return json.dumps(params, sort_keys=True)


def _race(
    out: Path, experiment: TuneExperiment, parameters: list[Parameter], study: optuna.Study,
    trials: list[optuna.Trial], *, jobs: int, backend: str, scheduler: str | None,
) -> dict[int, dict[str, Any]]:
    """Successive halving of a batch's trials on shared deals: per trial, its result at the last
    rung it played and its values at every rung."""
    from simulator.plan import build_plan
    from simulator.runner import run_plan

    if not trials:
        return {}
    batch_experiment = _batch_experiment(experiment, parameters, trials, game_of(experiment.tune, None))
    text = dump_yaml(batch_experiment.model_dump(mode="json", exclude_none=True))
    plan = build_plan(batch_experiment)
    cells = {(cell.study, cell.players): _share_deals(cell, experiment) for cell in plan.cells}
    run_dir = out / TRIALS_DIR / f"batch-{trials[0].number:05d}"
    history = _rung_history(study)
    last_rung = experiment.tune.budget.games.last_rung()
    active = list(trials)
    results: dict[int, dict[str, Any]] = {}
    for rung in range(last_rung + 1):
        playing = {_label(trial) for trial in active}
        plan.cells = [
            dataclasses.replace(cell, deals=cell.chunk_deals * 2**rung)
            for (label, _), cell in cells.items() if label in playing
        ]
        run_plan(plan, run_dir, text, jobs=jobs, backend=backend, scheduler=scheduler, resume=True, progress=False)
        measured = _measure(run_dir, experiment)
        for trial in active:
            earlier_rungs = results.get(trial.number, {}).get("rung_values", [])
            result = _trial_result(experiment.tune, measured[_label(trial)], rung)
            results[trial.number] = {**result, "rung_values": earlier_rungs + [result["values"]]}
            history.setdefault(rung, []).append(result["values"])
        if rung == last_rung:
            break
        active = [t for t in active if _promoted(results[t.number]["values"], history[rung])]
        if not active:
            break
    return results


def _label(trial: optuna.Trial) -> str:
    return f"trial {trial.number}"


def _invalid_setting(game, section, parameters, raw) -> str | None:
    """Why a trial's combination of knobs is not a valid game (each value alone was checked)."""
    for players in section.players:
        try:
            game.make_params({**section.rules, "players": players, **knob_values(parameters, raw, players, game)})
        except ZoosimError as error:
            return f"{players} players: {error}"
    return None


def trial_rules(experiment: TuneExperiment, parameters: list[Parameter], raw: dict[str, Any], game) -> tuple[dict, list[dict]]:
    """A trial as an experiment study's `rules` (whole knobs, including seat paths such as
    `geometry.boards.p4.seat2.houses`, which only the 4-player games read) and `cases` (one per
    player count: the player count and its seat lists)."""
    section = experiment.tune
    whole = [p for p in parameters if p.seat is None]  # seat paths name their player count themselves
    shared = {p.path: p.decode(raw[p.name]) for p in whole if p.name in raw}
    cases = []
    for players in section.players:
        own = {k: v for k, v in knob_values(parameters, raw, players, game).items() if k not in shared}
        cases.append({"players": players, **own})
    return {**section.rules, **shared}, cases


def _batch_experiment(experiment: TuneExperiment, parameters, trials: list[optuna.Trial], game) -> Experiment:
    section = experiment.tune
    start = section.budget.games.start
    studies = []
    for trial in trials:
        rules, cases = trial_rules(experiment, parameters, trial.params, game)
        studies.append(Study(name=_label(trial), game=section.game, rules=rules, seats=section.seats, cases=cases))
    return Experiment(
        name=f"trials-{trials[0].number}-{trials[-1].number}",  # a valid run name whatever the tune's name
        seed=experiment.seed, games=start, chunk_games=start, rotate_seats=experiment.rotate_seats,
        margin_points=section.confirm.margin_points, studies=studies,
    )


def _share_deals(cell, experiment: TuneExperiment):
    """Common random numbers: the same seed entropy for every trial's cell of a player count."""
    key = {"tune_seed": experiment.seed, "game": cell.game, "players": cell.players,
           "seats": [[name, sorted(o.items())] for name, o in cell.seats], "rotate": cell.rotate,
           "chunk_deals": cell.chunk_deals}
    return dataclasses.replace(cell, seed_entropy=(experiment.seed, int(json_digest(key, SHORT), 16)))


def _measure(run_dir: Path, experiment: TuneExperiment) -> dict[str, dict[int, dict[str, float]]]:
    """Per trial label and player count: the measures the objectives and constraints use."""
    from simulator.analysis.tables import analyze_run
    from simulator.rundir import read_manifest

    manifest = read_manifest(run_dir, Experiment)
    analysis = analyze_run(run_dir, manifest)
    study_of = {cell.index: cell.study for cell in manifest["cells"]}
    measured: dict[str, dict[int, dict[str, float]]] = {}
    for _, row in analysis.cells.iterrows():
        seats = analysis.seats[analysis.seats["cell"] == row["cell"]]
        worst = seats.loc[seats["deviation_points"].abs().idxmax()]
        games = int(row["games"])
        measured.setdefault(study_of[row["cell"]], {})[int(row["players"])] = {
            "games": games,
            "seat_fairness": float(row["max_deviation_points"]),
            # The objective is a maximum over seats, max |deviation|: since |max - true max| is at
            # most the largest seat error, its root-mean-square error is at most the root of the
            # seats' summed squared standard errors (deal as the unit), whichever seat is largest
            # and however close the seats are (one seat's error alone understates it at ties).
            "seat_fairness_se": math.sqrt(float((seats["rate_se"] ** 2).sum())) * 100,
            "worst_seat": int(worst["seat"]),
            "seat_deviation_points": [float(v) for v in seats["deviation_points"]],
            "seat_design_effects": [float(v) for v in seats["design_effect"]],
            "seat_share_variance_ratios": [float(v) for v in seats["share_variance_ratio"]],
            "game_length": float(row["mean_turns"]),
            # standard errors with the deal as the unit (tables.py: design effects from per-deal moments)
            "game_length_se": float(row["mean_turns_se"]),
            "tie_rate": float(row["tie_rate"]) * 100,
            "tie_rate_se": float(row["tie_rate_se"]) * 100,
        }
    return measured


def _trial_result(section, by_players: dict[int, dict[str, float]], rung: int) -> dict[str, Any]:
    """Objective values (worst over player counts, penalised outside the constraints) and what
    the report shows of one trial at one rung."""
    raw, errors = [], []
    for name in section.objectives:
        worst = max(by_players, key=lambda n: by_players[n][name])
        raw.append(by_players[worst][name])
        errors.append(by_players[worst][f"{name}_se"])
    violation = 0.0
    if section.constraints.turns is not None:
        low, high = section.constraints.turns
        violation = sum(max(0.0, low - m["game_length"], m["game_length"] - high) for m in by_players.values())
    penalty = INFEASIBLE_PENALTY + violation if violation > 0 else 0.0
    return {
        "rung": rung,
        "values": [value + penalty for value in raw],
        "objectives": raw,
        "errors": errors,
        "feasible": violation == 0,
        "games": sum(m["games"] for m in by_players.values()),
        "by_players": {str(n): m for n, m in sorted(by_players.items())},
    }


def _rung_history(study: optuna.Study) -> dict[int, list[list[float]]]:
    """Values of every told trial at every rung it played (racing compares with all of them)."""
    history: dict[int, list[list[float]]] = {}
    for trial in study.get_trials(deepcopy=False, states=(optuna.trial.TrialState.COMPLETE,)):
        for rung, values in enumerate(trial.user_attrs.get("rung_values", [])):
            history.setdefault(rung, []).append(values)
    return history


def _promoted(values: list[float], rung_values: list[list[float]]) -> bool:
    """Among the best third of the rung on at least one objective."""
    keep = max(1, math.ceil(len(rung_values) * KEEP_FRACTION))
    for objective, value in enumerate(values):
        threshold = sorted(v[objective] for v in rung_values)[keep - 1]
        if value <= threshold:
            return True
    return False
