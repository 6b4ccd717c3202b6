"""Bad manifests get clear errors at upload (issue 25, point 4), over real gRPC: a
deeply nested or huge ``bot.toml`` value answers INVALID_ARGUMENT naming the key
(a deeply nested one answered INTERNAL); a ``dockerfile`` inside an ignored folder
or outside the bundle is refused; no message, no ``--json`` output and no
public field carries the server's data directory."""

from __future__ import annotations

import json
from pathlib import Path

import grpc
import pytest
from hollywood.arena.v1 import arena_pb2

from arena.server.app import RunningServer
from tests.arena.server.test_submit import (
    DOCKERFILE,
    archive,
    good,
    member,
    run,
    stored_nothing,
    submit,
)
from tests.helpers.servers import ServerFactory

HEAD = b'name = "tiny"\nversion = "1.0.0"\nlanguage = "python"\n'


@pytest.fixture
def server(serve: ServerFactory, tmp_path: Path) -> RunningServer:
    return serve(database=tmp_path / "data" / "arena.db")


def refused(running: RunningServer, data: bytes) -> tuple[grpc.StatusCode, str]:
    with pytest.raises(grpc.RpcError) as caught:
        submit(running, data)
    assert stored_nothing(running)
    details = str(caught.value.details())
    # The server's data directory (its database, bot copies, staging folder).
    assert str(running.storage.path.parent) not in details, details
    return caught.value.code(), details


def with_toml(toml: bytes, *extra: tuple[object, bytes]) -> bytes:
    return good(*extra, toml=toml)  # type: ignore[arg-type]


@pytest.mark.parametrize(("toml", "key"), [
    (HEAD + b"[run]\ncommand = " + b"[" * 3000 + b'"x"' + b"]" * 3000 + b"\n", "run.command"),
    (HEAD + b"deep = " + b"{a=" * 3000 + b"1" + b"}" * 3000 + b"\n"
     + b'[run]\ncommand = ["python3"]\n', "deep"),
    (HEAD + b"[run]\ncommand = " + b"[" * 40 + b'"x"' + b"]" * 40 + b"\n", "run.command"),
    (HEAD + b'[run]\ncommand = ["python3"]\n[build]\nextra = [[[[[[1]]]]]]\n', "build.extra"),
])
def test_a_deeply_nested_value_is_an_invalid_argument_naming_its_key(
        server: RunningServer, toml: bytes, key: str) -> None:
    code, details = refused(server, with_toml(toml))
    assert code == grpc.StatusCode.INVALID_ARGUMENT, details
    assert f"bot.toml: the value of {key} is nested too deeply" in details


@pytest.mark.parametrize(("command", "expected"), [
    (b'["python3"' + b', "x"' * 5000 + b"]", "run.command has 5001 arguments, at most 64"),
    (b'["python3", "' + b"y" * 40_000 + b'"]', "run.command has an argument longer than 200"),
    (b"[" + b'"' + b"z" * 500 + b'", 1]', "run.command must be a non-empty list"),
])
def test_a_huge_value_is_an_invalid_argument_naming_its_key(
        server: RunningServer, command: bytes, expected: str) -> None:
    code, details = refused(server, with_toml(HEAD + b"[run]\ncommand = " + command + b"\n"))
    assert code == grpc.StatusCode.INVALID_ARGUMENT
    assert expected in details
    assert len(details) < 400  # the value is quoted cut short, not whole


@pytest.mark.parametrize(("dockerfile", "ignore", "expected"), [
    ("build/Dockerfile", b"build/\n", ".arenaignore leaves out 'build'"),
    ("node_modules/Dockerfile", None, "'node_modules' is never part of a bot"),
    ("docker/Dockerfile.pyc", None, ".pyc, .pyo files are never part of a bot"),
    ("../Dockerfile", None, "must be a path inside the bot folder"),
    ("/etc/Dockerfile", None, "must be a path inside the bot folder"),
    ("missing/Dockerfile", None, "build.dockerfile 'missing/Dockerfile' does not exist in "
                                 "the bot folder"),
])
def test_a_dockerfile_outside_the_bots_files_is_refused_at_upload(
        server: RunningServer, dockerfile: str, ignore: bytes | None, expected: str) -> None:
    toml = (HEAD + b'[run]\ncommand = ["python3"]\n[build]\ndockerfile = "'
            + dockerfile.encode() + b'"\n')
    members = [member("bot.toml", toml), member("tiny.py", b"pass\n")]
    if not dockerfile.startswith(("/", "..")):
        members.append(member(dockerfile, DOCKERFILE) if not dockerfile.startswith("missing")
                       else member("Dockerfile", DOCKERFILE))
    if ignore is not None:
        members.append(member(".arenaignore", ignore))
    code, details = refused(server, archive(*members))
    assert code == grpc.StatusCode.INVALID_ARGUMENT
    assert expected in details, details


def test_no_public_view_of_a_bot_carries_the_servers_path(
        server: RunningServer, capsys: pytest.CaptureFixture[str]) -> None:
    submit(server, good())
    data_dir = str(server.storage.path.parent)
    assert server.storage.get_bot("tiny@1.0.0").folder.is_relative_to(data_dir)  # it has one
    anyone = ("--server", server.address)  # a visitor: no token
    for argv in (("bots", "show", "tiny", "--json"), ("bots", "list", "--json"),
                 ("bots", "show", "tiny")):
        code, out, err = run(capsys, *argv, *anyone)
        assert code == 0, err
        assert data_dir not in out + err, argv
    [shown] = json.loads(run(capsys, "bots", "show", "tiny", "--json", *anyone)[1])
    assert not shown["bot"].get("folder")
    from arena.cli.client import ArenaClient
    with ArenaClient(server.address, None) as client:
        listed = client.stub.ListBots(arena_pb2.ListBotsRequest()).bots
    assert [bot.folder for bot in listed] == [""]
