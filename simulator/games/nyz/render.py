"""Text rendering of a New York Zoo game: boards, strip, elephant, animals, moves, traces.

Used by `zoosim play`/`trace` and by tests. `trace` plays one game through the step API, i.e. the
same kernels and policy functions as play_batch, so a trace is exactly the game the batch plays.
"""

from __future__ import annotations

from simulator.games.base import InvariantViolation, outcome_lines
from simulator.games.nyz import components as comp
from simulator.games.nyz import engine
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


def render_board(position: engine.Position, seat: int) -> str:
    """Grid (# barn, . empty, letter = enclosure, + attraction), then enclosures and houses."""
    st, tab = position.state, position.tables
    width, height = int(tab.width[seat]), int(tab.height[seat])
    lines = [f"seat {seat}: {-engine.scores(position)[seat]} empty squares"]
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


def render_strip(position: engine.Position) -> str:
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
            top = _SHAPE_NAMES[engine.top_tile(st, space)]
            parts.append(f"{mark}{space}:{top}x{st.bay_count[space]}")
        else:
            parts.append(f"{mark}{space}:--")
    return " ".join(parts)


def describe_move(position: engine.Position, move: int) -> str:
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
        width = int(position.tables.width[seat])
        bits = position.tables.place_bits[move]
        mask = int(bits[0]) | (int(bits[1]) << 64)
        cells = [divmod(i, width) for i in range(128) if mask >> i & 1]
        return f"place {_SHAPE_NAMES[st.sc[S.SC_TILE]]} on {cells}"
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
    position = engine.new_game(params, seat_policies, seed, rotation, check=True)
    names = [seat_policies.names[(seat - rotation) % params.players] for seat in range(params.players)]
    lines = [f"New York Zoo, {params.players} player(s), seed {seed}, rotation {rotation}"]
    lines += [f"seat {seat}: {name}" for seat, name in enumerate(names)]
    turn = 0
    while not engine.is_over(position):
        if position.scalar(S.SC_TURNS) != turn:
            turn = position.scalar(S.SC_TURNS)
            lines.append(f"\nturn {turn}, seat {position.scalar(S.SC_ACTIVE)} | {render_strip(position)}")
        move = engine.policy_move(position)
        who = position.decider
        text = describe_move(position, move)
        try:
            engine.apply(position, move)
        except InvariantViolation as violation:  # an engine bug: show it and play on
            text += f" [{violation}]"
        lines.append(f"  seat {who}: {text}")
    reason = S.END_REASONS[position.scalar(S.SC_END_REASON)]
    lines.append(f"\nend: {reason} after {position.scalar(S.SC_TURNS)} turns")
    if engine.violations(position):
        lines.append(f"INVARIANT VIOLATIONS: {engine.violations(position)}")
    lines += [render_board(position, seat) for seat in range(params.players)]
    lines += outcome_lines(engine.scores(position), engine.winners(position), names)
    return "\n".join(lines) + "\n"
