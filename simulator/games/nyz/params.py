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

from simulator.games.base import knob
from simulator.schema import StrictModel
from simulator.games.layouts import Choice, Derived, Equals, Flag, Int, RuleLayout
from simulator.games.nyz import components as comp

RULES_VERSION = 1

Species = Literal["meerkat", "flamingo", "kangaroo", "penguin", "fox"]
SINGLE_RULES = ("any_time", "when_no_pictured_fits", "when_pair_does_not_fit")  # S.SINGLE_*
MAX_CELLS = 128  # squares of a board: the kernels' bitboards are two uint64 words (state.py)
MAX_HOUSES = 6
N_SPACES = 25  # spaces of the strip (N-3.1)
START_RANDOM = 0  # R_START_SPACE of strip.start_space "random" (spaces are 1..25)


@functools.lru_cache(maxsize=None)
def placements_of(width: int, height: int, barn_rows: tuple[int, ...], shape: str):
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
        if cells > MAX_CELLS:
            raise ValueError(
                f"board {self.width}x{self.height} has {cells} squares; at most {MAX_CELLS} fit"
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
        if self.houses > MAX_HOUSES:
            raise ValueError(f"{self.houses} houses do not fit; at most {MAX_HOUSES}")
        if len(self.start_animals) > self.houses:
            raise ValueError(
                f"{len(self.start_animals)} starting animals do not fit in {self.houses} houses"
            )
        if len(self.start_animals) > 2:
            raise ValueError("at most 2 starting animals")
        if not placements_of(self.width, self.height, tuple(self.barn_rows), "A7") and not (
            placements_of(self.width, self.height, tuple(self.barn_rows), "A8")
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
        list(comp.BONUS_BREEDING_PLAYER_COUNTS), "N-6.3",
        "Player counts that get bonus breeding. 1 comes from the '(+1)' icon on the solo boards "
        "(BGA); the seed summary names only 2 and 3 (preset seed_summary: [2, 3]).",
        allowed="list of player counts 1..5",
    )
    tiles_per_bay: int = knob(
        3, "N-3.3", "Tiles per bay in the standard game (smallest layers kept).", ge=1, le=3
    )
    reduced_tiles_per_bay: int = knob(
        2, "N-3.3", "Tiles per bay in the solo and 2-player short game.", ge=1, le=3
    )

    @pydantic.field_validator("bonus_breeding_player_counts")
    @classmethod
    def check_player_counts(cls, counts):
        if any(not 1 <= count <= 5 for count in counts):
            raise ValueError("allowed: a list of player counts 1..5")
        return counts


STRIP_ALLOWED = (
    "25 spaces, 1..25 clockwise: a bay lists its 3 setup tile classes bottom to top (e.g. "
    "'BCD'), an animal space its two different pictured species joined by '+' (e.g. "
    "'fox+kangaroo')"
)


def strip_space(text: str) -> tuple[str, tuple[str, ...]]:
    """('bay', classes) or ('animals', (species, species)) of one strip.spaces entry."""
    if "+" in text:
        pair = tuple(text.split("+"))
        if len(pair) == 2 and pair[0] != pair[1] and all(sp in comp.SPECIES for sp in pair):
            return "animals", pair
    elif len(text) == 3 and all(cls in comp.TILE_CLASSES for cls in text):
        return "bay", tuple(text)
    raise ValueError(f"space '{text}' is no bay and no animal space; allowed: {STRIP_ALLOWED}")


class Strip(StrictModel):
    """The action strip (N-3): its spaces, breeding lines and start space."""

    spaces: list[str] = knob(
        [comp.strip_text(space) for space in comp.STRIP], "N-3.1",
        "Spaces of the strip in clockwise order.", allowed=STRIP_ALLOWED,
    )
    breeding_lines: dict[Species, int] = knob(
        {species: trigger for species, trigger in comp.BREEDING_LINES}, "N-3.2",
        "Breeding line of each species, as its trigger space (the first space after the line).",
        allowed="each of the 5 species -> a different space 1..25",
    )
    start_space: Literal["random"] | int = knob(
        comp.START_SPACE, "N-3.1",
        "The elephant's start space; in solo also the lap space. random: drawn per game, each "
        "space as likely, so no start favours a seat (seeds/new-york-zoo.md, decision 13).",
        allowed='"random", or a space 1..25',
        encode=Int("R_START_SPACE", words=(("random", START_RANDOM),)),
    )

    @pydantic.field_validator("start_space")
    @classmethod
    def check_start_space(cls, space):
        if space != "random" and not 1 <= space <= N_SPACES:
            raise ValueError(f"allowed: \"random\", or a space 1..{N_SPACES}")
        return space

    @pydantic.field_validator("spaces")
    @classmethod
    def check_spaces(cls, spaces):
        if len(spaces) != N_SPACES:
            raise ValueError(f"{len(spaces)} spaces; allowed: {STRIP_ALLOWED}")
        for text in spaces:
            strip_space(text)
        return spaces

    @pydantic.field_validator("breeding_lines")
    @classmethod
    def check_lines(cls, lines):
        missing = [sp for sp in comp.SPECIES if sp not in lines]
        if missing:
            raise ValueError(f"no line for {', '.join(missing)}; every species needs one")
        if any(not 1 <= space <= N_SPACES for space in lines.values()):
            raise ValueError("a trigger space must be 1..25")
        if len(set(lines.values())) != len(lines):
            raise ValueError("two lines share a trigger space; each species needs its own")
        return lines


class Breeding(StrictModel):
    """Limits of normal and bonus breeding (N-6.2, N-6.3)."""

    enclosures_per_event: int = knob(
        2, "N-6.2", "Enclosures of a player that breed per event, at most.", ge=1, le=2,
        encode=Int("R_BREED_ENCLOSURES"),
    )
    min_animals: int = knob(
        2, "N-6.2", "Animals an enclosure needs to breed (normal and bonus).", ge=1, le=16,
        encode=Int("R_BREED_MIN"),
    )
    young_per_enclosure: int = knob(
        1, "N-6.2", "Young per breeding enclosure (never more than its free squares).", ge=1, le=16,
        encode=Int("R_BREED_YOUNG"),
    )


class AttractionCopies(StrictModel):
    """Copies of each attraction type (N-1.4); T1 counts only when 1x1s are limited."""

    T8: int = knob(1, "N-1.4", "4x2 attractions.", ge=0, le=1000)
    T6: int = knob(1, "N-1.4", "3x2 attractions.", ge=0, le=1000)
    T4O: int = knob(1, "N-1.4", "2x2 attractions.", ge=0, le=1000)
    T4I: int = knob(1, "N-1.4", "1x4 attractions.", ge=0, le=1000)
    T3I: int = knob(3, "N-1.4", "1x3 attractions.", ge=0, le=1000)
    T3L: int = knob(3, "N-1.4", "L-shaped 3-square attractions.", ge=0, le=1000)
    T2: int = knob(6, "N-1.4", "1x2 attractions.", ge=0, le=1000)
    T1: int = knob(
        comp.PHYSICAL_1X1_ATTRACTIONS, "N-1.4",
        "1x1 attractions when attraction_1x1_unlimited = false.", ge=0, le=1000,
    )


TileId = Literal[tuple(comp.ENCLOSURES)]  # type: ignore[valid-type]


class TileClasses(StrictModel):
    """Which enclosure tiles are dealt as which setup class (N-1.3, N-3.3); a tile listed in
    no class is not in the game."""

    A: list[TileId] = knob(comp.tiles_of_class("A"), "N-1.3", "Tiles dealt as class A.",
                           allowed="enclosure tile ids A1..D7, each in at most one class")
    B: list[TileId] = knob(comp.tiles_of_class("B"), "N-1.3", "Tiles dealt as class B.",
                           allowed="enclosure tile ids A1..D7, each in at most one class")
    C: list[TileId] = knob(comp.tiles_of_class("C"), "N-1.3", "Tiles dealt as class C.",
                           allowed="enclosure tile ids A1..D7, each in at most one class")
    D: list[TileId] = knob(comp.tiles_of_class("D"), "N-1.3", "Tiles dealt as class D.",
                           allowed="enclosure tile ids A1..D7, each in at most one class")

    @model_validator(mode="after")
    def check_unique(self):
        seen = set()
        for cls in comp.TILE_CLASSES:
            for tile in getattr(self, cls):
                if tile in seen:
                    raise ValueError(
                        f"{tile} is listed twice; each tile in at most one class"
                    )
                seen.add(tile)
        return self


class PhysicalAnimals(StrictModel):
    meerkat: int = knob(34, "N-1.2", "Meerkats with animal_supply = physical.", ge=0, le=1000)
    flamingo: int = knob(32, "N-1.2", "Flamingos with animal_supply = physical.", ge=0, le=1000)
    kangaroo: int = knob(30, "N-1.2", "Kangaroos with animal_supply = physical.", ge=0, le=1000)
    penguin: int = knob(30, "N-1.2", "Penguins with animal_supply = physical.", ge=0, le=1000)
    fox: int = knob(30, "N-1.2", "Arctic foxes with animal_supply = physical.", ge=0, le=1000)


class Params(StrictModel):
    preset: str = knob(
        "bga", "N-0", "Preset the knobs started from.", allowed="a preset listed under presets"
    )
    players: int = knob(
        2, "N-2.3", "Number of players (1 = solo game).", ge=1, le=5,
        encode=Int("R_PLAYERS"),
    )
    animal_supply: Literal["unlimited", "physical"] = knob(
        "unlimited", "N-1.2", "Unlimited animals (BGA) or the physical counts.",
        encode=Equals("R_SUPPLY_LIMITED", value="physical"),
    )
    physical_animals: PhysicalAnimals = knob(PhysicalAnimals(), "N-1.2", "Physical supply.")
    attraction_1x1_unlimited: bool = knob(
        True, "N-1.4", "1x1 attractions never run out (else 16 copies)."
    )
    attraction_optional: bool = knob(
        True, "N-4.4", "A player may decline the attraction after scoring an enclosure (E1).",
        encode=Flag("R_ATTRACTION_OPTIONAL"),
    )
    single_animal_rule: Literal[SINGLE_RULES] = (  # type: ignore[valid-type]
        knob(
            "any_time", "N-4.3", "When option B2 (one animal of any kind instead of the pair) is "
            "allowed (E3): any_time (BGA; a species not pictured); when_no_pictured_fits (neither "
            "pictured animal can be placed); when_pair_does_not_fit (seed summary: the pair is "
            "offered only if both can be placed, else one animal of any species).",
            encode=Choice("R_SINGLE_RULE", prefix="SINGLE_"),
        )
    )
    allow_partial_pair: bool = knob(
        True, "N-4.3", "The second pictured animal may be declined (E4).",
        encode=Flag("R_PARTIAL_PAIR"),
    )
    french_two_per_turn_limit: bool = knob(
        False, "N-5.6", "At most 2 animals added to one enclosure per turn (E20).",
        encode=Flag("R_FRENCH_LIMIT"),
    )
    house_add: bool = knob(
        True, "N-5.4", "Add-from-house is offered at all (false: never).",
        encode=Flag("R_HOUSE_ADD"),
    )
    breeding_house_adds: Literal["per_bred_enclosure", "one_per_event"] = knob(
        "per_bred_enclosure", "N-5.4", "House animals added during breeding: one per enclosure "
        "that got young, bonus included (BGA), or one per player per breeding event in total "
        "(seed summary) (E31).", encode=Equals("R_BREED_HOUSE_ONE", value="one_per_event"),
    )
    keep_one: bool = knob(
        True, "N-4.4", "A scored enclosure's owner may keep one animal in a free house (E21).",
        encode=Flag("R_KEEP_ONE"),
    )
    populate_max: int = knob(
        2, "N-4.2", "Animals moved into a new enclosure, at most (at least 1; below 4, so "
        "populating never fills a tile).", ge=1, le=3, encode=Int("R_POPULATE_MAX"),
    )
    breeding_choice: Literal["choose", "automatic"] = knob(
        "choose", "N-6.2", "Normal breeding: the player chooses 0 to 2 eligible enclosures "
        "(BGA), or every eligible enclosure breeds, up to 2 (seed summary; with more eligible the "
        "player picks which) (E32).", encode=Equals("R_BREED_AUTOMATIC", value="automatic"),
    )
    bonus_breeding_target: Literal["not_bred", "any"] = knob(
        "not_bred", "N-6.3", "Bonus young go to an enclosure that got no young in this event "
        "(BGA), or to any enclosure with enough animals (seed summary) (E10).",
        encode=Equals("R_BONUS_ANY", value="any"),
    )
    breeding: Breeding = knob(Breeding(), "N-6.2", "Breeding limits.")
    breeding_order: Literal["chronological", "bga_index"] = knob(
        "chronological", "N-6.1", "Order of several events in one move (E7).",
        encode=Equals("R_BGA_ORDER", value="bga_index"),
    )
    max_events_per_move: Optional[int] = knob(
        None, "N-6.1", "Breeding events resolved per move (null = all; BGA 2).", ge=1, le=100,
        encode=Int("R_MAX_EVENTS", none=0),
    )
    bonus_per_event: bool = knob(
        True, "N-6.3", "Bonus breeding once per event (true) or once per move (E11).",
        encode=Flag("R_BONUS_PER_EVENT"),
    )
    end_skips_breeding: bool = knob(
        True, "N-7.1", "A board completed in the main action ends the game before breeding (E14).",
        encode=Flag("R_END_SKIPS_BREEDING"),
    )
    end_timing: Literal["immediate", "complete_round"] = knob(
        "immediate", "N-7.4", "A complete board ends the game at once (N-7.1), or the round is "
        "completed first so every seat has as many turns (designer variant): the trigger turn "
        "goes on with its breeding, the seats up to the last one play their turn, then N-7.2 "
        "ranks the complete boards.",
    )
    turn_order: Literal["clockwise", "random_each_round"] = knob(
        "clockwise", "N-4", "clockwise = every round goes clockwise from seat 1, the start player; "
        "random_each_round = every round, the first included, goes in a fresh uniformly random "
        "seat order (from a stream of its own, seeded at set-up), so in expectation no seat moves "
        "earlier than another (designer variant, the \"off\" of the seat order as a cause of seat "
        "advantage; breeding still goes round the table from the active seat, N-6.1; "
        "seeds/new-york-zoo.md, decision 14).",
    )
    tie_break: Literal["most_animals", "shared"] = knob(
        "most_animals", "N-7.5", "Several complete boards at the end: the one with the most "
        "animals wins (N-7.2), or every complete board shares the win (designer variant).",
    )
    solo_board: Literal["3_houses", "4_houses"] = knob("3_houses", "N-8.2", "Solo board side.")
    solo_score: Literal["bga", "lap_aware"] = knob(
        "bga", "N-8.2", "Solo score of a win: spaces to space 10 (bga) or to the end of the "
        "last lap (lap_aware) (E16).", encode=Equals("R_SOLO_LAP_AWARE", value="lap_aware")
    )
    solo_last_turn_breeding: bool = knob(
        False, "N-8.2", "Breeding still happens on the turn that completes the last lap (E17).",
        encode=Flag("R_SOLO_LAST_TURN_BREEDING"),
    )
    solo_laps: int = knob(
        2, "N-8.2", "Solo game ends when the lap counter reaches this.", ge=1, le=100,
        encode=Int("R_SOLO_LAPS"),
    )
    short_game_2p: bool = knob(
        False, "N-8.1", "2-player short game (BGA 'fast game').",
        encode=Flag("R_SHORT_GAME"),
    )
    replicate_bga_fastgame_d1_bug: bool = knob(
        False, "N-8.1", "Never deal D1 in the short game, as BGA does (E29).",
        encode=Flag("R_D1_BUG"),
    )
    no_legal_move: Literal["pass", "end_game"] = knob(
        "pass", "N-4.1", "A player without a legal destination passes, or the game ends "
        "unfinished (end reason 'stuck') (E27).",
        encode=Equals("R_NO_MOVE_ENDS_GAME", value="end_game"),
    )
    max_turns_per_player: int = knob(
        200, "N-7.3", "Safety cap: the game ends as 'turn_cap' after this many turns per player.",
        ge=1, le=6000,  # records keep turns as int16: at most 5 x 6000 turns per game
    )
    ai_sees_full_stacks: bool = knob(
        True, "N-12.6", "Policies may look below the top tile of a bay. The heuristics only "
        "read top tiles; mcts searches the real stacks when true and samples the tiles it has "
        "not seen when false.",
        encode=Flag("R_SEES_FULL_STACKS"),
    )
    solo_markers: list[Literal["0", "1", "2", "3", "4+"]] = knob(
        list(comp.SOLO_MARKERS), "N-8.2", "Solo range markers in the game.",
        allowed='a non-empty set of "0", "1", "2", "3", "4+"',
    )
    attraction_copies: AttractionCopies = knob(
        AttractionCopies(), "N-1.4", "Attraction supply."
    )
    tile_classes: TileClasses = knob(TileClasses(), "N-1.3", "Tile class composition.")
    strip: Strip = knob(Strip(), "N-3", "The action strip.")
    geometry: Geometry = knob(Geometry(), "N-2", "Boards, movement range, bonus, bays.")
    # Designer variants that switch off one way the boards differ by seat (N-2.4 to N-2.6): each
    # gives every seat that part of seat 1's board (the start player's) for this player count.
    equal_barns: bool = knob(
        False, "N-2.4", "Every seat's barn (squares pre-covered) is seat 1's, so every board has "
        "the same squares to fill.",
    )
    equal_houses: bool = knob(
        False, "N-2.5", "Every seat has as many houses as seat 1.",
    )
    equal_start_animals: bool = knob(
        False, "N-2.6", "Every seat starts with seat 1's starting animals.",
    )

    @model_validator(mode="before")
    @classmethod
    def replaced_knobs(cls, data):
        if isinstance(data, dict) and "single_animal_any_time" in data:
            raise ValueError(
                "single_animal_any_time was replaced by single_animal_rule (true -> any_time, "
                "false -> when_no_pictured_fits)"
            )
        return data

    @pydantic.field_validator("solo_markers")
    @classmethod
    def check_markers(cls, markers):
        if not markers or len(set(markers)) != len(markers):
            raise ValueError('a non-empty set of "0", "1", "2", "3", "4+", each at most once')
        return markers

    @model_validator(mode="after")
    def check_strip_supply(self):
        """Every bay layer of a class needs a tile of that class (N-3.3)."""
        need = {cls: 0 for cls in comp.TILE_CLASSES}
        for text in self.strip.spaces:
            kind, content = strip_space(text)
            if kind == "bay":
                for cls in content:
                    need[cls] += 1
        for cls, count in need.items():
            have = len(getattr(self.tile_classes, cls))
            if count > have:
                raise ValueError(
                    f"strip.spaces has {count} bay layers of class {cls} but tile_classes.{cls} "
                    f"lists {have} tiles; allowed: at most as many layers as tiles"
                )
        return self

    @model_validator(mode="after")
    def check_equal_boards(self):
        """A board made equal in part (N-2.4 to N-2.6) must still be a valid board (N-2.3)."""
        if not (self.equal_barns or self.equal_houses or self.equal_start_animals):
            return self
        for seat, board in enumerate(boards_for(self)):
            try:
                BoardSpec.model_validate(board.model_dump())
            except pydantic.ValidationError as error:
                reason = error.errors()[0]["msg"].removeprefix("Value error, ")
                raise ValueError(
                    f"equal_barns/equal_houses/equal_start_animals give seat {seat + 1} an "
                    f"impossible board: {reason}"
                ) from None
        return self

    @model_validator(mode="after")
    def check_variants(self):
        if self.short_game_2p and self.players != 2:
            raise ValueError("short_game_2p needs players = 2")
        if self.players >= 2 and getattr(self.geometry.movement_range, f"p{self.players}") < 1:
            raise ValueError("movement range must be at least 1")
        return self


def boards_for(params: Params) -> list[BoardSpec]:
    """The board of every seat, seat 0 first, with the parts the equal_* knobs make equal
    (N-2.4 to N-2.6) taken from seat 1's (the start player's) board."""
    boards = params.geometry.boards
    if params.players == 1:
        return [boards.solo_3_houses if params.solo_board == "3_houses" else boards.solo_4_houses]
    group = getattr(boards, f"p{params.players}")
    printed = [getattr(group, f"seat{i + 1}") for i in range(params.players)]
    start_board = printed[0]
    equal = {"barn_rows": params.equal_barns, "houses": params.equal_houses,
             "start_animals": params.equal_start_animals}
    update = {part: getattr(start_board, part) for part, on in equal.items() if on}
    return [board.model_copy(update=update) for board in printed]


# The rule array the kernels read (Tables.rules): every knob with an `encode=` above (in
# declaration order), then these quantities derived from several knobs.
RULES = RuleLayout(Params, dtype=np.int32, derived=(
    Derived("R_SOLO", lambda p: p.players == 1),
    # this player count gets bonus breeding (N-6.3)
    Derived("R_BONUS_ENABLED", lambda p: p.players in p.geometry.bonus_breeding_player_counts),
    Derived("R_MAX_TURNS", lambda p: p.max_turns_per_player * p.players),  # total turns (N-7.3)
    Derived("R_RANGE", lambda p: getattr(p.geometry.movement_range, f"p{p.players}") if p.players > 1 else 0),
    Derived("R_TILES_PER_BAY", lambda p: p.geometry.reduced_tiles_per_bay
            if p.players == 1 or p.short_game_2p else p.geometry.tiles_per_bay),
    # end_timing (N-7.4): 1 = complete the round after a board is complete
    Derived("R_END_COMPLETE_ROUND", lambda p: p.end_timing == "complete_round"),
    # tie_break (N-7.5): 1 = every complete board wins
    Derived("R_TIE_SHARED", lambda p: p.tie_break == "shared"),
    # turn_order (N-4): 1 = a random seat order every round
    Derived("R_ORDER_RANDOM_EACH_ROUND", lambda p: p.turn_order == "random_each_round"),
))


# N-0: rule presets. The first is the default. seed_summary = every reading of the German seed
# summary (shared/seeds/001) where it differs from BGA: E3, E4, E10, E31, E32, E33.
SEED_SUMMARY = {
    "single_animal_rule": "when_pair_does_not_fit",
    "allow_partial_pair": False,
    "breeding_choice": "automatic",
    "breeding_house_adds": "one_per_event",
    "bonus_breeding_target": "any",
    "geometry": {"bonus_breeding_player_counts": [2, 3]},
}
PRESETS = {
    "bga": {},
    "seed_summary": SEED_SUMMARY,
    "solo": {"players": 1},
    "short_game": {"players": 2, "short_game_2p": True},
    "bga_quirks": {
        "breeding_order": "bga_index",
        "max_events_per_move": 2,
        "replicate_bga_fastgame_d1_bug": True,
    },
}
