"""The documentation: the site builds strictly (a broken link or a missing page fails), its
experiment file reference is generated from the schemas, the README stays short and lists every
command, timings and speeds are quoted on the benchmarks page only, and the example notebook
runs."""

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
NOTEBOOK = REPO / "docs" / "notebooks" / "seat0_by_length.ipynb"
README_LINES = 150
BENCHMARKS = "docs/benchmarks.md"  # the one page that quotes timings and speeds (issue #41 item 3)
# A timing or speed as the docs write one: a number with a unit of time ("1 min 39 s", "22 s",
# "9 minutes", "1.3 us"; a space before the unit, so card names such as "7s" are not times) or a
# number of games per second ("2,300 two-player games per CPU second", "11 games/s").
TIMING = re.compile(r"""\b\d+\ (?:min|h)\ \d+\ s\b
                      | \b\d[\d,]*(?:\.\d+)?\ (?:s|sec|seconds?|min|minutes?|h|hours?|ms|us|µs)(?![\w-])
                      | \b\d[\d,]*(?:\.\d+)?\ (?:[\w-]+\ ){0,3}games?\ ?(?:/\ ?s\b|per\ (?:CPU\ |core\ )?second)""",
                    re.VERBOSE)


def build_site(root: Path, site: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(site)],
                          cwd=root, capture_output=True, text=True, timeout=300,
                          env={**os.environ, "NO_MKDOCS_2_WARNING": "1"})  # Material's notice of its successor


def copy_of_the_docs(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    shutil.copytree(REPO / "docs", root / "docs", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(REPO / "mkdocs.yml", root / "mkdocs.yml")
    return root


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    site = tmp_path_factory.mktemp("site")
    result = build_site(REPO, site)
    assert result.returncode == 0, result.stderr
    return site


def test_the_site_builds_strictly_with_every_page_of_the_nav(site):
    for page in ("getting-started", "experiments", "report", "tuning", "players", "cluster", "run-folder",
                 "api", "commands", "findings", "benchmarks", "adding-a-game", "design",
                 "reference/experiment-file"):
        assert (site / page / "index.html").exists(), page


@pytest.mark.parametrize("damage", ["[a page](no-such-page.md)", "![a picture](images/no-such.png)",
                                    "[an anchor](report.md#no-such-section)"])
def test_a_broken_link_fails_the_build(tmp_path, damage):
    root = copy_of_the_docs(tmp_path)
    with open(root / "docs" / "index.md", "a", encoding="utf-8") as page:
        page.write(f"\n{damage}\n")
    result = build_site(root, tmp_path / "site")
    assert result.returncode != 0
    assert "no-such" in result.stderr


def test_the_experiment_file_reference_lists_every_key_and_knob_of_the_schemas(site):
    from simulator.config import Experiment, PrecisionGames, SeatSpec, Study
    from simulator.games import GAME_MODULES, get_game
    from simulator.tune.config import TuneExperiment, TuneSection

    text = (site / "reference" / "experiment-file" / "index.html").read_text(encoding="utf-8")
    for model in (Experiment, Study, SeatSpec, PrecisionGames, TuneExperiment, TuneSection):
        for name, field in model.model_fields.items():
            assert f"<code>{field.alias or name}</code>" in text, (model.__name__, name)
            if field.description:
                assert field.description.split()[0] in text, (model.__name__, name)
    built_in = [name for name, target in GAME_MODULES.items() if target.startswith("simulator.games.")]
    assert built_in  # the test games of conftest.py are registered in this process only
    for game_name in built_in:
        game = get_game(game_name)
        for knob in game.knobs():
            assert f"<code>{knob.name}</code>" in text, (game_name, knob.name)
        for policy in game.policies:
            assert f"<code>{policy}</code>" in text, (game_name, policy)


def test_the_readme_is_short_and_its_quick_start_is_the_one_the_tests_use():
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    assert len(readme.splitlines()) <= README_LINES
    assert ("python3 -m venv .venv && .venv/bin/pip install -q . && .venv/bin/zoosim run experiments/seat_bias.yaml"
            in readme)
    assert "bash tests/run-all.sh" in readme
    assert "docs/images/report-summary.png" in readme
    links = re.findall(r"\]\(([^)#]+)(?:#[^)]*)?\)", readme)
    assert len(links) > 10
    assert not [link for link in links if not (REPO / link).exists()]  # GitHub shows the README too


def timings(text: str) -> list[str]:
    """The timings and speeds quoted in `text`, with their line numbers; code blocks and inline
    code (commands, samples of a program's output) left out."""
    found, in_code = [], False
    for number, line in enumerate(text.splitlines(), 1):
        if line.lstrip().startswith("```"):
            in_code = not in_code
        elif not in_code:
            found += [f"{number}: {match.group(0)}" for match in TIMING.finditer(re.sub(r"`[^`]*`", "", line))]
    return found


def test_timings_are_told_apart_from_prose():
    assert timings("it took 1 min 39 s (katz 22 s); pytest 2 min 46 s") == [
        "1: 1 min 39 s", "1: 22 s", "1: 2 min 46 s"]
    assert timings("about 2,300 two-player games per CPU second, `zoosim bench`: 11 games/s") == [
        "1: 2,300 two-player games per CPU second", "1: 11 games/s"]
    assert timings("from scratch in 9 minutes; each rollout move 0.6 us") == ["1: 9 minutes", "1: 0.6 us"]
    assert timings("no 7s, no 1s; 3 seats; 250,000 games per player count; games per second per core; "
                   "seat 0's share; a 5-minute run; minutes, not seconds") == []
    assert timings("```sh\ntime zoosim run x.yaml  # 2 min 3 s\n```") == []
    assert timings("it shows `compiling nyz: kernel 80 of 187, about 30 s left`") == []


@pytest.mark.parametrize("page", ["README.md"] + sorted(
    str(path.relative_to(REPO)) for path in (REPO / "docs").glob("*.md") if path.relative_to(REPO).as_posix() != BENCHMARKS))
def test_timings_and_speeds_are_quoted_on_the_benchmarks_page_only(page):
    """A timing quoted on two pages drifts apart (the README said 1 min 39 s, the benchmarks page
    2 min 38 s): other pages link to the benchmarks page instead."""
    assert timings((REPO / page).read_text(encoding="utf-8")) == [], f"{page}: move these to {BENCHMARKS}"


@pytest.mark.parametrize("page", ["README.md", "docs/commands.md"])
def test_every_command_of_the_cli_is_in_the_command_tables(page):
    from simulator.cli import main

    text = (REPO / page).read_text(encoding="utf-8")
    listed = set(re.findall(r"^\| `zoosim ([a-z]+)", text, flags=re.MULTILINE))
    assert set(main.commands) - listed == set(), f"{page} leaves out commands"
    assert listed - set(main.commands) == set(), f"{page} lists commands the CLI does not have"


def test_the_report_pictures_are_small():
    for picture in (REPO / "docs" / "images").glob("*.png"):
        assert picture.stat().st_size < 300_000, picture.name


def test_the_example_notebook_runs(tmp_path):
    """The notebook plays a small New York Zoo run (4,000 games) and groups seat 0's win share by
    game length; executing it checks it against the current API."""
    import nbclient
    import nbformat

    notebook = nbformat.read(NOTEBOOK, as_version=4)
    nbclient.NotebookClient(notebook, timeout=600, kernel_name="python3",
                            resources={"metadata": {"path": str(tmp_path)}}).execute()
    outputs = [output for cell in notebook.cells if cell.cell_type == "code" for output in cell.outputs]
    assert not [output for output in outputs if output.output_type == "error"]
    tables = [output["data"]["text/plain"] for output in outputs if "data" in output]
    assert any("seat 0 win share" in table for table in tables)
