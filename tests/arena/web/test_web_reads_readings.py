"""Every table of the website reads the server's standings (issue 37, point 4):
``/bots`` and an author's page (each bot's rating), the seasons list (who leads)
and an SPRT match's page (the test's state) show what the ``SeasonReadings`` the
website is given say, not what storage would give if counted again. Readings
that say something storage does not prove it (``tests/project/test_one_place.py``
checks the source of ``arena/web/`` for the same)."""

from __future__ import annotations

import dataclasses

import pytest
from starlette.testclient import TestClient

from arena.season.events import EventHub
from arena.season.readings import SeasonReading, SeasonReadings
from arena.season.standings_live import StandingsBoard, StandingsSnapshot
from arena.web.app import create_app
from tests.helpers.browse_helpers import BrowseArena

PLANTED_MU = 77.25
PLANTED_LLR = 1.5


class PlantedBoard(StandingsBoard):
    """The server's board, each row's rating μ planted."""

    def snapshot(self, season_id: int) -> StandingsSnapshot:
        snapshot = super().snapshot(season_id)
        rows = [dataclasses.replace(row, rating_mu=PLANTED_MU)
                for row in snapshot.standings.rows]
        return dataclasses.replace(
            snapshot, standings=dataclasses.replace(snapshot.standings, rows=rows))


class PlantedReadings(SeasonReadings):
    """The server's readings, the table's order reversed and the test's LLR planted."""

    def read(self, season_id: int) -> SeasonReading:
        reading = super().read(season_id)
        statistics = reading.statistics
        api = dict(statistics.api)
        if isinstance(api.get("sprt"), dict):
            api["sprt"] = {**api["sprt"], "llr": PLANTED_LLR}
        return dataclasses.replace(reading, statistics=dataclasses.replace(
            statistics, order=list(reversed(statistics.order)), api=api))


@pytest.fixture(scope="module")
def planted(tmp_path_factory: pytest.TempPathFactory) -> tuple[BrowseArena, TestClient,
                                                               SeasonReadings]:
    root = tmp_path_factory.mktemp("planted")
    stored = BrowseArena(root, root / "web.db")
    readings = PlantedReadings(stored.storage, PlantedBoard(stored.storage))
    client = TestClient(create_app(stored.storage, EventHub(), readings=readings),
                        raise_server_exceptions=False)
    return stored, client, readings


def test_bots_show_the_rating_the_servers_table_has(
        planted: tuple[BrowseArena, TestClient, SeasonReadings]) -> None:
    _, client, _ = planted
    bots = {bot["name"]: bot for bot in client.get("/api/bots").json()["bots"]}
    assert bots["alpha"]["rating_mu"] == PLANTED_MU
    author = client.get("/api/authors/ann").json()
    assert [bot["rating_mu"] for bot in author["bots"]] == [PLANTED_MU]


def test_the_seasons_list_names_the_leader_of_the_servers_order(
        planted: tuple[BrowseArena, TestClient, SeasonReadings]) -> None:
    stored, client, readings = planted
    seasons = {s["id"]: s for s in client.get("/api/seasons").json()["seasons"]}
    order = readings.read(stored.season_id).statistics.order
    assert seasons[stored.season_id]["leader"] == order[0]
    # Storage's own count puts another bot first: the planted order is the one shown.
    assert order[0] != SeasonReadings(stored.storage).read(stored.season_id).statistics.order[0]
    assert seasons[stored.idle_season]["leader"] is None


def test_the_sprt_page_shows_the_servers_state_of_the_test(
        planted: tuple[BrowseArena, TestClient, SeasonReadings]) -> None:
    stored, client, _ = planted
    page = client.get(f"/api/seasons/{stored.sprt_season}/sprt").json()
    assert page["test"]["llr"] == PLANTED_LLR
    assert client.get(f"/api/seasons/{stored.season_id}/sprt").status_code == 404
