"""`arena replay ID`: a series played by real bot processes and stored is played again
here, from the database (--db) or the server, with both seats' folders (reproduced
move for move) or with one bot changed (the first divergence named: hand, decision,
stored move, new move), the other seat playing its stored moves."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from arena.core.series import BotRef, SeriesSpec
from arena.core.settings import SeasonConfig
from arena.match.runner import run_series
from arena.sandbox.process import ProcessSandbox
from arena.server.app import RunningServer
from arena.storage import Storage
from engine.actions import Action, ActionKind
from engine.profiles import FRIENDLY
from engine.series import Series
from tests.helpers.arena_helpers import register_folder
from tests.helpers.servers import ServerFactory

REPO = Path(__file__).resolve().parents[3]
GREEDY = REPO / "sample_bots" / "greedy"
SHARK = REPO / "sample_bots" / "shark"
SEED = 11
MAX_HANDS = 6


def arena(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "arena.cli", *args], cwd=REPO,
                          capture_output=True, text=True, timeout=600, env=dict(os.environ))


@pytest.fixture(scope="module")
def stored_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A database holding one series greedy (seat 0) vs shark (seat 1), played by
    real processes and stored as a season stores it."""
    db = tmp_path_factory.mktemp("replay") / "arena.db"
    storage = Storage(db)
    try:
        ids = [register_folder(storage, GREEDY), register_folder(storage, SHARK)]
        config = SeasonConfig.build(sandbox="process", max_hands=MAX_HANDS, decision_s=10.0,
                                    startup_s=60.0, reserve_s=60.0)
        season = storage.create_season(name="replayed", config=config.to_dict(),
                                       profile=FRIENDLY, bot_ids=ids,
                                       plan=[(SEED, False, ids[0], ids[1])])
        planned = storage.planned_series(season.id)[0]
        spec = SeriesSpec(planned.series_id, SEED, FRIENDLY, MAX_HANDS, False,
                          (BotRef.from_folder(GREEDY), BotRef.from_folder(SHARK)), config.limits)
        outcome = run_series(spec, ProcessSandbox())
        assert outcome.fault is None, outcome.fault
        storage.store_result(planned, outcome, FRIENDLY.to_dict())
    finally:
        storage.close()
    return db


def stored_log(db: Path) -> list[dict[str, Any]]:
    storage = Storage(db)
    try:
        return storage.result_log("1-0")[0]
    finally:
        storage.close()


def replayed(*args: str) -> dict[str, Any]:
    done = arena("replay", *args, "--sandbox", "process", "--json")
    assert done.returncode in (0, 1), done.stdout[-2000:] + done.stderr[-2000:]
    data: dict[str, Any] = json.loads(done.stdout)
    assert done.returncode == (0 if data["reproduced"] else 1)
    return data


def test_both_folders_reproduce_the_stored_series_move_for_move(stored_db: Path) -> None:
    actions = [event for event in stored_log(stored_db) if event["type"] == "action"]
    data = replayed("1-0", "--db", str(stored_db), "--bot", f"0={GREEDY}",
                    "--bot", f"1={SHARK}")
    assert data["reproduced"] is True and data["divergence"] is None
    assert data["decisions"] == len(actions)
    assert data["fault"] is None


def changed_greedy(root: Path) -> Path:
    """Greedy that never takes the upcard or the discard."""
    folder = root / "greedy-changed"
    shutil.copytree(GREEDY, folder)
    code = folder / "greedy_bot.py"
    text = code.read_text()
    taking = "and observation.deadwood_with(top) < observation.deadwood()"
    assert taking in text
    code.write_text(text.replace(taking, "and False"))
    return folder


def first_taken_discard(log: list[dict[str, Any]]) -> tuple[int, int, str]:
    """Where greedy (seat 0) first took a card from the discard pile in the stored
    log, as (hand, decision) and what the changed bot does there instead: pass when
    the engine allows it, else draw from the stock."""
    series = Series.replay(log[:2])
    decision = 0
    for event in log:
        if event["type"] != "action":
            continue
        decision += 1
        action = Action.from_dict(event["action"])
        if event["seat"] == 0 and action.kind is ActionKind.DRAW_DISCARD:
            legal = {legal.kind for legal in series.legal_actions()}
            instead = "pass" if ActionKind.PASS in legal else "draw stock"
            return event["hand"], decision, instead
        series.apply(action)
    raise AssertionError("greedy never took a discard in the stored series: choose a seed")


def test_a_changed_bot_is_stopped_at_its_first_divergence(stored_db: Path,
                                                          tmp_path: Path) -> None:
    hand, decision, instead = first_taken_discard(stored_log(stored_db))
    data = replayed("1-0", "--db", str(stored_db), "--bot", f"0={changed_greedy(tmp_path)}")
    assert data["reproduced"] is False
    assert data["divergence"] == {"hand": hand, "decision": decision, "seat": 0,
                                  "stored": "draw discard", "new": instead}
    # The stored-moves seat (shark) had nothing to play after it: the replay stopped.
    assert data["decisions"] in (decision, decision + 1)


@pytest.fixture
def server(serve: ServerFactory, stored_db: Path, tmp_path: Path) -> RunningServer:
    copy = tmp_path / "served.db"
    shutil.copy(stored_db, copy)
    return serve(database=copy, runner=None)


def test_from_the_server_the_stored_moves_replay_one_seat(server: RunningServer) -> None:
    done = arena("replay", "1-0", "--server", server.address, "--bot", f"1={SHARK}",
                 "--sandbox", "process")
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    assert "seat 0 greedy@1.0.0 (stored moves), seat 1 shark" in done.stdout
    assert "reproduced: series 1-0 followed the stored path to its end" in done.stdout
    assert "─ hand 1 ─" in done.stdout


def test_an_unplayed_or_unknown_series_is_refused_clearly(server: RunningServer) -> None:
    done = arena("replay", "9-0", "--server", server.address)
    assert done.returncode == 2
    assert "series 9-0" in done.stderr and "Traceback" not in done.stderr
    bad = arena("replay", "1-0", "--bot", "2=./x", "--server", server.address)
    assert bad.returncode == 2 and "is not SEAT=FOLDER" in bad.stderr


def test_from_a_file_arena_export_wrote(server: RunningServer, tmp_path: Path) -> None:
    exported = arena("export", "--season", "1", "--to", str(tmp_path / "out"),
                     "--server", server.address)
    assert exported.returncode == 0, exported.stderr[-2000:]
    data = replayed(str(tmp_path / "out" / "series" / "1-0.json"), "--bot", f"0={GREEDY}")
    assert data["reproduced"] is True
    assert data["seats"] == [f"greedy ({GREEDY})", "shark@1.0.0 (stored moves)"]
