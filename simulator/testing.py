"""The conformance kit: every check of the game contract (simulator/games/base.py), as functions
a game package's own tests call on its game (docs/plugin-api.md, "Testing your game"), the same
ones zoosim's tests run on every registered game (tests/games/test_conformance.py).

    from simulator.testing import check_game

    def test_my_game_keeps_the_zoosim_contract():
        check_game("mygame")  # installed, or simulator.plugin.register_game("mygame", "pkg:GAME")

Each check takes a registered game's name, plays a few small batches and raises AssertionError
with one message naming the game and what broke; it returns None when it checked everything, or
the reason it did not apply (a game without a step API has none to check). `CHECKS` lists them;
`check_game` runs them all. Batches stay small (tens of games), so a pure-Python game is checked
in seconds; a numba game pays its compile once.
"""

from __future__ import annotations

import hashlib
import inspect
import json
import tempfile
from pathlib import Path
from typing import Callable

import numpy as np

from simulator.errors import ZoosimError
from simulator.games import get_game
from simulator.games.base import (
    WEIGHTS_PARAM, StepAPI, batch_problem, contract_problem, game_legend, outcome_lines, round_scores_problem,
)
from simulator.logs import unequal_turns, with_turn_order

FIRST_SEED = 1000  # the kit's games are seeds FIRST_SEED, FIRST_SEED + 1, ...
CHEAP = {"iterations": 8}  # a search policy's parameters in the kit: its code paths, a fraction of the time
NO_SUCH = "zoosim_no_such_name"  # a knob or parameter name no game has


def _fail(name: str, message: str) -> None:
    raise AssertionError(f"game '{name}': {message}")


def _seating(game, players):
    """Slot 0 plays the default policy, the others another policy where the game has one."""
    other = next((policy for policy in game.policies if policy != game.default_policy), game.default_policy)
    return game.seat_policies([(game.default_policy, {})] + [(other, {})] * (players - 1))


def _batch(game, games, check=False, rotation=None, seating=None):
    params = game.make_params()
    players = game.players(params)
    seating = seating or _seating(game, players)
    seeds = np.arange(FIRST_SEED, FIRST_SEED + games, dtype=np.uint64)
    rotations = (np.arange(games) % players if rotation is None else np.full(games, rotation)).astype(np.int8)
    return params, players, seating, seeds, rotations, game.play_batch(params, seating, seeds, rotations, check=check)


def check_random_games(name: str) -> None:
    """Random games keep the contract's columns: dtypes, end reasons in range, finite scores,
    at least one winner per game (a draw is a win shared by the tied seats), turns and rounds."""
    game = get_game(name)
    _, players, _, _, _, columns = _batch(game, 40)
    problem = batch_problem(game, columns, 40, players)
    if problem is not None:
        _fail(name, problem)
    for column in ("turns", "rounds", "end_reason"):
        if not np.issubdtype(columns[column].dtype, np.integer):
            _fail(name, f"column '{column}' has dtype {columns[column].dtype}, expected integers")
    if not set(np.unique(columns["end_reason"])) <= set(range(len(game.end_reasons))):
        _fail(name, f"end_reason {sorted(set(np.unique(columns['end_reason'])))} outside 0..{len(game.end_reasons) - 1}")
    if not np.isfinite(columns["score"]).all():
        _fail(name, "a score is not finite")
    if not (columns["win"].sum(axis=1) >= 1).all():
        _fail(name, "a game has no winner: mark every tied seat as winning a draw (a shared win)")
    if not ((columns["turns"] >= 1).all() and (columns["rounds"] >= 1).all()):
        _fail(name, "a game has fewer than 1 turn or round")


def check_commands(name: str) -> None:
    """What the registry checks when it loads a game (base.contract_problem), what is checked
    where it is called (legend and trace give text; a checked batch has every column with its
    shape and dtype, base.batch_problem), and `zoosim rules`, `play` and `play --help` end well."""
    from click.testing import CliRunner

    from simulator.cli import main

    game = get_game(name)
    problem = contract_problem(game)
    if problem is not None:
        _fail(name, problem)
    params = game.make_params()
    if game.legend is not None and not game_legend(game, params):
        _fail(name, "legend() is empty")
    _, players, seating, seeds, rotations, columns = _batch(game, 7, check=True)
    problem = batch_problem(game, columns, 7, players, check=True)
    if problem is not None:
        _fail(name, problem)
    if not isinstance(game.trace(params, seating, int(seeds[0]), int(rotations[0])), str):
        _fail(name, "trace() returned no text")
    for command in (["rules", name], ["play", name, "--seed", "1"], ["play", "--help"]):
        result = CliRunner().invoke(main, command)
        if result.exit_code != 0 or f"{name}: unusable" in result.output:
            _fail(name, f"`zoosim {' '.join(command)}` ended with status {result.exit_code}: {result.output[-500:]}")


def check_checked_mode(name: str, games: int = 300) -> None:
    """Checked mode (play_batch(..., check=True)) finds no violation in the default seating's games."""
    game = get_game(name)
    columns = _batch(game, games, check=True)[-1]
    for column in ("check_violations", "first_violation"):
        if column not in columns or columns[column].shape != (games,):
            _fail(name, f"a checked batch has no column '{column}' of shape ({games},)")
    if columns["check_violations"].sum() or (columns["first_violation"] != 0).any():
        first = int(np.flatnonzero(columns["check_violations"])[0]) if columns["check_violations"].any() else 0
        _fail(name, f"checked mode found a violation in the game of seed {FIRST_SEED + first}")


def _parts_play_alike(name, game, games, split, seating=None, label=""):
    params, _, seating, seeds, rotations, whole = _batch(game, games, seating=seating)
    first = game.play_batch(params, seating, seeds[:split], rotations[:split])
    second = game.play_batch(params, seating, seeds[split:], rotations[split:])
    for column, values in whole.items():
        if not np.array_equal(values, np.concatenate([first[column], second[column]])):
            _fail(name, f"{label}a batch does not play the games of its halves (column '{column}'): a game "
                        "must depend on its seed and rotation only, never on the other games of its batch")


def check_batch_halves(name: str) -> None:
    """A batch plays the very games its halves play."""
    _parts_play_alike(name, get_game(name), 30, 13)


def check_every_policy_in_any_batch(name: str) -> None:
    """What makes logs identical for any --jobs, backend and resume: every policy plays each game
    alike in any batch (search trees, scratch states and random streams are per game)."""
    game = get_game(name)
    players = game.players(game.make_params())
    for policy, spec in game.policies.items():
        params = {key: value for key, value in CHEAP.items() if key in spec.params}
        seating = game.seat_policies([(policy, params)] * players)
        _parts_play_alike(name, game, 12, 5, seating=seating, label=f"policy '{policy}': ")


def _log_digests(run_dir: Path) -> dict[str, str]:
    logs = run_dir / "logs"
    return {str(path.relative_to(logs)): hashlib.sha256(path.read_bytes()).hexdigest()
            for path in sorted(logs.rglob("*.parquet"))}


def check_any_jobs(name: str) -> None:
    """A run with one job and one with two (threads) write byte-identical logs."""
    from simulator.config import parse_experiment
    from simulator.plan import build_plan
    from simulator.runner import run_plan

    plan = build_plan(parse_experiment({"name": "conformance", "seed": 5, "games": 24, "chunk_games": 6,
                                        "studies": [{"game": name}]}))
    with tempfile.TemporaryDirectory(prefix="zoosim-conformance-") as folder:
        one, two = Path(folder) / "one", Path(folder) / "two"
        run_plan(plan, one, "", jobs=1, progress=False)
        run_plan(plan, two, "", jobs=2, backend="threading", progress=False)
        digests = _log_digests(one)
        if len(digests) != len(plan.chunks()) or len(digests) < 2:
            _fail(name, f"a run of {len(plan.chunks())} chunks wrote {len(digests)} chunk files")
        if digests != _log_digests(two):
            _fail(name, "a run with --jobs 1 and one with --jobs 2 wrote different logs")


def check_rotation(name: str) -> str | None:
    """Rotation r puts slot j in seat (j + r) % n (docs/adding-a-game.md, "Seating and random
    streams"). With `deal_travels_with_slot` False only seats differ: rotation r must be the very
    game that seating slot j's policy in seat (j + r) % n plays at rotation 0, so the deal and
    every random draw depend on the game seed alone, never on the rotation. With it True
    something travels with a slot (a hand, a secret goal, or random streams that depend on the
    rotation): then rotating a seating of one policy in every seat changes the games of at least
    one policy (else the declaration is wrong, and costs every seating its rotations)."""
    game = get_game(name)
    params = game.make_params()
    players = game.players(params)
    if players < 2:
        return "one player: nothing to rotate"
    for rotation in range(1, players):
        _, _, seating, seeds, rotations, rotated = _batch(game, 12, rotation=rotation)
        if game.deal_travels_with_slot:
            for policy, spec in game.policies.items():
                same = game.seat_policies([(policy, {k: v for k, v in CHEAP.items() if k in spec.params})] * players)
                at_zero = game.play_batch(params, same, seeds, np.zeros_like(rotations))
                moved = game.play_batch(params, same, seeds, rotations)
                if any(not np.array_equal(at_zero[column], moved[column]) for column in at_zero):
                    break
            else:
                _fail(name, f"deal_travels_with_slot is True, but rotation {rotation} of a seating of one policy "
                            "in every seat changes no game, for any policy: nothing travels with a slot; declare it False")
            continue
        order = [(slot - rotation) % players for slot in range(players)]  # seat -> slot
        seated = game.seat_policies([(seating.names[slot], {}) for slot in order])
        direct = game.play_batch(params, seated, seeds, np.zeros_like(rotations))
        for column, values in rotated.items():
            if not np.array_equal(values, direct[column]):
                _fail(name, f"rotation {rotation} is not the game of its seating rotated into the seats at rotation 0 "
                            f"(column '{column}'). With deal_travels_with_slot False a rotation may only move the "
                            "slots' policies to other seats: seed the deal and every random draw from the game seed "
                            "alone, not the rotation, or declare deal_travels_with_slot True")
    return None


def check_record_columns(name: str) -> None:
    """The declared record columns are there with their shapes; seat_measures name seat columns."""
    game = get_game(name)
    _, players, _, _, _, columns = _batch(game, 6)
    declared = {"turns", "rounds", "end_reason", "score", "win", *game.seat_columns, *game.game_columns}
    missing = sorted(declared - set(columns))
    if missing:
        _fail(name, f"play_batch returned no column '{missing[0]}'")
    for column in game.seat_columns:
        if columns[column].shape != (6, players):
            _fail(name, f"seat column '{column}' has shape {columns[column].shape}, expected (6, {players})")
    for column in game.game_columns:
        if columns[column].shape != (6,):
            _fail(name, f"game column '{column}' has shape {columns[column].shape}, expected (6,)")
    # seat_measures: a mapping column -> human name or (column, name) pairs; dict() reads either
    unknown = set(dict(game.seat_measures)) - {"score", "win", *game.seat_columns}
    if unknown:
        _fail(name, f"seat_measures names '{sorted(unknown)[0]}', which is no per-seat column")


def check_turn_order(name: str) -> None:
    """The turn-order facts (logs.TURN_ORDER_*), recorded by the game or filled in by
    logs.with_turn_order, tell one story: seats play in order from seat 0, so an earlier seat has
    the same number of turns or one more, and the last seat that got the most turns moved last
    and ended the game."""
    game = get_game(name)
    _, players, _, _, _, columns = _batch(game, 20)
    facts = with_turn_order(columns)
    turns = facts["seat_turns"].astype(int)
    if turns.shape != (20, players) or facts["decisions"].shape != (20, players):
        _fail(name, "seat_turns and decisions must be per-seat columns")
    ahead = turns[:, :1] - turns
    if not ((ahead >= 0) & (ahead <= 1)).all():
        _fail(name, "seat_turns: a seat after seat 0 has more turns, or two fewer")
    if not np.array_equal(unequal_turns(facts["seat_turns"]), turns.max(axis=1) != turns.min(axis=1)):
        _fail(name, "seat_turns disagree with unequal_turns")
    last_turn = players - 1 - np.argmax(turns[:, ::-1] == turns.max(axis=1, keepdims=True), axis=1)
    if not (np.array_equal(facts["last_mover"], last_turn) and np.array_equal(facts["ender"], last_turn)):
        _fail(name, "last_mover and ender must be the last seat that got the most turns")
    if not (facts["decisions"] >= 0).all():
        _fail(name, "decisions must not be negative")


def _call_shape(function) -> list[tuple[str, object]]:
    """(name, default) of each parameter a caller may pass positionally: the game's state
    parameter is named by the game (`state`, `position`), and a game may add keyword-only
    options after the shared ones."""
    parameters = [p for p in inspect.signature(function).parameters.values()
                  if p.name != "self" and p.kind is not inspect.Parameter.KEYWORD_ONLY]
    return [("<state>" if p.name in ("state", "position") else p.name, p.default) for p in parameters]


def check_step_api(name: str) -> str | None:
    """The step API has the shared signatures (base.StepAPI), and following policy_move from
    new_game replays the games play_batch plays, in checked mode."""
    game = get_game(name)
    if game.steps is None:
        return "the game offers no step API (Game.steps is None)"
    steps = game.steps
    if not isinstance(steps, StepAPI):
        _fail(name, "Game.steps lacks a function of base.StepAPI")
    for function in ("new_game", "legal_moves", "apply", "policy_move", "is_over", "scores", "winners"):
        if _call_shape(getattr(steps, function)) != _call_shape(getattr(StepAPI, function)):
            _fail(name, f"steps.{function} has parameters {_call_shape(getattr(steps, function))}, "
                        f"expected {_call_shape(getattr(StepAPI, function))}")
    params, _, seating, seeds, rotations, columns = _batch(game, 8)
    for index, (seed, rotation) in enumerate(zip(seeds, rotations)):
        state = steps.new_game(params, seating, int(seed), int(rotation), check=True)
        while not steps.is_over(state):
            move = steps.policy_move(state)
            if move not in steps.legal_moves(state):
                _fail(name, f"seed {seed}: policy_move chose {move}, not a legal move")
            if steps.apply(state, move) is not None:
                _fail(name, "steps.apply must return None (it changes the state in place)")
        if steps.scores(state).tolist() != columns["score"][index].tolist():
            _fail(name, f"seed {seed}, rotation {rotation}: the step API's scores differ from play_batch's")
        if steps.winners(state) != np.flatnonzero(columns["win"][index]).tolist():
            _fail(name, f"seed {seed}, rotation {rotation}: the step API's winners differ from play_batch's")
    return None


def check_round_scores(name: str) -> None:
    """The per-round score (Game.round_scores, optional) keeps its contract (base.round_scores_problem)
    and replays the games play_batch plays: one row per recorded round, the last row the recorded
    final scores, the recorded winners, and the same result when called again. A game without
    one has nothing to check and passes: the hook came in a minor version, so a game written
    before it gets the same result from `check_game` as before (docs/plugin-api.md, "Versioning")."""
    game = get_game(name)
    if game.round_scores is None:
        return None
    params, players, seating, seeds, rotations, columns = _batch(game, 6)
    for index, (seed, rotation) in enumerate(zip(seeds, rotations)):
        where = f"seed {seed}, rotation {rotation}"
        scores, win = game.round_scores(params, seating, int(seed), int(rotation))
        problem = round_scores_problem(scores, win, players)
        if problem is not None:
            _fail(name, f"{where}: {problem}")
        if len(scores) != columns["rounds"][index]:
            _fail(name, f"{where}: round_scores() gave {len(scores)} rounds, play_batch recorded {columns['rounds'][index]}")
        if scores[-1].tolist() != columns["score"][index].astype(float).tolist():
            _fail(name, f"{where}: round_scores()' last row {scores[-1].tolist()} is not play_batch's final score")
        if win.tolist() != columns["win"][index].tolist():
            _fail(name, f"{where}: round_scores()' winners differ from play_batch's")
        again = game.round_scores(params, seating, int(seed), int(rotation))
        if not (np.array_equal(again[0], scores) and np.array_equal(again[1], win)):
            _fail(name, f"{where}: round_scores() gave another result when called again")


def check_trace(name: str) -> None:
    """trace() plays the game play_batch plays: it ends with outcome_lines of play_batch's
    scores and winners, each seat named by the policy seated there."""
    game = get_game(name)
    params, players, seating, seeds, rotations, columns = _batch(game, 4)
    for index, (seed, rotation) in enumerate(zip(seeds, rotations)):
        names = [seating.names[(seat - int(rotation)) % players] for seat in range(players)]
        expected = outcome_lines(columns["score"][index], np.flatnonzero(columns["win"][index]).tolist(), names)
        ending = game.trace(params, seating, int(seed), int(rotation)).splitlines()[-len(expected):]
        if ending != expected:
            _fail(name, f"seed {seed}, rotation {rotation}: trace() ends with {ending}, not with play_batch's "
                        f"outcome {expected} (end a trace with simulator.plugin.outcome_lines)")


def _refused(name: str, what: str, function: Callable[[], object], naming: str) -> None:
    """`function()` must raise a one-line ZoosimError that names `naming`."""
    try:
        function()
    except ZoosimError as error:
        if naming not in str(error) or "\n" in str(error):
            _fail(name, f"{what} was refused with '{error}', which does not name '{naming}' in one line")
        return
    _fail(name, f"{what} was accepted")


def _wrong_kind(value):
    """A value of another kind than a knob's default: a mapping for anything but a mapping."""
    return "not a mapping" if isinstance(value, dict) else {NO_SUCH: 1}


def check_knob_validation(name: str) -> None:
    """Every preset validates; every knob `zoosim rules` prints is accepted back at its printed
    default and refuses a value of the wrong kind in one line naming it; an unknown knob and an
    unknown preset are refused the same way."""
    game = get_game(name)
    for preset in game.presets:
        game.make_params({"preset": preset})
    _refused(name, "an unknown knob", lambda: game.make_params({NO_SUCH: 1}), NO_SUCH)
    _refused(name, "an unknown preset", lambda: game.make_params({"preset": NO_SUCH}), "preset")
    for row in game.knobs():
        default = json.loads(row.default)
        try:
            game.make_params({row.name: default})
        except ZoosimError as error:
            _fail(name, f"knob '{row.name}' refuses its printed default {row.default}: {error}")
        if row.name != "preset":
            _refused(name, f"knob '{row.name}' set to {_wrong_kind(default)!r}",
                     lambda: game.make_params({row.name: _wrong_kind(default)}), row.name)


def _bad_values(spec, param):
    """Values a policy parameter must refuse: another choice, a missing weights file, a
    non-number, a non-finite number, and one outside its range."""
    if param in spec.choices:
        return [NO_SUCH, 0]
    if param == WEIGHTS_PARAM and spec.weights is not None:
        return [f"{NO_SUCH}/weights.npz", 3]
    bad = ["not a number", float("nan"), True]
    allowed = spec.ranges.get(param)
    if allowed is not None:
        if allowed.low > -np.inf:
            bad.append(allowed.low - 1)
        if allowed.high < np.inf:
            bad.append(allowed.high + 1)
        if allowed.integer and allowed.low + 0.5 <= allowed.high:
            bad.append(max(allowed.low, 0.0) + 0.5)
    return bad


def check_policy_parameters(name: str) -> None:
    """Every policy plays at its defaults, and refuses in one line naming the parameter an
    unknown parameter and each bad value of its parameters (_bad_values)."""
    game = get_game(name)
    for policy, spec in game.policies.items():
        game.seat_policies([(policy, {})])
        _refused(name, f"policy '{policy}' given an unknown parameter",
                 lambda: game.seat_policies([(policy, {NO_SUCH: 1})]), NO_SUCH)
        for param in spec.params:
            for bad in _bad_values(spec, param):
                _refused(name, f"policy '{policy}' with {param}={bad!r}",
                         lambda: game.seat_policies([(policy, {param: bad})]), param)


CHECKS = (
    check_commands, check_random_games, check_checked_mode, check_batch_halves, check_every_policy_in_any_batch,
    check_any_jobs, check_rotation, check_record_columns, check_turn_order, check_step_api, check_round_scores,
    check_trace,
    check_knob_validation, check_policy_parameters,
)


def check_game(name: str) -> dict[str, str]:
    """Run every check of CHECKS on the registered game `name`; raises AssertionError at the
    first break. Returns the checks that did not apply, with why."""
    skipped = {}
    for check in CHECKS:
        reason = check(name)
        if reason is not None:
            skipped[check.__name__] = reason
    return skipped
