"""Text for Katz states: the zoo in the spec's notation (`Gi5`, `##` face down, `__` the gap,
`ZK` bare keeper, `ZK/Ca7` keeper over a card), hands, supply and pending skips; a whole game
as a turn-by-turn trace driven through the step API (so through the same kernels and policy
functions as play_batch); and the inverse used by tests: a state built from a text grid.
"""

from __future__ import annotations

import re

from simulator.games.base import SeatPolicies, outcome_lines
from simulator.games.katz import engine
from simulator.games.katz import state as S
from simulator.games.katz.params import Params, kind_codes

CELL_WIDTH = 7


def card_text(params: Params, card: int) -> str:
    values = params.deck.values
    return f"{kind_codes(params.deck)[card // len(values)]}{values[card % len(values)]}"


def parse_card(params: Params, text: str) -> int:
    """Card id of a code such as `Pd3` (ValueError if the deck has no such card)."""
    match = re.fullmatch(r"([A-Za-z]+)(\d+)", text.strip())
    codes = kind_codes(params.deck)
    if not match or match.group(1) not in codes or int(match.group(2)) not in params.deck.values:
        raise ValueError(f"no card '{text}' in this deck (kinds {' '.join(codes)}, "
                         f"values {params.deck.values})")
    values = params.deck.values
    return codes.index(match.group(1)) * len(values) + values.index(int(match.group(2)))


def cell_text(state: engine.KatzState, cell: int) -> str:
    kind = int(state.cells[S.CELL_STATE, cell])
    card = int(state.cells[S.CELL_CARD, cell])
    if kind == S.FACE_DOWN:
        return "##"
    if kind == S.GAP:
        return "__"
    if kind == S.KEEPER:
        return "ZK"
    if kind == S.KEEPER_OVER:
        return "ZK/" + card_text(state.params, card)
    return card_text(state.params, card)


def grid_text(state: engine.KatzState) -> str:
    rows, cols = int(state.rules[S.P_ROWS]), int(state.rules[S.P_COLS])
    header = "     " + "".join(f"{column:<{CELL_WIDTH}}" for column in range(cols))
    lines = [header.rstrip()]
    for row in range(rows):
        cells = "".join(f"{cell_text(state, row * cols + column):<{CELL_WIDTH}}" for column in range(cols))
        lines.append(f"r{row}:  {cells}".rstrip())
    return "\n".join(lines)


def hand_text(state: engine.KatzState, seat: int) -> str:
    return " ".join(card_text(state.params, card) for card in sorted(state.hand(seat))) or "(empty)"


def render_state(state: engine.KatzState) -> str:
    """The zoo, supply, face-down count, every hand with its current score, and pending skips."""
    scalars = state.scalars
    keepers = state.params.keepers
    supply = "unlimited" if keepers is None else str(int(scalars[S.S_SUPPLY]))
    phase = {S.PHASE_ACTION: "to act", S.PHASE_PLACE: "to place into the gap",
             S.PHASE_OVER: "game over"}.get(state.phase, "")
    lines = [
        f"deal {int(scalars[S.S_DEAL]) + 1}/{state.params.rounds}, seat {state.seat} {phase}; "
        f"supply {supply}, face-down {int(scalars[S.S_FACE_DOWN])}",
        grid_text(state),
    ]
    current = engine.scores(state)
    for seat in range(state.params.players):
        skip = "  [skips next turn]" if state.seats[seat, S.SEAT_SKIP_PENDING] else ""
        lines.append(f"seat {seat} ({state.policy_of_seat(seat)}), score {current[seat]:g}: "
                     f"{hand_text(state, seat)}{skip}")
    return "\n".join(lines)


def position(state: engine.KatzState, cell: int) -> str:
    cols = int(state.rules[S.P_COLS])
    return f"({cell // cols},{cell % cols})"


def event_text(state: engine.KatzState, event: tuple[int, int, int, int]) -> str:
    code, seat, cell, card = event
    who = f"seat {seat} ({state.policy_of_seat(seat)})"
    if code == S.EV_DEAL:
        return f"deal {cell + 1}: seat {seat} starts"
    if code == S.EV_DRAW:
        return f"{who} draws at {position(state, cell)}: {card_text(state.params, card)}"
    if code == S.EV_PLACE:
        return f"{who} places {card_text(state.params, card)} face up at {position(state, cell)}"
    if code == S.EV_KEEPER:
        return f"{who} puts a bare keeper at {position(state, cell)}"
    if code == S.EV_COVER:
        return (f"{who} puts {card_text(state.params, card)} under a keeper at "
                f"{position(state, cell)} (blocked-cell exception)")
    if code == S.EV_REPLACE:
        return (f"{who} replaces the keeper at {position(state, cell)} with "
                f"{card_text(state.params, card)}")
    if code == S.EV_PASS:
        return f"{who} passes"
    if code == S.EV_FORCED_PASS:
        return f"{who} has no legal action and passes"
    if code == S.EV_SKIPPED:
        return f"{who} loses this turn (skip)"
    if code == S.EV_EXTRA_TURN:
        return f"{who} takes an extra turn"
    if code == S.EV_SKIP_EARNED:
        return f"{who} will lose their next turn"
    if code == S.EV_FINAL_TURNS:
        return f"end triggered by seat {seat}: {cell} more seat turn(s) this round"
    if code == S.EV_DEAL_OVER:
        return f"deal over: {S.END_REASONS[cell]}"
    return f"event {code}"


def trace(params: Params, seat_policies: SeatPolicies, seed: int, rotation: int = 0) -> str:
    """One whole game, turn by turn, reproducible from (params, seating, seed, rotation)."""
    state = engine.new_game(params, seat_policies, seed, rotation)
    seating = ", ".join(f"seat {seat}: {state.policy_of_seat(seat)}" for seat in range(params.players))
    out = [f"Alles für die Katz, {params.players} players, seed {seed}, rotation {rotation % params.players}",
           f"rules: preset {params.preset}, edition {params.edition}, blocked_cell_rule {params.blocked_cell_rule}; {seating}"]
    out += [event_text(state, event) for event in state.last_events()]
    out.append(render_state(state))
    while not engine.is_over(state):
        move = engine.policy_move(state)
        deal_before = int(state.scalars[S.S_DEAL])
        engine.apply(state, move)
        out += ["  " + event_text(state, event) for event in state.last_events()]
        if state.phase != S.PHASE_PLACE:
            if int(state.scalars[S.S_DEAL]) == deal_before or engine.is_over(state):
                out.append(grid_text(state))
            else:
                out.append(render_state(state))
    out.append(render_state(state))
    out += outcome_lines(engine.scores(state), engine.winners(state),
                         [state.policy_of_seat(seat) for seat in range(params.players)])
    return "\n".join(out) + "\n"


def legend(params: Params) -> str:
    """The key to the codes of a trace (`zoosim play katz` prints it first)."""
    codes = kind_codes(params.deck)
    kinds = ", ".join(f"{code} {kind}" for code, kind in zip(codes, params.deck.kinds))
    example = f"{codes[0]}{params.deck.values[-1]}"
    return (
        f"key: a card is its kind and value ({example} = {params.deck.kinds[0]} "
        f"{params.deck.values[-1]}); kinds: {kinds}\n"
        f"(penalty kinds: {', '.join(params.deck.penalty_kinds) or 'none'}). Zoo cells: ## face down,\n"
        f"__ the gap, ZK a bare zookeeper, ZK/{example} a zookeeper over a card; (r,c) = row, column."
    )
