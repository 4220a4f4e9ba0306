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


# The columns the digests in GOLDEN were computed from; later columns are additive and have
# digests of their own (NEW_COLUMNS), so adding a column never changes an existing digest.
GOLDEN_COLUMNS = (
    "turns", "rounds", "end_reason", "first_seat", "draws", "replacements", "keepers_placed",
    "covered_keepers", "extra_turns", "skips", "skips_earned", "passes", "forced_passes",
    "no_fit_draws", "dead_cell_draws", "check_violations", "first_violation",
    "score", "win", "rank", "hand_cards", "cats_held",
)
# per-seat counters added for #13 (cards drawn, replacements, keepers, extra turns, skips)
NEW_COLUMNS = ("cards_drawn", "keepers_replaced", "zookeepers_placed", "extra_turns_taken",
               "turns_skipped")
# turn-order facts added for #24 (logs.TURN_ORDER_*)
TURN_ORDER_COLUMNS = ("seat_turns", "decisions", "last_mover", "ender")


def _digest(columns, names=GOLDEN_COLUMNS) -> str:
    h = hashlib.sha256()
    for name in sorted(names):
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

GOLDEN_NEW = {
    "blocked-dead_cell": "ece3583aae8180574bd669358972f4684e5147080066c224720ebe37b3606e97",
    "blocked-either": "46eb088f8f8aa6994a21ec5bc82e2104bbe4b289e4f4b1d76c62d42db8c60350",
    "blocked-off": "4130763f08e5ba52984f753d03a0daf17f4340b77445e2836df06770bdcd9643",
    "checked-greedy-4p": "82ed18941996b6c42341e306ab4acd47c8f8949c1fff049fa34d569d4eb07c76",
    "checked-mixed-5p": "e9d2b88f2078fe5c487d93662966d867151b62b6f2dd212dd0c5f6ce93b30a9e",
    "complete-round": "01843983216e3e23e35dc3c33c3e3f9d6250e8de7a1a109594925668b4053201",
    "covered-cards-block": "32943997066d4a43fc1d0efd30b79a8830dbd9026b0dfc9c045df0784c21a01b",
    "expectimax-2p": "425622b0475e5fecf06208a8a4ecb31541270e8faa62ed6f0791e06c252b18df",
    "expectimax-3p": "1a8313f3d03e52df169463fcba24bda09611554409c7d7cf2cffd79726fc76ce",
    "expectimax-4p": "9bad15255a3973b3a7635c68841820d7cb8553c2bad41a8348def2ee02f1844c",
    "expectimax-5p": "8bea4f4d47b8b230fb69537848b4c3ead8b600b9e0ff9c72dd7bb0b39def6d61",
    "greedy-2p": "80ac44ac91bc38ff2a60eecb70c44f27d378dfa8936cb62480b4100a9365e22a",
    "greedy-3p": "f78067eddb1e496d9c2cc6b8c890a3a2b9ae53e3ce78ecc17ba62892abf3a989",
    "greedy-4p": "c5f159d2000aec5a9d7f91c31851a342bb1985067a0b703550c43eda0526b28b",
    "greedy-5p": "96fd474ae844efa5464bc73b0f44ab67dad786de178067a2336d1cff1f507fc7",
    "mixed-2p": "9ee731a55398999e898a26eadda5d9891c96b1768af1c4852a876e41a58a1632",
    "mixed-3p": "1d701ce876e21d2bd19917766bd77f780dfe3a70564247ceb6f4bd8250741f35",
    "mixed-4p": "6eceb6d5218fe334f9787ee60117a51afc5a9453939eba8109bce198a7a8ded9",
    "mixed-5p": "e0433e6f5b15d3dec28eea47df826527e3c18a06e8a5487310299d4db2567ea9",
    "random-2p": "fe51d4dd56fa278103be66ae24af023ac13f428a67304030a67cbde336a8f970",
    "random-3p": "625da615b10f56016c0598d32128a3ac01eab8e9de3dc9176a5d40eea8035ed8",
    "random-4p": "b7c2fe88d889419194a2527e8c582237171626ca07fa90d5d5346aefd16fa23c",
    "random-5p": "f730c9baa0be4670488e546c394f7de9d431fb516038b0e52ef2028e2540bdd3",
    "value-effects-off": "a1d66894e7e4e066d8d8362bdc98bd8257c2b67609a889a7bff596907ca84727",
}

# digests of TURN_ORDER_COLUMNS, computed when they were added (#24)
GOLDEN_TURN_ORDER = {
    "blocked-dead_cell": "f3ba7b074a60b754c30fe8849a44888256f156e15a4891caa1a23b7bfc8ed946",
    "blocked-either": "2549c0b3fd995987fca112c47fc89c3b7ac34b9f37f3a875f1686985159635fb",
    "blocked-off": "d800759e10cad369f2b4936deff96b657520ee8ae93d8a6e9d879fbd5487e1f4",
    "checked-greedy-4p": "fffcf4e276fc6ed698f0c51567a90548a42a868c702d0ef3d2e661217bb1eb5a",
    "checked-mixed-5p": "7e03620927b6266212322cc17cd4050e7beafcf7975b4d32e82e4f122c39aa87",
    "complete-round": "307f83b5958c643988fcb6665decc651d303c239327dd5deba5c60f33cca2f35",
    "covered-cards-block": "dc399cd471f9883d8381457c4103aa376e6b7e77e4e93a03a938a01be7a3d854",
    "expectimax-2p": "2d28e964ecd0a363064d15b9a9b18f2c9b20618d4bae32d081d6a3652bebb9f8",
    "expectimax-3p": "16ebe93d39762d65c1edf93490a0edc63410030e896268c12fc916e86789b9ea",
    "expectimax-4p": "9917f399ae94c693a67f9159d1ef2086d67711e326975d9e6ae8c6269542c781",
    "expectimax-5p": "4886b236ba73d654acc065b257f45f04de6fe3b8d07bf46ed87a8ba92feb052e",
    "greedy-2p": "811958544ad0672b9cd56227932bb6b5c38405b2923ef42b944ff42d7529519c",
    "greedy-3p": "c083496b571c0e4f6c575577892f5bfff3dc30fd7e3ddd572a6607cc9d25a267",
    "greedy-4p": "d8db554b2000eb8881e22a0fbe4b4e8a5fd1ad032ef5f0cfbf8e7a076ec31077",
    "greedy-5p": "aa5495228b6a130a07b3b5e995898dd9210040ff07bbdf6263e796922af5a6ee",
    "mixed-2p": "640ea8a1bc6325d9fe8f2eec9b5b52a984d8da63f1df47b505f9e0f50b475c75",
    "mixed-3p": "b6e208973594fa7c86d1c11cf8aa5f0465b1266f04850e513cb0c3530e059cd4",
    "mixed-4p": "af06b285dbe840e1ec5a0228cfb820d434b98d3d0679830ecccc0c51b25a569f",
    "mixed-5p": "7620d36589699c94ee10e0ea2b911009739bee6322d7e54b29d12a16e3433aae",
    "random-2p": "abfd05692b9380e9087927c38ed98eec69a640679ff04f0299dc7bd6a2e0ea74",
    "random-3p": "c9e0281d7fb79303fec685114376724f5ae6cae661cf5d659abafbdda4e50442",
    "random-4p": "9db9280b21e473b2e79f03ec26ae63f7aad11453b4c5faca25f007ddeca7b6af",
    "random-5p": "5d80123d6de6eb16f5d6bcd3f31028243d03589e21f05744c84bedec090ae7f5",
    "value-effects-off": "1195613604df225607f725020425103f4aea1a4ac4dc90d6c3f7608f6502c3d2",
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_golden(case):
    players, seats, knobs, seed0, check = CASES[case]
    columns = _run(players, seats, knobs, seed0, check)
    assert set(GOLDEN_COLUMNS) | set(NEW_COLUMNS) | set(TURN_ORDER_COLUMNS) == set(columns)
    assert _digest(columns) == GOLDEN[case]
    assert _digest(columns, NEW_COLUMNS) == GOLDEN_NEW[case]
    assert _digest(columns, TURN_ORDER_COLUMNS) == GOLDEN_TURN_ORDER[case]


if __name__ == "__main__":
    for names in (GOLDEN_COLUMNS, NEW_COLUMNS, TURN_ORDER_COLUMNS):
        for case in sorted(CASES):
            print(f'    "{case}": "{_digest(_run(*CASES[case]), names)}",')
