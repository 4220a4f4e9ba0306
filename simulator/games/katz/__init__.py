"""Alles für die Katz (Parlett; Amigo 2000, also Zoo Party and 7-Safari) as a zoosim game.
Rules as implemented: seeds/alles-fuer-die-katz.md."""

from simulator.games.base import Game
from simulator.games.katz import engine, render, state
from simulator.games.katz.params import RULES_VERSION, Params
from simulator.games.katz.policies import POLICIES
from simulator.games.kernel_cache import drop_stale_kernels

drop_stale_kernels(__file__)  # before any kernel runs (numba loads its cache at the first call)

GAME = Game(
    name="katz",
    title="Alles für die Katz",
    rules_version=RULES_VERSION,
    params_model=Params,
    # K-9.1: the editions play by identical rules; no difference is confirmed by any source.
    presets={"amigo": {}, "zoo_party": {}, "7_safari": {}},
    policies=POLICIES,
    default_policy="greedy",
    end_reasons=state.END_REASONS,
    violation_names=state.VIOLATION_NAMES,
    deal_travels_with_slot=True,
    players=lambda params: params.players,
    play_batch=engine.play_batch,
    trace=render.trace,
    final_position_svg=render.final_position_svg,
    seat_columns=tuple(name for name in engine.SEAT_COLUMNS if name not in ("score", "win")),
    game_columns=tuple(
        name for name in engine.GAME_COLUMNS if name not in ("turns", "rounds", "end_reason")
    ),
)
