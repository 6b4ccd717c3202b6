"""GetBot's versions in pages (issue 42): a bot with thousands of versions comes
page_size versions at a time, oldest first, behind a cursor that a version uploaded
meanwhile does not shift; a bad token or page is refused naming it; ``arena bots
show`` reads every page."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest
from hollywood.arena.v1 import arena_pb2, arena_pb2_grpc

from arena.cli import main
from arena.core.manifest import iter_bot_files
from arena.server.app import RunningServer
from arena.storage import Storage
from tests.helpers.arena_helpers import make_bot_folder


@pytest.fixture
def stub(server: RunningServer) -> Iterator[arena_pb2_grpc.ArenaServiceStub]:
    with grpc.insecure_channel(server.address) as channel:
        yield arena_pb2_grpc.ArenaServiceStub(channel)


def add_versions(storage: Storage, root: Path, name: str, numbers: range) -> list[str]:
    """Versions ``name@N`` for each N of ``numbers``, registered in that order."""
    files = list(iter_bot_files(make_bot_folder(root / name, name)))
    return [storage.register_bot(
        name=name, version=str(number), language="python", author="", description="",
        content_hash=f"{name}-{number}", source_folder=Path("."), files=files)[0].id
        for number in numbers]


def page(stub: arena_pb2_grpc.ArenaServiceStub, size: int, token: str = "",
         name: str = "ann") -> tuple[list[str], str]:
    answer = stub.GetBot(arena_pb2.GetBotRequest(name=name, page_size=size, page_token=token))
    return [version.bot.id for version in answer.versions], answer.next_page_token


def test_120_versions_come_50_50_20_and_a_new_version_comes_last(
        tmp_path: Path, server: RunningServer, stub: arena_pb2_grpc.ArenaServiceStub) -> None:
    ann = add_versions(server.storage, tmp_path, "ann", range(1, 61))
    add_versions(server.storage, tmp_path, "bob", range(1, 4))  # between ann's: not shown
    ann += add_versions(server.storage, tmp_path, "ann", range(61, 121))
    first, token = page(stub, 50)
    assert first == [f"ann@{n}" for n in range(1, 51)] and token == "vann@50"
    newest = add_versions(server.storage, tmp_path, "ann", range(121, 122))
    second, token = page(stub, 50, token)
    assert second == [f"ann@{n}" for n in range(51, 101)] and token == "vann@100"
    third, token = page(stub, 50, token)
    assert third == [*(f"ann@{n}" for n in range(101, 121)), "ann@121"] and token == ""
    assert first + second + third == ann + newest
    whole, token = page(stub, 0)  # no page size: every version, as before paging
    assert whole == ann + newest and token == ""
    one, token = page(stub, 50, name="ann@7")  # one version: no pages
    assert one == ["ann@7"] and token == ""


def test_a_page_that_ends_on_the_last_version_says_so_on_the_next(
        tmp_path: Path, server: RunningServer, stub: arena_pb2_grpc.ArenaServiceStub) -> None:
    add_versions(server.storage, tmp_path, "ann", range(1, 5))
    assert page(stub, 2) == (["ann@1", "ann@2"], "vann@2")
    assert page(stub, 2, "vann@2") == (["ann@3", "ann@4"], "")
    assert page(stub, 4) == (["ann@1", "ann@2", "ann@3", "ann@4"], "")


@pytest.mark.parametrize(("request_", "fragment"), [
    (arena_pb2.GetBotRequest(name="ann", page_token="vbob@1"),
     "page_token 'vbob@1' is not a page token of bot ann's versions"),
    (arena_pb2.GetBotRequest(name="ann", page_token="l3"),
     "page_token 'l3' is not a page token of bot ann's versions"),
    (arena_pb2.GetBotRequest(name="ann", page_token="vann@9"),
     "page_token 'vann@9' names no version of bot ann"),
    (arena_pb2.GetBotRequest(name="ann@1", page_token="vann@1"),
     "page_token is only for a bare name's versions, not for the one version ann@1"),
    (arena_pb2.GetBotRequest(name="ann", page_size=10_001),
     "page_size 10001 is above the limit of 10000"),
    (arena_pb2.GetBotRequest(name="ann", page_token="v" * 201), "page_token"),
])
def test_a_bad_version_page_is_refused_naming_it(
        tmp_path: Path, server: RunningServer, stub: arena_pb2_grpc.ArenaServiceStub,
        request_: arena_pb2.GetBotRequest, fragment: str) -> None:
    add_versions(server.storage, tmp_path, "ann", range(1, 3))
    add_versions(server.storage, tmp_path, "bob", range(1, 2))
    with pytest.raises(grpc.RpcError) as refused:
        stub.GetBot(request_)
    assert refused.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert fragment in str(refused.value.details())


def test_an_unknown_bot_is_still_not_found(
        server: RunningServer, stub: arena_pb2_grpc.ArenaServiceStub) -> None:
    with pytest.raises(grpc.RpcError) as refused:
        stub.GetBot(arena_pb2.GetBotRequest(name="nobody", page_size=5))
    assert refused.value.code() == grpc.StatusCode.NOT_FOUND


def test_bots_show_reads_every_page(
        tmp_path: Path, server: RunningServer, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr("arena.cli.listing.VERSIONS_PAGE_SIZE", 2)  # three pages
    add_versions(server.storage, tmp_path, "ann", range(1, 6))
    assert main(["bots", "show", "ann", "--server", server.address, "--json"]) == 0
    shown = [version["bot"]["id"] for version in json.loads(capsys.readouterr().out)]
    assert shown == [f"ann@{n}" for n in range(1, 6)]
