"""Alles für die Katz (Parlett; Amigo 2000, also Zoo Party and 7-Safari) as a zoosim game.
Rules as implemented: seeds/alles-fuer-die-katz.md.

Importing this module imports no numba: the engine and the renderings are `Deferred`, loaded when
a game is first played or drawn (a plan needs only the params, presets and policies)."""

from simulator.games.base import Deferred, Game, ReferencePlayers, Training
from simulator.games.katz import state
from simulator.games.katz.params import RULES_VERSION, Params
from simulator.games.katz.specs import LEARNED_POLICIES, POLICIES, SEARCH_POLICIES


GAME = Game(
    name="katz",
    title="Alles für die Katz",
    rules_version=RULES_VERSION,
    params_model=Params,
    # K-9.2: knob groups. `spec` is the rules spec of record (the defaults); `seed_summary` the
    # original Dutch summary's readings where they differ from or choose among the spec's.
    # (The editions, K-9.1, are the separate knob `edition`.)
    presets={
        "spec": {},
        "seed_summary": {"blocked_cell_rule": "line_completion", "line_completion_needs_no_fit": False},
    },
    policies={**POLICIES, **SEARCH_POLICIES, **LEARNED_POLICIES},
    search_policies=frozenset(SEARCH_POLICIES) | {"strong"},
    plain_policies=frozenset({"random"}),  # play.policy_workspace: random-only batches
    default_policy="greedy",
    end_reasons=state.END_REASONS,
    violation_names=state.VIOLATION_NAMES,
    deal_travels_with_slot=True,
    players=lambda params: params.players,
    play_batch=Deferred("simulator.games.katz.play:play_batch"),
    trace=Deferred("simulator.games.katz.render:trace"),
    steps=Deferred("simulator.games.katz.step_api"),
    round_scores=Deferred("simulator.games.katz.rounds:round_scores"),
    round_score_meaning="the running score: finished deals plus the hand in play, plus the seat bonus",
    legend=Deferred("simulator.games.katz.render:legend"),
    final_position_svg=Deferred("simulator.games.katz.render:final_position_svg"),
    seat_columns=tuple(name for name in state.SEAT_COLUMNS if name not in ("score", "win")),
    seat_measures=state.SEAT_MEASURES,
    game_columns=tuple(
        name for name in state.GAME_COLUMNS if name not in ("turns", "rounds", "end_reason")
    ),
    score_meaning="points of the cards in hand at the end (the highest card of each zoo kind counts, the other "
                  "cards of its kind and every cat count minus; 49 at most)",
    # the per-seat counters the report's component strength reads (analysis/gameplay)
    components={"cats_held": "cats held at the end", "zookeepers_placed": "zookeepers placed",
                "keepers_replaced": "keepers replaced"},
    # zoosim train katz: greedy_tuned games with 15% random decisions (training.py's TRAINING_*;
    # its recording plays any seating, `--play learned` or `strong` records the current weights'
    # games instead: measured weaker for `strong` by benchmarks/train_eval.py, docs/benchmarks.md)
    training=Training(code=Deferred("simulator.games.katz.training"), play="greedy_tuned", explore=0.15,
                      players={2: 0.2, 3: 0.2, 4: 0.4, 5: 0.2}, gate_policy="learned",
                      heuristic="greedy_tuned", games=1000),
    # The quick start's player (experiments/seat_bias.yaml), whose verdicts the README and
    # docs/findings.md quote, and the Elo (Bradley-Terry; only differences mean anything) of the
    # shipped ladder's rungs from `zoosim run experiments/strength_ladder.yaml --jobs 2` (seed 9,
    # 2026-12-04, the run docs/findings.md#strength-ladder quotes).
    # tests/test_reference_players.py keeps both in step with the two experiment files.
    reference_players=ReferencePlayers(
        source="the quick start (experiments/seat_bias.yaml)",
        player="greedy_tuned",
        rated_by="the strength ladder (experiments/strength_ladder.yaml, seed 9, 2026-12-04)",
        ratings=(  # greedy_tuned is not one of its rungs
            ("random", -179),
            ({"policy": "learned", "params": {"temperature": 1}}, -128),
            ({"policy": "learned", "params": {"temperature": 0.25}}, -64),
            ("greedy", 151),
            ("learned", 220),
        ),
    ),
)
