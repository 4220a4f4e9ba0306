"""Helpers for the Katz tests: scripted positions in the spec's notation (rules spec §7) and
short ways to read outcomes. Kernels compile once per machine (numba cache) and are shared by
every test in the session."""

from __future__ import annotations

import numpy as np

from simulator.games.katz import GAME, engine, render
from simulator.games.katz import state as S


def make_params(**knobs):
    """Params from knobs; `value_effects_on__covered=False` style names become dotted."""
    return GAME.make_params({key.replace("__", "."): value for key, value in knobs.items()})


def scripted(grid: str, hand: str, *, players: int = 5, other_hands: list[str] | None = None,
             **options):
    """Seat 0 to decide in a 3 x 7 zoo (5 players unless told) with `hand`; options are knobs
    except the state_from_text keywords (face_down, supply, seat, skips)."""
    state_keys = {"face_down", "supply", "seat", "skips"}
    state_options = {key: value for key, value in options.items() if key in state_keys}
    knobs = {key: value for key, value in options.items() if key not in state_keys}
    if players != 5 and "grid" not in knobs:
        knobs["grid"] = {"rows": 3}
    params = make_params(players=players, **knobs)
    hands = [hand] + (other_hands or [""] * (players - 1))
    return render.state_from_text(params, grid, hands, check=True, **state_options)


def card(state, text: str) -> int:
    return render.parse_card(state.params, text)


def cell(state, row: int, column: int) -> int:
    return row * int(state.rules[S.P_COLS]) + column


def outcomes(state) -> set[tuple]:
    """Legal moves as readable tuples: ('place', 'Li7'), ('keeper',), ('cover', 'Mo6'),
    ('replace', (r, c), 'Li7'), ('draw', (r, c)), ('pass',)."""
    cols = int(state.rules[S.P_COLS])
    readable = set()
    for move in engine.legal_moves(state):
        name, where, card_id = engine.decode_move(move)
        if name in ("place", "cover"):
            readable.add((name, render.card_text(state.params, card_id)))
        elif name == "replace":
            readable.add((name, (where // cols, where % cols), render.card_text(state.params, card_id)))
        elif name == "draw":
            readable.add((name, (where // cols, where % cols)))
        else:
            readable.add((name,))
    return readable


def hand_texts(state, seat: int = 0) -> list[str]:
    return sorted(render.card_text(state.params, c) for c in state.hand(seat))


def do(state, name: str, where: tuple[int, int] | None = None, card_text: str | None = None):
    """Apply a move named like the spec: do(s, 'draw', (0, 2)), do(s, 'place', card_text='Li7')."""
    target = cell(state, *where) if where is not None else 0
    card_id = card(state, card_text) if card_text is not None else 0
    if name in ("place", "cover", "keeper"):
        target = int(state.scalars[S.S_GAP])
    engine.apply(state, engine.make_move(name, target, card_id))


def seat_score(state, seat: int = 0) -> int:
    return int(engine.scores(state)[seat])


def supply(state) -> int:
    return int(state.scalars[S.S_SUPPLY])


def counter(state, index: int) -> int:
    return int(state.scalars[index])


def seeds(count: int, start: int = 0) -> np.ndarray:
    return np.arange(start, start + count, dtype=np.uint64)
