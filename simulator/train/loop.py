"""The rounds of `zoosim train` and the training folder.

Round 0 is the starting point (`--start`: the shipped weights, zero weights, or a weights file),
measured but not gated. Round r >= 1:
1. record: `games` games (split over the game's player counts, its training role's) played by the
   recording policy (a learned policy plays the best weights so far), positions recorded by the
   game's training.record(); seeds from (seed, r, players), so a round's data do not depend on
   --jobs (the games are split into chunks played in parallel and joined in seed order);
2. fit: training.fit() on the data of rounds 1..r joined (data aggregation: a round adds data,
   the fit sees all of it), with seed + r for its held-out split; then, where the game's training
   has a tune() (a game whose regression plays badly until tuned for play), the fitted weights tuned
   by play under the training's rules against the best weights so far (the incumbent), seeded by
   seed + r, in this process (the card's `tuning`), the gate policy playing both sides (so the
   weights are tuned for the gate policy's play);
3. gate: the candidate against the best so far, `gate_games` deals of two-player games with the
   seats rotated (the gate policy, by default the training role's, with each's
   weights), through the ordinary runner (plan, --jobs, --backend), in the same run as the
   strength games (candidate against the shipped weights and against the game's heuristic). The candidate is kept when its
   win share over the deals is above 50% (`--keep share`, the default: with a few hundred deals
   a real but small gain rarely lifts the lower bound over 50%, and a wrongly kept round costs
   little since the next round is gated against it) or when the 95% interval's lower bound is
   (`--keep lower`).

Folder DIR: train.json (the settings, their digest, the command), data/round-NN.npz (the
recorded arrays), candidates/round-NN.npz (what the gate plays), games/round-NN/ (the gate's
run folder), round-NN.npz + .json (each round's weights and card, written atomically once the
round is finished: the mark that it is), best.npz + .json (the latest kept round), report.html.
Resume: the rounds whose card exists are done; every step of the next round is a function of
the settings and the earlier rounds' files, so a resumed training writes the files an
uninterrupted one writes.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from simulator.errors import WriteFailed, ZoosimError
from simulator.processes import workers_block_ctrl_c
from simulator.rundir import RunLock, read_json, write_bytes_atomic, write_json_atomic
from simulator.runner import backend_session
from simulator.train.settings import (
    GATE_PLAYERS, START_DEFAULT, START_ZERO, TrainSettings, check_settings, training_module, training_role,
)

TRAIN_INFO = "train.json"
BEST = "best.npz"
REPORT = "report.html"
GATE_CHUNK_GAMES = 200  # games per chunk of a gate run: fixed, so the deals do not depend on --jobs
RECORD_CHUNKS_PER_JOB = 2


def round_path(out: Path, number: int) -> Path:
    return out / f"round-{number:02d}.npz"


@dataclass
class TrainOutcome:
    out: Path
    report: Path
    cards: list[dict[str, Any]]  # per finished round
    best_round: int


def prepare_out(out: Path, settings: TrainSettings, *, resume: bool) -> None:
    """Refuse a folder that holds something else, or another training without --resume's match."""
    info = out / TRAIN_INFO
    if out.exists() and not out.is_dir():
        raise ZoosimError("is not a folder", file=str(out), key="--out")
    if resume:
        if not info.exists():
            raise ZoosimError(f"holds no training to resume (no {TRAIN_INFO}); start one without --resume",
                              file=str(out), key="--resume")
        if read_training_json(info).get("digest") != settings.digest():
            raise ZoosimError("holds a training of other settings (game, rules, games, seed, start or "
                              "players); resume it with its own options or use another --out",
                              file=str(out), key="--resume")
    elif out.exists() and any(out.iterdir()):
        raise ZoosimError("is not empty; continue its training with --resume or choose another --out",
                          file=str(out), key="--out")


def run_training(settings: TrainSettings, out: Path, *, command: str, jobs: int, backend: str,
                 scheduler: str | None, resume: bool, progress: bool) -> TrainOutcome:
    """Train into `out`; `command` is the command line that made it (`--resume` added resumes it).
    A full disk or a refused write ends it in one line naming the folder and that command."""
    check_settings(settings)
    with backend_session(backend, scheduler):  # an unreachable cluster is refused before the folder is made
        prepare_out(out, settings, resume=resume)
        try:
            out.mkdir(parents=True, exist_ok=True)
            with RunLock(out):
                if not resume:
                    write_json_atomic(out / TRAIN_INFO, {"settings": settings.identity(),
                                                         "digest": settings.digest(), "command": command})
                return _train_in(settings, out, command, jobs, backend, scheduler, progress)
        except (OSError, WriteFailed) as error:  # the training's own files, or one of its gate runs
            reason = error.reason if isinstance(error, WriteFailed) else error.strerror or str(error)
            raise WriteFailed(reason, str(out), f"{command} --resume", what="the training",
                              kept="every finished round") from None


def finished_cards(out: Path) -> list[dict[str, Any]]:
    """The cards of the rounds finished, 0, 1, ... up to the first missing one."""
    cards = []
    while round_path(out, len(cards)).with_suffix(".json").exists():
        cards.append(read_training_json(round_path(out, len(cards)).with_suffix(".json")))
    return cards


def read_training_json(path: Path) -> dict[str, Any]:
    """A JSON file of the training folder (train.json, a round's card), or a one-line refusal
    naming it when it is damaged."""
    try:
        document = read_json(path)
    except ValueError as error:
        raise ZoosimError(f"is damaged ({error}); remove it to play its round again, or train into "
                          "a new --out", file=str(path)) from None
    if not isinstance(document, dict):
        raise ZoosimError("is damaged (not a JSON object); remove it to play its round again, or train "
                          "into a new --out", file=str(path))
    return document


def _train_in(settings, out, command, jobs, backend, scheduler, progress) -> TrainOutcome:
    from tqdm import tqdm

    from simulator.train.report import render_train_report

    cards = finished_cards(out)
    description = f"train {settings.game}"
    if progress and not sys.stderr.isatty():
        bar = StatusLines(description)
    else:
        bar = tqdm(total=settings.rounds + 1, initial=min(len(cards), settings.rounds + 1), unit="round",
                   desc=description, disable=not progress, dynamic_ncols=True)
    try:
        for number in range(len(cards), settings.rounds + 1):
            card = _play_round(settings, out, number, cards, command, jobs, backend, scheduler, bar)
            _write_round(out, number, card)
            cards.append(card)
            render_train_report(out / REPORT, settings, cards, best_round(cards), command)
            bar.set_postfix_str(_round_text(card))
            bar.update(1)
    finally:
        bar.close()
    _restore_best(out, cards)
    if not (out / REPORT).exists():
        render_train_report(out / REPORT, settings, cards, best_round(cards) if cards else None, command)
    return TrainOutcome(out, out / REPORT, cards, best_round(cards))


class StatusLines:
    """The training's progress for a stderr that is not a terminal (`zoosim train ... 2> file`):
    a plain line per status ("train GAME: round 1: recording 1000 games") where a terminal gets
    tqdm's bar, redrawn in place. It has the part of tqdm's interface the rounds use."""

    def __init__(self, description: str):
        self.description = description

    def set_postfix_str(self, text: str) -> None:
        print(f"{self.description}: {text}", file=sys.stderr, flush=True)

    def update(self, rounds: int) -> None:
        pass

    def close(self) -> None:
        pass


def _restore_best(out: Path, cards: list[dict[str, Any]]) -> None:
    """best.npz and its card, copied again from the best round's files where either is missing
    (deleted after the training, or lost to an interruption between the round and its copy)."""
    from simulator.games.learned import card_path

    if not cards:
        return
    best = round_path(out, best_round(cards))
    for source, copy in ((best, out / BEST), (card_path(best), card_path(out / BEST))):
        if not copy.exists():
            write_bytes_atomic(copy, source.read_bytes())


def _round_text(card: dict[str, Any]) -> str:
    gate = card["gate"]
    if gate is None:
        return f"round {card['round']}: start"
    return f"round {card['round']}: {100 * gate['share']:.1f}% vs best, {'kept' if card['kept'] else 'dropped'}"


def best_round(cards: list[dict[str, Any]]) -> int:
    kept = [card["round"] for card in cards if card["kept"]]
    return kept[-1] if kept else 0


def _play_round(settings: TrainSettings, out: Path, number: int, cards: list[dict[str, Any]], command: str,
                jobs: int, backend: str, scheduler: str | None, bar) -> dict[str, Any]:
    training = training_module(settings.game)
    tuning = None
    if number == 0:
        weights, intercepts, fit_info = start_weights(settings)
        data_games = positions = 0
    else:
        best = round_path(out, best_round(cards))
        data = [round_data(settings, out, r, best if r == number else None, jobs, bar) for r in range(1, number + 1)]
        joined = {name: tuple(np.concatenate([part[name][i] for part in data]) for i in range(len(data[0][name])))
                  for name in data[0]}
        weights, intercepts, fit_info = training.fit(joined, settings.seed + number)
        if hasattr(training, "tune"):
            bar.set_postfix_str(f"round {number}: tuning for play")
            weights, tuning = training.tune(weights, intercepts, settings.rules, settings.seed + number,
                                            incumbent=str(best), policy=settings.gate_policy)
        data_games = number * sum(settings.player_games().values())
        positions = int(sum(len(joined[name][0]) for name in set_names(settings)))
    card = base_card(settings, command, number, weights.shape, fit_info, tuning, data_games, positions)
    candidate = out / "candidates" / f"round-{number:02d}.npz"
    candidate.parent.mkdir(exist_ok=True)
    from simulator.games.learned import save_weights

    save_weights(candidate, weights, intercepts, {**card, "gate": None, "kept": None})
    previous = round_path(out, best_round(cards)) if number else None
    measured = play_gate(settings, out, number, candidate, previous, jobs, backend, scheduler)
    card["gate"] = measured.pop("gate", None)
    card["strength"] = measured or None
    card["kept"] = True if number == 0 else _kept(card["gate"], settings.keep)
    return {**card, "_weights": weights, "_intercepts": intercepts}


def _kept(gate: dict[str, Any], rule: str) -> bool:
    return (gate["share"] if rule == "share" else gate["low"]) > 0.5


def _write_round(out: Path, number: int, card: dict[str, Any]) -> None:
    from simulator.games.learned import save_weights

    weights, intercepts = card.pop("_weights"), card.pop("_intercepts")
    save_weights(round_path(out, number), weights, intercepts, card)
    if card["kept"]:
        save_weights(out / BEST, weights, intercepts, card)


def set_names(settings: TrainSettings) -> tuple[str, ...]:
    """The evaluation's sets: the recorded data's entries that are positions (a game's record may
    return more, e.g. its searches' visit counts)."""
    from simulator.games import get_game

    return get_game(settings.game).policies[settings.gate_policy].weights.set_names


def start_weights(settings: TrainSettings) -> tuple[np.ndarray, np.ndarray, dict]:
    """Round 0's weights: the shipped file, zeros, or the file --start names."""
    from simulator.games import get_game

    source = get_game(settings.game).policies[settings.gate_policy].weights
    if settings.start == START_ZERO:
        shape = (len(source.set_names), len(source.feature_names))
        return np.zeros(shape), np.zeros(shape[0]), {}
    loaded = source.resolve(settings.start)
    return loaded.weights, loaded.intercept, loaded.card.get("fit", {})


def base_card(settings: TrainSettings, command: str, number: int, shape, fit_info: dict, tuning: dict | None,
              games: int, positions: int) -> dict[str, Any]:
    from simulator.games import get_game
    from simulator.games.base import params_hash, played_rules
    from simulator.games.learned import WEIGHTS_FORMAT

    game = get_game(settings.game)
    source = game.policies[settings.gate_policy].weights
    params = game.make_params({**settings.rules, "players": GATE_PLAYERS})
    return {
        "format": WEIGHTS_FORMAT, "game": settings.game, "features": list(source.feature_names),
        "sets": list(source.set_names), "rules": played_rules(params),
        "rules_hash": params_hash(params, game.rules_version), "rules_set": settings.rules,
        "seed": settings.seed, "round": number, "training_games": games, "training_positions": positions,
        "command": command, "fit": fit_info, "tuning": tuning, "strength": None,
        "training": {"start": settings.start, "play": settings.play, "play_params": settings.play_params,
                     "explore": settings.explore,
                     "players": {str(k): v for k, v in settings.player_games().items()},
                     "games_per_round": settings.games, "keep": settings.keep},
    }


def round_data(settings: TrainSettings, out: Path, number: int, weights: Path | None, jobs: int,
               bar) -> dict[str, tuple[np.ndarray, ...]]:
    """Round `number`'s recorded data: read from data/round-NN.npz when it was recorded before,
    else recorded now (with `weights`, the best so far) and written there."""
    from joblib import Parallel, delayed

    path = out / "data" / f"round-{number:02d}.npz"
    if path.exists():
        with np.load(path, allow_pickle=False) as stored:
            return _unflatten(stored)
    if weights is None:
        raise ZoosimError(f"the recorded data of round {number} are missing; start the training again",
                          file=str(path))
    tasks = []
    for players, count in settings.player_games().items():
        seeds = np.random.SeedSequence([settings.seed, number, players]).generate_state(count, dtype=np.uint64)
        rotations = np.arange(count) % players
        for chunk in np.array_split(np.arange(count), max(1, min(count, RECORD_CHUNKS_PER_JOB * jobs))):
            if len(chunk):
                tasks.append((players, seeds[chunk], rotations[chunk]))
    bar.set_postfix_str(f"round {number}: recording {settings.games} games")
    with workers_block_ctrl_c(starts_processes=jobs > 1):  # no worker answers a Ctrl-C with a traceback
        recording = Parallel(n_jobs=jobs, return_as="generator")(
            delayed(record_chunk)(settings, str(weights), *task) for task in tasks)
    parts = list(recording)
    data = {name: tuple(np.concatenate([part[name][i] for part in parts]) for i in range(len(parts[0][name])))
            for name in parts[0]}
    path.parent.mkdir(exist_ok=True)
    temporary = path.with_name(f".{path.name}.tmp.npz")
    np.savez(temporary, **{f"{name}/{i}": array for name, arrays in data.items() for i, array in enumerate(arrays)})
    temporary.replace(path)
    return data


def _unflatten(stored) -> dict[str, tuple[np.ndarray, ...]]:
    data: dict[str, list[np.ndarray]] = {}
    for key in sorted(stored.files, key=lambda k: (k.rsplit("/", 1)[0], int(k.rsplit("/", 1)[1]))):
        data.setdefault(key.rsplit("/", 1)[0], []).append(np.array(stored[key]))
    return {name: tuple(arrays) for name, arrays in data.items()}


def record_chunk(settings: TrainSettings, weights: str, players: int, seeds, rotations):
    """One chunk of a round's recorded games: every seat plays the recording policy."""
    from simulator.games import get_game

    game = get_game(settings.game)
    overrides = dict(settings.play_params)
    if game.policies[settings.play].weights is not None:
        overrides["weights"] = weights
    params = game.make_params({**settings.rules, "players": players})
    seating = game.seat_policies([(settings.play, overrides)] * players)
    return training_module(settings.game).record(params, seating, seeds, rotations, settings.explore)


def play_gate(settings: TrainSettings, out: Path, number: int, candidate: Path, previous: Path | None,
              jobs: int, backend: str, scheduler: str | None) -> dict[str, Any]:
    """The round's head-to-heads through the ordinary runner: per study ("gate" against the best
    so far, "shipped", "heuristic") the candidate's win share over the deals and its 95% interval."""
    import json

    from simulator.config import Experiment, SeatSpec, Study
    from simulator.plan import build_plan
    from simulator.runner import run_plan

    policy = settings.gate_policy
    rules = {**settings.rules, "players": GATE_PLAYERS}
    mine = SeatSpec(policy=policy, params={"weights": str(candidate.resolve())})
    opponents = {}
    if previous is not None:
        opponents["gate"] = (SeatSpec(policy=policy, params={"weights": str(previous.resolve())}), settings.gate_games)
    if settings.strength_games:
        opponents["shipped"] = (SeatSpec(policy=policy, params={"weights": START_DEFAULT}), settings.strength_games)
        opponents["heuristic"] = (SeatSpec(policy=training_role(settings.game).heuristic), settings.strength_games)
    if not opponents:
        return {}
    studies = [Study(name=name, game=settings.game, rules=rules, seats=[mine, opponent], games=deals * GATE_PLAYERS)
               for name, (opponent, deals) in opponents.items()]
    experiment = Experiment(name=f"round-{number:02d}", seed=settings.seed, games=GATE_PLAYERS,
                            chunk_games=GATE_CHUNK_GAMES, studies=studies)
    text = json.dumps(experiment.model_dump(mode="json", exclude_none=True), indent=1)
    run_dir = out / "games" / f"round-{number:02d}"
    run_plan(build_plan(experiment), run_dir, text, jobs=jobs, backend=backend, scheduler=scheduler,
             resume=True, progress=False)
    shown = {"gate": f"{policy} with the weights of round {best_of(previous)}", "shipped": f"{policy} with the shipped weights",
             "heuristic": training_role(settings.game).heuristic}
    return head_to_head_shares(run_dir, {name: shown[name] for name in opponents})


def best_of(path: Path | None) -> str:
    """The round number in a round file's name (round-NN.npz)."""
    return path.stem.removeprefix("round-") if path is not None else ""


def head_to_head_shares(run_dir: Path, opponents: dict[str, str]) -> dict[str, dict[str, Any]]:
    """Per study of the run: slot 0's win share over the deals (ties shared) and its 95%
    interval with the deal as the unit (analysis.tables' policy rows), and the opponent named."""
    from simulator.analysis.tables import analyze_run
    from simulator.config import Experiment
    from simulator.rundir import read_manifest

    manifest = read_manifest(run_dir, Experiment)
    analysis = analyze_run(run_dir, manifest)
    study_of = {cell.index: cell.study for cell in manifest["cells"]}
    measured = {}
    for _, row in analysis.policies[analysis.policies["slot"] == 0].iterrows():
        name = study_of[int(row["cell"])]
        cell = analysis.cells[analysis.cells["cell"] == row["cell"]].iloc[0]
        measured[name] = {"opponent": opponents[name], "share": float(row["win_rate"]),
                          "low": float(row["ci_low"]), "high": float(row["ci_high"]), "deals": int(cell["deals"])}
    return measured

