"""benchmarks/timeline.py (issue #25): the play phase's time line counts every game the kernel
played, charts each worker thread, and leaves the runner as it found it."""

from __future__ import annotations

import re
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "benchmarks"))

import timeline  # noqa: E402

from simulator import runner  # noqa: E402
from simulator.games.katz import play  # noqa: E402


def test_the_time_line_of_a_small_threaded_run(tmp_path):
    wrapped = [runner._play_games, runner.record_columns, runner.summarize_columns, runner.records_table,
               runner.write_chunk, play.play_games]
    html = tmp_path / "timeline.html"
    lines = timeline.report(games=4_000, jobs=2, players=4, policy="random", chunk_games=500, html_path=html)
    text = "\n".join(lines)
    assert re.search(r"kernel: 4,000 games, [\d,]+ games per CPU second", text), text
    for stage in timeline.STAGES:
        assert re.search(rf"^{stage} +\d+\.\d\d +\d+\.\d\d$", text, re.MULTILINE), stage
    assert re.search(r"GIL share: \d+\.\d\d CPU s of Python stages", text)
    assert re.search(r"^pipeline: \d+\.\d\d CPU s besides the kernel's \d+\.\d\d", text, re.MULTILINE)
    assert re.search(r"^cores busy: \d+\.\d\d CPU s / \(\d x \d+\.\d\d s\) = \d\.\d\d$", text, re.MULTILINE)
    chart_rows = [line for line in lines if line.count("|") == 2]
    assert 1 <= len(chart_rows) <= 2 and all("K" in row for row in chart_rows)
    assert html.read_text().count("<rect") >= 8 * 3  # 8 chunks: kernel, summary, write at least
    assert [runner._play_games, runner.record_columns, runner.summarize_columns, runner.records_table,
            runner.write_chunk, play.play_games] == wrapped
