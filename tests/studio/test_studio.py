"""zoosim studio without a browser (simulator/studio/): the form has `zoosim rules`' knobs, bad
settings get the CLI's one line before anything plays, a live run stops when decided, pins compare
with compare's sentence, a save replays to the same games with `zoosim run`, the server refuses
requests without its token, and Ctrl-C stops the process cleanly. On the `coin` test game
(tests/conftest.py), which needs no engine."""

import json
import os
import signal
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from click.testing import CliRunner

import simulator
from simulator.cli import main
from simulator.config import MAX_CHUNKS
from simulator.errors import ZoosimError
from simulator.games import get_game
from simulator.rundir import LOGS_DIR
from simulator.studio.form import experiment_document, game_form
from simulator.studio.server import StudioServer
from simulator.studio.session import Studio

REPO = Path(__file__).resolve().parents[2]


def coin_settings(bonus=0.0, players=2, margin=5.0):
    return {"game": "coin", "preset": "standard", "players": players, "knobs": {"first_seat_bonus": bonus},
            "seats": [{"policy": "fair", "params": {}}] * players, "margin_points": margin}


def wait_until_done(studio, seconds=120):
    deadline = time.time() + seconds
    while studio.state()["run"]["status"] == "running":
        assert time.time() < deadline, "the live run did not end"
        time.sleep(0.05)
    return studio.state()["run"]


def test_form_has_the_knobs_of_zoosim_rules():
    katz = get_game("katz")
    form = game_form("katz", players=3)
    assert [(k["name"], k["rule"], k["allowed"]) for k in form["knobs"]] == \
        [(row.name, row.rule, row.allowed) for row in katz.knobs()]
    kinds = {k["name"]: k for k in form["knobs"]}
    assert kinds["players"] == {**kinds["players"], "kind": "number", "min": 1, "max": 16, "integer": True, "value": 3}
    assert kinds["first_player"]["kind"] == "select" and kinds["first_player"]["choices"] == ["seat0", "random"]
    assert kinds["seat_hand_size_delta"]["kind"] == "seats"
    assert kinds["keepers"]["nullable"] is True
    assert {p["name"] for p in form["policies"]} == set(katz.policies)


def test_list_mapping_and_auto_knobs_get_editors_not_raw_json():
    """A list knob is edited item by item (a number, a choice or a text each), a mapping knob
    key by key, a choice-or-number knob (grid.rows: "auto" or an integer) by a select and a
    number; no knob of the built-in games is left to a raw JSON field."""
    katz = {k["name"]: k for k in game_form("katz", players=3)["knobs"]}
    assert katz["grid.rows"] == {**katz["grid.rows"], "kind": "choice_or_number", "choices": ["auto"],
                                 "integer": True, "value": "auto"}
    assert katz["deck.values"] == {**katz["deck.values"], "kind": "list", "item": {"kind": "number", "integer": True}}
    assert katz["deck.zoo_kinds"] == {**katz["deck.zoo_kinds"], "kind": "list", "item": {"kind": "text"}}
    nyz = {k["name"]: k for k in game_form("nyz", players=2)["knobs"]}
    assert nyz["solo_markers"]["item"] == {"kind": "select", "choices": ["0", "1", "2", "3", "4+"]}
    lines = nyz["strip.breeding_lines"]
    assert lines["kind"] == "mapping" and lines["item"] == {"kind": "number", "integer": True}
    assert lines["keys"] == ["meerkat", "flamingo", "kangaroo", "penguin", "fox"] and set(lines["value"]) == set(lines["keys"])
    assert not [k["name"] for k in [*katz.values(), *nyz.values()] if k["kind"] == "json"]


@pytest.mark.parametrize("name", ["katz", "nyz", "coin"])
def test_every_knob_gets_a_control_whose_value_the_game_accepts(name):
    """Each control's value, sent back as the page sends it, is what the game's params hold: the
    settings of an untouched form play the preset's printed rules."""
    form = game_form(name, players=2)
    assert {k["kind"] for k in form["knobs"]} <= {"select", "number", "seats", "choice_or_number", "list", "mapping", "json"}
    for control in form["knobs"]:
        if control["kind"] == "select":
            assert control["value"] in control["choices"], control["name"]
    knobs = {k["name"]: k["value"] for k in form["knobs"] if k["name"] not in ("preset", "players")}
    settings = {"game": name, "preset": form["preset"], "players": 2, "knobs": knobs, "seats": []}
    assert experiment_document(settings)["studies"][0]["rules"] == {"preset": form["preset"], "players": 2}


def test_bad_settings_get_the_clis_line_and_never_play(tmp_path):
    studio = Studio(tmp_path / "out", 1, coin_settings())
    bad = coin_settings(bonus=2.0)
    with pytest.raises(ZoosimError) as refused:
        studio.play(bad)
    assert studio.state()["run"] is None
    # the same line `zoosim run` prints for the same file (less the file name)
    path = tmp_path / "bad.yaml"
    path.write_text(json.dumps(experiment_document(bad, games=100)))
    result = CliRunner().invoke(main, ["validate", str(path)])
    assert result.exit_code == 2
    assert result.output.strip().endswith(str(refused.value))
    assert "studies[0].rules.first_seat_bonus" in str(refused.value)
    with pytest.raises(ZoosimError, match="2 or more players"):
        studio.check({"game": "nyz", "preset": "solo", "players": 1, "knobs": {}, "seats": []})
    with pytest.raises(ZoosimError, match="must be a finite number"):
        studio.check({**coin_settings(), "seats": [{"policy": "lucky", "params": {"luck": "x"}}] * 2})
    with pytest.raises(ZoosimError, match="weights files its experiment names"):
        studio.check({**coin_settings(), "seats": [{"policy": "lucky", "params": {"weights": "/etc/passwd"}}] * 2})
    assert not (tmp_path / "out").exists()


def test_play_pin_change_compare_save_replays_the_same_games(tmp_path):
    studio = Studio(tmp_path / "out", 2, coin_settings())
    studio.play(coin_settings(bonus=0.3, margin=5.0))
    before = wait_until_done(studio)
    assert before["status"] == "decided" and before["verdict"] == "unbalanced"
    assert before["lows"][0] > 0.5 + 0.05  # seat 0's bonus: outside fair + 5 points
    studio.pin()
    studio.play(coin_settings(bonus=0.0, margin=5.0))
    after = wait_until_done(studio)
    assert after["status"] == "decided" and after["verdict"] == "balanced"
    comparison = studio.state()["pins"][0]["comparison"]
    assert comparison["sentence"].startswith("seat ")
    assert "Verdict unbalanced" in comparison["sentence"] and "→ balanced" in comparison["sentence"]
    change = comparison["seats"][0]
    # A's share is above fair + 5 points and B's below it (their verdicts), so the change is
    # negative; the paired interval's high end need not be: each run stops once decided, near the
    # band's edge, by how many games its last batch overshot, which depends on the machine's load
    # (it reached +0.28 points on a busy machine)
    assert change["low"] <= change["change"] <= change["high"] and change["change"] < 0
    saved = studio.save()
    experiment, run_dir = Path(saved["experiment"]), Path(saved["run_dir"])
    assert experiment.parent == run_dir.parent == tmp_path / "out"
    assert int(saved["games"]) == after["games"]
    # the saved run holds the live run's games: the same seat shares...
    run = simulator.open_run(run_dir)
    assert int(run.cells["games"].iloc[0]) == after["games"]
    assert list(run.seats["win_rate"]) == pytest.approx(after["shares"], abs=1e-12)
    # ...and `zoosim run` of the saved file plays them again, chunk for chunk
    replay = tmp_path / "replay"
    result = CliRunner().invoke(main, ["run", str(experiment), "--out", str(replay), "--no-report", "-q", "-j", "1"])
    assert result.exit_code == 0, result.output
    assert _chunk_digests(replay) == _chunk_digests(run_dir)
    assert "anytime-valid confidence sequences" in experiment.read_text()


def _chunk_digests(run_dir: Path) -> dict[str, str]:
    sidecars = sorted((run_dir / LOGS_DIR).rglob("_chunk-*.json"))
    return {path.name: json.loads(path.read_text())["sha256"] for path in sidecars}


def test_stop_ends_the_run_at_whole_deals(tmp_path):
    studio = Studio(tmp_path / "out", 2, coin_settings())
    studio.play(coin_settings(bonus=0.0, margin=0.01))  # fair, 0.01 points: undecided for a long while
    time.sleep(1.0)
    studio.stop()
    run = studio.state()["run"]
    assert run["status"] == "stopped" and run["games"] > 0 and run["games"] % 2 == 0


@pytest.fixture
def server(tmp_path):
    studio = Studio(tmp_path / "out", 1, coin_settings())
    served = StudioServer(studio, 0)
    thread = threading.Thread(target=served.serve_forever, daemon=True)
    thread.start()
    yield served
    served.closing.set()
    served.shutdown()
    studio.close()
    served.server_close()


def _request(url, body=None):
    data = None if body is None else json.dumps(body).encode()
    try:
        with urllib.request.urlopen(urllib.request.Request(url, data=data), timeout=30) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read())


def test_server_needs_its_token_and_answers_bad_settings_in_one_line(server):
    base = f"http://127.0.0.1:{server.server_address[1]}"
    assert _request(f"{base}/api/games")[0] == 403
    assert _request(f"{base}/api/games?token=wrong")[0] == 403
    status, games = _request(f"{base}/api/games?token={server.token}")
    assert status == 200 and "coin" in {game["name"] for game in games["games"]}
    status, answer = _request(f"{base}/api/check?token={server.token}", {"settings": coin_settings(bonus=-1)})
    assert status == 200 and not answer["ok"] and answer["error"].startswith("studies[0].rules.first_seat_bonus: ")
    assert "\n" not in answer["error"]
    status, answer = _request(f"{base}/api/check?token={server.token}", {"settings": "not a mapping"})
    assert not answer["ok"] and "must be a mapping" in answer["error"]


@pytest.mark.slow
def test_ctrl_c_stops_the_server_cleanly(tmp_path):
    """A real `zoosim studio` process, playing: Ctrl-C ends it with status 130 and no traceback."""
    experiment = tmp_path / "coin.yaml"
    experiment.write_text(json.dumps(experiment_document(coin_settings(bonus=0.0, margin=0.1), games=1000)))
    launcher = ("import sys, tests.conftest; from simulator.cli import console; "
                "sys.argv = ['zoosim'] + sys.argv[1:]; console()")
    process = subprocess.Popen(
        [sys.executable, "-c", launcher, "studio", str(experiment), "--port", "0", "--out", str(tmp_path / "out")],
        cwd=REPO, stderr=subprocess.PIPE, text=True, preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
        env={**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO), str(REPO / "tests")])},  # as pytest's pythonpath
    )
    url = process.stderr.readline().split("open ", 1)[1].strip()
    base, token = url.split("/?token=")
    status, _ = _request(f"{base}/api/play?token={token}", {"settings": coin_settings(bonus=0.0, margin=0.1)})
    assert status == 200
    time.sleep(1.0)
    process.send_signal(signal.SIGINT)
    _, errors = process.communicate(timeout=60)
    assert process.returncode == 130, errors
    assert "Traceback" not in errors
    assert not (tmp_path / "out").exists()  # nothing was saved, so nothing was written


def test_an_experiment_opens_with_its_rules_and_seats(tmp_path):
    """`zoosim studio FILE` starts from the file's first study: its knobs by the names of
    `zoosim rules` (a mapping knob whole), its seats, margin, seed and chunk size."""
    from simulator.studio.form import settings_from_experiment

    path = tmp_path / "nyz.yaml"
    path.write_text("seed: 7\nchunk_games: 500\nmargin_points: 2\nstudies:\n- game: nyz\n  rules: {players: 2, "
                    "strip: {breeding_lines: {meerkat: 18, flamingo: 24, kangaroo: 4, penguin: 9, fox: 14}}}\n  seats: [greedy, {policy: greedy_tuned}]\n")
    settings, experiment, weights = settings_from_experiment(path)
    assert (experiment.seed, experiment.chunk_games, settings["margin_points"]) == (7, 500, 2)
    assert settings["knobs"]["strip.breeding_lines"]["meerkat"] == 18
    assert [seat["policy"] for seat in settings["seats"]] == ["greedy", "greedy_tuned"] and weights == frozenset()
    rules = experiment_document(settings)["studies"][0]["rules"]
    assert rules["strip.breeding_lines"]["meerkat"] == 18 and "solo_laps" not in rules
    # a small chunk size still leaves a live run its chunks (at most the plan's MAX_CHUNKS)
    _, cell = Studio(tmp_path / "out", 1, settings, seed=7, chunk_games=500).check(settings)
    assert cell.chunk_deals == 250 and cell.chunks == MAX_CHUNKS
