"""Text rendering of a New York Zoo game: boards, strip, elephant, animals, moves, traces.

Used by `zoosim play`/`trace` and by tests. `trace` plays one game through the step API, i.e. the
same kernels and policy functions as play_batch, so a trace is exactly the game the batch plays.
"""

from __future__ import annotations

from simulator.games.base import InvariantViolation, outcome_lines
from simulator.games.nyz import components as comp
from simulator.games.nyz import moves, step_api
from simulator.games.nyz import state as S

_ENCLOSURE_LETTERS = "abcdefghijklmnopqrstuvwxyzABCDEF"
_SHAPE_NAMES = list(comp.ENCLOSURES) + list(comp.ATTRACTIONS)
_SPECIES_SHORT = {"meerkat": "M", "flamingo": "F", "kangaroo": "K", "penguin": "P", "fox": "X"}


def species_name(index: int) -> str:
    return comp.SPECIES[index] if index >= 0 else "-"


def legend(params) -> str:
    """The key to the codes of a trace (`zoosim play nyz` prints it first)."""
    squares = {}
    for name, (size_class, rows) in comp.ENCLOSURES.items():
        squares.setdefault(size_class, "".join(rows).count("#"))
    classes = ", ".join(f"{size_class} {count}" for size_class, count in sorted(squares.items()))
    animals = ", ".join(f"{_SPECIES_SHORT[name]} {name}" for name in comp.SPECIES)
    return (
        "key: strip '11:C9x2' = space 11, a bay whose top tile is C9, 2 tiles high; '17:FM' = an\n"
        "animal space and its pair; '--' = an empty bay; * = the elephant; |K| = the kangaroo\n"
        f"breeding line. Animals: {animals}. Enclosure tiles by size class (squares):\n"
        f"{classes}; T<squares> = attractions. Boards: # barn, . empty, a b c ... enclosures\n"
        "(listed below the grid: tile, species, animals/capacity), + attraction.\n"
        "Score = minus the empty squares left (0 = a complete board)."
    )


def render_board(position: step_api.Position, seat: int) -> str:
    """Grid (# barn, . empty, letter = enclosure, + attraction), then enclosures and houses."""
    st = position.state
    lines = [f"seat {seat}: {-step_api.scores(position)[seat]} empty squares", *board_grid(position, seat)]
    for e in range(st.seat[seat, S.P_ENCLOSURES]):
        tile = _SHAPE_NAMES[st.enc[seat, e, S.E_TILE]]
        count, capacity = st.enc[seat, e, S.E_COUNT], st.enc[seat, e, S.E_CAPACITY]
        lines.append(
            f"  {_ENCLOSURE_LETTERS[e]}: {tile:4s} {species_name(st.enc[seat, e, S.E_SPECIES])}"
            f" {count}/{capacity}"
        )
    houses = [species_name(st.house[seat, h]) for h in range(st.seat[seat, S.P_HOUSES])]
    lines.append("  houses: " + ", ".join(h if h != "-" else "_" for h in houses))
    return "\n".join(lines)


def board_grid(position: step_api.Position, seat: int) -> list[str]:
    """A seat's board, one line a row: # barn, . empty, letter = enclosure, + attraction."""
    st, tab = position.state, position.tables
    width, height = int(tab.width[seat]), int(tab.height[seat])
    lines = []
    for row in range(height):
        text = ""
        for col in range(width):
            code = int(st.cells[seat, row * width + col])
            if code == S.CELL_EMPTY:
                text += "."
            elif code == S.CELL_BARN:
                text += "#"
            elif code >= S.CELL_ATTRACTION:
                text += "+"
            else:
                text += _ENCLOSURE_LETTERS[code]
        lines.append("  " + text)
    return lines


def render_strip(position: step_api.Position) -> str:
    """One line per space: bay top tile and stack size, or the animal pair; * = elephant."""
    st, tab = position.state, position.tables
    parts = []
    for space in range(1, S.N_SPACES + 1):
        species = tab.line_species[space]
        if species >= 0:
            parts.append(f"|{_SPECIES_SHORT[comp.SPECIES[species]]}|")
        mark = "*" if st.sc[S.SC_ELEPHANT] == space else ""
        if tab.strip_kind[space] == S.SPACE_ANIMALS:
            a, b = (comp.SPECIES[i] for i in tab.strip_pair[space])
            parts.append(f"{mark}{space}:{_SPECIES_SHORT[a]}{_SPECIES_SHORT[b]}")
        elif st.bay_count[space] > 0:
            top = _SHAPE_NAMES[moves.top_tile(st, space)]
            parts.append(f"{mark}{space}:{top}x{st.bay_count[space]}")
        else:
            parts.append(f"{mark}{space}:--")
    return " ".join(parts)


def describe_move(position: step_api.Position, move: int) -> str:
    """A readable line for a legal move of the current decision."""
    st, decision = position.state, position.decision
    seat = position.decider
    if decision == S.D_DEST:
        code, space = divmod(move, 32)
        marker = "" if code == S.MARKER_NONE else (
            " (no marker)" if code == S.MARKER_FREE else f" (marker {comp.SOLO_MARKERS[code - 1]})"
        )
        return f"elephant to {space}{marker}"
    if decision in (S.D_PLACE, S.D_ATTRACTION_PLACE):
        shape = _SHAPE_NAMES[st.sc[S.SC_TILE]]
        if decision == S.D_ATTRACTION_PLACE:
            return f"place attraction {shape} (+ on the board below)"
        letter = _ENCLOSURE_LETTERS[st.seat[seat, S.P_ENCLOSURES]]  # the next enclosure's letter
        return f"place {shape} as enclosure {letter} (on the board below)"
    if decision == S.D_POPULATE:
        if move == S.POP_STOP:
            return "populate: stop"
        if move >= S.SRC_ENCLOSURE:
            return f"populate from enclosure {_ENCLOSURE_LETTERS[move - S.SRC_ENCLOSURE]}"
        return f"populate from house ({species_name(st.house[seat, move])})"
    if decision == S.D_ANIMAL_CHOICE:
        return "take the pair" if move == S.CHOICE_PAIR else f"take one {comp.SPECIES[move]}"
    if decision == S.D_ANIMAL_PLACE:
        if move == S.DECLINE:
            return "decline the other animal"
        slot, target = divmod(move, 64)
        species = species_name(st.sc[S.SC_PENDING_0 + slot])
        where = "a house" if target == S.TARGET_HOUSE else f"enclosure {_ENCLOSURE_LETTERS[target]}"
        return f"{species} to {where}"
    if decision == S.D_HOUSE_ADD:
        return "add from house" if move else "no house add"
    if decision == S.D_KEEP_ONE:
        return "keep one in a house" if move else "keep none"
    if decision == S.D_ATTRACTION:
        return "no attraction" if move == S.NO_ATTRACTION else f"attraction {_SHAPE_NAMES[45 + move]}"
    if decision == S.D_BREED:
        chosen = [e for e in divmod(move, 64) if e != S.NO_ENCLOSURE]
        return "breed in " + (", ".join(_ENCLOSURE_LETTERS[e] for e in chosen) or "none")
    if decision == S.D_BONUS:
        return "bonus: none" if move == S.NO_ENCLOSURE else f"bonus in {_ENCLOSURE_LETTERS[move]}"
    return str(move)


def trace(params, seat_policies, seed, rotation=0) -> str:
    """Play one game turn by turn through the step API and return it as text."""
    position = step_api.new_game(params, seat_policies, seed, rotation, check=True)
    names = [seat_policies.names[(seat - rotation) % params.players] for seat in range(params.players)]
    lines = [f"New York Zoo, {params.players} player(s), seed {seed}, rotation {rotation}"]
    lines += [f"seat {seat}: {name}" for seat, name in enumerate(names)]
    turn = 0
    while not step_api.is_over(position):
        if position.scalar(S.SC_TURNS) != turn:
            turn = position.scalar(S.SC_TURNS)
            lines.append(f"\nturn {turn}, seat {position.scalar(S.SC_ACTIVE)} | {render_strip(position)}")
        move = step_api.policy_move(position)
        who = position.decider
        placing = position.decision in (S.D_PLACE, S.D_ATTRACTION_PLACE)
        text = describe_move(position, move)
        try:
            step_api.apply(position, move)
        except InvariantViolation as violation:  # an engine bug: show it and play on
            text += f" [{violation}]"
        lines.append(f"  seat {who}: {text}")
        if placing:  # the board as the placement left it, drawn under the move
            lines += ["  " + line for line in board_grid(position, who)]
    reason = S.END_REASONS[position.scalar(S.SC_END_REASON)]
    lines.append(f"\nend: {reason} after {position.scalar(S.SC_TURNS)} turns")
    if step_api.violations(position):
        lines.append(f"INVARIANT VIOLATIONS: {step_api.violations(position)}")
    lines += [render_board(position, seat) for seat in range(params.players)]
    lines += outcome_lines(step_api.scores(position), step_api.winners(position), names)
    return "\n".join(lines) + "\n"


# --- Drawing of a final position (inline SVG for the report) ------------------------------------

SVG_SQUARE = 20  # pixels per board square
SPECIES_COLOURS = {"meerkat": "#e69f00", "flamingo": "#cc79a7", "kangaroo": "#d55e00", "penguin": "#56b4e9",
                   "fox": "#009e73"}


def final_position_svg(params, seat_policies, seed, rotation=0) -> str:
    """Every seat's board at the end of one game, side by side, as a small inline SVG: barn
    squares dark, empty squares white, enclosures in their species' colour (pale while empty)
    with the species letter and animals/capacity at their first square, attractions hatched
    grey (`+`). The game is the one `trace` plays from (seed, rotation), played by the batch's
    kernel (step_api.finished_game: no step kernels compile for a report)."""
    position = step_api.finished_game(params, seat_policies, seed, rotation)
    names = [seat_policies.names[(seat - rotation) % params.players] for seat in range(params.players)]
    winners = set(step_api.winners(position))
    boards, x = [], 4
    height = 0
    for seat in range(params.players):
        board, board_width, board_height = _board_svg(position, seat, x, 20)
        empty = -int(step_api.scores(position)[seat])
        title = f"seat {seat} ({names[seat]}): {empty} empty" + (" · winner" if seat in winners else "")
        boards.append(f'<text class="text" x="{x}" y="13">{title}</text>{board}')
        x += max(board_width, 7 * len(title)) + 16
        height = max(height, board_height)
    key = "key: " + ", ".join(f"{_SPECIES_SHORT[name]} {name}" for name in comp.SPECIES) + \
        "; n/m animals in an enclosure of m; + attraction; dark barn"
    total_height = height + 22
    return (f'<svg xmlns="http://www.w3.org/2000/svg" class="final-position" width="{max(x, 7 * len(key))}" '
            f'height="{total_height}" viewBox="0 0 {max(x, 7 * len(key))} {total_height}" font-family="sans-serif" '
            f'font-size="11">{"".join(boards)}<text class="text" x="4" y="{total_height - 6}">{key}</text></svg>')


def _board_svg(position: step_api.Position, seat: int, left: int, top: int) -> tuple[str, int, int]:
    st, tab = position.state, position.tables
    width, height = int(tab.width[seat]), int(tab.height[seat])
    parts, labelled = [], set()
    for row in range(height):
        for col in range(width):
            code = int(st.cells[seat, row * width + col])
            x, y = left + col * SVG_SQUARE, top + row * SVG_SQUARE
            fill = "#ffffff"
            if code == S.CELL_BARN:
                fill = "#555555"
            elif code >= S.CELL_ATTRACTION:
                fill = "#bbbbbb"
            elif code >= 0:
                species = int(st.enc[seat, code, S.E_SPECIES])
                fill = SPECIES_COLOURS[comp.SPECIES[species]] if species >= 0 else "#eeeeee"
            parts.append(f'<rect x="{x}" y="{y}" width="{SVG_SQUARE}" height="{SVG_SQUARE}" fill="{fill}" '
                         f'stroke="#999999" stroke-width="0.5"/>')
            if code >= S.CELL_ATTRACTION:
                parts.append(f'<text class="text" x="{x + 6}" y="{y + 15}" font-size="12">+</text>')
            elif code >= 0 and code not in labelled:
                labelled.add(code)
                species = int(st.enc[seat, code, S.E_SPECIES])
                letter = _SPECIES_SHORT[comp.SPECIES[species]] if species >= 0 else ""
                count, capacity = int(st.enc[seat, code, S.E_COUNT]), int(st.enc[seat, code, S.E_CAPACITY])
                parts.append(f'<text class="text" x="{x + 1}" y="{y + 13}" font-size="7">'
                             f'{letter}{count}/{capacity}</text>')
    codes = [[int(st.cells[seat, row * width + col]) for col in range(width)] for row in range(height)]
    for (x1, y1), (x2, y2) in region_borders(codes):
        parts.append(f'<line x1="{left + x1 * SVG_SQUARE}" y1="{top + y1 * SVG_SQUARE}" x2="{left + x2 * SVG_SQUARE}" '
                     f'y2="{top + y2 * SVG_SQUARE}" stroke="#222222" stroke-width="{BORDER_WIDTH}"/>')
    return "".join(parts), width * SVG_SQUARE, height * SVG_SQUARE + top


BORDER_WIDTH = 2  # pixels: the outline of each enclosure, so two of one colour side by side stay two


def region_borders(codes: list[list[int]]) -> list[tuple[tuple[int, int], tuple[int, int]]]:
    """The unit segments (in square coordinates: corner (col, row)) between orthogonal
    neighbours of a board whose square codes differ, plus the board's own edge next to an
    enclosure: every enclosure (code >= 0 and below CELL_ATTRACTION) gets its whole outline."""
    height, width = len(codes), len(codes[0]) if codes else 0

    def enclosure(row: int, col: int) -> bool:
        return 0 <= row < height and 0 <= col < width and 0 <= codes[row][col] < S.CELL_ATTRACTION

    def code(row: int, col: int) -> int | None:
        return codes[row][col] if 0 <= row < height and 0 <= col < width else None

    segments = []
    for row in range(height + 1):  # horizontal segments: the top edge of square (row, col)
        for col in range(width):
            if code(row - 1, col) != code(row, col) and (enclosure(row - 1, col) or enclosure(row, col)):
                segments.append(((col, row), (col + 1, row)))
    for row in range(height):  # vertical segments: the left edge of square (row, col)
        for col in range(width + 1):
            if code(row, col - 1) != code(row, col) and (enclosure(row, col - 1) or enclosure(row, col)):
                segments.append(((col, row), (col, row + 1)))
    return segments
