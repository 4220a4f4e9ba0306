"""A plain-Python reference model of Alles für die Katz, written from the rules alone
(seeds/alles-fuer-die-katz.md, rule ids K-...),
without reading the engine's rule code. It exists to be checked against the engine move by move
("two implementations checked against each other", test_katz_reference.py).

Readability first: cells are small tuples, hands are lists of card ids, every rule is a short
function that names its rule id. Nothing here is fast and nothing here imports the engine; the
only shared conventions are the public ones of the step API:

  * a card id is `kind * len(values) + value_index`, kinds numbered zoo kinds first, then
    penalty kinds (K-1.2);
  * cell i is row i // cols, column i % cols;
  * moves are described as tuples
      ('draw', cell)  ('replace', cell, card)  ('pass',)                    -- action stage
      ('place', gap, card)  ('keeper', gap)  ('cover', gap, card)           -- placement stage

The game's deal (who holds what, which card lies in which face-down cell, who starts) is given
to the model from outside (`Deal`); everything after that the model decides itself.

Covered: every knob of K-9 except `copies_per_card > 1` is read; the knobs the comparison test
exercises are listed in test_katz_reference.py.
"""

from __future__ import annotations

from dataclasses import dataclass, field

# Cell states. A cell is a tuple (state, card); card is None for a bare keeper and for the gap.
FACE_DOWN = "down"  # (FACE_DOWN, card lying there unseen)
FACE_UP = "up"  # (FACE_UP, card)
KEEPER = "keeper"  # (KEEPER, None): a bare keeper, replaceable
KEEPER_OVER = "over"  # (KEEPER_OVER, card): a keeper over a card, permanent (K-3.3.3)
GAP = "gap"  # (GAP, None): the cell just drawn from, until the placement

# Phases of the model.
ACTION = "action"  # the seat to move chooses a draw, a replacement or a pass
PLACE = "place"  # a gap is open: choose what goes into it
NEED_DEAL = "need_deal"  # a deal ended and another one follows (rounds > 1): call begin_deal
OVER = "over"  # the game is over

SHORT_CODES = {"giraffe": "Gi", "elephant": "El", "monkey": "Mo", "parrot": "Pa", "penguin": "Pe",
               "lion": "Li", "panda": "Pd", "cat": "Ca"}

# per-seat counters the model keeps (K-8.2 record columns of the same names)
SEAT_COUNTS = ("cards_drawn", "keepers_replaced", "zookeepers_placed", "extra_turns_taken",
               "turns_skipped")

NO_FACE_DOWN = "no_face_down"
KEEPERS_EXHAUSTED = "keepers_exhausted"
NO_PROGRESS = "no_progress"


class Rules:
    """The knobs of one configuration, read from a `Params` object (or anything with the same
    attributes), and the facts about cards that follow from the deck."""

    def __init__(self, params):
        if params.deck.copies_per_card != 1:
            raise NotImplementedError("the reference model covers copies_per_card = 1 only")
        self.players = params.players
        deltas = params.seat_hand_size_delta  # K-2.5: per seat in turn order, missing = 0
        self.hand_sizes = [params.hand_size + (deltas[seat] if seat < len(deltas) else 0)
                           for seat in range(self.players)]
        bonuses = params.seat_bonus_points  # K-4.5: per seat in turn order, missing = 0
        self.seat_bonus = [bonuses[seat] if seat < len(bonuses) else 0 for seat in range(self.players)]
        self.cols = params.grid.cols
        self.rows = params.grid_rows  # K-2.2 ("auto" resolved by Params)
        self.cells = self.rows * self.cols
        self.kind_names = list(params.deck.zoo_kinds) + list(params.deck.penalty_kinds)
        self.zoo_kind_count = len(params.deck.zoo_kinds)
        self.values = list(params.deck.values)
        self.keepers = params.keepers  # None = unlimited (K-1.3)
        self.first_player = params.first_player
        self.must_place_if_able = params.must_place_if_able
        self.allow_pass = params.allow_pass
        self.allow_replacement = params.allow_keeper_replacement
        self.blocked_cell_rule = params.blocked_cell_rule
        self.blocked_cell_optional = params.blocked_cell_optional
        self.line_completion_needs_no_fit = params.line_completion_needs_no_fit
        self.first_turn_limit = params.first_turn_limit
        self.lost_extra_turn_in_pass_streak = params.lost_extra_turn_in_pass_streak
        self.line_complete_counts_keepers = params.line_complete_counts_keepers
        self.covered_cards_block = params.covered_cards_block
        self.penalty_kind_blocks = params.penalty_kind_blocks
        self.extra_turn_values = set(params.extra_turn_values)
        self.skip_values = set(params.skip_values)
        self.chain_extra_turns = params.chain_extra_turns
        self.effects_on = {
            "place": params.value_effects_on.place,
            "replace": params.value_effects_on.replace,
            "covered": params.value_effects_on.covered,
        }
        self.end_when_no_face_down = params.end_when_no_face_down
        self.end_timing = params.end_timing
        self.other_of_kind_penalty = params.scoring.other_of_kind_penalty
        self.penalty_kind_card = params.scoring.penalty_kind_card
        self.tie_break = params.tie_break
        self.rounds = params.rounds
        self.turn_order = params.turn_order

    # ---- cards (K-1) ----

    def kind(self, card: int) -> int:
        return card // len(self.values)

    def value(self, card: int) -> int:
        return self.values[card % len(self.values)]

    def is_penalty_kind(self, kind: int) -> bool:
        return kind >= self.zoo_kind_count

    def blocks(self, kind: int) -> bool:
        """K-3.1.4: may this kind ever be visible to the fit rule?"""
        return self.penalty_kind_blocks or not self.is_penalty_kind(kind)

    @property
    def all_kinds(self) -> set[int]:
        return set(range(len(self.kind_names)))

    def card_text(self, card: int) -> str:
        """Spec §1 short codes (`Pd3`); other kind names by their first two letters."""
        name = self.kind_names[self.kind(card)]
        return f"{SHORT_CODES.get(name, name[:2].title())}{self.value(card)}"

    # ---- grid geometry (K-3.1.2) ----

    def row_of(self, cell: int) -> int:
        return cell // self.cols

    def column_of(self, cell: int) -> int:
        return cell % self.cols

    def row_cells(self, row: int) -> list[int]:
        return [row * self.cols + column for column in range(self.cols)]

    def column_cells(self, column: int) -> list[int]:
        return [row * self.cols + column for row in range(self.rows)]

    def lines_of(self, cell: int) -> list[list[int]]:
        """The cell's row and its column, each as a list of cells (the cell included)."""
        return [self.row_cells(self.row_of(cell)), self.column_cells(self.column_of(cell))]

    def cross(self, cell: int) -> set[int]:
        """Every other cell of the cell's row and column."""
        return {other for line in self.lines_of(cell) for other in line if other != cell}


@dataclass
class Deal:
    """What the shuffle decided for one deal: each seat's hand, the card in each zoo cell (all
    face down), and the seat that starts this deal."""

    hands: list[list[int]]
    zoo: list[int]
    start_seat: int
    # turn_order random_each_round (K-3.6.2): the seed of the deal's order stream, a SplitMix64
    # state (the engine's documented generator, simulator/games/rng.py) as an unsigned integer
    order_seed: int | None = None


SPLITMIX_GAMMA = 0x9E3779B97F4A7C15
SPLITMIX_MASK = (1 << 64) - 1


class OrderStream:
    """K-3.6.2's stream of round orders: SplitMix64 from the deal's order seed, written from its
    published definition (state += gamma; two xor-shift-multiply steps), and Fisher-Yates."""

    def __init__(self, seed: int):
        self.state = seed

    def below(self, bound: int) -> int:
        """An integer in [0, bound): 53 random bits scaled to the bound, as rng.randint."""
        self.state = (self.state + SPLITMIX_GAMMA) & SPLITMIX_MASK
        z = self.state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & SPLITMIX_MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & SPLITMIX_MASK
        z ^= z >> 31
        return int(float(z >> 11) * (1.0 / 9007199254740992.0) * bound)

    def round_order(self, players: int) -> list[int]:
        """A uniformly random order of the seats: swap each place from the last down with a
        place at or below it."""
        order = list(range(players))
        for place in range(players - 1, 0, -1):
            other = self.below(place + 1)
            order[place], order[other] = order[other], order[place]
        return order


@dataclass
class Model:
    """One game in progress. Public + private state, kept in the plainest form."""

    rules: Rules
    cells: list[tuple] = field(default_factory=list)
    hands: list[list[int]] = field(default_factory=list)
    supply: int | None = None  # keepers beside the zoo; None = unlimited
    skip: list[bool] = field(default_factory=list)  # pending skip per seat (K-3.5.2)
    seat: int = 0  # seat to decide
    phase: str = ACTION
    gap: int | None = None
    in_extra_turn: bool = False
    pass_streak: int = 0  # passes in a row, chosen or forced, extra turns included (K-4.1.5)
    turn_step: int = 0  # seat turns of this deal before the current one (K-3.6.1's order)
    order_stream: OrderStream | None = None  # random_each_round (K-3.6.2)
    round_order: list[int] = field(default_factory=list)  # random_each_round: this round's seats
    final_turns_left: int | None = None  # end_timing complete_round: seat turns still to come
    pending_end_reason: str | None = None  # complete_round: the trigger's reason
    end_reason: str | None = None  # reason the last finished deal ended
    deal_index: int = 0
    first_seat: int = 0
    start_seat: int = 0
    total_scores: list[int] = field(default_factory=list)  # over finished deals (K-4.4)
    total_hand_cards: list[int] = field(default_factory=list)
    total_penalty_cards: list[int] = field(default_factory=list)
    first_turn: bool = False  # the start seat's first action of the deal is not done (K-3.8)
    forced_passes: int = 0
    # per seat, over all deals (K-8.2): cards drawn, keepers replaced, keepers put into gaps,
    # extra turns granted, seat turns lost to skips
    seat_counts: dict[str, list[int]] = field(default_factory=dict)

    # ---- set-up (K-2) ----

    @classmethod
    def start(cls, rules: Rules, deal: Deal) -> "Model":
        n = rules.players
        model = cls(rules=rules, total_scores=[0] * n, total_hand_cards=[0] * n,
                    total_penalty_cards=[0] * n, first_seat=deal.start_seat)
        model.seat_counts = {name: [0] * n for name in SEAT_COUNTS}
        model.begin_deal(deal)
        return model

    @classmethod
    def from_position(cls, rules: Rules, cells: list[tuple], hands: list[list[int]], *, seat: int,
                      supply: int | None, skips=(), first_seat: int = 0) -> "Model":
        """A scripted position (spec §7 notation, parsed by the caller): seat `seat` to decide;
        a cell (GAP, None) means a draw just happened there (hands are after the draw)."""
        n = rules.players
        model = cls(rules=rules, total_scores=[0] * n, total_hand_cards=[0] * n,
                    total_penalty_cards=[0] * n, first_seat=first_seat, start_seat=first_seat)
        model.seat_counts = {name: [0] * n for name in SEAT_COUNTS}
        model.cells = list(cells)
        model.hands = [list(hand) for hand in hands]
        model.supply = supply
        model.skip = [s in skips for s in range(n)]
        model.seat = seat
        model.turn_step = (seat - first_seat) % n  # a scripted position is in a deal's first round
        gaps = [cell for cell, (state, _) in enumerate(cells) if state == GAP]
        model.gap = gaps[0] if gaps else None
        model.phase = PLACE if gaps else ACTION
        return model

    def begin_deal(self, deal: Deal) -> None:
        rules = self.rules
        # K-2.1/K-2.2/K-2.5: each seat's hand size and a full zoo, all distinct cards
        assert len(deal.hands) == rules.players and len(deal.zoo) == rules.cells
        assert [len(hand) for hand in deal.hands] == rules.hand_sizes
        dealt = [card for hand in deal.hands for card in hand] + list(deal.zoo)
        assert len(set(dealt)) == len(dealt)
        assert all(0 <= card < len(rules.kind_names) * len(rules.values) for card in dealt)
        if self.phase == NEED_DEAL:
            self.deal_index += 1
        start_seat = deal.start_seat
        if rules.turn_order == "random_each_round":
            # K-3.6.2: the first round's order is drawn too; its first seat starts the deal, and
            # the first deal's start seat is the game's first seat
            self.order_stream = OrderStream(deal.order_seed)
            self.round_order = self.order_stream.round_order(rules.players)
            start_seat = self.round_order[0]
            if self.deal_index == 0:
                self.first_seat = start_seat
        else:  # K-4.4: deal k starts with seat (first seat + k) mod n
            assert deal.start_seat == (self.first_seat + self.deal_index) % rules.players
        if rules.turn_order == "random_after_first_round":  # K-3.6.2: drawn from round 2 on
            self.order_stream = OrderStream(deal.order_seed)
            self.round_order = [(start_seat + place) % rules.players for place in range(rules.players)]
        self.cells = [(FACE_DOWN, card) for card in deal.zoo]
        self.hands = [list(hand) for hand in deal.hands]
        self.supply = rules.keepers
        self.skip = [False] * rules.players
        self.gap = None
        self.final_turns_left = None
        self.pending_end_reason = None
        self.end_reason = None
        self.pass_streak = 0
        self.start_seat = start_seat
        self.first_turn = True
        self.turn_step = 0
        self.begin_seat_turn(start_seat)

    # ---- what is visible where (K-3.1) ----

    def shows_kind(self, cell: int) -> int | None:
        """The kind a cell shows to the fit rule, or None (face down, keeper, gap)."""
        state, card = self.cells[cell]
        if state == FACE_UP or (state == KEEPER_OVER and self.rules.covered_cards_block):
            kind = self.rules.kind(card)
            if self.rules.blocks(kind):
                return kind
        return None

    def visible_kinds(self, cells) -> set[int]:
        return {kind for kind in (self.shows_kind(c) for c in cells) if kind is not None}

    def cross_kinds(self, cell: int) -> set[int]:
        """K-3.1.2: the visible kinds of a cell = kinds shown in its cross."""
        return self.visible_kinds(self.rules.cross(cell))

    def fits(self, card: int, cell: int) -> bool:
        """K-3.1.5: only the kind matters."""
        return self.rules.kind(card) not in self.cross_kinds(cell)

    def is_dead(self, cell: int) -> bool:
        """K-3.1.5: every kind of the deck is visible in the cross."""
        return self.cross_kinds(cell) == self.rules.all_kinds

    # ---- legal moves ----

    def face_down_cells(self) -> list[int]:
        return [cell for cell, (state, _) in enumerate(self.cells) if state == FACE_DOWN]

    def draw_possible(self) -> bool:
        """K-3.2.1: a face-down cell and a keeper in the supply (for a possible no-fit)."""
        keeper_at_hand = self.rules.keepers is None or self.supply > 0
        return bool(self.face_down_cells()) and keeper_at_hand

    def replacement_moves(self, seat: int) -> set[tuple]:
        """K-3.4: one move per (bare keeper, distinct hand card fitting its cell)."""
        if not self.rules.allow_replacement:
            return set()
        moves = set()
        for cell, (state, _) in enumerate(self.cells):
            if state == KEEPER:
                for card in self.hands[seat]:
                    if self.fits(card, cell):
                        moves.add(("replace", cell, card))
        return moves

    def action_moves(self, seat: int) -> set[tuple]:
        moves = set()
        if self.draw_possible():
            moves |= {("draw", cell) for cell in self.face_down_cells()}
        moves |= self.replacement_moves(seat)
        if self.rules.allow_pass:  # K-3.2.6
            moves.add(("pass",))
        return moves

    def line_is_completed_by_gap(self, line: list[int]) -> bool:
        """K-3.3.2: no other face-down cell in the line (the gap fills it). With
        line_complete_counts_keepers false, a line holding any keeper never counts."""
        others = [cell for cell in line if cell != self.gap]
        if any(self.cells[cell][0] == FACE_DOWN for cell in others):
            return False
        if not self.rules.line_complete_counts_keepers:
            if any(self.cells[cell][0] in (KEEPER, KEEPER_OVER) for cell in others):
                return False
        return True

    def exception_cards(self) -> set[int]:
        """K-3.3: hand cards that may go into the gap under a keeper (only asked when nothing
        fits)."""
        rule = self.rules.blocked_cell_rule
        hand = set(self.leaving_cards())
        eligible: set[int] = set()
        if rule in ("dead_cell", "either") and self.is_dead(self.gap):  # K-3.3.1
            eligible |= hand
        if rule in ("line_completion", "either"):  # K-3.3.2
            for line in self.rules.lines_of(self.gap):
                if self.line_is_completed_by_gap(line):
                    shown = self.visible_kinds(c for c in line if c != self.gap)
                    eligible |= {card for card in hand if self.rules.kind(card) not in shown}
        return eligible

    def leaving_cards(self) -> list[int]:
        """Hand cards that may go into the gap: all, or in a return_drawn_card first turn only the
        card just drawn (K-3.8; `apply` appends it to the hand)."""
        hand = self.hands[self.seat]
        if self.first_turn and self.rules.first_turn_limit == "return_drawn_card":
            return hand[-1:]
        return hand

    def placement_moves(self) -> set[tuple]:
        gap, hand = self.gap, self.leaving_cards()
        fitting = {card for card in hand if self.fits(card, gap)}
        moves = {("place", gap, card) for card in fitting}  # K-3.2.3
        if fitting:
            if not self.rules.must_place_if_able:
                moves.add(("keeper", gap))
            if not self.rules.line_completion_needs_no_fit:  # K-3.3.5, the summary's reading
                moves |= {("cover", gap, card) for card in self.exception_cards() - fitting}
            return moves
        covers = {("cover", gap, card) for card in self.exception_cards()}
        moves |= covers
        if self.rules.blocked_cell_optional or not covers:  # K-3.3.4, K-3.2.4
            moves.add(("keeper", gap))
        return moves

    def legal_moves(self) -> set[tuple]:
        if self.phase == ACTION:
            return self.action_moves(self.seat)
        if self.phase == PLACE:
            return self.placement_moves()
        return set()

    def has_legal_action(self, seat: int) -> bool:
        return bool(self.action_moves(seat))

    # ---- applying a move ----

    def apply(self, move: tuple) -> None:
        if move not in self.legal_moves():
            raise ValueError(f"illegal move {move}")
        name = move[0]
        seat = self.seat
        if name == "draw":  # K-3.2.1/2: the card joins the hand, the cell is the gap
            cell = move[1]
            self.seat_counts["cards_drawn"][seat] += 1
            self.hands[seat].append(self.cells[cell][1])
            self.cells[cell] = (GAP, None)
            self.gap = cell
            self.phase = PLACE
            self.note_action()
            return
        if name == "pass":  # K-3.2.6: the turn ends, nothing happens (also in an extra turn)
            self.phase = ACTION
            self.first_turn = False
            if not self.count_pass():
                self.next_seat_turn()
            return
        if name == "replace":  # K-3.4
            cell, card = move[1], move[2]
            self.hands[seat].remove(card)
            self.cells[cell] = (FACE_UP, card)
            self.supply = None if self.supply is None else self.supply + 1
            self.seat_counts["keepers_replaced"][seat] += 1
            self.note_action()
            self.finish_action(self.value_effects(card, "replace"))
            return
        gap = self.gap
        self.gap = None
        if name == "place":  # K-3.2.3
            card = move[2]
            self.hands[seat].remove(card)
            self.cells[gap] = (FACE_UP, card)
            self.finish_action(self.value_effects(card, "place"))
        elif name == "keeper":  # K-3.2.4: the drawn card stays in hand
            self.cells[gap] = (KEEPER, None)
            self.take_keeper()
            self.finish_action(extra_turn=False)
        elif name == "cover":  # K-3.3
            card = move[2]
            self.hands[seat].remove(card)
            self.cells[gap] = (KEEPER_OVER, card)
            self.take_keeper()
            self.finish_action(self.value_effects(card, "covered"))
        else:
            raise ValueError(f"unknown move {move}")

    def take_keeper(self) -> None:
        self.seat_counts["zookeepers_placed"][self.seat] += 1
        if self.supply is not None:
            assert self.supply > 0
            self.supply -= 1

    def note_action(self) -> None:
        self.pass_streak = 0

    def count_pass(self) -> bool:
        """K-4.1.5: n passes in a row (chosen or forced, a lost extra turn included; turns lost
        to skips neither count nor break the run) end the deal. True if it ended."""
        self.pass_streak += 1
        if self.pass_streak >= self.rules.players:
            self.end_deal(NO_PROGRESS)
            return True
        return False

    def value_effects(self, card: int, way: str) -> bool:
        """K-3.5: set a pending skip; return True if an extra turn is earned."""
        if not self.rules.effects_on[way]:
            return False
        value = self.rules.value(card)
        if value in self.rules.skip_values:
            self.skip[self.seat] = True
        if value in self.rules.extra_turn_values:
            if self.final_turns_left is not None:
                return False  # K-4.1.4: no extra turns in final turns
            if self.first_turn and self.rules.first_turn_limit == "no_extra_turn":
                return False  # K-3.8
            if self.in_extra_turn and not self.rules.chain_extra_turns:
                return False
            return True
        return False

    # ---- sequencing (K-3.6, K-4.1) ----

    def end_trigger(self) -> str | None:
        if self.rules.end_when_no_face_down and not self.face_down_cells():  # K-4.1.1
            return NO_FACE_DOWN
        if self.rules.keepers is not None and self.supply == 0:  # K-4.1.2
            return KEEPERS_EXHAUSTED
        return None

    def finish_action(self, extra_turn: bool) -> None:
        """After an action: the end first (an end beats an extra turn), then the extra turn,
        else the next seat."""
        self.phase = ACTION
        self.first_turn = False
        if self.final_turns_left is None:
            reason = self.end_trigger()
            if reason is not None:
                if self.rules.end_timing == "immediate":  # K-4.1.3
                    self.end_deal(reason)
                    return
                # K-4.1.4: every seat after this one up to the round's last seat (the seat
                # before the start seat, or in a snake's backward round the start seat itself)
                self.pending_end_reason = reason
                n = self.rules.players
                self.final_turns_left = n - 1 - self.turn_step % n
                self.next_seat_turn()
                return
            if extra_turn:  # K-3.5.1: same seat, free choice of action
                self.in_extra_turn = True
                self.seat_counts["extra_turns_taken"][self.seat] += 1
                if self.has_legal_action(self.seat):
                    return
                # K-4.1.5: an extra turn with nothing to do is lost: a forced pass, in the run
                # of passes only with lost_extra_turn_in_pass_streak
                self.forced_passes += 1
                if self.rules.lost_extra_turn_in_pass_streak and self.count_pass():
                    return
        self.next_seat_turn()

    def next_seat_turn(self) -> None:
        self.begin_seat_turn(self.following_seat())

    def following_seat(self) -> int:
        """K-3.6 / K-3.6.1: the seat of the next seat turn. Seat turn t of a deal (t from 0) has
        offset t mod n from the start seat clockwise; snake runs through the offsets
        0..n-1, n-1..0 with period 2n; the random orders (K-3.6.2) take place t mod n of the
        round's order and draw the next round's order when a round is full."""
        n = self.rules.players
        self.turn_step += 1
        offset = self.turn_step % n
        if self.rules.turn_order in ("random_each_round", "random_after_first_round"):
            if offset == 0:
                self.round_order = self.order_stream.round_order(n)
            return self.round_order[offset]
        if self.rules.turn_order == "snake" and self.turn_step % (2 * n) >= n:
            offset = n - 1 - offset
        return (self.start_seat + offset) % n

    def begin_seat_turn(self, seat: int) -> None:
        """K-3.6: a pending skip loses the whole turn; a seat with no legal action passes
        (K-4.1.5); in complete_round's final turns every seat turn counts down (K-4.1.4)."""
        while True:
            if self.final_turns_left is not None:
                if self.final_turns_left == 0:
                    self.end_deal(self.pending_end_reason)
                    return
                self.final_turns_left -= 1
            self.seat = seat
            self.phase = ACTION
            self.in_extra_turn = False
            if self.skip[seat]:  # lost turn; not counted towards no_progress
                self.skip[seat] = False
                self.seat_counts["turns_skipped"][seat] += 1
                seat = self.following_seat()
                continue
            if self.has_legal_action(seat):
                return
            self.forced_passes += 1
            if self.count_pass():  # a forced pass
                return
            seat = self.following_seat()

    def end_deal(self, reason: str) -> None:
        """K-4.2: score the hands into the totals; next deal or game over (K-4.4)."""
        self.end_reason = reason
        self.gap = None
        for seat in range(self.rules.players):
            self.total_scores[seat] += self.hand_score(self.hands[seat])
            self.total_hand_cards[seat] += len(self.hands[seat])
            self.total_penalty_cards[seat] += sum(
                1 for card in self.hands[seat] if self.rules.is_penalty_kind(self.rules.kind(card)))
        if self.deal_index + 1 < self.rules.rounds:
            self.phase = NEED_DEAL
        else:
            self.phase = OVER

    # ---- end and scoring (K-4) ----

    def is_over(self) -> bool:
        return self.phase == OVER

    def hand_score(self, hand: list[int]) -> int:
        """K-4.2: per zoo kind, the best card plus and the others by the penalty knob; every
        penalty-kind card by its own knob."""
        rules = self.rules
        by_kind: dict[int, list[int]] = {}
        for card in hand:
            by_kind.setdefault(rules.kind(card), []).append(rules.value(card))
        score = 0
        for kind, values in by_kind.items():
            if rules.is_penalty_kind(kind):
                for value in values:
                    score -= value if rules.penalty_kind_card == "minus_face" else 1
                continue
            values = sorted(values, reverse=True)
            score += values[0]
            for value in values[1:]:
                score -= {"minus_face": value, "zero": 0, "minus_one": 1}[rules.other_of_kind_penalty]
        return score

    def scores(self) -> list[float]:
        """Totals of finished deals plus, while a deal runs, the current hands; plus each seat's
        bonus (K-4.5)."""
        totals = list(self.total_scores)
        if self.phase not in (OVER, NEED_DEAL):
            totals = [total + self.hand_score(hand) for total, hand in zip(totals, self.hands)]
        return [total + bonus for total, bonus in zip(totals, self.rules.seat_bonus)]

    def winners(self) -> list[bool]:
        """K-4.3: highest total wins; the tie-break decides among the tied."""
        scores = self.scores()
        best = max(scores)
        tied = [seat for seat, score in enumerate(scores) if score == best]
        rule = self.rules.tie_break
        if rule == "fewest_hand_cards":
            fewest = min(self.total_hand_cards[seat] for seat in tied)
            tied = [seat for seat in tied if self.total_hand_cards[seat] == fewest]
        elif rule == "fewest_cats":
            fewest = min(self.total_penalty_cards[seat] for seat in tied)
            tied = [seat for seat in tied if self.total_penalty_cards[seat] == fewest]
        elif rule == "later_seat":  # latest in turn order counted from the first start seat
            n = self.rules.players
            tied = [max(tied, key=lambda seat: (seat - self.first_seat) % n)]
        return [seat in tied for seat in range(self.rules.players)]

    # ---- text ----

    def cell_text(self, cell: int) -> str:
        state, card = self.cells[cell]
        if state == FACE_DOWN:
            return "##"
        if state == GAP:
            return "__"
        if state == KEEPER:
            return "ZK"
        if state == KEEPER_OVER:
            return "ZK/" + self.rules.card_text(card)
        return self.rules.card_text(card)

    def text(self) -> str:
        rules = self.rules
        lines = [f"model: deal {self.deal_index}, seat {self.seat}, phase {self.phase}, "
                 f"supply {self.supply}, skips {self.skip}, extra turn {self.in_extra_turn}"]
        for row in range(rules.rows):
            lines.append(f"r{row}: " + " ".join(f"{self.cell_text(c):<7}" for c in rules.row_cells(row)))
        for seat, hand in enumerate(self.hands):
            lines.append(f"seat {seat}: " + " ".join(rules.card_text(c) for c in sorted(hand)))
        return "\n".join(lines)
