"""``arena export``: results.csv, standings.csv and series/ID.json of a season, and
``arena standings --los`` with its statistically-tied marks, through the CLI
against a server playing with the fake runner."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from arena.cli import main
from arena.server.app import RunningServer
from engine import Series
from tests.helpers.arena_helpers import REPO_ROOT

SAMPLES = REPO_ROOT / "sample_bots"


def run(capsys: pytest.CaptureFixture[str], server: RunningServer, *argv: str) -> str:
    code = main([*argv, "--server", server.address, "--token-file", str(server.token_path)])
    out = capsys.readouterr().out
    assert code == 0, out
    return out


def test_export_writes_results_standings_and_event_logs(
        server: RunningServer, capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    run(capsys, server, "bots", "register", str(SAMPLES / "random"), str(SAMPLES / "greedy"))
    season = json.loads(run(capsys, server, "season", "create", "--bots", "random", "greedy",
                            "--series-per-pair", "4", "--max-hands", "20", "--seed", "3",
                            "--json"))
    assert server.manager.wait(int(season["id"]), timeout=60)
    target = tmp_path / "out"
    run(capsys, server, "export", "--season", str(season["id"]), "--to", str(target))
    with (target / "results.csv").open() as handle:
        results = list(csv.DictReader(handle))
    assert [row["series_id"] for row in results] == [f"{season['id']}-{i}" for i in range(4)]
    listed = json.loads(run(capsys, server, "series", "list", "--json"))["series"]
    for row, series in zip(results, listed, strict=True):
        assert (row["seat0_bot"], row["seat1_bot"]) == (series["seat0_bot"],
                                                        series["seat1_bot"])
        assert int(row["seed"]) == series["seed"]  # CSV text; JSON a number
        winner = series.get("winner", 0)
        assert row["winner_bot"] == ("" if winner == -1 else
                                     (row["seat0_bot"], row["seat1_bot"])[winner])
        assert int(row["hands_played"]) == series["hands_played"]
        log = json.loads((target / "series" / f"{row['series_id']}.json").read_text())
        replayed = Series.replay(log["event_log"])
        assert replayed.result is not None
        assert list(replayed.result.points) == [int(row["points_0"]), int(row["points_1"])]
    with (target / "standings.csv").open() as handle:
        standings = list(csv.DictReader(handle))
    assert [row["rank"] for row in standings] == ["1", "2"]
    assert sum(int(row["series_played"]) for row in standings) == 8
    assert {"bt_elo", "bt_elo_low", "bt_elo_high", "tied_with_next"} <= set(standings[0])
    assert json.loads((target / "season.json").read_text())["season"]["id"] == season["id"]


def test_standings_los_and_tied_marks(
        server: RunningServer, capsys: pytest.CaptureFixture[str]) -> None:
    run(capsys, server, "bots", "register", str(SAMPLES / "greedy"), str(SAMPLES / "shark"))
    season = json.loads(run(capsys, server, "season", "create", "--bots", "greedy", "shark",
                            "--series-per-pair", "2", "--max-hands", "10", "--json"))
    assert server.manager.wait(int(season["id"]), timeout=60)
    out = run(capsys, server, "standings", "--los")
    assert "Likelihood of superiority" in out and "Elo (95 %)" in out
    # Two series between bots the fake runner plays alike: no order is significant.
    rows = json.loads(run(capsys, server, "standings", "--json"))["rows"]
    assert rows[0]["tied_with_next"] is True and rows[1].get("tied_with_next", False) is False
    assert "tied" in out
