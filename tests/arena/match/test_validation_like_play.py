"""Vetting looks like play (issue 43, point 7): a bot that records what it is told
(the series id of its Handshake and of each decision, its seat, its first hand)
is vetted several times in the real in-process sandbox and plays a season's
series: the ids it hears are random and of one shape in both, the deals differ
from one vetting to the next (the seed is drawn, not fixed), the seat is drawn,
and the server draws the opponent from the arena's active versions."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from arena.core.limits import TimeLimits
from arena.core.series import BotRef, SeriesSpec
from arena.match import validation
from arena.match.runner import run_series
from arena.match.validation import reference_bot, validate_bot
from arena.sandbox import registry as sandbox_registry
from arena.sandbox.base import Sandbox
from arena.server import vetting as server_vetting
from arena.server.vetting import VettingWorker
from arena.storage import Storage
from engine.profiles import get_profile
from tests.helpers.arena_helpers import REPO_ROOT, register_folder

OPAQUE = re.compile(r"[0-9a-f]{16}")
RECORDER = '''
import json
import hollywood_sdk as hs

SEEN = {seen!r}


def note(entry):
    with open(SEEN, "a", encoding="utf-8") as sink:
        sink.write(json.dumps(entry) + "\\n")


class Recorder(hs.Bot):
    def on_series_start(self, start):
        self.first = True
        note({{"start": start.series_id}})

    def decide(self, observation):
        if self.first:
            self.first = False
            note({{"series_id": observation.series_id, "seat": observation.seat,
                   "hand": sorted(str(card) for card in observation.hand)}})
        return observation.legal_actions[0]
'''


@pytest.fixture
def recorder(tmp_path: Path) -> BotRef:
    folder = tmp_path / "recorder"
    folder.mkdir()
    (folder / "bot.toml").write_text(
        'name = "recorder"\nversion = "1.0.0"\nlanguage = "python"\n'
        '[run]\ncommand = ["python3", "-m", "recorder"]\nsdk_class = "recorder:Recorder"\n')
    (folder / "Dockerfile").write_text("FROM python:3.11-slim\n")
    (folder / "recorder.py").write_text(RECORDER.format(seen=str(tmp_path / "seen.jsonl")))
    return BotRef.from_folder(folder)


@pytest.fixture
def sandbox() -> Iterator[Sandbox]:
    box = sandbox_registry.create("inprocess")
    yield box
    close = getattr(box, "close", None)
    if callable(close):
        close()


def seen(tmp_path: Path) -> list[dict[str, Any]]:
    lines = (tmp_path / "seen.jsonl").read_text().splitlines()
    (tmp_path / "seen.jsonl").unlink()
    return [json.loads(line) for line in lines]


def test_vetting_tells_random_ids_and_deals_a_drawn_seed(
        recorder: BotRef, sandbox: Sandbox, tmp_path: Path) -> None:
    hands, ids = [], []
    for _ in range(3):
        result = validate_bot(recorder, sandbox, limits=TimeLimits(startup_s=20))
        assert result.passed, result.log
        entries = seen(tmp_path)
        starts = [e["start"] for e in entries if "start" in e]
        decisions = [e for e in entries if "series_id" in e]
        assert len(starts) == 2 and len(decisions) == 1  # the lone handshake, the series
        assert decisions[0]["series_id"] == starts[1] and decisions[0]["seat"] == result.seat
        ids += starts
        hands.append(decisions[0]["hand"])
    assert all(OPAQUE.fullmatch(told) for told in ids), ids
    assert len(set(ids)) == len(ids)  # never the same twice: nothing to recognise
    assert len({tuple(hand) for hand in hands}) == 3  # three deals, not one fixed seed


def test_a_season_series_tells_an_id_of_the_same_shape(
        recorder: BotRef, sandbox: Sandbox, tmp_path: Path) -> None:
    spec = SeriesSpec(series_id="7-3", seed=2024, profile=get_profile("friendly"),
                      max_hands=1, swap_seats=False, bots=(recorder, reference_bot()),
                      limits=TimeLimits(startup_s=20))
    outcome = run_series(spec, sandbox)
    assert outcome.series_id == "7-3" and outcome.fault is None
    entries = seen(tmp_path)
    told = entries[0]["start"]
    assert OPAQUE.fullmatch(told) and told != "7-3"
    assert entries[1]["series_id"] == told


def test_the_seat_is_drawn(recorder: BotRef, sandbox: Sandbox, tmp_path: Path,
                           monkeypatch: pytest.MonkeyPatch) -> None:
    for drawn in (1, 0):
        monkeypatch.setattr(validation.secrets, "randbelow", lambda _n, d=drawn: d)
        result = validate_bot(recorder, sandbox, limits=TimeLimits(startup_s=20))
        assert result.passed and result.seat == drawn, result.log
        assert [e["seat"] for e in seen(tmp_path) if "seat" in e] == [drawn]


def test_the_server_draws_the_opponent_from_the_active_versions(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    storage = Storage(tmp_path / "arena.db")
    ids = [register_folder(storage, REPO_ROOT / "sample_bots" / name)
           for name in ("random", "greedy", "shark")]
    worker = VettingWorker(storage, "inprocess", slots=1)
    try:
        monkeypatch.setattr(server_vetting, "newest_active", lambda _storage: ids)
        greedy = BotRef.from_folder(REPO_ROOT / "sample_bots" / "greedy")
        drawn = {opponent.name for opponent in
                 (worker.draw_opponent(greedy) for _ in range(40)) if opponent is not None}
        assert drawn == {"random", "shark"}  # any other active bot, never its own name
        monkeypatch.setattr(server_vetting, "newest_active", lambda _storage: ids[1:2])
        assert worker.draw_opponent(greedy) is None  # none other: the sample random bot
    finally:
        worker.stop()
        storage.close()
