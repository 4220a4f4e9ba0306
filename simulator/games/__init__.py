"""Registry of the games zoosim can simulate. Modules are imported on first use (numba is heavy)."""

from __future__ import annotations

import importlib

from simulator.errors import ZoosimError
from simulator.games.base import Game

GAME_MODULES = {
    "katz": "simulator.games.katz",
    "nyz": "simulator.games.nyz",
}


def get_game(name: str) -> Game:
    """The `Game` object of a registered game, or a ZoosimError naming the allowed games."""
    if name not in GAME_MODULES:
        raise ZoosimError(f"unknown game '{name}' (allowed: {', '.join(GAME_MODULES)})")
    return importlib.import_module(GAME_MODULES[name]).GAME
