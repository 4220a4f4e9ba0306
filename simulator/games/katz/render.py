"""Text for Katz states: the zoo in the spec's notation (`Gi5`, `##` face down, `__` the gap,
`ZK` bare keeper, `ZK/Ca7` keeper over a card), hands, supply and pending skips; a whole game
as a turn-by-turn trace driven through the step API (so through the same kernels and policy
functions as play_batch); card codes parsed back (`parse_card`, which the tests' scripted
positions use); and a drawing of a game's final position (inline SVG) for the report.
"""

from __future__ import annotations

import re

from simulator.games.base import SeatPolicies, outcome_lines
from simulator.games.katz import step_api
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


def cell_text(state: step_api.KatzState, cell: int) -> str:
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


def grid_text(state: step_api.KatzState) -> str:
    rows, cols = int(state.rules[S.P_ROWS]), int(state.rules[S.P_COLS])
    header = "     " + "".join(f"{column:<{CELL_WIDTH}}" for column in range(cols))
    lines = [header.rstrip()]
    for row in range(rows):
        cells = "".join(f"{cell_text(state, row * cols + column):<{CELL_WIDTH}}" for column in range(cols))
        lines.append(f"r{row}:  {cells}".rstrip())
    return "\n".join(lines)


def hand_text(state: step_api.KatzState, seat: int) -> str:
    return " ".join(card_text(state.params, card) for card in sorted(state.hand(seat))) or "(empty)"


def render_state(state: step_api.KatzState) -> str:
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
    current = step_api.scores(state)
    for seat in range(state.params.players):
        skip = "  [skips next turn]" if state.seats[seat, S.SEAT_SKIP_PENDING] else ""
        lines.append(f"seat {seat} ({state.policy_of_seat(seat)}), score {current[seat]:g}: "
                     f"{hand_text(state, seat)}{skip}")
    return "\n".join(lines)


def position(state: step_api.KatzState, cell: int) -> str:
    cols = int(state.rules[S.P_COLS])
    return f"({cell // cols},{cell % cols})"


def event_text(state: step_api.KatzState, event: tuple[int, int, int, int]) -> str:
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
    state = step_api.new_game(params, seat_policies, seed, rotation)
    seating = ", ".join(f"seat {seat}: {state.policy_of_seat(seat)}" for seat in range(params.players))
    out = [f"Alles für die Katz, {params.players} players, seed {seed}, rotation {rotation % params.players}",
           f"rules: preset {params.preset}, edition {params.edition}, blocked_cell_rule {params.blocked_cell_rule}; {seating}"]
    out += [event_text(state, event) for event in state.last_events()]
    out.append(render_state(state))
    while not step_api.is_over(state):
        move = step_api.policy_move(state)
        deal_before = int(state.scalars[S.S_DEAL])
        step_api.apply(state, move)
        out += ["  " + event_text(state, event) for event in state.last_events()]
        if state.phase != S.PHASE_PLACE:
            if int(state.scalars[S.S_DEAL]) == deal_before or step_api.is_over(state):
                out.append(grid_text(state))
            else:
                out.append(render_state(state))
    out.append(render_state(state))
    out += outcome_lines(step_api.scores(state), step_api.winners(state),
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


# --- Drawing of a final position (inline SVG for the report) ------------------------------------

SVG_CELL = 46  # pixels per grid square
KIND_COLOURS = ("#e69f00", "#56b4e9", "#009e73", "#f0e442", "#0072b2", "#d55e00", "#cc79a7", "#999999")
DARK_KIND_COLOURS = {"#009e73", "#0072b2", "#d55e00"}  # labelled in white for contrast


def final_position_svg(params: Params, seat_policies: SeatPolicies, seed: int, rotation: int = 0) -> str:
    """The last deal's zoo at the end of one game, as a small inline SVG: face-up cards in their
    kind's colour with the spec's code (`Gi5`), keepers as a dark disc (`ZK`, over a card: the
    card's code under the disc), face-down cells grey (`##`); below, each seat's policy, final
    score and whether it won. The game is the one `trace` plays from (seed, rotation), played
    by the batch's kernel (step_api.finished_game: no step kernels compile for a report)."""
    state = step_api.finished_game(params, seat_policies, seed, rotation)
    rows, cols = int(state.rules[S.P_ROWS]), int(state.rules[S.P_COLS])
    final, won = step_api.scores(state), step_api.winners(state)
    seat_lines = [
        f"seat {seat} ({state.policy_of_seat(seat)}): score {int(final[seat])}" + (" · winner" if seat in won else "")
        for seat in range(params.players)
    ]
    codes = kind_codes(params.deck)
    seat_lines.append("key: " + ", ".join(f"{code} {name}" for code, name in zip(codes, params.deck.kinds))
                      + "; ZK zoo keeper; grey face down")
    width = max(cols * SVG_CELL, 7 * len(seat_lines[-1])) + 8
    height = rows * SVG_CELL + 14 * len(seat_lines) + 16
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" class="final-position" width="{width}" height="{height}" '
             f'viewBox="0 0 {width} {height}" font-family="sans-serif" font-size="11">']
    for cell in range(rows * cols):
        x, y = 4 + (cell % cols) * SVG_CELL, 4 + (cell // cols) * SVG_CELL
        parts.append(_cell_svg(state, cell, x, y))
    for number, line in enumerate(seat_lines):
        parts.append(f'<text class="text" x="4" y="{rows * SVG_CELL + 20 + 14 * number}">{_escape(line)}</text>')
    parts.append("</svg>")
    return "".join(parts)


def _cell_svg(state: step_api.KatzState, cell: int, x: int, y: int) -> str:
    kind = int(state.cells[S.CELL_STATE, cell])
    card = int(state.cells[S.CELL_CARD, cell])
    size = SVG_CELL - 4
    centre_x, centre_y = x + size / 2, y + size / 2
    box = f'<rect x="{x}" y="{y}" width="{size}" height="{size}" rx="4" '
    label = cell_text(state, cell)
    if kind == S.FACE_DOWN:
        return box + 'fill="#cccccc"/>'
    if kind == S.GAP:
        return box + 'fill="none" stroke="#bbbbbb" stroke-dasharray="3 2"/>'
    shapes = []
    if kind in (S.FACE_UP, S.KEEPER_OVER):
        colour = KIND_COLOURS[(card // len(state.params.deck.values)) % len(KIND_COLOURS)]
        shapes.append(box + f'fill="{colour}" stroke="#555555"/>')
        text_y = centre_y + (12 if kind == S.KEEPER_OVER else 4)
        ink = "white" if colour in DARK_KIND_COLOURS else "#222222"
        shapes.append(f'<text class="text" x="{centre_x}" y="{text_y}" text-anchor="middle" fill="{ink}">'
                      f'{card_text(state.params, card)}</text>')
    else:
        shapes.append(box + 'fill="#f6f6f6" stroke="#bbbbbb"/>')
    if kind in (S.KEEPER, S.KEEPER_OVER):
        shapes.append(f'<circle cx="{centre_x}" cy="{centre_y - 5}" r="9" fill="#333333"/>'
                      f'<text class="text" x="{centre_x}" y="{centre_y - 2}" text-anchor="middle" fill="white" '
                      f'font-size="8">ZK</text>')
    return f"<g><title>{_escape(label)}</title>{''.join(shapes)}</g>"


def _escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
