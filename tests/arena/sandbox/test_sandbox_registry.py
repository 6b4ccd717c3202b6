"""The sandbox registry is the one list of backends: a backend registered here (a
fake one, in this test) is a `--sandbox` choice, passes the proto conversion and the
server's checks, and its sandbox plays the season; an unknown name is a clear
INVALID_ARGUMENT; a bot that cannot run in the chosen backend is refused up front."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import ClassVar

import grpc
import pytest
from hollywood.arena.v1 import arena_pb2, arena_pb2_grpc

from arena.cli.parser import build_parser
from arena.cli.season_options import season_config_message
from arena.core.series import BotRef
from arena.core.settings import ConfigError
from arena.sandbox import registry
from arena.sandbox.inprocess import InProcessBot, InProcessSandbox
from arena.server.app import RunningServer
from arena.server.convert import config_from_message
from tests.helpers.arena_helpers import REPO_ROOT, make_bot_folder, upload_folder
from tests.helpers.servers import ServerFactory

SAMPLES = REPO_ROOT / "sample_bots"


class FakeSandbox(InProcessSandbox):
    """A new backend as a test would add one: serves bots in process, counting starts."""

    name = "fake"
    description = "a test backend"
    started: ClassVar[list[str]] = []

    def start(self, bot: BotRef, *, series_id: str = "", seat: int | None = None, deal: str = ""
              ) -> InProcessBot:
        FakeSandbox.started.append(series_id)
        return super().start(bot, series_id=series_id, seat=seat, deal=deal)


@pytest.fixture
def fake_backend() -> Iterator[None]:
    registry.register(registry.Backend("fake", "a test backend", f"{__name__}:FakeSandbox"))
    FakeSandbox.started = []
    yield
    registry.unregister("fake")


BUILT_IN = ("docker", "inprocess", "process")


def test_builtin_backends_declare_what_they_do() -> None:
    assert set(BUILT_IN) <= set(registry.names())
    capabilities = {name: registry.backend(name).capabilities for name in BUILT_IN}
    assert capabilities == {
        "docker": registry.Capabilities(builds_images=True, reuses_bots=True),
        "inprocess": registry.Capabilities(needs_sdk_class=True),
        "process": registry.Capabilities(),
    }


def test_the_default_backend_is_the_registry_s() -> None:
    assert registry.default_name() == "docker"
    assert registry.backend("") is registry.backend("docker")  # a season naming none
    assert config_from_message(arena_pb2.SeasonConfig()).sandbox == "docker"  # stored by name
    args = build_parser().parse_args(["play", "random", "greedy"])
    assert args.sandbox == "docker"  # arena play, which has no server to fill it in


def test_cli_choices_follow_the_registry(fake_backend: None, capsys) -> None:
    args = build_parser().parse_args(["season", "create", "--bots", "a", "b",
                                      "--sandbox", "fake"])
    assert season_config_message(args).sandbox_backend == "fake"
    registry.unregister("fake")
    with pytest.raises(SystemExit):
        build_parser().parse_args(["season", "create", "--bots", "a", "b", "--sandbox", "fake"])
    refused = capsys.readouterr().err
    assert "invalid choice: 'fake' (choose from " in refused
    assert all(f"'{name}'" in refused for name in BUILT_IN)
    assert "'fake'," not in refused and ", 'fake'" not in refused


def test_proto_conversion_accepts_registered_names_only(fake_backend: None) -> None:
    assert config_from_message(arena_pb2.SeasonConfig(sandbox_backend="fake")).sandbox == "fake"
    assert config_from_message(arena_pb2.SeasonConfig()).sandbox == "docker"
    with pytest.raises(ConfigError) as caught:
        config_from_message(arena_pb2.SeasonConfig(sandbox_backend="vm"))
    assert str(caught.value) == (
        f"sandbox must be one of {', '.join(registry.names())}, got 'vm'")
    assert "fake" in registry.names()


@pytest.fixture
def server(serve: ServerFactory) -> RunningServer:
    return serve(runner=None)  # the production runner factory


def _create(server: RunningServer, bots: list[str], backend: str) -> arena_pb2.Season:
    token = (("authorization", f"Bearer {server.token}"),)
    with grpc.insecure_channel(server.address) as channel:
        stub = arena_pb2_grpc.ArenaServiceStub(channel)
        ids = [upload_folder(stub, token, bot).bot.id for bot in bots]
        return stub.CreateSeason(arena_pb2.CreateSeasonRequest(
            bots=ids, config=arena_pb2.SeasonConfig(
                sandbox_backend=backend, series_per_pair=2, max_hands=5, concurrency=1)),
            metadata=token).season


def test_a_registered_backend_plays_a_season_end_to_end(
    fake_backend: None, server: RunningServer
) -> None:
    season = _create(server, [str(SAMPLES / "random"), str(SAMPLES / "greedy")], "fake")
    assert season.config.sandbox_backend == "fake"
    assert server.manager.wait(season.id, timeout=60)
    stored = server.storage.get_season(season.id)
    assert (stored.status, stored.series_done, stored.error) == ("finished", 2, "")
    assert sorted(FakeSandbox.started) == [f"{season.id}-0", f"{season.id}-0",
                                           f"{season.id}-1", f"{season.id}-1"]
    assert all(result.fault is None for result in server.storage.results(season.id))


def test_unknown_backend_is_invalid_argument(server: RunningServer) -> None:
    with pytest.raises(grpc.RpcError) as caught:
        _create(server, [str(SAMPLES / "random"), str(SAMPLES / "greedy")], "vm")
    assert caught.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert caught.value.details() == (
        f"sandbox must be one of {', '.join(registry.names())}, got 'vm'")
    assert set(BUILT_IN) <= set(registry.names())
    assert server.storage.list_seasons() == []


def test_inprocess_needs_an_sdk_class(server: RunningServer, tmp_path: Path) -> None:
    plain = make_bot_folder(tmp_path, "plain")
    with pytest.raises(grpc.RpcError) as caught:
        _create(server, [str(SAMPLES / "random"), str(plain)], "inprocess")
    assert caught.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert ("bot plain@1.0.0 cannot run in the inprocess sandbox: its bot.toml names no SDK "
            "bot class") in caught.value.details()
    assert server.storage.list_seasons() == []
