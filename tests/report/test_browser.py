"""Generated pages opened in real headless Chromium: no console errors, every chart drawn with a
non-zero size, the summary visible, and no chart text (tick labels, titles, legends) overlapping
other text or data, measured with the browser's own bounding boxes. Needs the system chromium,
which `.ci/run` installs; in CI (CI=true) a missing browser is a failure, not a skip (the
`browser` fixture, tests/conftest.py)."""

import math

import pytest
from click.testing import CliRunner

from simulator.cli import main
from simulator.config import parse_experiment
from simulator.plan import build_plan
from simulator.report.build import build_report
from simulator.runner import run_plan

pytestmark = pytest.mark.browser

# For every chart (matplotlib SVG, see charts.py for the classes): pairs of text elements whose
# boxes overlap, and tick labels or legends whose boxes overlap a data element (point, interval,
# bar, heatmap). Boxes are shrunk by half a pixel so touching is not overlapping.
OVERLAPS_JS = """
svgs => {
  const box = element => { const r = element.getBoundingClientRect();
    return {x0: r.left + 0.5, y0: r.top + 0.5, x1: r.right - 0.5, y1: r.bottom - 0.5, text: element.textContent.trim()}; };
  const visible = b => b.x1 > b.x0 && b.y1 > b.y0;
  const meet = (a, b) => a.x0 < b.x1 && b.x0 < a.x1 && a.y0 < b.y1 && b.y0 < a.y1;
  const problems = [];
  const texts = [];
  svgs.forEach((svg, chart) => {
    svg.querySelectorAll("text").forEach(t => { const b = box(t); if (visible(b) && b.text) texts.push({...b, chart}); });
    const data = [...svg.querySelectorAll("g.data path, g.data use, g.data image, g.data rect")]
      .filter(e => !e.closest("defs")).map(box).filter(visible);
    const guarded = [...svg.querySelectorAll("g.xtick text, g.ytick text")].map(box)
      .concat([...svg.querySelectorAll("g.legend")].map(box)).filter(visible);
    guarded.forEach(g => data.forEach(d => { if (meet(g, d)) problems.push(`chart ${chart}: '${g.text}' covers data`); }));
  });
  for (let i = 0; i < texts.length; i++)
    for (let j = i + 1; j < texts.length; j++)
      if (meet(texts[i], texts[j]))
        problems.push(`charts ${texts[i].chart}/${texts[j].chart}: '${texts[i].text}' overlaps '${texts[j].text}'`);
  return {problems, texts: texts.length};
}
"""


def _run(run_dir, document):
    run_plan(build_plan(parse_experiment(document)), run_dir, f"name: {document['name']}\n", jobs=1, progress=False)
    return run_dir


@pytest.fixture(scope="module")
def pages(tmp_path_factory):
    """A report with a two-knob sweep, a tournament, a Katz sample game, a strength ladder of
    five rungs at 2 and 5 players and an explain study (its waterfall chart); a compare page."""
    base = tmp_path_factory.mktemp("browser-run")
    studies = [
        {"name": "sweep", "game": "coin", "rules": {"first_seat_bonus": 0.2},
         "sweep": {"players": [2, 3, 4, 5], "first_seat_bonus": [0.0, 0.2]}},
        {"name": "pool", "game": "coin", "rules": {"players": 2},
         "pool": ["fair", "lucky", {"policy": "lucky", "params": {"luck": 2}}]},
        {"name": "katz", "game": "katz", "games": 20, "rules": {"players": 2}},
        {"name": "ladder", "game": "coin", "sweep": {"players": [2, 5]},
         "ladder": ["fair", *({"policy": "lucky", "params": {"luck": luck}} for luck in (0.25, 0.5, 2, 3))]},
        {"name": "explain", "game": "coin", "rules": {"players": 4, "first_seat_bonus": 0.5},
         "explain": {"mechanisms": [{"name": "first-seat bonus", "knobs": {"first_seat_bonus": 0.0}}]}},
    ]
    before = _run(base / "before", {"name": "browser", "seed": 2, "games": 600, "chunk_games": 300, "studies": studies})
    after = _run(base / "after", {"name": "browser", "seed": 3, "games": 600, "chunk_games": 300, "studies": studies})
    report, _ = build_report(after)
    result = CliRunner().invoke(main, ["compare", str(before), str(after)])
    assert result.exit_code == 0, result.output
    return {"report": report, "compare": after / "compare.html"}


def _open(browser, path):
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    problems = []
    page.on("console", lambda message: problems.append(message.text) if message.type == "error" else None)
    page.on("pageerror", lambda error: problems.append(str(error)))
    page.on("requestfailed", lambda request: problems.append(f"request failed: {request.url}"))
    page.goto(path.as_uri())
    page.wait_for_load_state("load")
    return page, problems


def test_report_renders_in_chromium_without_errors(browser, pages):
    page, problems = _open(browser, pages["report"])
    assert problems == []
    sizes = page.eval_on_selector_all(
        "svg", "nodes => nodes.map(n => { const r = n.getBoundingClientRect(); return [r.width, r.height]; })"
    )
    assert len(sizes) >= 10
    assert all(width > 50 and height > 50 for width, height in sizes), sizes
    summary = page.locator("#summary")
    assert summary.is_visible()
    assert "players=4" in summary.inner_text()
    assert page.locator("svg.final-position").count() == 1  # the Katz study's sample game
    assert page.locator("[id^=explain-waterfall-] svg").count() == 1  # the explain study's waterfall
    assert "from first-seat bonus" in page.locator("#explain").inner_text()
    assert "is strongest" in page.locator("p.strongest").first.inner_text()
    # Sorting by clicking a heading works and keeps every row.
    table = page.locator("#seats-cell-4")
    rows_before = table.locator("tbody tr").count()
    table.locator("th[data-column=win_rate]").click()
    rates = [float(v) for v in table.locator("tbody td:nth-child(4)").evaluate_all("cells => cells.map(c => c.dataset.value)")]
    assert len(rates) == rows_before == 4 and rates == sorted(rates)
    page.close()


@pytest.mark.parametrize("which", ["report", "compare"])
def test_chart_text_overlaps_neither_other_text_nor_data(browser, pages, which):
    page, problems = _open(browser, pages[which])
    assert problems == []
    found = page.eval_on_selector_all(".chart svg:not(.final-position)", OVERLAPS_JS)
    assert found["texts"] > 20  # the check saw the charts' labels
    assert found["problems"] == []
    page.close()


def test_the_overlap_check_catches_a_legend_on_data_and_crowded_ticks(browser, tmp_path):
    import matplotlib.pyplot as plt

    from simulator.report import charts

    figure, axes = plt.subplots(figsize=(2, 1.5))
    axes.plot(range(10), range(10), "o", label="points", gid=charts.DATA)
    axes.legend(loc="center")  # inside, on top of the points
    axes.set_xticks(range(10), [f"long label {i}" for i in range(10)])
    path = tmp_path / "bad.html"
    path.write_text(f"<!DOCTYPE html><html><body><div class='chart'>{charts.to_svg(figure)}</div></body></html>")
    page, _ = _open(browser, path)
    found = page.eval_on_selector_all(".chart svg", OVERLAPS_JS)
    assert any("covers data" in problem for problem in found["problems"])
    assert any("overlaps 'long label" in problem for problem in found["problems"])
    page.close()


# Per matplotlib chart (an SVG with axes): the height of its smallest plot area (the axes'
# background patch), in pixels.
PLOT_HEIGHTS_JS = """
svgs => svgs.filter(svg => svg.querySelector("g[id^=axes_]")).map(svg => Math.min(
  ...[...svg.querySelectorAll("g[id^=axes_] > g[id^=patch_]:first-child path")].map(path => path.getBoundingClientRect().height)))
"""
READABLE_PLOT_PIXELS = 60


def test_every_chart_has_a_plot_area_of_a_readable_height(browser, pages):
    """#21 finding 3: the ladder heatmap was a strip a few pixels high."""
    page, problems = _open(browser, pages["report"])
    assert problems == []
    heights = page.eval_on_selector_all(".chart svg:not(.final-position)", PLOT_HEIGHTS_JS)
    assert len(heights) >= 10 and all(math.isfinite(height) for height in heights), heights  # every chart measured
    assert min(heights) >= READABLE_PLOT_PIXELS, heights
    titles = page.locator(".chart svg").evaluate_all("svgs => svgs.map(svg => svg.textContent)")
    assert sum("against rung strength" in title for title in titles) == 2  # one ladder chart per player count
    assert sum("head-to-heads" in title for title in titles) == 2
    page.close()
