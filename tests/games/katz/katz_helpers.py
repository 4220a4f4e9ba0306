"""Helpers for the Katz tests: scripted positions in the spec's notation (rules spec §7) and
short ways to read outcomes. Kernels compile once per machine (numba cache) and are shared by
every test in the session."""

from __future__ import annotations

import re

import numpy as np

from simulator.games import rng as random_stream
from simulator.games.base import SeatPolicies
from simulator.games.katz import GAME, moves, render, step_api
from simulator.games.katz import rules as R
from simulator.games.katz import state as S
from simulator.games.katz.params import Params


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
    return state_from_text(params, grid, hands, check=True, **state_options)


def card(state, text: str) -> int:
    return render.parse_card(state.params, text)


def cell(state, row: int, column: int) -> int:
    return row * int(state.rules[S.P_COLS]) + column


def outcomes(state) -> set[tuple]:
    """Legal moves as readable tuples: ('place', 'Li7'), ('keeper',), ('cover', 'Mo6'),
    ('replace', (r, c), 'Li7'), ('draw', (r, c)), ('pass',)."""
    cols = int(state.rules[S.P_COLS])
    readable = set()
    for move in step_api.legal_moves(state):
        name, where, card_id = step_api.decode_move(move)
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
    step_api.apply(state, make_move(name, target, card_id))


def seat_score(state, seat: int = 0) -> int:
    return int(step_api.scores(state)[seat])


def supply(state) -> int:
    return int(state.scalars[S.S_SUPPLY])


def counter(state, index: int) -> int:
    return int(state.scalars[index])


def seeds(count: int, start: int = 0) -> np.ndarray:
    return np.arange(start, start + count, dtype=np.uint64)


def state_from_text(
    params: Params,
    grid: str,
    hands: list[str],
    *,
    seat: int = 0,
    supply: int | None = None,
    face_down: dict[tuple[int, int], str] | None = None,
    skips: tuple[int, ...] = (),
    seat_policies: SeatPolicies | None = None,
    seed: int = 0,
    check: bool = False,
) -> step_api.KatzState:
    """A scripted position in the spec's notation (§7): rows of tokens, optionally prefixed `r0:`;
    `hands` one string per seat (after the draw when the grid has a gap `__`). Face-down cells
    hold the cards given in `face_down`, the others the unused cards in id order; cards left
    over are set aside. Seat `seat` is to decide."""
    state = step_api.empty_state(params, seat_policies, check=check)
    state.rng = random_stream.new_state(np.uint64(seed))
    rows, cols = int(state.rules[S.P_ROWS]), int(state.rules[S.P_COLS])
    tokens = [re.sub(r"^r\d+:", "", line.strip()).split() for line in grid.strip().splitlines()]
    if len(tokens) != rows or any(len(row) != cols for row in tokens):
        raise ValueError(f"grid text must be {rows} rows of {cols} tokens")
    if len(hands) != params.players:
        raise ValueError(f"{len(hands)} hands for {params.players} players")
    cells, hidden, hands_array, seats = state.cells, state.hidden, state.hands, state.seats
    remaining = {card: int(state.cards[card, S.CARD_COPIES]) for card in range(state.cards.shape[0])}

    def use(text: str) -> int:
        card = render.parse_card(params, text)
        if remaining[card] == 0:
            raise ValueError(f"card {text} is used more often than the deck holds it")
        remaining[card] -= 1
        return card

    gap = -1
    face_down = {where: use(text) for where, text in (face_down or {}).items()}
    for row, row_tokens in enumerate(tokens):
        for column, token in enumerate(row_tokens):
            cell = row * cols + column
            cells[S.CELL_CARD, cell] = S.NO_CARD
            hidden[cell] = S.NO_CARD
            if token == "##":
                cells[S.CELL_STATE, cell] = S.FACE_DOWN
            elif token == "__":
                if gap >= 0:
                    raise ValueError("a grid can hold only one gap")
                cells[S.CELL_STATE, cell], gap = S.GAP, cell
            elif token == "ZK":
                cells[S.CELL_STATE, cell] = S.KEEPER
            elif token.startswith("ZK/"):
                cells[S.CELL_STATE, cell] = S.KEEPER_OVER
                cells[S.CELL_CARD, cell] = use(token[3:])
            else:
                cells[S.CELL_STATE, cell] = S.FACE_UP
                cells[S.CELL_CARD, cell] = use(token)
    for player, text in enumerate(hands):
        cards = [use(token) for token in text.split()]
        hands_array[player, : len(cards)] = cards
        seats[player, S.SEAT_HAND_LEN] = len(cards)
        seats[player, S.SEAT_SLOT] = player
        seats[player, S.SEAT_SKIP_PENDING] = player in skips
    unused = [card for card, copies in remaining.items() for _ in range(copies)]
    for cell in range(rows * cols):
        if cells[S.CELL_STATE, cell] == S.FACE_DOWN:
            where = (cell // cols, cell % cols)
            hidden[cell] = face_down.pop(where) if where in face_down else unused.pop(0)
    if face_down:
        raise ValueError(f"face_down names cells that are not '##': {sorted(face_down)}")
    hidden[rows * cols : rows * cols + len(unused)] = unused
    states = cells[S.CELL_STATE]
    keepers_shown = int(np.sum((states == S.KEEPER) | (states == S.KEEPER_OVER)))
    scalars = state.scalars
    scalars[S.S_SET_ASIDE] = len(unused)
    scalars[S.S_FACE_DOWN] = int(np.sum(states == S.FACE_DOWN))
    if params.keepers is not None:
        scalars[S.S_SUPPLY] = params.keepers - keepers_shown if supply is None else supply
    scalars[S.S_SEAT] = seat
    scalars[S.S_GAP] = gap
    scalars[S.S_PHASE] = S.PHASE_PLACE if gap >= 0 else S.PHASE_ACTION
    scalars[S.S_FINAL_TURNS_LEFT] = -1
    scalars[S.S_END_REASON] = -1
    scalars[S.S_INITIAL_KEEPERS] = int(np.sum(states == S.KEEPER))
    scalars[S.S_BARE_KEEPERS] = scalars[S.S_INITIAL_KEEPERS]
    # K-3.6.2: a scripted position lies in a round whose drawn order happens to be 0..n-1, the
    # later rounds' orders come from an order stream seeded by `seed`
    scalars[S.S_ROUND_ORDER:S.S_ROUND_ORDER + params.players] = np.arange(params.players)
    scalars[S.S_ORDER_PLACE] = seat
    scalars[S.S_ORDER_STREAM] = seed
    moves.recount_lines(state.rules, state.cards, cells, state.lines)
    return state


def make_move(name: str, cell: int = 0, card: int = 0) -> int:
    """A move code by type name ('draw', 'replace', 'pass', 'place', 'keeper', 'cover')."""
    return int(R.encode_move(S.MOVE_NAMES.index(name), cell, card))


def win_flags(state) -> list[bool]:
    """Per seat: did it win (step_api.winners lists the winning seats)."""
    winners = step_api.winners(state)
    return [seat in winners for seat in range(state.params.players)]
