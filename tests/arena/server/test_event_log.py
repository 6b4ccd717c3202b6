"""The server's operator log (issue 10, point 7): one line per season event
(created, started, resumed, finished, cancelled) and per fault, as text or as JSON
lines with stable keys; a bot's fault reason neutralised."""

from __future__ import annotations

import io
import json
import logging
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hollywood.arena.v1 import arena_pb2

from arena.cli.client import ArenaClient
from arena.core.faults import BotFault, FaultKind
from arena.core.series import SeriesOutcome, SeriesSpec, outcome_of
from arena.core.status import SeasonStatus
from arena.server.app import RunningServer, start_server
from arena.server.event_log import EVENT_LOGGER, configure_event_log
from engine.series import Series
from tests.helpers.arena_helpers import make_bot_folder, upload_folder
from tests.helpers.servers import ServerFactory, with_bots

HOSTILE_REASON = "boom\x1b[2J\u202etxt.exe"


def crashy_loses(spec: SeriesSpec) -> SeriesOutcome:
    """The bot named "crashy" forfeits every series, crashing before its first
    decision, with a hostile message."""
    seat = 0 if spec.bots[0].name == "crashy" else 1
    series = Series(spec.seed, spec.profile, max_hands=spec.max_hands,
                    swap_seats=spec.swap_seats)
    return outcome_of(spec.series_id, series, 1 - seat,
                      BotFault(FaultKind.CRASH, HOSTILE_REASON, seat=seat), (0.0, 0.0), 0.0)


@pytest.fixture
def log_stream() -> Iterator[io.StringIO]:
    stream = io.StringIO()
    configure_event_log("json", stream=stream)
    yield stream
    logger = logging.getLogger(EVENT_LOGGER)
    for handler in list(logger.handlers):
        logger.removeHandler(handler)
    logger.propagate = True


@pytest.fixture
def server(serve: ServerFactory, tmp_path: Path, log_stream: io.StringIO) -> RunningServer:
    return with_bots(serve(runner=crashy_loses), tmp_path, ("crashy", "steady"))


def lines(stream: io.StringIO) -> list[dict[str, Any]]:
    return [json.loads(line) for line in stream.getvalue().splitlines()]


def create(server: RunningServer, *, hold: bool) -> int:
    with ArenaClient(server.address, server.token) as client:
        return int(client.stub.CreateSeason(arena_pb2.CreateSeasonRequest(
            bots=["crashy", "steady"], hold=hold,
            config=arena_pb2.SeasonConfig(series_per_pair=2, seed=4)),
            metadata=client.auth).season.id)


def test_a_season_and_its_faults_log_one_json_line_each(
    server: RunningServer, log_stream: io.StringIO
) -> None:
    season_id = create(server, hold=False)
    assert server.manager.wait(season_id, timeout=30)
    logged = lines(log_stream)
    assert [line["event"] for line in logged] == [
        "season_created", "season_started", "fault", "fault", "season_finished"]
    assert list(logged[0]) == ["time", "level", "event", "season", "name", "bots",
                               "series_total"]
    assert logged[0]["bots"] == ["crashy@1.0.0", "steady@1.0.0"]
    assert (logged[0]["season"], logged[0]["series_total"]) == (season_id, 2)
    faults = logged[2:4]
    assert [list(line) for line in faults] == [
        ["time", "level", "event", "season", "series", "bot", "seat", "kind", "reason"]] * 2
    assert sorted(line["series"] for line in faults) == [f"{season_id}-0", f"{season_id}-1"]
    assert {(line["bot"], line["kind"], line["level"]) for line in faults} == {
        ("crashy@1.0.0", "crash", "warning")}
    assert {line["reason"] for line in faults} == {"boom\\x1b[2J\\u202etxt.exe"}
    assert (logged[4]["status"], logged[4]["series_done"], logged[4]["level"]) == (
        "finished", 2, "info")


def test_cancelled_and_resumed_seasons_are_logged(
    server: RunningServer, log_stream: io.StringIO
) -> None:
    held = create(server, hold=True)
    with ArenaClient(server.address, server.token) as client:
        client.stub.CancelSeason(arena_pb2.CancelSeasonRequest(season_id=held),
                                 metadata=client.auth)
    interrupted = create(server, hold=True)
    server.storage.set_season_status(interrupted, SeasonStatus.RUNNING)  # a stopped server's
    assert server.manager.resume_interrupted() == [interrupted]
    assert server.manager.wait(interrupted, timeout=30)
    assert [(line["event"], line["season"]) for line in lines(log_stream)
            if line["event"] != "fault"] == [
        ("season_created", held), ("season_cancelled", held),
        ("season_created", interrupted), ("season_resumed", interrupted),
        ("season_finished", interrupted)]


def test_text_lines_say_the_same_for_people(tmp_path: Path) -> None:
    stream = io.StringIO()
    configure_event_log("text", stream=stream)
    try:
        running = start_server(tmp_path / "arena.db", port=0, resume=False,
                               runner_factory=lambda config: crashy_loses)
        try:
            with ArenaClient(running.address, running.token) as client:
                for name in ("crashy", "steady"):
                    upload_folder(client.stub, client.auth,
                                  make_bot_folder(tmp_path / "bots", name))
            season_id = create(running, hold=False)
            assert running.manager.wait(season_id, timeout=30)
        finally:
            running.stop(grace=None)
    finally:
        logging.getLogger(EVENT_LOGGER).handlers.clear()
    stamps, text = zip(*(line.split(" ", 1) for line in stream.getvalue().splitlines()),
                       strict=True)
    assert all(re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", stamp) for stamp in stamps)
    assert text[:2] == ("INFO season 1 created: 'season 1', 2 bots, 2 series",
                        "INFO season 1 started: 0/2 series played")
    assert sorted(text[2:4]) == [
        "WARNING fault in series 1-0: crashy@1.0.0 (seat 0) forfeited, "
        "crash: boom\\x1b[2J\\u202etxt.exe",
        "WARNING fault in series 1-1: crashy@1.0.0 (seat 1) forfeited, "
        "crash: boom\\x1b[2J\\u202etxt.exe"]
    assert text[4] == "INFO season 1 finished: 2/2 series played"
