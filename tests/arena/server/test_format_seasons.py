"""Every format over the gRPC API, played by the fake runner: the standings carry
the format's own parts (Swiss byes and Buchholz, the knockout bracket, the SPRT
state) and the Bradley-Terry Elo with the likelihood-of-superiority matrix; bad
format settings are refused before anything is stored."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest
from hollywood.arena.v1 import arena_pb2, arena_pb2_grpc

from arena.server.app import RunningServer
from tests.helpers.format_server import auth, play, stub_with_bots


@pytest.fixture
def stub(server: RunningServer, tmp_path: Path) -> Iterator[arena_pb2_grpc.ArenaServiceStub]:
    with stub_with_bots(server, tmp_path) as stub:
        yield stub


def test_gauntlet_adds_the_challenger_and_only_it_meets_everyone(server, stub) -> None:
    season, standings = play(stub, server, ["k1", "k2", "random1"], format="gauntlet",
                             challenger="random2")
    assert list(season.bot_ids) == ["k1@1.0.0", "k2@1.0.0", "random1@1.0.0", "random2@1.0.0"]
    assert season.config.challenger == "random2@1.0.0" and season.series_total == 6
    assert season.format_summary == "gauntlet (challenger random2@1.0.0)"
    series = stub.ListSeries(arena_pb2.ListSeriesRequest(season_id=season.id)).series
    assert all("random2@1.0.0" in (s.seat0_bot, s.seat1_bot) for s in series)
    assert len(standings.los) == 4 * 3
    rows = {row.bot_id: row for row in standings.rows}
    assert rows["random2@1.0.0"].series_played == 6
    assert all(row.bt_elo_low < row.bt_elo < row.bt_elo_high for row in standings.rows)


def test_swiss_standings_show_byes_scores_and_buchholz(server, stub) -> None:
    season, standings = play(stub, server, ["k1", "k2", "k3", "random1", "random2"],
                             format="swiss", rounds=3)
    assert standings.format == "swiss" and season.series_total == 3 * 2 * 2
    assert sorted(row.byes for row in standings.rows) == [0, 0, 1, 1, 1]
    scores = [row.swiss_score for row in standings.rows]
    assert scores == sorted(scores, reverse=True)
    for row in standings.rows:
        assert row.swiss_score == row.series_points + 2 * row.byes
        # The same values as the format's own columns, which screens show as they are.
        assert list(row.extra_cells) == [str(row.byes), f"{row.swiss_score:g}",
                                         f"{row.buchholz:g}"]
    assert list(standings.extra_columns) == ["Byes", "Score", "Buchholz"]
    assert standings.order_note.startswith("Swiss: ordered by score")
    assert [row.rank for row in standings.rows] == [1, 2, 3, 4, 5]
    assert season.format_summary == "swiss"


def test_knockout_bracket_and_champion(server, stub) -> None:
    _, standings = play(stub, server, ["k1", "random1", "k2", "random2", "k3"],
                        format="knockout", tiebreak_pairs=1)
    rounds = sorted({tie.bracket_round for tie in standings.bracket})
    assert rounds == [1, 2, 3]
    first = [(tie.high_seed, tie.low_seed) for tie in standings.bracket if tie.bracket_round == 1]
    assert first == [(1, 0), (4, 5), (2, 0), (3, 0)]
    final = next(tie for tie in standings.bracket if tie.bracket_round == 3)
    assert standings.champion == final.winner != ""


def test_knockout_seeds_by_the_latest_rating_then_the_given_order(server, stub) -> None:
    # A round robin first: the knockers beat the random players (the fake runner).
    _, table = play(stub, server, ["random1", "k1", "k2"])
    ordinal = {row.bot_id: row.rating_ordinal for row in table.rows}
    rated = sorted(ordinal, key=lambda bot: -ordinal[bot])
    season, _ = play(stub, server, ["random2", "random1", "k2", "k1"], format="knockout")
    assert list(season.bot_ids) == [*rated, "random2@1.0.0"]


def test_sprt_match_stops_on_a_decision(server, stub) -> None:
    season, standings = play(stub, server, ["k1", "random1"], format="sprt",
                             sprt="elo0=0,elo1=100", max_pairs=60)
    sprt = standings.sprt
    assert season.config.sprt == sprt.spec == "elo0=0,elo1=100,alpha=0.05,beta=0.05"
    assert season.format_summary == (
        "sprt (elo0=0,elo1=100,alpha=0.05,beta=0.05, at most 60 pairs)")
    assert (sprt.bot_a, sprt.bot_b) == ("k1@1.0.0", "random1@1.0.0")
    pairs = sum(sprt.pentanomial)
    assert season.series_total == 2 * pairs
    if sprt.decision:
        assert sprt.llr >= sprt.upper_bound or sprt.llr <= sprt.lower_bound
        assert pairs < 60
    else:
        assert pairs == 60


@pytest.mark.parametrize(("bots", "config", "message"), [
    (["k1", "k2", "k3"], {"format": "sprt"}, "an sprt match is between exactly two bots"),
    (["k1", "k2"], {"format": "sprt", "sprt": "elo0=5,elo1=1"}, "elo0 (5) must be less"),
    (["k1", "k2", "k3", "random1"], {"format": "swiss", "rounds": 4}, "would repeat pairings"),
    (["k1", "k2"], {"format": "gauntlet"}, "needs a challenger"),
    (["k1", "k2"], {"format": "gauntlet", "challenger": "nobody"}, "nobody"),
    (["k1", "k2"], {"format": "league"}, "format must be one of"),
    (["k1", "k2"], {"ladder_window": 50}, "ladder_window is a setting of the ladder"),
    (["k1", "k2"], {"challenger": "k1"}, "challenger is a setting of the gauntlet format"),
    (["k1", "k2"], {"format": "knockout", "rounds": 2}, "rounds is a setting of the swiss"),
    (["k1", "k2"], {"tiebreak_pairs": 5}, "tiebreak_pairs is a setting of the knockout"),
    (["k1", "k2"], {"format": "swiss", "max_pairs": 9}, "max_pairs is a setting of the sprt"),
])
def test_bad_format_settings_are_refused_storing_nothing(
        server, stub, bots: list[str], config: dict[str, object], message: str) -> None:
    with pytest.raises(grpc.RpcError) as caught:
        stub.CreateSeason(arena_pb2.CreateSeasonRequest(
            bots=bots, config=arena_pb2.SeasonConfig(**config)),  # type: ignore[arg-type]
            metadata=auth(server))
    assert caught.value.code() in (grpc.StatusCode.INVALID_ARGUMENT, grpc.StatusCode.NOT_FOUND)
    assert message in caught.value.details()
    assert not stub.ListSeasons(arena_pb2.ListSeasonsRequest()).seasons


def test_arena_match_end_to_end(tmp_path: Path) -> None:
    """`arena match` as a user runs it: bot folders, real sample bots in process,
    the SPRT shown at the end; a third bot or another format is refused."""
    import subprocess
    import sys

    from tests.helpers.arena_helpers import REPO_ROOT

    samples = REPO_ROOT / "sample_bots"
    completed = subprocess.run(
        [sys.executable, "-m", "arena.cli", "match", str(samples / "greedy"),
         str(samples / "random"), "--db", str(tmp_path / "a.db"), "--sandbox", "inprocess",
         "--sprt", "elo0=0,elo1=200", "--max-pairs", "8", "--max-hands", "20", "--no-http"],
        cwd=REPO_ROOT, capture_output=True, text=True, timeout=120)
    assert completed.returncode == 0, completed.stderr
    out = completed.stdout
    assert "SPRT greedy@1.0.0 (A) vs random@1.0.0 (B), elo0=0,elo1=200" in out
    assert "LLR " in out and "bounds [-2.944, 2.944]" in out and "LOS " in out
    refused = subprocess.run(
        [sys.executable, "-m", "arena.cli", "match", "greedy", "random", "--db",
         str(tmp_path / "a.db"), "--format", "swiss", "--no-http"],
        cwd=REPO_ROOT, capture_output=True, text=True, timeout=60)
    assert refused.returncode == 2 and "plays the sprt format" in refused.stderr
