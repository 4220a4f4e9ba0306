"""New York Zoo (Rosenberg, Feuerland 2020) for zoosim: the `GAME` object the runner uses.

Rules as implemented: seeds/new-york-zoo.md. Boards belong to seats (seat 0 = start player gets
the seat-1 board), so `deal_travels_with_slot` is False. Importing this module imports no numba:
the engine and the renderings are `Deferred`, loaded when a game is first played or drawn (a plan
needs only the params, presets and policies).
"""

from simulator.games.base import Deferred, Game, ReferencePlayers, Training
from simulator.games.nyz import params as nyz_params
from simulator.games.nyz.specs import LEARNED_POLICIES, POLICIES, SEARCH_POLICIES
from simulator.games.nyz.state import (
    END_REASONS, GAME_COLUMNS, INVARIANT_NAMES, SEAT_COLUMNS, SEAT_MEASURES,
)


GAME = Game(
    name="nyz",
    title="New York Zoo",
    rules_version=nyz_params.RULES_VERSION,
    params_model=nyz_params.Params,
    presets=nyz_params.PRESETS,
    policies={**POLICIES, **SEARCH_POLICIES, **LEARNED_POLICIES},
    # the learned policies play on the search's scratch game and workspace (search.py)
    search_policies=frozenset(SEARCH_POLICIES) | frozenset(LEARNED_POLICIES),
    default_policy="greedy",
    end_reasons=END_REASONS,
    violation_names=("none",) + INVARIANT_NAMES[1:],
    length_columns=("breedings", "enclosures_placed", "enclosures_filled"),
    deal_travels_with_slot=False,
    players=lambda params: params.players,
    play_batch=Deferred("simulator.games.nyz.play:play_batch"),
    trace=Deferred("simulator.games.nyz.render:trace"),
    steps=Deferred("simulator.games.nyz.step_api"),
    round_scores=Deferred("simulator.games.nyz.rounds:round_scores"),
    round_score_meaning="minus the empty squares left on the seat's board",
    legend=Deferred("simulator.games.nyz.render:legend"),
    final_position_svg=Deferred("simulator.games.nyz.render:final_position_svg"),
    seat_columns=SEAT_COLUMNS[2:],
    game_columns=GAME_COLUMNS[3:],
    seat_measures=SEAT_MEASURES,
    score_meaning="minus the empty squares left on the seat's board (0 is a full zoo, −5 five squares left)",
    # the per-seat counters the report's component strength reads (analysis/gameplay)
    components={"attractions": "attractions placed", "young": "animals bred", "bonus_young": "bonus-bred animals",
                "house_adds": "animals added from houses", "kept_from_full": "animals kept from full enclosures"},
    # zoosim train nyz: the learned player itself with the current weights (its heuristic finishes
    # each turn); player counts as benchmarks/train_eval.py records them (solo 1500, 2 players
    # 1500, 3: 300); gated and tuned for `strong`, the strongest player (weights tuned for
    # `learned`'s play gave `strong` 42% against the shipped `strong`, tuned for its own 60%:
    # docs/learned-players.md). Its policies draw no random decisions: no exploration.
    training=Training(code=Deferred("simulator.games.nyz.training"), play="learned", explore=0.0,
                      explore_allowed=False, players={1: 0.45, 2: 0.45, 3: 0.10}, gate_policy="strong",
                      heuristic="greedy_duel", games=400),
    # The quick start's player (experiments/seat_bias.yaml), whose verdicts the README and
    # docs/findings.md quote, and the Elo (Bradley-Terry; only differences mean anything) of the
    # shipped ladder's rungs from `zoosim run experiments/strength_ladder.yaml --jobs 2` (seed 9,
    # 2026-12-04 20:57-21:04 UTC, the run docs/findings.md#strength-ladder quotes).
    # tests/test_reference_players.py keeps both in step with the two experiment files.
    reference_players=ReferencePlayers(
        source="the quick start (experiments/seat_bias.yaml)",
        player="expert",
        rated_by="the strength ladder (experiments/strength_ladder.yaml, seed 9, 2026-12-04)",
        ratings=(
            ("greedy", -229),
            ({"policy": "learned", "params": {"temperature": 6, "valued": "destination_and_placement",
                                              "destinations": "best"}}, -180),
            ("greedy_duel", -109),
            ({"policy": "learned", "params": {"destinations": "best", "width": 3, "temperature": 6}}, -82),
            ({"policy": "learned", "params": {"destinations": "best", "width": 3}}, 113),
            ("strong", 183),
            ("expert", 303),
        ),
    ),
)
