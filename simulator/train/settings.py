"""What a training is: the game, its rules, the rounds and their games, the seed, the starting
weights and the players that make and judge the data; checked before anything is written.

Per game (TRAINING_DEFAULTS) the training says which policy plays the recorded games (`play`,
with the current weights where it is a learned policy), with which share of random decisions,
at which player counts (shares of --games), which learned policy the weights are gated (and, in
nyz, tuned) for, and which heuristic measures strength.
"""

from __future__ import annotations

import importlib
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
class GameTraining:
    """A game's training defaults: the recording policy, its random share, the player counts
    (share of the round's games each), the learned policy of the gates, the heuristic strength
    is measured against."""

    play: str
    explore: float
    players: dict[int, float]
    gate_policy: str
    heuristic: str


TRAINING_DEFAULTS = {
    # nyz: the learned player itself with the current weights (its heuristic finishes each turn);
    # player counts as benchmarks/train_eval.py records them (solo 1500, 2 players 1500, 3: 300);
    # gated and tuned for `strong`, the strongest player (weights tuned for `learned`'s play gave
    # `strong` 42% against the shipped `strong`, tuned for its own 60%: docs/learned-players.md)
    "nyz": GameTraining(play="learned", explore=0.0, players={1: 0.45, 2: 0.45, 3: 0.10},
                        gate_policy="strong", heuristic="greedy_duel"),
    # katz: greedy_tuned games with 15% random decisions (katz/training.py's TRAINING_*; its
    # recording plays any seating, `--play learned` or `strong` records the current weights'
    # games instead: measured weaker for `strong` by benchmarks/train_eval.py, docs/benchmarks.md)
    "katz": GameTraining(play="greedy_tuned", explore=0.15, players={2: 0.2, 3: 0.2, 4: 0.4, 5: 0.2},
                         gate_policy="learned", heuristic="greedy_tuned"),
}


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


def training_module(game: str):
    """The game's training code (simulator/games/<game>/training.py), or a one-line error."""
    if game not in TRAINING_DEFAULTS:
        raise ZoosimError(f"game '{game}' has no training code (trainable: {', '.join(TRAINING_DEFAULTS)})",
                          key="GAME")
    return importlib.import_module(f"simulator.games.{game}.training")


def check_settings(settings: TrainSettings) -> None:
    """Every problem of the settings as one ZoosimError naming the option, before anything is
    written: the rules at every player count, the policies, the starting weights."""
    from simulator.games import get_game

    training_module(settings.game)
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
    if settings.keep not in KEEP_RULES:
        raise ZoosimError(f"unknown keep rule '{settings.keep}' (allowed: {', '.join(KEEP_RULES)})", key="--keep")
    if settings.start not in (START_DEFAULT, START_ZERO):
        game.policies[settings.gate_policy].weights.resolve(settings.start)
