"""Rule knobs of New York Zoo (typed, validated) and the flat arrays the kernels read.

Every field cites its rule id in seeds/new-york-zoo.md through `json_schema_extra={"rule": ...}`
so `zoosim rules nyz` (base.knob_table) lists it. Defaults are the specification's defaults.
Board geometry, movement ranges, bonus-breeding player counts and tiles per bay are knobs too
(`geometry.*`); impossible geometry is rejected with a message saying why.
"""

from __future__ import annotations

import functools
from typing import Literal, Optional

import numpy as np
import pydantic
from pydantic import model_validator

from simulator.games.base import StrictModel, knob
from simulator.games.nyz import components as comp
from simulator.games.nyz import state as S

RULES_VERSION = 1

Species = Literal["meerkat", "flamingo", "kangaroo", "penguin", "fox"]


@functools.lru_cache(maxsize=None)
def _placements_of(width: int, height: int, barn_rows: tuple[int, ...], shape: str):
    """Distinct placements (as Python int bitmasks) of a shape on a board's free squares."""
    rows = comp.ENCLOSURES[shape][1] if shape in comp.ENCLOSURES else comp.ATTRACTIONS[shape][0]
    barn = {(r, c) for r, run in enumerate(barn_rows) for c in range(run)}
    masks = []
    for cells in comp.orientations(rows):
        tall = max(r for r, _ in cells) + 1
        wide = max(c for _, c in cells) + 1
        for top in range(height - tall + 1):
            for left in range(width - wide + 1):
                squares = [(top + r, left + c) for r, c in cells]
                if any(sq in barn for sq in squares):
                    continue
                masks.append(sum(1 << (r * width + c) for r, c in squares))
    return tuple(masks)




class BoardSpec(StrictModel):
    """One player board (N-2). Subclasses made by `_board_model` carry each seat's defaults."""

    width: int = knob(9, "N-2.1", "Columns of the building grid.", ge=1)
    height: int = knob(9, "N-2.1", "Rows of the building grid.", ge=1)
    barn_rows: list[int] = knob(
        [4, 4, 4, 4, 3], "N-2.1", "Pre-covered barn squares at the left of grid rows 1, 2, ..."
    )
    houses: int = knob(3, "N-2.2", "Houses (one animal each).", ge=0)
    start_animals: list[Species] = knob(
        ["meerkat", "flamingo"], "N-2.2", "Starting animals, one per house."
    )

    @model_validator(mode="after")
    def check_geometry(self):
        cells = self.width * self.height
        if cells > S.MAX_CELLS:
            raise ValueError(
                f"board {self.width}x{self.height} has {cells} squares; at most {S.MAX_CELLS} fit"
                " the kernels' 128-bit bitboards"
            )
        if len(self.barn_rows) > self.height:
            raise ValueError(
                f"barn has {len(self.barn_rows)} rows but the board has only {self.height}"
            )
        for row, run in enumerate(self.barn_rows):
            if run < 0 or run > self.width:
                raise ValueError(
                    f"barn row {row + 1} covers {run} squares but the board is {self.width} wide"
                )
        if cells - sum(self.barn_rows) < 4:
            raise ValueError("the board leaves fewer than 4 squares to fill: no enclosure fits")
        if self.houses > S.MAX_HOUSES:
            raise ValueError(f"{self.houses} houses do not fit; at most {S.MAX_HOUSES}")
        if len(self.start_animals) > self.houses:
            raise ValueError(
                f"{len(self.start_animals)} starting animals do not fit in {self.houses} houses"
            )
        if len(self.start_animals) > 2:
            raise ValueError("at most 2 starting animals")
        if not _placements_of(self.width, self.height, tuple(self.barn_rows), "A7") and not (
            _placements_of(self.width, self.height, tuple(self.barn_rows), "A8")
        ):
            raise ValueError("no 4-square enclosure (2x2 or 1x4) fits on the free squares")
        return self


def _board_model(name: str, spec: dict) -> type[BoardSpec]:
    """A BoardSpec subclass whose defaults are one seat's board (so knob_table shows them)."""
    fields = {
        key: (BoardSpec.model_fields[key].annotation, knob(
            value,
            BoardSpec.model_fields[key].json_schema_extra["rule"],
            BoardSpec.model_fields[key].description,
        ))
        for key, value in spec.items()
    }
    return pydantic.create_model(name, __base__=BoardSpec, **fields)


def _seat_group(name: str, boards: list[dict], rule: str) -> type[StrictModel]:
    fields = {}
    for i, spec in enumerate(boards):
        model = _board_model(f"{name}Seat{i + 1}", spec)
        fields[f"seat{i + 1}"] = (
            model, knob(model(), rule, f"Board of seat {i + 1} (seat 1 moves first).")
        )
    return pydantic.create_model(name, __base__=StrictModel, **fields)


SoloBoard3 = _board_model("SoloBoard3Houses", comp.BOARDS["solo_3_houses"])
SoloBoard4 = _board_model("SoloBoard4Houses", comp.BOARDS["solo_4_houses"])
Boards2 = _seat_group("Boards2", comp.BOARDS["p2"], "N-2.3")
Boards3 = _seat_group("Boards3", comp.BOARDS["p3"], "N-2.3")
Boards4 = _seat_group("Boards4", comp.BOARDS["p4"], "N-2.3")
Boards5 = _seat_group("Boards5", comp.BOARDS["p5"], "N-2.3")


class Boards(StrictModel):
    solo_3_houses: SoloBoard3 = knob(SoloBoard3(), "N-8.2", "Solo board, 3-house side.")
    solo_4_houses: SoloBoard4 = knob(SoloBoard4(), "N-8.2", "Solo board, 4-house side.")
    p2: Boards2 = knob(Boards2(), "N-2.3", "Boards of the 2-player game.")
    p3: Boards3 = knob(Boards3(), "N-2.3", "Boards of the 3-player game.")
    p4: Boards4 = knob(Boards4(), "N-2.3", "Boards of the 4-player game.")
    p5: Boards5 = knob(Boards5(), "N-2.3", "Boards of the 5-player game.")


class MovementRange(StrictModel):
    p2: int = knob(4, "N-4.1", "Largest elephant move (counted spaces) with 2 players.", ge=1, le=24)
    p3: int = knob(3, "N-4.1", "Largest elephant move with 3 players.", ge=1, le=24)
    p4: int = knob(4, "N-4.1", "Largest elephant move with 4 players.", ge=1, le=24)
    p5: int = knob(3, "N-4.1", "Largest elephant move with 5 players.", ge=1, le=24)


class Geometry(StrictModel):
    boards: Boards = knob(Boards(), "N-2", "Player boards per player count and seat.")
    movement_range: MovementRange = knob(MovementRange(), "N-4.1", "Elephant range.")
    bonus_breeding_player_counts: list[int] = knob(
        list(comp.BONUS_BREEDING_PLAYER_COUNTS), "N-6.3", "Player counts that get bonus breeding."
    )
    tiles_per_bay: int = knob(
        3, "N-3.3", "Tiles per bay in the standard game (smallest layers kept).", ge=1, le=3
    )
    reduced_tiles_per_bay: int = knob(
        2, "N-3.3", "Tiles per bay in the solo and 2-player short game.", ge=1, le=3
    )


class PhysicalAnimals(StrictModel):
    meerkat: int = knob(34, "N-1.2", "Meerkats with animal_supply = physical.", ge=0, le=1000)
    flamingo: int = knob(32, "N-1.2", "Flamingos with animal_supply = physical.", ge=0, le=1000)
    kangaroo: int = knob(30, "N-1.2", "Kangaroos with animal_supply = physical.", ge=0, le=1000)
    penguin: int = knob(30, "N-1.2", "Penguins with animal_supply = physical.", ge=0, le=1000)
    fox: int = knob(30, "N-1.2", "Arctic foxes with animal_supply = physical.", ge=0, le=1000)


class Params(StrictModel):
    preset: str = knob("standard", "N-0", "Preset the knobs started from.")
    players: int = knob(2, "N-2.3", "Number of players (1 = solo game).", ge=1, le=5)
    animal_supply: Literal["unlimited", "physical"] = knob(
        "unlimited", "N-1.2", "Unlimited animals (BGA) or the physical counts."
    )
    physical_animals: PhysicalAnimals = knob(PhysicalAnimals(), "N-1.2", "Physical supply.")
    attraction_1x1_unlimited: bool = knob(
        True, "N-1.4", "1x1 attractions never run out (else 16 copies)."
    )
    attraction_optional: bool = knob(
        True, "N-4.4", "A player may decline the attraction after scoring an enclosure (E1)."
    )
    single_animal_any_time: bool = knob(
        True, "N-4.3", "Option B2 (one animal of another species) is always allowed (E3); "
        "false: only when no pictured animal can be placed."
    )
    allow_partial_pair: bool = knob(
        True, "N-4.3", "The second pictured animal may be declined (E4)."
    )
    french_two_per_turn_limit: bool = knob(
        False, "N-5.6", "At most 2 animals added to one enclosure per turn (E20)."
    )
    breeding_order: Literal["chronological", "bga_index"] = knob(
        "chronological", "N-6.1", "Order of several events in one move (E7)."
    )
    max_events_per_move: Optional[int] = knob(
        None, "N-6.1", "Breeding events resolved per move (null = all; BGA 2).", ge=1, le=100
    )
    bonus_per_event: bool = knob(
        True, "N-6.3", "Bonus breeding once per event (true) or once per move (E11)."
    )
    end_skips_breeding: bool = knob(
        True, "N-7.1", "A board completed in the main action ends the game before breeding (E14)."
    )
    solo_board: Literal["3_houses", "4_houses"] = knob("3_houses", "N-8.2", "Solo board side.")
    solo_score: Literal["bga", "lap_aware"] = knob(
        "bga", "N-8.2", "Solo score of a win: spaces to space 10 (bga) or to the end of the "
        "last lap (lap_aware) (E16)."
    )
    solo_last_turn_breeding: bool = knob(
        False, "N-8.2", "Breeding still happens on the turn that completes the last lap (E17)."
    )
    solo_laps: int = knob(2, "N-8.2", "Solo game ends when the lap counter reaches this.", ge=1, le=100)
    short_game_2p: bool = knob(False, "N-8.1", "2-player short game (BGA 'fast game').")
    replicate_bga_fastgame_d1_bug: bool = knob(
        False, "N-8.1", "Never deal D1 in the short game, as BGA does (E29)."
    )
    no_legal_move: Literal["pass", "end_game"] = knob(
        "pass", "N-4.1", "A player without a legal destination passes, or the game ends "
        "unfinished (end reason 'stuck') (E27)."
    )
    max_turns_per_player: int = knob(
        200, "N-7.3", "Safety cap: the game ends as 'turn_cap' after this many turns per player.",
        ge=1, le=6000,  # records keep turns as int16: at most 5 x 6000 turns per game
    )
    ai_sees_full_stacks: bool = knob(
        True, "N-12.6", "Policies may look below the top tile of a bay. The built-in policies "
        "only ever read top tiles, so for them this knob changes nothing."
    )
    geometry: Geometry = knob(Geometry(), "N-2", "Boards, movement range, bonus, bays.")

    @model_validator(mode="after")
    def check_variants(self):
        if self.short_game_2p and self.players != 2:
            raise ValueError("short_game_2p needs players = 2")
        if self.players >= 2 and getattr(self.geometry.movement_range, f"p{self.players}") < 1:
            raise ValueError("movement range must be at least 1")
        return self


def boards_for(params: Params) -> list[BoardSpec]:
    """The board of every seat, seat 0 first."""
    boards = params.geometry.boards
    if params.players == 1:
        return [boards.solo_3_houses if params.solo_board == "3_houses" else boards.solo_4_houses]
    group = getattr(boards, f"p{params.players}")
    return [getattr(group, f"seat{i + 1}") for i in range(params.players)]


def shape_rows() -> list[tuple[str, ...]]:
    """Rows of every shape in shape-id order: 45 enclosures then 8 attraction types."""
    return [rows for _, rows in comp.ENCLOSURES.values()] + [
        rows for rows, _ in comp.ATTRACTIONS.values()
    ]


@functools.lru_cache(maxsize=32)
def _board_tables(width: int, height: int, barn_rows: tuple[int, ...]):
    """Placements of all 53 shapes on one board as (uint64[n, 2], counts per shape)."""
    names = list(comp.ENCLOSURES) + list(comp.ATTRACTIONS)
    masks = [_placements_of(width, height, barn_rows, name) for name in names]
    flat = [m for shape in masks for m in shape]
    bits = np.array([[m & (2**64 - 1), m >> 64] for m in flat], dtype=np.uint64).reshape(-1, 2)
    return bits, np.array([len(shape) for shape in masks], dtype=np.int32)


def _split(mask: int) -> list[int]:
    return [mask & (2**64 - 1), mask >> 64]


def kernel_tables(params: Params) -> S.Tables:
    """The flat arrays the kernels read (state.Tables), for this params object."""
    players = params.players
    boards = boards_for(params)
    rules = np.zeros(S.N_RULES, dtype=np.int32)
    rules[S.R_PLAYERS] = players
    rules[S.R_SUPPLY_LIMITED] = params.animal_supply == "physical"
    rules[S.R_ATTRACTION_OPTIONAL] = params.attraction_optional
    rules[S.R_SINGLE_ANY_TIME] = params.single_animal_any_time
    rules[S.R_PARTIAL_PAIR] = params.allow_partial_pair
    rules[S.R_FRENCH_LIMIT] = params.french_two_per_turn_limit
    rules[S.R_BGA_ORDER] = params.breeding_order == "bga_index"
    rules[S.R_MAX_EVENTS] = params.max_events_per_move or 0
    rules[S.R_BONUS_PER_EVENT] = params.bonus_per_event
    rules[S.R_BONUS_ENABLED] = players in params.geometry.bonus_breeding_player_counts
    rules[S.R_END_SKIPS_BREEDING] = params.end_skips_breeding
    rules[S.R_SOLO] = players == 1
    rules[S.R_SOLO_LAP_AWARE] = params.solo_score == "lap_aware"
    rules[S.R_SOLO_LAST_TURN_BREEDING] = params.solo_last_turn_breeding
    rules[S.R_SOLO_LAPS] = params.solo_laps
    rules[S.R_SHORT_GAME] = params.short_game_2p
    rules[S.R_D1_BUG] = params.replicate_bga_fastgame_d1_bug
    rules[S.R_NO_MOVE_ENDS_GAME] = params.no_legal_move == "end_game"
    rules[S.R_MAX_TURNS] = params.max_turns_per_player * players
    rules[S.R_RANGE] = getattr(params.geometry.movement_range, f"p{players}") if players > 1 else 0
    reduced = players == 1 or params.short_game_2p
    rules[S.R_TILES_PER_BAY] = (
        params.geometry.reduced_tiles_per_bay if reduced else params.geometry.tiles_per_bay
    )
    rules[S.R_SEES_FULL_STACKS] = params.ai_sees_full_stacks

    width = np.array([b.width for b in boards], dtype=np.int32)
    height = np.array([b.height for b in boards], dtype=np.int32)
    board_bits = np.zeros((players, 2), dtype=np.uint64)
    barn_bits = np.zeros((players, 2), dtype=np.uint64)
    edge_bits = np.zeros((players, 4, 2), dtype=np.uint64)
    houses = np.array([b.houses for b in boards], dtype=np.int32)
    start_animals = np.full((players, 2), S.NO_SPECIES, dtype=np.int32)
    to_fill = np.zeros(players, dtype=np.int32)
    place_parts, place_first = [], np.zeros((players, S.N_SHAPES), dtype=np.int32)
    place_count = np.zeros((players, S.N_SHAPES), dtype=np.int32)
    offset = 0
    for seat, b in enumerate(boards):
        w, h = b.width, b.height
        cell = lambda r, c: 1 << (r * w + c)  # noqa: E731
        board_bits[seat] = _split(sum(cell(r, c) for r in range(h) for c in range(w)))
        barn_bits[seat] = _split(
            sum(cell(r, c) for r, run in enumerate(b.barn_rows) for c in range(run))
        )
        edge_bits[seat, 0] = _split(sum(cell(r, 0) for r in range(h)))
        edge_bits[seat, 1] = _split(sum(cell(r, w - 1) for r in range(h)))
        edge_bits[seat, 2] = _split(sum(cell(0, c) for c in range(w)))
        edge_bits[seat, 3] = _split(sum(cell(h - 1, c) for c in range(w)))
        for i, name in enumerate(b.start_animals):
            start_animals[seat, i] = comp.SPECIES.index(name)
        to_fill[seat] = w * h - sum(b.barn_rows)
        bits, counts = _board_tables(w, h, tuple(b.barn_rows))
        place_parts.append(bits)
        place_count[seat] = counts
        place_first[seat] = offset + np.concatenate(([0], np.cumsum(counts)[:-1]))
        offset += len(bits)

    shape_squares = np.array(
        [sum(line.count("#") for line in rows) for rows in shape_rows()], dtype=np.int32
    )
    tile_class = np.array(
        [comp.TILE_CLASSES.index(cls) for cls, _ in comp.ENCLOSURES.values()], dtype=np.int32
    )
    strip_kind = np.zeros(26, dtype=np.int32)
    strip_pair = np.full((26, 2), S.NO_SPECIES, dtype=np.int32)
    bay_layers = np.full((26, 3), -1, dtype=np.int32)
    for space, (kind, content) in enumerate(comp.STRIP, start=1):
        if kind == "bay":
            strip_kind[space] = S.SPACE_BAY
            bay_layers[space] = [comp.TILE_CLASSES.index(cls) for cls in content]
        else:
            strip_kind[space] = S.SPACE_ANIMALS
            strip_pair[space] = [comp.SPECIES.index(sp) for sp in content]
    line_species = np.full(26, S.NO_SPECIES, dtype=np.int32)
    line_rank = np.zeros(S.N_SPECIES, dtype=np.int32)
    for rank, (species, trigger) in enumerate(comp.BREEDING_LINES):
        line_species[trigger] = comp.SPECIES.index(species)
        line_rank[comp.SPECIES.index(species)] = rank
    caps = params.physical_animals
    animal_caps = np.array([getattr(caps, sp) for sp in comp.SPECIES], dtype=np.int32)
    copies = [c if c is not None else 0 for _, c in comp.ATTRACTIONS.values()]
    copies[-1] = S.UNLIMITED if params.attraction_1x1_unlimited else comp.PHYSICAL_1X1_ATTRACTIONS
    return S.Tables(
        rules=rules,
        width=width,
        height=height,
        board_bits=board_bits,
        barn_bits=barn_bits,
        edge_bits=edge_bits,
        houses=houses,
        start_animals=start_animals,
        to_fill=to_fill,
        place_bits=np.ascontiguousarray(np.concatenate(place_parts)),
        place_first=place_first,
        place_count=place_count,
        shape_squares=shape_squares,
        tile_class=tile_class,
        strip_kind=strip_kind,
        strip_pair=strip_pair,
        bay_layers=bay_layers,
        line_species=line_species,
        line_rank=line_rank,
        animal_caps=animal_caps,
        attraction_copies=np.array(copies, dtype=np.int32),
    )


PRESETS = {
    "standard": {},
    "solo": {"players": 1},
    "short_game": {"players": 2, "short_game_2p": True},
    "bga_quirks": {
        "breeding_order": "bga_index",
        "max_events_per_move": 2,
        "replicate_bga_fastgame_d1_bug": True,
    },
}
