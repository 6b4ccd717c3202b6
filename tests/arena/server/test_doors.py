"""Requests are checked at the door (arena.server.doors): every field of every
request has a rule; out-of-range ids, hidden characters, oversized strings and
lists, unknown enums are refused with INVALID_ARGUMENT naming the field and
quoting a bounded, neutralised part of the value (issue 18, point 1)."""

from __future__ import annotations

from collections.abc import Iterator

import grpc
import pytest
from google.protobuf.descriptor import Descriptor
from google.protobuf.message import Message
from hollywood.arena.v1 import arena_pb2, arena_pb2_grpc

from arena.server.app import RunningServer
from arena.server.doors import RULES, refusal, request_types


def all_request_messages() -> Iterator[Descriptor]:
    seen: set[str] = set()
    pending = list(request_types())
    while pending:
        message = pending.pop()
        if message.full_name in seen:
            continue
        seen.add(message.full_name)
        yield message
        for field in message.fields:
            if field.message_type is not None and not field.message_type.GetOptions().map_entry:
                pending.append(field.message_type)


def test_every_field_of_every_request_has_a_rule() -> None:
    missing = [f"{message.full_name}.{field.name}" for message in all_request_messages()
               for field in message.fields if field.name not in RULES.get(message.full_name, {})]
    assert missing == []


@pytest.mark.parametrize(("request_message", "expected"), [
    (arena_pb2.GetSeasonRequest(season_id=2**63),
     "season_id: 9223372036854775808 is out of range (0 to 9223372036854775807)"),
    (arena_pb2.GetSeasonRequest(season_id=2**63 - 1), None),
    (arena_pb2.GetBotRequest(name="tmp/a\x00b"),
     'name: contains NUL (\\x00) at position 5, which is not allowed ("tmp/a\\x00b")'),
    (arena_pb2.GetSeriesRequest(series_id="1-\u202e2"),
     "series_id: contains RIGHT-TO-LEFT OVERRIDE (\\u202e) at position 2, which is not "
     'allowed ("1-\\u202e2")'),
    (arena_pb2.CreateSeasonRequest(bots=["a", "b\x1b[2J"]),
     'bots[1]: contains a control character (\\x1b) at position 1, which is not allowed '
     '("b\\x1b[2J")'),
    # The door's bound is absolute; the server's own season limit comes after it.
    (arena_pb2.CreateSeasonRequest(bots=["x"] * 10_001),
     "bots: 10001 items, at most 10000 allowed"),
    (arena_pb2.CreateSeasonRequest(config=arena_pb2.SeasonConfig(seed=2**64 - 1)),
     "config.seed: 18446744073709551615 is out of range (0 to 9223372036854775807)"),
    (arena_pb2.CreateSeasonRequest(config=arena_pb2.SeasonConfig(
        startup_seconds=float("nan"))), "config.startup_seconds: nan is not a finite number"),
    (arena_pb2.CreateSeasonRequest(config=arena_pb2.SeasonConfig(
        profile_overrides={"k\x07": "1"})),
     'config.profile_overrides key "k\\x07": contains a control character (\\x07) at '
     'position 1, which is not allowed ("k\\x07")'),
    (arena_pb2.CreateSeasonRequest(name="[/] a season, brackets are fine"), None),
])
def test_refusals_name_the_field(request_message: object, expected: str | None) -> None:
    assert refusal(request_message) == expected  # type: ignore[arg-type]


def test_a_huge_value_is_quoted_only_in_part() -> None:
    message = refusal(arena_pb2.GetSeriesRequest(series_id="9" * 1_000_000))
    assert message is not None and message.startswith("series_id: 1000000 characters, at most 64")
    assert len(message) < 250 and "[... 999900 characters cut]" in message


def test_an_unknown_enum_number_is_refused() -> None:
    # No request has an enum field today: a message that does shows the rule.
    standings = arena_pb2.Standings(status=99)  # type: ignore[arg-type]
    assert refusal(standings) == (
        "status: 99 is not a known SeasonStatus (SEASON_STATUS_UNSPECIFIED, "
        "SEASON_STATUS_CREATED, SEASON_STATUS_RUNNING, SEASON_STATUS_FINISHED, "
        "SEASON_STATUS_CANCELLED, SEASON_STATUS_FAILED)")


def code_and_details(call: object, *args: object, **kwargs: object) -> tuple[object, str]:
    with pytest.raises(grpc.RpcError) as caught:
        result = call(*args, **kwargs)  # type: ignore[operator]
        if not isinstance(result, Message):
            list(result)  # a stream
    return caught.value.code(), caught.value.details()


def test_the_issue_examples_over_grpc(server: RunningServer) -> None:
    token = (("authorization", f"Bearer {server.token}"),)
    before = server.storage.count_rows()
    with grpc.insecure_channel(server.address) as channel:
        stub = arena_pb2_grpc.ArenaServiceStub(channel)
        for call, request_type in ((stub.GetSeason, arena_pb2.GetSeasonRequest),
                                   (stub.GetStandings, arena_pb2.GetStandingsRequest),
                                   (stub.WatchSeason, arena_pb2.WatchSeasonRequest)):
            code, details = code_and_details(call, request_type(season_id=2**63))
            assert code == grpc.StatusCode.INVALID_ARGUMENT
            assert "season_id: 9223372036854775808 is out of range" in details
        code, details = code_and_details(
            stub.StartSeason, arena_pb2.StartSeasonRequest(season_id=2**64 - 1), metadata=token)
        assert code == grpc.StatusCode.INVALID_ARGUMENT and "season_id" in details
        code, details = code_and_details(  # no token: that is the first problem
            stub.StartSeason, arena_pb2.StartSeasonRequest(season_id=2**64 - 1))
        assert code == grpc.StatusCode.UNAUTHENTICATED
        code, details = code_and_details(
            stub.AddAuthor, arena_pb2.AddAuthorRequest(name="dora\x00"), metadata=token)
        assert code == grpc.StatusCode.INVALID_ARGUMENT and "name: contains NUL" in details
        code, details = code_and_details(
            stub.GetSeries, arena_pb2.GetSeriesRequest(series_id="1" * 1_000_000))
        assert code == grpc.StatusCode.INVALID_ARGUMENT and len(details) < 300
        code, details = code_and_details(
            stub.CreateSeason, arena_pb2.CreateSeasonRequest(
                bots=["a", "b"], name="n" * 100_000), metadata=token)
        assert code == grpc.StatusCode.INVALID_ARGUMENT
        assert details.startswith("CreateSeasonRequest.name: 100000 characters, at most 200")
    assert server.storage.count_rows() == before



def test_a_real_bug_is_internal_bounded_and_logged_with_its_traceback(
    server: RunningServer, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    def broken(*_: object) -> None:
        raise RuntimeError("bug \x1b[2J" + "x" * 100_000)

    monkeypatch.setattr(server.storage, "list_bots", broken)
    with grpc.insecure_channel(server.address) as channel:
        code, details = code_and_details(arena_pb2_grpc.ArenaServiceStub(channel).ListBots,
                                         arena_pb2.ListBotsRequest())
    assert code == grpc.StatusCode.INTERNAL
    assert details.startswith("internal error: RuntimeError: bug \\x1b[2Jxxx")
    assert details.endswith(" characters cut]") and len(details) < 1100
    assert "Traceback" in caplog.text and "in broken" in caplog.text
