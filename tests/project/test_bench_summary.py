"""``make bench``'s closing table (``tests/bench/summary.py``) reads the figures the
benchmarks report (``tests/bench/figures.py``): what a benchmark prints is what the
table shows, a target is met or not on the right side, and a benchmark that failed
is a row of its own. No speed is measured here."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = next(folder for folder in Path(__file__).resolve().parents
            if (folder / "pyproject.toml").exists())
BENCH = ROOT / "tests" / "bench"
sys.path.insert(0, str(BENCH))

from figures import Figure, parse, report  # noqa: E402
from summary import ANCHORED, Conditions, Run, printed_figure, table  # noqa: E402


def test_a_reported_figure_reads_back_as_it_was_given(
        capsys: pytest.CaptureFixture[str]) -> None:
    report("best_discards uniform / OpenSpiel C++", 1.42, 1.0, conditions="1.8 against 1.3 us")
    report("Docker season arena share", 55.0, unit="%")
    lines = capsys.readouterr().out.splitlines()
    assert [parse(line) for line in lines] == [
        Figure("best_discards uniform / OpenSpiel C++", 1.42, 1.0, True, "x",
               "1.8 against 1.3 us"),
        Figure("Docker season arena share", 55.0, None, True, "%", ""),
    ]
    assert parse("min_deadwood   uniform   0.90 us") is None


def test_targets_are_ceilings_or_floors() -> None:
    assert Figure("ratio", 0.99, 1.0).met is True
    assert Figure("ratio", 1.01, 1.0).met is False
    assert Figure("rate", 0.14, 0.5, at_most=False).met is False
    assert Figure("rate", 0.5, 0.5, at_most=False).met is True
    assert Figure("no target", 3.0).met is None


def test_the_table_shows_each_figure_with_its_conditions_and_each_failure() -> None:
    conditions = Conditions(loads=[7.5, 9.25], steal=0.02, seconds=31.6)
    runs = [
        Run("deadwood", [Figure("best_discards uniform / OpenSpiel C++", 1.423, 1.0)],
            conditions, 0),
        Run("inprocess", [Figure("in-process season / bare engine", 0.14, 0.5, at_most=False),
                          Figure("round trip", 1.02, conditions="28 against 27 us")],
            conditions, 0),
        Run("season", [], Conditions(), 2),
    ]
    lines = table(runs)
    cells = [[cell.strip() for cell in line.split("|")] for line in lines]
    assert cells[0] == ["figure", "measured", "target", "met?", "conditions"]
    assert cells[2] == ["best_discards uniform / OpenSpiel C++", "1.42x", "<= 1.00x", "NO",
                        "load 7.5-9.2, steal 2%, 32 s"]
    assert cells[3][1:4] == ["0.14x", ">= 0.50x", "NO"]
    assert cells[4][1:] == ["1.02x", "-", "-", "load 7.5-9.2, steal 2%, 32 s; 28 against 27 us"]
    assert cells[5] == ["bench_season.py", "FAILED", "", "", "exit 2"]


def test_every_anchored_benchmark_exists() -> None:
    assert all((BENCH / f"bench_{name}.py").exists() for name in ANCHORED)


def test_the_docker_season_shares_are_read_from_their_words() -> None:
    line = ("docker season arena share, reuse: 12.5 % of season wall (target <= 15 %; "
            "12 series in 60.0 s, ...)")
    assert printed_figure(line) == Figure(
        "Docker season arena share of wall time (reuse)", 12.5, 15.0, True, "%", "")
    kept = printed_figure("docker season arena share, reuse, kept: 10.7 % of season wall "
                          "(target <= 15 %; ...)")
    assert kept == Figure(
        "Docker season arena share of wall time (reuse, kept)", 10.7, 15.0, True, "%", "")
    pool = printed_figure("docker season arena share, pool: 55.0 % of season wall (55 % ...)")
    assert pool is not None and pool.target is None and pool.measured == 55.0
    assert printed_figure("arena share of series wall time (outside bot thinking): 5 %") is None


def test_make_bench_fails_when_a_benchmark_fails(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """``summary.py`` (``make bench``) ends with status 1 when a benchmark fails, and
    0 when every one ran, whether its targets were met or not."""
    import summary

    bench = tmp_path / "tests" / "bench"
    bench.mkdir(parents=True)
    (bench / "bench_missed.py").write_text(
        "print('FIGURE " + '{"name": "slow", "measured": 9.0, "target": 1.0}' + "')\n")
    (bench / "bench_broken.py").write_text("raise SystemExit(3)\n")
    monkeypatch.setattr(summary, "HERE", bench)
    monkeypatch.setattr(sys, "argv", ["summary.py", "--only", "missed"])
    assert summary.main() == 0
    monkeypatch.setattr(sys, "argv", ["summary.py", "--only", "missed,broken"])
    assert summary.main() == 1
    out = capsys.readouterr().out
    assert "FAILED" in out and "exit 3" in out
    assert "NO" in out  # the missed target: a figure in the table, not a failure
