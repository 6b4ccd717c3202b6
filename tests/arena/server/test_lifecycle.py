"""A bot version's life over real gRPC and the CLI as users call it: uploads are
built and validated before they play (``received -> validating -> active`` or
``rejected`` with the reason in ``bots show`` and ``bots logs``), seasons take
active versions only, a version that keeps faulting is deactivated and forfeits
its remaining series without being started, ``bots reactivate``,
``season create --all-active`` and ``arena check``."""

from __future__ import annotations

import re
import shutil
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest
from hollywood.arena.v1 import arena_pb2, arena_pb2_grpc

from arena.cli import main
from arena.cli.client import ArenaClient
from arena.cli.submit import pack
from arena.sandbox import registry
from arena.server.app import RunningServer, start_server
from tests.helpers import lifecycle_helpers
from tests.helpers.arena_helpers import REPO_ROOT
from tests.helpers.polling import wait_until
from tests.helpers.servers import ServerFactory

CRASHING_CODE = ("import sys\n\n\nclass RandomBot:\n    def __init__(self) -> None:\n"
                 "        raise RuntimeError('boom: no strategy yet')\n\n\n"
                 "if __name__ == '__main__':\n"
                 "    sys.stderr.write('boom: no strategy yet\\n')\n    sys.exit(3)\n")


def bot_folder(root: Path, name: str, *, crash: bool = False, sample: str = "random") -> Path:
    """The sample bot ``sample`` renamed ``name`` (the random one's class crashing if
    ``crash``). Vetting plays a whole series: the greedy one ends it in a few hands,
    two random ones may play to the hand cap (40 s in the process sandbox)."""
    folder = root / name
    shutil.copytree(REPO_ROOT / "sample_bots" / sample, folder)
    toml = (folder / "bot.toml").read_text().replace(f'name = "{sample}"', f'name = "{name}"')
    (folder / "bot.toml").write_text(toml)
    if crash:
        (folder / "random_bot.py").write_text(CRASHING_CODE)
    return folder


def greedy(root: Path, name: str) -> Path:
    return bot_folder(root, name, sample="greedy")


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


@pytest.fixture
def vetting_server(serve: ServerFactory) -> RunningServer:
    return serve(runner=None, resume=False, vetting_sandbox="process")


def test_uploads_are_vetted_a_good_bot_plays_a_crashing_one_is_rejected(
        vetting_server: RunningServer, capsys: pytest.CaptureFixture[str],
        tmp_path: Path) -> None:
    server = ("--server", vetting_server.address, "--token", vetting_server.token)
    for name in ("alpha", "beta"):
        code, out, _ = run(capsys, "submit", str(greedy(tmp_path, name)), *server)
        assert code == 0, out
        assert f"{name}@1.0.0: validating" in out
        assert f"{name}@1.0.0: active" in out

    code, out, _ = run(capsys, "submit", str(bot_folder(tmp_path, "gamma", crash=True)),
                       *server)
    assert code == 1
    assert "gamma@1.0.0 rejected: gamma faulted before the first deal:" in out, out
    assert "boom: no strategy yet" in out  # the stderr tail, in the validation log tail

    code, out, _ = run(capsys, "bots", "show", "gamma", *server)
    assert code == 0
    assert "gamma@1.0.0  rejected: gamma faulted before the first deal:" in out
    code, out, _ = run(capsys, "bots", "logs", "gamma@1.0.0", "--validation", *server)
    assert code == 0
    assert "handshake" not in out  # it never answered one
    assert "boom: no strategy yet" in out
    code, out, _ = run(capsys, "bots", "logs", "alpha@1.0.0", "--validation", *server)
    assert "handshake: alpha 1.0.0 (protocol 1)" in out
    assert "hand 1:" in out and "hand 2:" in out and "hand 3:" in out  # a whole series
    assert re.search(r"passed: (\d+ hand\(s\) played|the vetting budget)", out), out

    code, _, err = run(capsys, "season", "create", "--bots", "alpha", "gamma",
                       "--sandbox", "process", *server)
    assert code != 0
    assert "bot gamma@1.0.0 is rejected" in err and "only active versions play" in err

    code, out, err = run(capsys, "season", "create", "--all-active", "--sandbox", "process",
                         "--series-per-pair", "2", "--concurrency", "1", "--max-hands", "4",
                         *server)
    assert code == 0, err
    client = ArenaClient(vetting_server.address, vetting_server.token)
    season = client.stub.GetSeason(arena_pb2.GetSeasonRequest()).season
    assert list(season.bot_ids) == ["alpha@1.0.0", "beta@1.0.0"]
    wait_until(lambda: client.stub.GetSeason(arena_pb2.GetSeasonRequest()).season.status
               == arena_pb2.SEASON_STATUS_FINISHED, what="the season of active bots finishes",
               bound_s=60)
    client.close()


def test_a_version_left_unvetted_by_a_stopped_server_is_vetted_by_the_next(
        tmp_path: Path) -> None:
    first = start_server(tmp_path / "arena.db", port=0, resume=False)  # vets nothing
    client = ArenaClient(first.address, first.token)
    client.submit(pack(greedy(tmp_path, "delta")))
    client.close()
    first.stop(grace=None)
    with sqlite3.connect(tmp_path / "arena.db") as db:  # as a crash mid-validation leaves it
        db.execute("UPDATE bot_versions SET status='validating'")
    again = start_server(tmp_path / "arena.db", port=0, resume=False, vetting_sandbox="process")
    try:
        client = ArenaClient(again.address, again.token)
        wait_until(lambda: client.stub.GetBot(arena_pb2.GetBotRequest(name="delta@1.0.0"))
                   .versions[0].bot.status == "active", what="delta vetted again", bound_s=60)
        client.close()
    finally:
        again.stop(grace=None)


@pytest.fixture
def counting_backend() -> Iterator[list[str]]:
    registry.register(registry.Backend("counting", "in-process, counting starts",
                                       "tests.helpers.lifecycle_helpers:CountingSandbox",
                                       registry.Capabilities(needs_sdk_class=True)))
    lifecycle_helpers.STARTS.clear()
    yield lifecycle_helpers.STARTS
    registry.unregister("counting")


def test_a_version_that_keeps_faulting_is_deactivated_and_forfeits_without_starting(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], counting_backend: list[str]
) -> None:
    running = start_server(tmp_path / "arena.db", port=0, resume=False)  # trusted: no vetting
    server = ("--server", running.address, "--token", running.token)
    try:
        client = ArenaClient(running.address, running.token)
        for folder in (greedy(tmp_path, "steady"), bot_folder(tmp_path, "shaky", crash=True)):
            client.submit(pack(folder))
        code, _, err = run(capsys, "season", "create", "--bots", "steady", "shaky",
                           "--sandbox", "counting", "--series-per-pair", "8",
                           "--concurrency", "1", "--deactivate-after", "2", *server)
        assert code == 0, err
        wait_until(lambda: client.stub.GetSeason(arena_pb2.GetSeasonRequest()).season.status
                   == arena_pb2.SEASON_STATUS_FINISHED, what="season finished", bound_s=60)
        series = client.stub.ListSeries(arena_pb2.ListSeriesRequest()).series
        kinds = [item.fault.kind for item in series]
        # Two series lost by a crash at start-up, then six forfeited as deactivated.
        assert kinds == ["startup", "startup"] + ["deactivated"] * 6
        # Steady was started for each of the two played series (shaky's class fails
        # while it is prepared, before a start); nobody for the six forfeits.
        assert counting_backend == ["steady", "steady"]
        assert "lost 2 series in a row by a fault" in series[2].fault.message

        code, out, _ = run(capsys, "bots", "show", "shaky", *server)
        assert "shaky@1.0.0  deactivated: lost 2 series in a row by a fault in season 1" in out
        assert "fault in 1-" in out
        # "rating" is the standings' OpenSkill μ ± σ, as in every other view.
        rows = {row.bot_id: row for row in client.stub.GetStandings(
            arena_pb2.GetStandingsRequest(season_id=1)).standings.rows}
        steady_row = rows["steady@1.0.0"]
        code, out, _ = run(capsys, "bots", "show", "steady", *server)
        assert (f"rating {steady_row.rating_mu:.1f} ± {steady_row.rating_sigma:.1f} "
                "(OpenSkill μ ± σ, latest finished season)") in out
        version = client.stub.GetBot(arena_pb2.GetBotRequest(name="steady@1.0.0")).versions[0]
        assert (version.rating, version.rating_sigma) == (steady_row.rating_mu,
                                                          steady_row.rating_sigma)
        code, _, err = run(capsys, "season", "create", "--bots", "steady", "shaky",
                           "--sandbox", "counting", *server)
        assert code != 0 and "shaky@1.0.0 is deactivated" in err
        code, _, err = run(capsys, "season", "create", "--all-active", "--sandbox",
                           "counting", "--hold", *server)
        assert code != 0 and "at least two" in err  # steady alone is active

        code, out, _ = run(capsys, "bots", "reactivate", "shaky@1.0.0", *server)
        assert code == 0 and "shaky@1.0.0 is active again" in out
        code, _, err = run(capsys, "bots", "reactivate", "shaky@1.0.0", *server)
        assert code == 1 and "is active, not deactivated" in err
        code, _, err = run(capsys, "season", "create", "--all-active", "--sandbox",
                           "counting", "--hold", *server)
        assert code == 0, err
        season = client.stub.GetSeason(arena_pb2.GetSeasonRequest()).season
        assert list(season.bot_ids) == ["steady@1.0.0", "shaky@1.0.0"]
        with pytest.raises(grpc.RpcError) as refused:  # an author's job is not the admin's
            client.stub.ReactivateBot(arena_pb2.ReactivateBotRequest(bot_id="shaky@1.0.0"))
        assert refused.value.code() == grpc.StatusCode.UNAUTHENTICATED
        client.close()
    finally:
        running.stop(grace=None)


def test_check_runs_the_servers_validation_locally(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "check", str(greedy(tmp_path, "eps")), "--sandbox", "process")
    assert code == 0, out
    assert "validating eps 1.0.0 (process sandbox)" in out
    assert "hand 1:" in out and "hand 2:" in out
    assert "eps 1.0.0 passes" in out
    code, out, _ = run(capsys, "check", str(bot_folder(tmp_path, "zeta", crash=True)),
                       "--sandbox", "process")
    assert code == 1
    assert "zeta 1.0.0 would be rejected: zeta faulted before the first deal:" in out
    assert "boom: no strategy yet" in out
    stale = bot_folder(tmp_path, "eta")  # bot.toml bumped, the code still says 0.9.0
    code_path = stale / "random_bot.py"
    code_path.write_text(code_path.read_text().replace(
        "class RandomBot(hs.Bot):\n", "class RandomBot(hs.Bot):\n    version = \"0.9.0\"\n"))
    code, out, _ = run(capsys, "check", str(stale), "--sandbox", "process")
    assert code == 1
    assert ("would be rejected: the handshake names eta 0.9.0, but bot.toml says eta 1.0.0"
            in out)
    assert "hand 1:" not in out  # no series for a bot that misnames itself


@pytest.mark.docker
def test_docker_a_bot_that_fails_to_build_is_rejected_with_its_build_log(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    def broken(name: str) -> Path:
        folder = bot_folder(tmp_path, name)
        (folder / "Dockerfile").write_text(
            "ARG BASE_IMAGE=hollywood/base:local\nFROM ${BASE_IMAGE}\n"
            "RUN echo compiling-the-strategy && false\n")
        return folder

    # Two names: the builder remembers a failed build of the same files (no new log).
    code, out, _ = run(capsys, "check", str(broken("cracked")))
    assert code == 1
    assert "compiling-the-strategy" in out and "would be rejected: the image did not build" in out
    running = start_server(tmp_path / "arena.db", port=0, resume=False, vetting_sandbox="docker")
    server = ("--server", running.address, "--token", running.token)
    try:
        code, out, _ = run(capsys, "submit", str(broken("broken")), *server)
        assert code == 1 and "broken@1.0.0: building" in out
        assert "broken@1.0.0 rejected: the image did not build" in out
        code, out, _ = run(capsys, "bots", "logs", "broken@1.0.0", "--build", *server)
        assert "compiling-the-strategy" in out
        code, out, _ = run(capsys, "submit", str(greedy(tmp_path, "sound")), *server)
        assert code == 0 and "sound@1.0.0: active" in out
        code, out, _ = run(capsys, "bots", "show", "sound", *server)
        assert "image sha256:" in out
    finally:
        running.stop(grace=None)


def test_a_bare_name_in_a_season_is_the_newest_active_version(
        vetting_server: RunningServer, capsys: pytest.CaptureFixture[str],
        tmp_path: Path) -> None:
    server = ("--server", vetting_server.address, "--token", vetting_server.token)
    for name in ("alpha", "beta"):
        assert run(capsys, "submit", str(greedy(tmp_path, name)), *server)[0] == 0
    newer = bot_folder(tmp_path / "v2", "alpha", crash=True)
    toml = (newer / "bot.toml").read_text().replace('version = "1.0.0"', 'version = "2.0.0"')
    (newer / "bot.toml").write_text(toml)
    code, out, _ = run(capsys, "submit", str(newer), *server)
    assert code == 1 and "alpha@2.0.0 rejected" in out
    code, _, err = run(capsys, "season", "create", "--bots", "alpha", "beta", "--hold",
                       "--sandbox", "process", *server)
    assert code == 0, err
    with ArenaClient(vetting_server.address, vetting_server.token) as client:
        season = client.stub.GetSeason(arena_pb2.GetSeasonRequest()).season
    assert list(season.bot_ids) == ["alpha@1.0.0", "beta@1.0.0"]
    code, _, err = run(capsys, "season", "create", "--bots", "alpha@2.0.0", "beta", "--hold",
                       "--sandbox", "process", *server)
    assert code != 0 and "bot alpha@2.0.0 is rejected" in err


def test_a_versions_logs_go_to_its_owner_and_the_admin_alone(
        vetting_server: RunningServer, capsys: pytest.CaptureFixture[str],
        tmp_path: Path) -> None:
    with ArenaClient(vetting_server.address, vetting_server.token) as admin:
        tokens = {name: admin.stub.AddAuthor(arena_pb2.AddAuthorRequest(name=name),
                                             metadata=admin.auth).token
                  for name in ("ann", "bob")}
    code, out, _ = run(capsys, "submit", str(greedy(tmp_path, "annbot")),
                       "--server", vetting_server.address, "--token", tokens["ann"])
    assert code == 0, out
    channel = grpc.insecure_channel(vetting_server.address)
    stub = arena_pb2_grpc.ArenaServiceStub(channel)

    def read(token: str | None) -> arena_pb2.BotVersion:
        metadata = () if token is None else (("authorization", f"Bearer {token}"),)
        [version] = stub.GetBot(arena_pb2.GetBotRequest(name="annbot@1.0.0"),
                                metadata=metadata).versions
        return version

    try:
        for reader in (tokens["ann"], vetting_server.token):
            version = read(reader)
            assert "handshake: annbot 1.0.0" in version.validation_log
        for reader in (None, tokens["bob"]):
            version = read(reader)
            assert (version.validation_log, version.build_log) == ("", "")
            assert version.bot.status == "active"  # the rest of the version is public
        with pytest.raises(grpc.RpcError) as refused:
            read(tokens["bob"][:-3] + "xyz")
        assert refused.value.code() == grpc.StatusCode.UNAUTHENTICATED
    finally:
        channel.close()
    code, out, _ = run(capsys, "bots", "logs", "annbot@1.0.0", "--validation",
                       "--server", vetting_server.address, "--token", tokens["bob"])
    assert code == 0 and "handshake" not in out  # bob's token reads nothing of ann's
    assert "or it is not yours: a version's logs are its owner's and the admin's" in out
    code, out, _ = run(capsys, "bots", "logs", "annbot@1.0.0", "--validation",
                       "--server", vetting_server.address, "--token", tokens["ann"])
    assert code == 0 and "handshake: annbot 1.0.0" in out
