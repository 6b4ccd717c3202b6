"""The king-of-the-hill format (the proof that a format is one module and one
registry line): its rounds and standings checked against a season written out by
hand, and a whole season played through the server by the fake runner."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path

import grpc
import pytest
from hollywood.arena.v1 import arena_pb2, arena_pb2_grpc

from arena.core.settings import SeasonConfig
from arena.season.formats import Pairing, SeasonView, format_for, format_summary
from arena.season.formats.king_of_the_hill import KingOfTheHill
from arena.server.app import RunningServer
from arena.storage import SeriesRecord
from tests.helpers.arena_helpers import result
from tests.helpers.format_server import auth, play, stub_with_bots

A, B, C, D = "a@1", "b@1", "c@1", "d@1"


def won_by(plan: Sequence[Pairing], winners: Sequence[str | None]) -> list[SeriesRecord]:
    """Results of ``plan`` in which the named bot won each series (None: drawn)."""
    return [result(f"1-{n}", p.seat0, p.seat1,
                   None if w is None else (p.seat0, p.seat1).index(w), seed=p.seed)
            for n, (p, w) in enumerate(zip(plan, winners, strict=True))]


def seats(plan: Sequence[Pairing]) -> list[tuple[str, str]]:
    return [(pairing.seat0, pairing.seat1) for pairing in plan]


def test_each_bot_challenges_the_holder_in_turn() -> None:
    hill = format_for("king-of-the-hill",
                      SeasonConfig.build(format="king-of-the-hill", series_per_pair=2))
    assert isinstance(hill, KingOfTheHill) and hill.planned_count(4) == 3 * 2
    bots = [A, B, C, D]
    first = hill.first_round(bots, 7)
    assert seats(first) == [(A, B), (B, A)]
    rounds = [won_by(first, [B, B])]  # b takes the hill
    second = hill.next_round(bots, 7, rounds)
    assert second is not None and seats(second) == [(B, C), (C, B)]
    rounds.append(won_by(second, [B, C]))  # 1-1: b keeps it
    third = hill.next_round(bots, 7, rounds)
    assert third is not None and seats(third) == [(B, D), (D, B)]
    rounds.append(won_by(third, [D, None]))  # 1.5-0.5: d takes it
    assert hill.next_round(bots, 7, rounds) is None
    assert hill.holders(bots, rounds) == [A, B, B, D]
    assert hill.holders(bots, [*rounds[:2], rounds[2][:1]]) == [A, B, B]  # half-played
    extras = hill.standings(SeasonView(bots, 7, [], [], rounds, {}))
    assert [(column.label, dict(column.cells)) for column in extras.columns] == [
        ("Reigns", {A: "0", B: "2", C: "0", D: "1"})]
    assert extras.sections[0].lines == ("Holding the hill: d@1",)
    assert format_summary(SeasonConfig(format="king-of-the-hill")) == "king-of-the-hill"


@pytest.fixture
def stub(server: RunningServer, tmp_path: Path) -> Iterator[arena_pb2_grpc.ArenaServiceStub]:
    with stub_with_bots(server, tmp_path) as stub:
        yield stub


def test_a_season_through_the_server(server: RunningServer,
                                     stub: arena_pb2_grpc.ArenaServiceStub) -> None:
    season, standings = play(stub, server, ["random1", "k1", "k2"], format="king-of-the-hill",
                             series_per_pair=2)
    assert season.series_total == 2 * 2 and season.format_summary == "king-of-the-hill"
    assert list(standings.extra_columns) == ["Reigns"]
    assert sum(int(row.extra_cells[0]) for row in standings.rows) == 2
    assert standings.sections[0].lines[0].startswith("Holding the hill: ")
    assert standings.series_expected == 4
    with pytest.raises(grpc.RpcError) as caught:  # another format's setting
        stub.CreateSeason(arena_pb2.CreateSeasonRequest(bots=["k1", "k2"], config=(
            arena_pb2.SeasonConfig(format="king-of-the-hill", rounds=2))), metadata=auth(server))
    assert caught.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert "rounds is a setting of the swiss format, not of king-of-the-hill" in (
        caught.value.details())
