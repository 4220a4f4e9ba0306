"""A generated report opened in real headless Chromium: no console errors, every chart drawn
with a non-zero size, the summary visible. Needs the system chromium, which `.ci/run` installs;
in CI (CI=true) a missing browser is a failure, not a skip."""

import os
import shutil

import pytest

from simulator.config import parse_experiment
from simulator.plan import build_plan
from simulator.report.build import build_report
from simulator.runner import run_plan

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
LAUNCH_ARGS = [
    "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def browser():
    if CHROMIUM is None:
        if os.environ.get("CI"):
            pytest.fail("chromium is not installed; .ci/run must install it (apt-get install chromium)")
        pytest.skip("system chromium not installed (tests/run-all.sh installs it)")
    playwright_api = pytest.importorskip("playwright.sync_api")
    with playwright_api.sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=CHROMIUM, args=LAUNCH_ARGS, headless=True)
        yield launched
        launched.close()


@pytest.fixture(scope="module")
def report_path(tmp_path_factory):
    run_dir = tmp_path_factory.mktemp("browser-run")
    document = {"name": "browser", "seed": 2, "games": 600, "chunk_games": 300,
                "studies": [{"game": "coin", "rules": {"first_seat_bonus": 0.2}, "sweep": {"players": [2, 4]}}]}
    run_plan(build_plan(parse_experiment(document)), run_dir, "name: browser\n", jobs=1, progress=False)
    path, _ = build_report(run_dir)
    return path


def test_report_renders_in_chromium_without_errors(browser, report_path):
    page = browser.new_page()
    problems = []
    page.on("console", lambda message: problems.append(message.text) if message.type == "error" else None)
    page.on("pageerror", lambda error: problems.append(str(error)))
    page.on("requestfailed", lambda request: problems.append(f"request failed: {request.url}"))
    page.goto(report_path.as_uri())
    page.wait_for_load_state("load")
    assert problems == []
    sizes = page.eval_on_selector_all(
        "svg", "nodes => nodes.map(n => { const r = n.getBoundingClientRect(); return [r.width, r.height]; })"
    )
    assert len(sizes) >= 5
    assert all(width > 50 and height > 50 for width, height in sizes), sizes
    summary = page.locator("#summary")
    assert summary.is_visible()
    assert "players=4" in summary.inner_text()
    # Sorting by clicking a heading works and keeps every row.
    table = page.locator("#seats-cell-1")
    rows_before = table.locator("tbody tr").count()
    table.locator("th[data-column=win_rate]").click()
    rates = [float(v) for v in table.locator("tbody td:nth-child(4)").evaluate_all("cells => cells.map(c => c.dataset.value)")]
    assert len(rates) == rows_before == 4 and rates == sorted(rates)
    page.close()
