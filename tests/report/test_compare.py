"""`zoosim compare`: a rule change that moves a seat's win rate shows up with its interval."""

from click.testing import CliRunner

from simulator.cli import main
from simulator.report.compare import compare_runs


def test_compare_finds_the_seat_a_rule_change_moved(tmp_path, write_experiment):
    runs = {}
    for name, bonus in (("before", 0.0), ("after", 0.4)):
        path = write_experiment(
            f"seed: 1\ngames: 3000\nstudies: [{{name: coin, game: coin, rules: {{players: 2, first_seat_bonus: {bonus}}}}}]\n",
            f"{name}.yaml",
        )
        runs[name] = tmp_path / name
        result = CliRunner().invoke(main, ["run", str(path), "--out", str(runs[name]), "--jobs", "1", "--quiet"])
        assert result.exit_code == 0, result.output
    seats, cells = compare_runs(runs["before"], runs["after"])
    first = seats[seats["seat"] == 0].iloc[0]
    assert first["change_points"] > 5 and first["change_low_points"] > 0 and first["significant"] == "yes"
    assert cells.iloc[0]["verdict_b"] == "unbalanced"
    result = CliRunner().invoke(main, ["compare", str(runs["before"]), str(runs["after"])])
    assert result.exit_code == 0, result.output
    assert "coin seat 0" in result.output and (runs["after"] / "compare.html").exists()


def test_compare_refuses_runs_without_common_cells(tmp_path, write_experiment):
    for name in ("x", "y"):
        path = write_experiment(f"games: 200\nstudies: [{{name: {name}, game: coin}}]\n", f"{name}.yaml")
        CliRunner().invoke(main, ["run", str(path), "--out", str(tmp_path / name), "--jobs", "1", "--quiet"])
    result = CliRunner().invoke(main, ["compare", str(tmp_path / "x"), str(tmp_path / "y")])
    assert result.exit_code == 2 and "share no cell" in result.stderr
