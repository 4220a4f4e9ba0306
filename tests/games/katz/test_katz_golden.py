"""Golden digests of Katz play_batch columns, computed with the engine before the speed work
(commit that adds this file). Any engine change must leave every column of every case
bit-identical: policies (random, greedy, expectimax, mixed seating) at 2-5 players, rotations,
and rule variants including checked mode."""

from __future__ import annotations

import hashlib

import numpy as np
import pytest

from simulator.games.katz import GAME
from katz_helpers import make_params

GAMES = 200


def _digest(columns) -> str:
    h = hashlib.sha256()
    for name in sorted(columns):
        array = np.ascontiguousarray(columns[name])
        h.update(name.encode())
        h.update(str(array.dtype).encode())
        h.update(str(array.shape).encode())
        h.update(array.tobytes())
    return h.hexdigest()


def _run(players, seats, knobs, seed0, check=False):
    params = make_params(players=players, **knobs)
    seat_policies = GAME.seat_policies([(name, {}) for name in seats])
    seeds = np.arange(seed0, seed0 + GAMES, dtype=np.uint64) * np.uint64(2654435761) + np.uint64(17)
    rotations = np.arange(GAMES, dtype=np.int64) % players
    return GAME.play_batch(params, seat_policies, seeds, rotations, check=check)


MIXED = ["greedy", "random", "expectimax", "greedy", "random"]

CASES = {}
for _players in (2, 3, 4, 5):
    for _policy in ("random", "greedy", "expectimax"):
        CASES[f"{_policy}-{_players}p"] = (_players, [_policy] * _players, {}, 1000 + _players, False)
    CASES[f"mixed-{_players}p"] = (_players, MIXED[:_players], {}, 2000 + _players, False)
for _rule in ("dead_cell", "either", "off"):
    CASES[f"blocked-{_rule}"] = (4, MIXED[:4], {"blocked_cell_rule": _rule}, 3000, False)
CASES["value-effects-off"] = (4, MIXED[:4], {
    "value_effects_on__place": False, "value_effects_on__replace": False,
    "value_effects_on__covered": False}, 3100, False)
CASES["covered-cards-block"] = (3, MIXED[:3], {"covered_cards_block": True}, 3200, False)
CASES["complete-round"] = (5, MIXED[:5], {"end_timing": "complete_round"}, 3300, False)
CASES["checked-greedy-4p"] = (4, ["greedy"] * 4, {}, 3400, True)
CASES["checked-mixed-5p"] = (5, MIXED[:5], {"blocked_cell_rule": "either"}, 3500, True)

GOLDEN = {
    "blocked-dead_cell": "2fbd66d193a7feb937b8a31315dc86f49f881393b04800dfa1d9c6c2c293272d",
    "blocked-either": "9358ff5fe275ade0d7bfaa0e9b8c35e0e950a14274daee60ddfc5141d2108264",
    "blocked-off": "e191b65c74689894f8b34fb5546e81122d83a6e405c37b47f18c4410533aeed3",
    "checked-greedy-4p": "d045a777e1bb56a755a723b93beeeae87bcb77afd8247e510e31bf69f567a43e",
    "checked-mixed-5p": "5dc96c34d339f6adf5c227265fdcc88d57ce37f928b1855013ca56e9223ddc3f",
    "complete-round": "00133152a838329751ff55b9331c30aa3cd3e281eab06040268f76f37d972e10",
    "covered-cards-block": "4d411abdb34608fdd936a3cf0f69c2e77f4857fc75d5e10f757e6854111b6388",
    "expectimax-2p": "25115d717712147a7a86a22f5f1239e0206e53d8cb5b024af6d534b7ae7fab41",
    "expectimax-3p": "9ef451143435cf2b54ddf96ffec0a2e4f56602047347e73e7539640f60492c07",
    "expectimax-4p": "d5cd8f3c72d47087168ec96d69d9e53209c6d49dca6be289e73d3ae42f3b29a2",
    "expectimax-5p": "50702c3138c542bc4f51d331b4310ac4d6b688656e5590f1fb4d0401eee383e7",
    "greedy-2p": "f8cf612580ab3b7d1bd01f04be9acb97deb5c8d0ab9838c655d6b33055229c7a",
    "greedy-3p": "d486aebcf6ccd5a59779bbd8215d3169aca2bdb7e2b5eb177598cc9f3e1893d3",
    "greedy-4p": "2106c06619be9b675f1e87c20bd6dbcfcc73e33ac421b0ff5475355c306f864d",
    "greedy-5p": "73a8eb2078698b253ebcacd91740e68d9c5bf6378613cc15b64ac2c971a24146",
    "mixed-2p": "e6853485ce5166583d277e995c8f6906a434013abbc657ad271c54318a070365",
    "mixed-3p": "e5c50060815d7f4ca43bd9a293d5c786098ab21627a384f9fc330e8b7f6a5900",
    "mixed-4p": "d2f3f834ac18968d6b161be544b3a25ebad053993d0f6e76413f5afd04aeb792",
    "mixed-5p": "09f7b1040355c91a76d21c14df0eb9f1c9ab3bc0e7efdc19853f8598a5bed258",
    "random-2p": "f35ef56b6e61780f1e49c0bf7b065a50dfb5edfafd367c42d3471d532e2178eb",
    "random-3p": "bcc53bde69593dc527f8bb27ac115088360894295766491c8fb4513944697a33",
    "random-4p": "2b9819ab53c7cb2cdd10766e6b3e8c438f73405e733685dc5fa33721982d53b4",
    "random-5p": "9d6d38f8a3032eeff9a708385cde3252295da7fd9b800584d35291d93ac125ae",
    "value-effects-off": "00436d85013ba0107fabdce3bace5af7f33f8e782520e0dcc7d97fdd53afbe9b",
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_golden(case):
    players, seats, knobs, seed0, check = CASES[case]
    assert _digest(_run(players, seats, knobs, seed0, check)) == GOLDEN[case]


if __name__ == "__main__":
    for case in sorted(CASES):
        print(f'    "{case}": "{_digest(_run(*CASES[case]))}",')
