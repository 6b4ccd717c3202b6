"""Fuzz the arena API (issue 18, point 2): requests for every ArenaService method,
generated from the message descriptors, with no, a wrong or the right token,
against a running server on a seeded database. Never INTERNAL or UNKNOWN, the
server keeps answering, a refused call changes nothing and the database stays
sound. ``make fuzz`` runs many more examples (HOLLYWOOD_FUZZ_EXAMPLES)."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest
from hollywood.arena.v1 import arena_pb2, arena_pb2_grpc
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from arena.server.app import RunningServer
from arena.storage import list_leagues
from tests.helpers.arena_helpers import REPO_ROOT, upload_folder
from tests.helpers.proto_strategies import FUZZ_EXAMPLES, messages
from tests.helpers.servers import servers

SAMPLES = REPO_ROOT / "sample_bots"
SERVICE = arena_pb2.DESCRIPTOR.services_by_name["ArenaService"]
KNOWN_TEXTS = (
    "random", "greedy", "random@1.0.0", "greedy@1.0.0", "1", "1-1", "1-2", "0-1",
    "friendly", "classic", "inprocess", "process", "docker",
    "/nonexistent/bot", "/", "~",
)
BAD_ANSWERS = (grpc.StatusCode.INTERNAL, grpc.StatusCode.UNKNOWN)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningServer]:
    """A server with two bots and one finished season."""
    with servers(tmp_path_factory.mktemp("fuzz")) as serve:  # one for the module
        running = serve()
        token = (("authorization", f"Bearer {running.token}"),)
        with grpc.insecure_channel(running.address) as channel:
            stub = arena_pb2_grpc.ArenaServiceStub(channel)
            for name in ("random", "greedy"):
                upload_folder(stub, token, SAMPLES / name)
            season = stub.CreateSeason(arena_pb2.CreateSeasonRequest(
                bots=["random", "greedy"], name="seeded",
                config=arena_pb2.SeasonConfig(max_hands=3)), metadata=token).season
        assert running.manager.wait(season.id, timeout=60)
        yield running


def dump(db_path: Path) -> list[str]:
    with sqlite3.connect(db_path) as db:
        return list(db.iterdump())


def integrity(db_path: Path) -> str:
    with sqlite3.connect(db_path) as db:
        return str(db.execute("PRAGMA integrity_check").fetchone()[0])


def settle(server: RunningServer) -> None:
    """End whatever an accepted call started, so the next example starts idle.
    Leagues first: a league of many rounds would start its next round as each one
    ends, and keep playing (and growing the database) through every later example.
    Then seasons, until none is left unended: a finished challenge starts the next."""
    for league in list_leagues(server.storage):
        if not league.cancelled:
            server.service.leagues.cancel(league.id)
    for _ in range(100):
        unended = [season for season in server.storage.list_seasons()
                   if not season.status.is_terminal]
        if not unended:
            return
        for season in unended:
            server.manager.cancel(season.id)
            assert server.manager.wait(season.id, timeout=60)
    raise AssertionError("seasons kept starting after 100 rounds of cancelling")


def call(server: RunningServer, method: str, request: object,
         metadata: tuple[tuple[str, str], ...]) -> grpc.StatusCode:
    descriptor = SERVICE.methods_by_name[method]
    output = getattr(arena_pb2, descriptor.output_type.name)
    with grpc.insecure_channel(server.address) as channel:
        factory = (channel.unary_stream if descriptor.server_streaming
                   else channel.unary_unary)
        stub = factory(f"/{SERVICE.full_name}/{method}",
                       request_serializer=lambda message: (
                           message if isinstance(message, bytes)
                           else message.SerializeToString()),
                       response_deserializer=output.FromString)
        code = grpc.StatusCode.OK
        try:
            answer = stub(request, metadata=metadata, timeout=30)
            if descriptor.server_streaming:
                list(answer)
        except grpc.RpcError as error:
            assert error.code() not in BAD_ANSWERS, (method, error.code(), error.details())
            assert len(error.details() or "") <= 1100, (method, len(error.details()))
            code = error.code()
        # The server still answers.
        arena_pb2_grpc.ArenaServiceStub(channel).ListBots(arena_pb2.ListBotsRequest(),
                                                           timeout=30)
    return code


@pytest.mark.parametrize("method", [method.name for method in SERVICE.methods])
@settings(max_examples=FUZZ_EXAMPLES, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow,
                                 HealthCheck.data_too_large, HealthCheck.large_base_example])
@given(data=st.data())
def test_any_request_gets_a_proper_answer(server: RunningServer, method: str,
                                          data: st.DataObject) -> None:
    descriptor = SERVICE.methods_by_name[method].input_type
    request = data.draw(messages(descriptor, getattr(arena_pb2, descriptor.name),
                                 known_texts=KNOWN_TEXTS), label="request")
    token = data.draw(st.sampled_from(["none", "wrong", "right"]), label="token")
    metadata: tuple[tuple[str, str], ...] = {
        "none": (), "wrong": (("authorization", "Bearer not-the-token"),),
        "right": (("authorization", f"Bearer {server.token}"),)}[token]
    db_path = server.storage.path
    before = dump(db_path)
    code = call(server, method, request, metadata)
    if code is not grpc.StatusCode.OK:
        assert dump(db_path) == before, f"{method} refused with {code} but changed the database"
    settle(server)
    assert integrity(db_path) == "ok"


@pytest.mark.parametrize("method", [method.name for method in SERVICE.methods])
@settings(max_examples=FUZZ_EXAMPLES, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(raw=st.binary(max_size=200), with_token=st.booleans())
def test_any_bytes_get_a_proper_answer(server: RunningServer, method: str, raw: bytes,
                                       with_token: bool) -> None:
    metadata = (("authorization", f"Bearer {server.token}"),) if with_token else ()
    before = dump(server.storage.path)
    if call(server, method, raw, metadata) is not grpc.StatusCode.OK:
        assert dump(server.storage.path) == before
    settle(server)
    assert integrity(server.storage.path) == "ok"
