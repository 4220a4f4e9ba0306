"""Registry of the games zoosim can simulate.

A game is any object satisfying the `Game` contract (`simulator/games/base.py`). The built-in
games are listed in `GAME_MODULES`; every installed package may add games through the entry-point
group `zoosim.games` (in its pyproject.toml: `[project.entry-points."zoosim.games"]
mygame = "mypackage.mygame:GAME"`). The CLI's game choices, `zoosim rules`, `zoosim bench` and
the config's messages all come from `game_names()`. Game modules are imported on first use
(numba is heavy). The built-in games are always found, even from a source checkout that was never
installed or when package metadata cannot be read; a plugin cannot replace a built-in name.

Importing this package imports no numba (the config, `zoosim report` and `zoosim validate` need
only the registry and `base.py`). Each module that defines numba kernels imports `kernel_cache.py`
itself, which points numba's kernel cache outside the package tree before that module's kernels
are defined.
"""

from __future__ import annotations

import functools
import importlib
import importlib.metadata

from simulator.errors import ZoosimError
from simulator.games.base import Game, contract_problem

ENTRY_POINT_GROUP = "zoosim.games"

# name -> "module" (its `GAME`) or "module:attribute"; the same form as an entry point's value
GAME_MODULES = {
    "katz": "simulator.games.katz:GAME",
    "nyz": "simulator.games.nyz:GAME",
}


@functools.lru_cache(maxsize=1)
def _entry_point_games() -> dict[str, str]:
    try:
        found = importlib.metadata.entry_points(group=ENTRY_POINT_GROUP)
    except Exception:  # unreadable metadata must never hide the built-in games
        return {}
    return {entry.name: entry.value for entry in sorted(found, key=lambda entry: entry.name)}


# name -> target of games added in this process by `register_game`
_REGISTERED: dict[str, str] = {}


def register_game(name: str, target: str) -> None:
    """Add a game in this process the way an installed entry point would ("module:attribute"),
    e.g. a plugin used from its source folder without installing it (its conformance test).
    A built-in name cannot be replaced."""
    if name in GAME_MODULES:
        raise ZoosimError(f"game '{name}' is built in and cannot be replaced")
    _REGISTERED[name] = target


def unregister_game(name: str) -> None:
    """Forget a game added by `register_game` (installed entry points are not affected)."""
    _REGISTERED.pop(name, None)


def registered_games() -> dict[str, str]:
    """Every game name with where its `Game` object lives: built-ins first, then plugins
    (installed entry points, then games registered in this process)."""
    plugins = {**_entry_point_games(), **_REGISTERED}
    return {**GAME_MODULES, **{name: target for name, target in plugins.items() if name not in GAME_MODULES}}


def game_names() -> tuple[str, ...]:
    return tuple(registered_games())


def get_game(name: str) -> Game:
    """The `Game` object of a registered game, or a ZoosimError naming the allowed games, or one
    line naming the package and what is wrong with it: a plugin that raises anything while it is
    imported, or whose `Game` breaks the contract (base.contract_problem), is reported in one line
    and harms no other game."""
    games = registered_games()
    if name not in games:
        raise ZoosimError(f"unknown game '{name}' (allowed: {', '.join(games)})")
    module_name, _, attribute = games[name].partition(":")
    where = f"game '{name}' ({games[name]})"
    try:
        found = importlib.import_module(module_name.strip())
        for part in (attribute.strip() or "GAME").split("."):
            found = getattr(found, part)
    except (ImportError, AttributeError) as error:
        raise ZoosimError(f"{where} cannot be loaded: {error}") from None
    except (Exception, SystemExit) as error:  # noqa: BLE001 - a plugin may raise anything on import (SyntaxError, exit())
        raise ZoosimError(f"{where} cannot be loaded: {type(error).__name__}: {error}") from None
    if not isinstance(found, Game) or found.name != name:
        raise ZoosimError(f"{where} is not a zoosim Game named '{name}'")
    if _CONFORMING.get(id(found)) is not found:
        problem = contract_problem(found)
        if problem is not None:
            raise ZoosimError(f"{where} breaks the game contract: {problem}")
        _CONFORMING[id(found)] = found
    return found


# id -> every Game object that passed contract_problem in this process (checked once each)
_CONFORMING: dict[int, Game] = {}
