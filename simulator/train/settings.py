"""What a training is: the game, its rules, the rounds and their games, the seed, the starting
weights and the players that make and judge the data; checked before anything is written.

A game is trainable when its `Game` declares a training role (`Game.training`, a base.Training):
its training code (record, fit, optionally tune) and its defaults: which policy plays the
recorded games (`play`, with the current weights where it is a learned policy), with which share
of random decisions, at which player counts (shares of --games), which learned policy the weights
are gated (and, where the game tunes, tuned) for, and which heuristic measures strength. Nothing
here knows a game by name.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from simulator.digest import SHORT, json_digest
from simulator.errors import ZoosimError

START_DEFAULT = "default"  # the game's shipped weights
START_ZERO = "zero"  # every weight 0: the game's tie-break or heuristic alone (see docs)
KEEP_RULES = ("share", "lower")  # gate: keep on the win share above 50%, or its 95% lower bound
GATE_PLAYERS = 2  # gates and strength games are two-player head-to-heads, seats rotated


@dataclass(frozen=True)
class TrainSettings:
    """One training. `rounds` is not part of its identity: a finished training resumed with more
    rounds goes on where it stopped."""

    game: str
    rules: dict[str, Any]
    rounds: int
    games: int
    seed: int
    start: str
    play: str
    gate_policy: str
    gate_games: int
    strength_games: int
    keep: str
    explore: float
    players: dict[int, float] = field(default_factory=dict)
    play_params: dict[str, Any] = field(default_factory=dict)  # the recording policy's parameters

    def identity(self) -> dict[str, Any]:
        data = asdict(self)
        data.pop("rounds")
        data["players"] = {str(k): v for k, v in self.players.items()}
        if not self.play_params:  # the identity (and digest) of trainings made before the option
            data.pop("play_params")
        if self.start not in (START_DEFAULT, START_ZERO):
            data["start"] = str(Path(self.start).resolve())
        return data

    def digest(self) -> str:
        return json_digest(self.identity(), SHORT)

    def player_games(self) -> dict[int, int]:
        """Recorded games per player count and round: its share of `games`, at least one."""
        return {players: max(1, int(round(self.games * share))) for players, share in self.players.items()}


def training_role(game: str):
    """The training role the game declares (base.Training), or a one-line error naming the
    games that declare one."""
    from simulator.games import get_game

    role = get_game(game).training
    if role is None:
        raise ZoosimError(f"game '{game}' has no training code: its Game declares no training role "
                          f"(trainable: {', '.join(trainable_games()) or 'none'})", key="GAME")
    return role


def trainable_games() -> list[str]:
    """The registered games whose Game declares a training role (a plugin that cannot be loaded
    is left out: its own commands say why)."""
    from simulator.games import game_names, get_game

    found = []
    for name in game_names():
        try:
            if get_game(name).training is not None:
                found.append(name)
        except ZoosimError:
            continue
    return found


def training_module(game: str):
    """The game's training code (its training role's `code`, imported on first use)."""
    from simulator.games.base import Deferred

    code = training_role(game).code
    return code.resolve() if isinstance(code, Deferred) else code


def check_settings(settings: TrainSettings) -> None:
    """Every problem of the settings as one ZoosimError naming the option, before anything is
    written: the rules at every player count, the policies, the starting weights."""
    from simulator.games import get_game

    training_role(settings.game)
    game = get_game(settings.game)
    for players in sorted({*settings.players, GATE_PLAYERS}):
        try:
            game.make_params({**settings.rules, "players": players})
        except ZoosimError as error:
            if error.key is not None:
                raise
            # a problem of the rules together, which may hold at some player counts only: say at which
            raise ZoosimError(f"{error.detail} (a training plays {players} players)", file=error.file) from None
    for option, name in (("--play", settings.play), ("--gate-policy", settings.gate_policy)):
        if name not in game.policies:
            raise ZoosimError(f"unknown policy '{name}' of {settings.game} (allowed: {', '.join(game.policies)})",
                              key=option)
    try:
        game.seat_policies([(settings.play, settings.play_params)])
    except ZoosimError as error:
        raise ZoosimError(error.detail, key="--play-param") from None
    if game.policies[settings.gate_policy].weights is None:
        learned = [name for name, spec in game.policies.items() if spec.weights is not None]
        raise ZoosimError(f"'{settings.gate_policy}' plays no learned weights (allowed: {', '.join(learned)})",
                          key="--gate-policy")
    trained = game.policies[settings.gate_policy].weights
    played = game.policies[settings.play].weights
    if played is not None and (played.feature_names, played.set_names) != (trained.feature_names, trained.set_names):
        # a learned --play records with the weights being trained (record_round), the gate policy's
        fits = [name for name, spec in game.policies.items() if spec.weights is None
                or (spec.weights.feature_names, spec.weights.set_names) == (trained.feature_names, trained.set_names)]
        raise ZoosimError(f"'{settings.play}' plays other weights than --gate-policy '{settings.gate_policy}' trains "
                          f"(allowed with it: {', '.join(fits)})", key="--play")
    if settings.keep not in KEEP_RULES:
        raise ZoosimError(f"unknown keep rule '{settings.keep}' (allowed: {', '.join(KEEP_RULES)})", key="--keep")
    if settings.start not in (START_DEFAULT, START_ZERO):
        game.policies[settings.gate_policy].weights.resolve(settings.start)
