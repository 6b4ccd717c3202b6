"""Deals no one can know before they are played (issue 43, point 1), with a real
`arena serve` process: a season created without a seed shows, on every public
surface (the API, the pages and their JSON twins, `arena export`, the CLI, the
server's own log), only the commitment to each series' seed, never a seed that
deals it, its nonce or the season's deal key (read here from the database, as
only the operator can). Once played, each revealed seed and nonce open the
commitment shown before play and re-deal the stored event log, through the
engine and through `arena series verify`."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest
from google.protobuf.json_format import MessageToJson
from hollywood.arena.v1 import arena_pb2

from arena.cli import main
from arena.cli.client import ArenaClient
from engine.commitment import check_revealed_deal, seed_commitment
from tests.helpers.arena_helpers import REPO_ROOT, upload_folder
from tests.helpers.polling import wait_until
from tests.helpers.ports import free_port

BOTS = ("random", "greedy")


def get(url: str) -> str:
    """The body of a GET (an error status's body too: it is a public surface)."""
    try:
        with urllib.request.urlopen(url, timeout=30) as response:
            return str(response.read().decode())
    except urllib.error.HTTPError as error:
        return str(error.read().decode())


class Arena:
    """An `arena serve` process with its website, its database and its log."""

    def __init__(self, tmp_path: Path, processes: list[subprocess.Popen[bytes]]) -> None:
        self.db, self.log = tmp_path / "served.db", tmp_path / "serve.log"
        self.port, self.http = free_port(), free_port()
        self.target = f"localhost:{self.port}"
        with self.log.open("wb") as sink:
            processes.append(subprocess.Popen(
                [sys.executable, "-m", "arena.cli", "-v", "serve", "--db", str(self.db),
                 "--port", str(self.port), "--http", f"localhost:{self.http}",
                 "--vet-sandbox", "inprocess"],
                cwd=REPO_ROOT, stdout=sink, stderr=subprocess.STDOUT))
        self.process = processes[-1]
        wait_until(lambda: (tmp_path / "admin.token").is_file() and self._answers(),
                   what="arena serve up", bound_s=60)
        self.token = (tmp_path / "admin.token").read_text().strip()

    def _answers(self) -> bool:
        assert self.process.poll() is None, self.log.read_text()[-2000:]
        try:
            get(f"http://localhost:{self.http}/api/seasons")
        except OSError:
            return False
        return True

    def page(self, path: str) -> str:
        return get(f"http://localhost:{self.http}{path}")

    def secrets(self, season_id: int) -> tuple[dict[str, tuple[int, str]], list[str]]:
        """Each series' (seed, nonce) and the season's deal key, read as the operator."""
        raw = sqlite3.connect(f"file:{self.db}?mode=ro", uri=True)
        try:
            seeds = {row[0]: (int(row[1]), str(row[2])) for row in raw.execute(
                "SELECT id, seed, seed_nonce FROM planned_series WHERE season_id=?",
                (season_id,))}
            keys = [row[0] for row in raw.execute(
                "SELECT deal_key FROM season_deal_keys WHERE season_id=?", (season_id,))]
        finally:
            raw.close()
        return seeds, keys


@pytest.fixture
def served(tmp_path: Path, processes: list[subprocess.Popen[bytes]]) -> Iterator[Arena]:
    yield Arena(tmp_path, processes)


def cli(capsys: pytest.CaptureFixture[str], served: Arena, *argv: str) -> tuple[int, str]:
    code = main([*argv, "--server", served.target, "--token", served.token])
    captured = capsys.readouterr()
    return code, captured.out + captured.err


def every_public_surface(served: Arena, client: ArenaClient, season_id: int, series_ids: list[str],
                         capsys: pytest.CaptureFixture[str], export_to: Path) -> str:
    """Everything a stranger can read about the season, as one text."""
    stub = client.stub
    texts = [MessageToJson(stub.GetSeason(arena_pb2.GetSeasonRequest(season_id=season_id))),
             MessageToJson(stub.ListSeasons(arena_pb2.ListSeasonsRequest())),
             MessageToJson(stub.ListSeries(arena_pb2.ListSeriesRequest(season_id=season_id))),
             MessageToJson(stub.GetStandings(arena_pb2.GetStandingsRequest(season_id=season_id)))]
    texts += [MessageToJson(stub.GetSeries(arena_pb2.GetSeriesRequest(series_id=series_id)))
              for series_id in series_ids]
    for path in ("/", "/api/seasons", f"/seasons/{season_id}", f"/api/seasons/{season_id}"):
        texts.append(served.page(path))
    for series_id in series_ids:
        texts += [served.page(f"/series/{series_id}"), served.page(f"/api/series/{series_id}"),
                  served.page(f"/api/series/{series_id}/replay")]
    for argv in (("season", "show", str(season_id)), ("season", "list"),
                 ("series", "list", "--season", str(season_id)),
                 ("series", "list", "--season", str(season_id), "--json"),
                 *(("series", "show", series_id) for series_id in series_ids),
                 *(("series", "show", series_id, "--json") for series_id in series_ids),
                 ("standings", "--season", str(season_id), "--json")):
        texts.append(cli(capsys, served, *argv)[1])
    code, out = cli(capsys, served, "export", "--season", str(season_id), "--to", str(export_to))
    assert code == 0, out
    texts += [path.read_text() for path in sorted(export_to.rglob("*")) if path.is_file()]
    texts.append(served.log.read_text(errors="replace"))
    return "\n".join(texts)


def test_unplayed_seeds_show_nowhere_and_played_ones_open_their_commitments(
        served: Arena, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with ArenaClient(served.target, served.token) as client:
        for name in BOTS:
            upload_folder(client.stub, client.auth, REPO_ROOT / "sample_bots" / name)
        for name in BOTS:
            wait_until(lambda: client.stub.GetBot(arena_pb2.GetBotRequest(name=name))  # noqa: B023
                       .versions[-1].bot.status == "active", what=f"{name} vetted", bound_s=120)
        season = client.stub.CreateSeason(arena_pb2.CreateSeasonRequest(
            bots=list(BOTS), hold=True, config=arena_pb2.SeasonConfig(
                series_per_pair=4, max_hands=3, concurrency=2, sandbox_backend="inprocess")),
            metadata=client.auth).season
        assert season.config.seed == 0  # no seed given: nothing public to derive deals from
        series_ids = [f"{season.id}-{n}" for n in range(season.series_total)]
        seeds, keys = served.secrets(season.id)
        assert sorted(seeds) == sorted(series_ids) and len(keys) == 1
        key = int(keys[0], 16)
        assert key.bit_length() > 200  # 256 random bits

        before = every_public_surface(served, client, season.id, series_ids, capsys,
                                      tmp_path / "before")
        for series_id, (seed, nonce) in seeds.items():
            assert str(seed) not in before, f"{series_id}'s seed shows before play"
            assert format(seed, "x") not in before
            assert nonce not in before
            assert seed_commitment(seed, nonce) in before  # the commitment shows
        assert str(key) not in before and keys[0] not in before
        listed = client.stub.ListSeries(arena_pb2.ListSeriesRequest(season_id=season.id)).series
        shown = {s.series_id: s.seed_commitment for s in listed}
        assert all(not s.seed_revealed and s.seed == 0 for s in listed)

        client.stub.StartSeason(arena_pb2.StartSeasonRequest(season_id=season.id),
                                metadata=client.auth)
        messages = list(client.stub.WatchSeason(
            arena_pb2.WatchSeasonRequest(season_id=season.id), timeout=300))
        assert messages and messages[-1].status == arena_pb2.SEASON_STATUS_FINISHED

        for series_id, (seed, nonce) in seeds.items():
            got = client.stub.GetSeries(arena_pb2.GetSeriesRequest(series_id=series_id))
            assert got.series.seed_revealed
            assert (got.series.seed, got.series.seed_nonce) == (seed, nonce)
            assert got.series.seed_commitment == shown[series_id]
            replayed = check_revealed_deal(json.loads(got.event_log_json), shown[series_id],
                                           got.series.seed, got.series.seed_nonce)
            assert len(replayed.hands) == got.series.hands_played
            code, out = cli(capsys, served, "series", "verify", series_id)
            assert code == 0 and f"series {series_id}: verified" in out, out
        code, out = cli(capsys, served, "export", "--season", str(season.id),
                        "--to", str(tmp_path / "after"))
        assert code == 0, out
        exported = tmp_path / "after" / "series" / f"{series_ids[0]}.json"
        code, out = cli(capsys, served, "series", "verify", "--file", str(exported))
        assert code == 0 and "verified" in out, out
        # A forged reveal: another seed in the exported file fails the check.
        data = json.loads(exported.read_text())
        data["series"]["seed"] = seeds[series_ids[0]][0] + 1
        exported.write_text(json.dumps(data))
        code, out = cli(capsys, served, "series", "verify", "--file", str(exported))
        assert code == 1 and "NOT verified" in out and "does not open" in out, out
        after = every_public_surface(served, client, season.id, [], capsys, tmp_path / "again")
        assert str(key) not in after and keys[0] not in after  # the key: never
