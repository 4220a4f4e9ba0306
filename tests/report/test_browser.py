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
from tests.conftest import REPO

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
    # the Katz cell replays its 10 deals round by round: its "How the game plays" charts are checked too
    document = {"name": "browser", "games": 600, "chunk_games": 300, "trajectory_deals": 10, "studies": studies}
    before = _run(base / "before", {**document, "seed": 2})
    after = _run(base / "after", {**document, "seed": 3})
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
    assert "ladder at 2 players" in summary.inner_text()
    assert "players=4" in page.locator("#cells").text_content()  # the table of 32 cells, collapsed
    assert page.locator("svg.final-position").count() == 1  # the Katz study's sample game
    assert page.locator("[id^=explain-waterfall-] svg").count() == 1  # the explain study's waterfall
    assert "from first-seat bonus" in page.locator("#explain").inner_text()
    assert "is strongest" in page.locator("p.strongest").first.inner_text()
    # Sorting by clicking a heading works and keeps every row.
    page.locator("#cell-4 > summary").click()  # a cell opens with one click
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
    page.evaluate(OPEN_ALL_JS)  # charts in collapsed sections have no size until opened
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
    page.evaluate(OPEN_ALL_JS)
    heights = page.eval_on_selector_all(".chart svg:not(.final-position)", PLOT_HEIGHTS_JS)
    assert len(heights) >= 10 and all(math.isfinite(height) for height in heights), heights  # every chart measured
    assert min(heights) >= READABLE_PLOT_PIXELS, heights
    titles = page.locator(".chart svg").evaluate_all("svgs => svgs.map(svg => svg.textContent)")
    assert sum("skill curve, each seat" in title for title in titles) == 2  # one skill curve per player count
    assert sum("head-to-heads" in title for title in titles) == 2
    page.close()


# Issue #41: every chart's text as the reader sees it at a 1,400 px window: its rendered size in
# pixels (the font size times the SVG's scale on screen), whether its box leaves its SVG, and
# whether it overlaps another text of the same chart. Every collapsed section is opened first.
READABILITY_JS = """
svgs => {
  const problems = [];
  let smallest = Infinity, texts = 0;
  svgs.forEach((svg, chart) => {
    const frame = svg.getBoundingClientRect();
    const boxes = [];
    svg.querySelectorAll("text").forEach(text => {
      const words = text.textContent.trim();
      if (!words) return;
      const m = text.getScreenCTM();
      const pixels = parseFloat(getComputedStyle(text).fontSize) * Math.hypot(m.a, m.b);
      smallest = Math.min(smallest, pixels); texts++;
      if (pixels < 12) problems.push(`chart ${chart}: '${words}' is ${pixels.toFixed(1)} px`);
      const r = text.getBoundingClientRect();
      if (r.left < frame.left - 0.5 || r.right > frame.right + 0.5 || r.top < frame.top - 0.5 || r.bottom > frame.bottom + 0.5)
        problems.push(`chart ${chart}: '${words}' is cut off by its chart's edge`);
      boxes.push({x0: r.left + 0.5, y0: r.top + 0.5, x1: r.right - 0.5, y1: r.bottom - 0.5, words});
    });
    for (let i = 0; i < boxes.length; i++)
      for (let j = i + 1; j < boxes.length; j++) {
        const a = boxes[i], b = boxes[j];
        if (a.x0 < b.x1 && b.x0 < a.x1 && a.y0 < b.y1 && b.y0 < a.y1)
          problems.push(`chart ${chart}: '${a.words}' overlaps '${b.words}'`);
      }
  });
  return {problems, smallest, texts, charts: svgs.length};
}
"""
READER_WIDTH = 1400
OPEN_ALL_JS = "() => document.querySelectorAll('details').forEach(details => { details.open = true; })"


def _open_at_reader_width(browser, path):
    page = browser.new_page(viewport={"width": READER_WIDTH, "height": 1000})
    page.goto(path.as_uri())
    page.wait_for_load_state("load")
    return page


@pytest.mark.parametrize("which", ["report", "compare"])
def test_every_chart_text_is_at_least_12_px_inside_its_chart_and_clear_of_other_text(browser, pages, which):
    """Issue #41 item 2: text about 9 px, the ladder's rotated labels cut off. The report's charts
    are every kind the shipped experiments draw (seat deviations, length histograms, the sweep
    heatmap and chart, ratings, ladder and head-to-heads, the explain waterfall); compare's forest."""
    page = _open_at_reader_width(browser, pages[which])
    page.evaluate(OPEN_ALL_JS)
    found = page.eval_on_selector_all(".chart svg:not(.final-position)", READABILITY_JS)
    assert found["charts"] >= (10 if which == "report" else 1) and found["texts"] > 20
    assert found["problems"] == []
    assert found["smallest"] >= 12
    page.close()


# The shipped strength ladder's rung names: the longest wrapped past the chart's edge when turned upright.
SHIPPED_RUNGS = ["greedy", "learned(temperature=6, valued=destination_and_placement, destinations=best)",
                 "greedy_duel", "learned(destinations=best, width=3)", "strong"]


def test_the_ladder_charts_keep_long_rung_names_whole_and_readable(browser, tmp_path):
    """Issue #41: "re=6, valued=destination_and_placement) 20 Elo", a rung's label cut off; and a
    length histogram's last tick label, 100, cut off at the chart's right edge (turns 30-98)."""
    import pandas as pd

    from simulator.report import charts

    rows = [{"rung": rung, "elo": 100.0 * number - 200, "seat": seat, "deviation_points": 3.0 - 2 * seat,
             "low_points": 1.0 - 2 * seat, "high_points": 5.0 - 2 * seat}
            for number, rung in enumerate(SHIPPED_RUNGS) for seat in range(4)]
    duels = [{"label": f"{low} vs {high}", "policy": policy, "win_rate": rate, "ci_low": rate - 0.02,
              "ci_high": rate + 0.02, "fair": 0.25}
             for low, high in zip(SHIPPED_RUNGS, SHIPPED_RUNGS[1:]) for policy, rate in ((low, 0.2), (high, 0.3))]
    svgs = [charts.skill_curve_chart(pd.DataFrame(rows), "4 players: skill curve", margin_points=1.0),
            charts.head_to_head_chart(pd.DataFrame(duels), "4 players: head-to-heads"),
            charts.length_histogram(pd.DataFrame({"value": range(30, 99), "games": 1}), "turns")]
    path = tmp_path / "ladder.html"
    path.write_text("<!DOCTYPE html><html><head><style>body { max-width: 1100px; }"
                    ".chart svg { max-width: 100%; height: auto; }</style></head><body>"
                    + "".join(f"<div class='chart'>{svg}</div>" for svg in svgs) + "</body></html>")
    page = _open_at_reader_width(browser, path)
    found = page.eval_on_selector_all(".chart svg", READABILITY_JS)
    assert found["problems"] == [] and found["smallest"] >= 12
    shown = " ".join(page.locator(".chart svg").nth(1).evaluate("svg => [...svg.querySelectorAll('text')].map(t => t.textContent)"))
    assert "valued=destination_and_placement," in shown and "learned(destinations=best, width=3)" in shown
    page.close()


def test_the_skill_curve_numbers_rungs_a_few_elo_apart_in_lines_of_their_own(browser, tmp_path):
    """A ladder copy with expert rungs on top (2026-12-04): rungs 5, 6 and 7 at +83, +85 and +88
    Elo, far right of greedy_duel's -263, printed their numbers on two lines as "6" over "57"
    (5 and 7 touching on one line)."""
    import pandas as pd

    from simulator.report import charts

    elos = [-263, -30, -16, 53, 83, 85, 88]
    rows = [{"rung": f"rung {number}", "elo": float(elo), "seat": seat, "deviation_points": 3.0 - 6 * seat,
             "low_points": 1.0 - 6 * seat, "high_points": 5.0 - 6 * seat}
            for number, elo in enumerate(elos, start=1) for seat in range(2)]
    path = tmp_path / "curve.html"
    path.write_text("<!DOCTYPE html><html><head><style>body { max-width: 1100px; }"
                    ".chart svg { max-width: 100%; height: auto; }</style></head><body><div class='chart'>"
                    + charts.skill_curve_chart(pd.DataFrame(rows), "2 players: skill curve", margin_points=1.0)
                    + "</div></body></html>")
    page = _open_at_reader_width(browser, path)
    found = page.eval_on_selector_all(".chart svg", READABILITY_JS)
    assert found["problems"] == [] and found["smallest"] >= 12
    numbers = page.locator(".chart svg").evaluate(RUNG_NUMBERS_JS)
    assert sorted(numbers) == [str(number) for number in range(1, 8)]
    # two numbers side by side on one line read as one ("57"): a line holds numbers a gap apart
    boxes = list(numbers.values())
    for i, a in enumerate(boxes):
        for b in boxes[i + 1:]:
            if a["top"] < b["bottom"] and b["top"] < a["bottom"]:
                assert max(a["left"], b["left"]) - min(a["right"], b["right"]) >= 4, numbers
    page.close()


def test_the_strength_chart_names_close_rungs_without_overlapping(browser, tmp_path):
    """A New York Zoo ladder copy with expert rungs (2026-12-04, its Elo and first-seat points):
    the point names "strong" and "expert(searched=turn_start, width=2)" overlapped, "expert"
    sat on another name, so a designer could not tell which point was which."""
    import pandas as pd

    from simulator.report import charts

    measured = [("greedy_duel", -263, 4.9), ("learned(destinations=best, width=3)", -16, 9.9), ("strong", 53, 10.8),
                ("expert(searched=turn_start, width=2)", -30, 7.9), ("expert(searched=turn_start)", 85, 9.8),
                ("expert(width=3)", 88, 6.6), ("expert", 83, 4.7)]
    ratings = pd.DataFrame([{"policy": policy, "elo": float(elo), "elo_low": elo - 12.0, "elo_high": elo + 12.0,
                             "first_seat_advantage_points": points} for policy, elo, points in measured])
    path = tmp_path / "strength.html"
    path.write_text("<!DOCTYPE html><html><head><style>body { max-width: 1100px; }"
                    ".chart svg { max-width: 100%; height: auto; }</style></head><body><div class='chart'>"
                    + charts.strength_chart(ratings, "seat advantage against strength") + "</div></body></html>")
    page = _open_at_reader_width(browser, path)
    found = page.eval_on_selector_all(".chart svg", READABILITY_JS)
    assert found["problems"] == [] and found["smallest"] >= 12
    page.close()


# The skill curve's rung numbers (the texts above the plot that are whole numbers): their boxes.
RUNG_NUMBERS_JS = """
svg => Object.fromEntries([...svg.querySelectorAll('text')].filter(t => /^[0-9]+$/.test(t.textContent.trim()))
  .filter(t => t.getBoundingClientRect().bottom < svg.querySelector('g.data').getBoundingClientRect().top)
  .map(t => { const r = t.getBoundingClientRect(); return [t.textContent.trim(), {left: r.left, right: r.right, top: r.top, bottom: r.bottom}]; }))
"""


# The page as first shown (every section collapsed as it opens) at a 1,400 px window.
PAGE_HEIGHT_LIMIT = 6000
PAGE_HEIGHT_JS = "() => document.documentElement.scrollHeight"
TOC_JS = "() => [...document.querySelectorAll('#toc a')].map(a => a.getAttribute('href'))"


def _assert_every_cell_and_chart_in_the_contents(page):
    links = page.evaluate(TOC_JS)
    cells = page.eval_on_selector_all("[id^=cell-]", "cells => cells.map(c => '#' + c.id)")
    assert cells and set(cells) <= set(links)
    for chart in page.eval_on_selector_all("section .chart[id], details[id$=-ladder-2], details[id$=-ladder-5]",
                                           "charts => charts.map(c => '#' + c.id)"):
        assert chart in links
    return links


def test_every_cell_and_chart_is_in_the_contents_and_a_link_opens_the_cell(browser, pages):
    """Issue #41 goal: every cell and study chart in the contents; a contents link opens the
    cell's collapsed detail, even in a ladder's collapsed list of cells (its statistics one click
    further). A page of five kinds of study at once, so its height is not held to the limit."""
    page = _open_at_reader_width(browser, pages["report"])
    links = _assert_every_cell_and_chart_in_the_contents(page)
    ladder_cell = next(link for link in links if link.startswith("#cell-") and
                       page.locator(f"{link} > summary").text_content().count(" vs "))
    assert not page.locator(ladder_cell).evaluate("cell => cell.open")  # collapsed, in a collapsed list
    page.locator(f"#toc a[href='{ladder_cell}']").click()
    assert page.locator(ladder_cell).evaluate("cell => cell.open && cell.parentElement.closest('details').open")
    assert page.locator(f"{ladder_cell} table").first.is_visible()
    page.close()


QUICK_START = REPO / "experiments" / "seat_bias.yaml"


def test_the_quick_start_report_opens_short_with_every_cell_in_the_contents(browser, tmp_path):
    """Issue #41 goal: the quick start's report (experiments/seat_bias.yaml, few games) as a newcomer
    first sees it, at most 6,000 px tall at 1,400 px (it was 26,300), every cell in the contents."""
    result = CliRunner().invoke(main, ["run", str(QUICK_START), "--games", "40", "--jobs", "1",
                                       "--out", str(tmp_path / "run"), "--quiet"])
    assert result.exit_code == 0, result.output
    page = _open_at_reader_width(browser, tmp_path / "run" / "report.html")
    height = page.evaluate(PAGE_HEIGHT_JS)
    assert height <= PAGE_HEIGHT_LIMIT, height
    _assert_every_cell_and_chart_in_the_contents(page)
    assert page.locator("#summary .chart svg").count() == 2  # each game's seat x players heatmap in the answer
    assert "Turn order: " in page.locator("#cell-5 > summary").inner_text()  # New York Zoo's finding by its verdict
    page.close()
