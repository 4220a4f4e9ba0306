"""zoosim studio in real headless Chromium (the system chromium, the `browser` fixture of
tests/conftest.py): change a knob -> play -> the verdict appears -> pin -> change another ->
compare's sentence -> save -> the saved file replays to the same games with `zoosim run`. The
page logs no console error and every control has an accessible name (the browser's accessibility
tree). Katz at 2 players with the cheap `greedy` player at a ±4-point margin: a few thousand
games per play."""

import json
import re
import threading
from pathlib import Path

import pytest
from click.testing import CliRunner

from simulator.cli import main
from simulator.rundir import LOGS_DIR
from simulator.studio.form import default_settings
from simulator.studio.server import StudioServer
from simulator.studio.session import Studio

DECIDED_MS = 240_000  # the first play may load Katz's kernels from the cache

pytestmark = pytest.mark.browser

# Every form control's accessible name as the browser computes it for the accessibility tree:
# its <label>s, aria-label or aria-labelledby (a button's text is its name).
UNNAMED_CONTROLS_JS = """
() => [...document.querySelectorAll("input, select, button")].filter(control => {
  const labelled = (control.labels && control.labels.length > 0) || control.getAttribute("aria-label")
    || control.getAttribute("aria-labelledby") || (control.tagName === "BUTTON" && control.textContent.trim());
  return !labelled;
}).map(control => control.outerHTML)
"""


@pytest.fixture
def studio_url(tmp_path):
    settings = {**default_settings("katz"), "margin_points": 4.0}
    studio = Studio(tmp_path / "out", 2, settings)
    server = StudioServer(studio, 0)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server.url, tmp_path
    server.closing.set()
    server.shutdown()
    studio.close()
    server.server_close()


def _wait_decided(page):
    page.wait_for_function("() => /^(decided|finished)/.test(document.getElementById('progress').textContent)",
                           timeout=DECIDED_MS)


def _set(page, selector, value):
    page.fill(selector, value)
    page.dispatch_event(selector, "change")


def test_change_play_pin_compare_save_replay(browser, studio_url):
    url, tmp_path = studio_url
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    problems = []
    page.on("console", lambda message: problems.append(message.text) if message.type == "error" else None)
    page.on("pageerror", lambda error: problems.append(str(error)))
    page.goto(url)
    page.wait_for_selector("#knob-players")
    assert page.input_value("#margin") == "4"

    # a bad value: the CLI's one line, and Play plays nothing
    _set(page, "#knob-hand_size", "-3")
    page.wait_for_function("() => document.getElementById('message').textContent.includes('hand_size')")
    assert page.text_content("#message").startswith("studies[0].rules.hand_size: ")
    page.click("#play")
    page.wait_for_timeout(300)
    assert page.text_content("#progress") == ""

    # change a knob (2 players), play until decided
    _set(page, "#knob-hand_size", "7")
    _set(page, "#knob-players", "2")
    page.wait_for_selector("#seat-2-policy", state="detached")  # the page redraws the seats: two left
    assert page.locator("#seat-1-policy").count() == 1
    page.wait_for_function("() => document.getElementById('message').textContent.startsWith('ready')")
    page.click("#play")
    _wait_decided(page)
    first = page.text_content("#verdict")
    assert re.match(r"(balanced|unbalanced) at ±4 points", first), first
    assert page.locator("#seat-rows tr").count() == 2

    # pin, change another knob, play: compare's sentence
    page.click("#pin")
    page.wait_for_selector(".pin")
    _set(page, "#knob-hand_size", "9")
    page.wait_for_function("() => document.getElementById('message').textContent.startsWith('ready')")
    page.click("#play")
    page.wait_for_function("() => /hand_size=9/.test(document.getElementById('setting-label').textContent)")
    _wait_decided(page)
    sentence = page.locator(".sentence").first.text_content()
    assert re.match(r"seat \d [+-]\d+\.\d points \[", sentence) and "Verdict" in sentence, sentence
    assert "hand_size=9" in sentence

    # save: an experiment file and a run folder; `zoosim run` of the file plays the same games
    page.click("#save")
    page.wait_for_selector(".saved-experiment", timeout=DECIDED_MS)
    experiment = Path(page.text_content(".saved-experiment"))
    run_dir = Path(page.text_content(".saved-run"))
    assert experiment.parent == tmp_path / "out" and "hand_size: 9" in experiment.read_text()
    replay = tmp_path / "replay"
    result = CliRunner().invoke(main, ["run", str(experiment), "--out", str(replay), "--no-report", "-q", "-j", "1"])
    assert result.exit_code == 0, result.output
    digests = [{p.name: json.loads(p.read_text())["sha256"] for p in sorted((d / LOGS_DIR).rglob("_chunk-*.json"))}
               for d in (run_dir, replay)]
    assert digests[0] and digests[0] == digests[1]

    # a reload and a second tab see the same studio
    second = browser.new_page()
    second.goto(url)
    second.wait_for_selector(".saved-experiment")
    page.reload()
    page.wait_for_selector(".pin")

    assert page.evaluate(UNNAMED_CONTROLS_JS) == []
    tree = page.locator("body").aria_snapshot()
    for role in ("combobox", "spinbutton", "textbox", "button"):
        assert not re.search(rf"- {role}\s*(:|$)", tree, re.MULTILINE), f"a {role} without a name:\n{tree}"
    assert 'button "Play"' in tree and 'spinbutton "players [K-2.1]"' in tree
    assert problems == []


def test_list_and_auto_knobs_are_edited_with_inputs_not_json(browser, studio_url):
    """A choice-or-number knob (grid.rows: "auto" or an integer) is a select and a number input;
    a list knob an input per item with buttons to add and remove items; no raw JSON field."""
    url, _ = studio_url
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    problems = []
    page.on("pageerror", lambda error: problems.append(str(error)))
    page.goto(url)
    page.wait_for_selector("#knob-grid_rows")
    assert page.locator("#knobs input.json").count() == 0
    assert page.input_value("#knob-grid_rows") == '"auto"' and page.is_disabled("#knob-grid_rows-number")

    page.select_option("#knob-grid_rows", "__number__")
    _set(page, "#knob-grid_rows-number", "0")
    page.wait_for_function("() => document.getElementById('message').textContent.includes('grid.rows')")
    _set(page, "#knob-grid_rows-number", "4")
    page.click("#knob-extra_turn_values-add")  # [7] -> [7, 7]
    _set(page, "#knob-extra_turn_values-1", "5")
    page.click("[aria-label='Remove item 1 of skip_values']")  # [1] -> []
    page.wait_for_function("() => document.getElementById('message').textContent.startsWith('ready')")
    knobs = page.evaluate("() => settings().knobs")
    assert knobs["grid.rows"] == 4 and knobs["extra_turn_values"] == [7, 5] and knobs["skip_values"] == []
    assert page.input_value("#knob-extra_turn_values-0") == "7"  # the list redrawn with its items

    page.select_option("#knob-grid_rows", '"auto"')
    page.wait_for_function("() => settings().knobs['grid.rows'] === 'auto'")
    assert page.is_disabled("#knob-grid_rows-number")
    assert page.evaluate(UNNAMED_CONTROLS_JS) == []
    assert problems == []
