"""A database written by an earlier release (tests/fixtures/db, see its README)
migrates forward on open: same plan, same standings as that release printed, and a
new season can be created and played. A failing migration changes nothing."""

from __future__ import annotations

import json
import re
import shutil
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from arena.cli import main
from arena.core.faults import BotFault, FaultKind
from arena.core.series import SeriesOutcome, SeriesSpec, outcome_of
from arena.core.settings import SeasonConfig
from arena.season.formats import RoundRobin
from arena.server.app import RunningServer
from arena.storage import Storage, StorageError
from arena.storage.deal_keys import deal_key
from arena.storage.migrations import MIGRATIONS, Migration, migrate
from engine.series import Series
from tests.helpers.arena_helpers import REPO_ROOT, make_bot_folder
from tests.helpers.servers import ServerFactory

FIXTURES = REPO_ROOT / "tests" / "fixtures" / "db"


def numbers(data: Any) -> Any:
    """``data`` with 64-bit integers as numbers: release 1 wrote them as JSON strings
    (protobuf's JSON form), ``--json`` now writes numbers; the values are the same."""
    if isinstance(data, dict):
        return {key: numbers(value) for key, value in data.items()}
    if isinstance(data, list):
        return [numbers(item) for item in data]
    if isinstance(data, str) and re.fullmatch(r"-?[0-9]+", data):
        return int(data)
    return data


def release_1_standings() -> Any:
    """The standings release 1 showed (tests/fixtures/db/release-1-standings.json),
    its 64-bit integers as numbers."""
    return numbers(json.loads((FIXTURES / "release-1-standings.json").read_text()))
RELEASE_1_BOTS = ("alpha@1.0.0", "random-bravo@1.0.0", "charlie@1.0.0")


@pytest.fixture
def release_1(tmp_path: Path) -> Path:
    """A copy of the release-1 database (opening it migrates, i.e. writes)."""
    copy = tmp_path / "arena.db"
    shutil.copyfile(FIXTURES / "release-1.db", copy)
    return copy


def seat0_wins(spec: SeriesSpec) -> SeriesOutcome:
    """Seat 1 fails to start: seat 0 wins every series."""
    series = Series(spec.seed, spec.profile, max_hands=spec.max_hands,
                    swap_seats=spec.swap_seats)
    return outcome_of(spec.series_id, series, 0,
                      BotFault(FaultKind.STARTUP, "no socket", seat=1), (0.0, 0.0), 0.0)


@pytest.fixture
def server(serve: ServerFactory, release_1: Path) -> RunningServer:
    return serve(database=release_1, runner=seat0_wins, resume=False)


def cli(capsys: pytest.CaptureFixture[str], server: RunningServer, *argv: str) -> str:
    code = main([*argv, "--server", server.address, "--token-file", str(server.token_path)])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    return captured.out


def raw_version(path: Path) -> str:
    raw = sqlite3.connect(path)
    try:
        return str(raw.execute("SELECT value FROM meta WHERE key='schema_version'").fetchone()[0])
    finally:
        raw.close()


def test_the_fixture_is_a_release_1_database() -> None:
    assert raw_version(FIXTURES / "release-1.db") == "1"


def test_release_1_database_opens_migrated_with_the_same_plan(
        release_1: Path, server: RunningServer) -> None:
    assert raw_version(release_1) == "20"  # vetted hashes (6), voided series (7), refusals (8),
    # whole outcomes (9), the ladder (10), its gate (11), leagues (12), cancelled leagues (13),
    # committed deal seeds (14), seat logs (15),
    # challenges (16), human games (17), no index repeating a unique one (18),
    # standings checkpoints and results by each seat's bot (19), meetings by index (20)
    storage = server.storage
    season = storage.get_season(1)
    assert season.bot_ids == RELEASE_1_BOTS and season.status == "finished"
    # The release stored a flat dict without a format; storage builds it typed.
    assert season.config == SeasonConfig.build(sandbox="process", concurrency=1, max_hands=3,
                                               seed=5)
    assert season.config.format == "round-robin"
    assert (season.series_total, season.series_done) == (6, 6)
    planned = storage.planned_series(1)
    assert [p.series_id for p in planned] == [f"1-{n}" for n in range(6)]
    assert {p.round for p in planned} == {1}
    # The plan the release stored is the plan the round-robin format makes today.
    assert [(p.seed, p.swap_seats, p.seat0_bot, p.seat1_bot) for p in planned] == [
        pairing.as_row() for pairing in RoundRobin(2).first_round(RELEASE_1_BOTS, 5)]
    # Its results had no record of who won each game (schema 9): read from the game
    # scores, they are what the engine's replay of each stored log gives.
    for stored in storage.results(1):
        replayed = Series.replay(storage.result_log(stored.series_id)[0]).result
        assert replayed is not None and stored.result.game_winners == replayed.game_winners
    assert [r.result.game_winners[0] for r in storage.results(1)] == [0, 0] + [None] * 4
    # Schema 14: each planned series got its own nonce; the release's season keeps
    # its public seed (no deal key), so its plan is still the plan of seed 5.
    nonces = [p.seed_nonce for p in planned]
    assert len(set(nonces)) == 6 and all(len(n) == 32 and int(n, 16) >= 0 for n in nonces)
    assert deal_key(storage, 1, 5) == 5


def test_release_1_database_shows_the_standings_that_release_showed(
        server: RunningServer, capsys: pytest.CaptureFixture[str]) -> None:
    expected = release_1_standings()
    shown = json.loads(cli(capsys, server, "standings", "--json", "--season", "1"))
    assert shown.pop("sequence") == 6  # new since release 1: the 6 stored results
    # Every field the release showed, unchanged (later releases add fields).
    assert {key: shown[key] for key in expected if key != "rows"} == {
        key: value for key, value in expected.items() if key != "rows"}
    assert [{key: row[key] for key in old} for row, old in zip(
        shown["rows"], expected["rows"], strict=True)] == expected["rows"]
    recomputed = json.loads(cli(capsys, server, "standings", "--json", "--season", "1",
                                "--recompute"))
    assert recomputed.pop("sequence") == 6
    assert {key: recomputed[key] for key in expected if key != "rows"} == {
        key: value for key, value in expected.items() if key != "rows"}
    assert [{key: row[key] for key in old} for row, old in zip(
        recomputed["rows"], expected["rows"], strict=True)] == expected["rows"]


def test_release_1_database_creates_and_plays_a_new_season(
        tmp_path: Path, server: RunningServer, capsys: pytest.CaptureFixture[str]) -> None:
    # The release's bot copies lived on the machine that made the fixture: new versions.
    for name in ("alpha", "charlie"):
        cli(capsys, server, "bots", "register",
            str(make_bot_folder(tmp_path / "new", name, version="2.0.0")))
    season = json.loads(cli(capsys, server, "season", "create", "--bots", "alpha@2.0.0",
                            "charlie@2.0.0", "--sandbox", "process", "--seed", "3",
                            "--json"))
    assert season["id"] == 2  # a JSON number, though the field is 64-bit
    assert server.manager.wait(2, timeout=60)
    record = server.storage.get_season(2)
    assert (record.status, record.series_total, record.series_done) == ("finished", 2, 2)
    assert [p.series_id for p in server.storage.planned_series(2)] == ["2-0", "2-1"]
    standings = json.loads(cli(capsys, server, "standings", "--json"))
    assert standings["season_id"] == 2
    assert sorted(row["series_won"] for row in standings["rows"]) == [1, 1]
    expected = release_1_standings()
    shown = json.loads(cli(capsys, server, "standings", "--json", "--season", "1"))
    assert shown.pop("sequence") == 6  # new since release 1: the 6 stored results
    # Every field the release showed, unchanged (later releases add fields).
    assert {key: shown[key] for key in expected if key != "rows"} == {
        key: value for key, value in expected.items() if key != "rows"}
    assert [{key: row[key] for key in old} for row, old in zip(
        shown["rows"], expected["rows"], strict=True)] == expected["rows"]


def test_a_failed_migration_leaves_the_file_at_its_version(release_1: Path) -> None:
    broken = Migration(2, "a step that breaks halfway", (
        "ALTER TABLE planned_series ADD COLUMN round INTEGER NOT NULL DEFAULT 1",
        "THIS IS NOT SQL",
    ))
    connection = sqlite3.connect(release_1, isolation_level=None)
    try:
        with pytest.raises(StorageError, match=r"from version 1 to 2 \(a step that breaks "
                                               r"halfway\) failed: .*unchanged at version 1"):
            migrate(connection, release_1, (MIGRATIONS[0], broken))
        columns = [row[1] for row in connection.execute("PRAGMA table_info(planned_series)")]
    finally:
        connection.close()
    assert "round" not in columns and raw_version(release_1) == "1"


def test_migrating_twice_changes_nothing(release_1: Path) -> None:
    connection = sqlite3.connect(release_1, isolation_level=None)
    try:
        assert migrate(connection, release_1) == 1
        assert migrate(connection, release_1) == 20
    finally:
        connection.close()
    assert raw_version(release_1) == "20"


def test_release_1_logs_move_apart_compressed_and_read_back_unchanged(
        release_1: Path) -> None:
    original = sqlite3.connect(FIXTURES / "release-1.db")
    try:
        logs = dict(original.execute("SELECT series_id, log_json FROM series_results"))
    finally:
        original.close()
    storage = Storage(release_1)
    try:
        for series_id, log_json in logs.items():
            events, profile = storage.result_log(series_id)
            assert events == json.loads(log_json)
            assert profile["name"] == "friendly"
        sizes = storage.log_sizes(1)
        assert sorted(raw for _, raw in sizes) == sorted(len(text.encode())
                                                         for text in logs.values())
        assert all(stored < raw for stored, raw in sizes)
        # Results stored before storage order existed are numbered in plan order.
        assert [r.series_id for r in storage.results_stored_after(1)] == [
            f"1-{n}" for n in range(6)]
        assert [r.stored_seq for r in storage.results_stored_after(1)] == [1, 2, 3, 4, 5, 6]
    finally:
        storage.close()
    raw = sqlite3.connect(release_1)
    try:
        columns = [row[1] for row in raw.execute("PRAGMA table_info(series_results)")]
    finally:
        raw.close()
    assert "log_json" not in columns and "profile_json" not in columns


def test_versions_vetted_before_the_vetted_hash_play_their_stored_code(tmp_path: Path) -> None:
    """Migration 6: an active version keeps its stored code as its vetted code; a
    rejection the arena's side caused is marked so, any other is the author's."""
    from arena.storage.vetting_records import expected_hash, rejection_cause

    path = tmp_path / "arena.db"
    Storage(path).close()
    raw = sqlite3.connect(path, isolation_level=None)
    raw.execute("UPDATE meta SET value='5' WHERE key='schema_version'")
    for column in ("vetted_hash", "rejection_cause"):
        raw.execute(f"ALTER TABLE bot_versions DROP COLUMN {column}")
    raw.execute("DROP TABLE voided_series")  # migration 7's, replayed after 6
    raw.execute("ALTER TABLE seasons DROP COLUMN outcomes_refused")  # migration 8's
    raw.execute("DROP TABLE ladder_rounds")  # migration 10's
    raw.execute("DROP TABLE ladder_kept")
    for table in ("league_moves", "league_seasons", "leagues"):  # migration 12's
        raw.execute(f"DROP TABLE {table}")
    raw.execute("DROP TABLE ladder_gates")  # migration 11's
    raw.execute("DROP TABLE seat_logs")  # migration 15's
    raw.execute("DROP TABLE challenges")  # migration 16's
    raw.execute("DROP TABLE human_games")  # migration 17's
    raw.execute("DROP TABLE standings_checkpoints")  # migration 19's
    raw.execute("DROP INDEX series_results_by_seat0")
    raw.execute("DROP INDEX series_results_by_seat1")
    raw.execute("DROP INDEX planned_series_by_meeting")  # migration 20's
    raw.execute("ALTER TABLE planned_series DROP COLUMN meeting")
    for column in ("game_winners_json", "played_by"):  # migration 9's
        raw.execute(f"ALTER TABLE series_results DROP COLUMN {column}")
    raw.execute("ALTER TABLE planned_series DROP COLUMN seed_nonce")  # migration 14's
    raw.execute("DROP TABLE season_deal_keys")
    rows = (("a@1", "active", ""), ("b@1", "rejected", "the arena could not vet it (x)"),
            ("c@1", "rejected", "c faulted: crash"), ("d@1", "received", ""))
    for seq, (bot_id, status, detail) in enumerate(rows, 1):
        raw.execute("INSERT INTO bots (id, seq, name, version, language, author, description, "
                    "content_hash, folder, source_folder, registered_at) VALUES "
                    "(?,?,?,?,'python','','',?,'/x','', '2026-01-01T00:00:00Z')",
                    (bot_id, seq, bot_id[0], "1", f"hash-{bot_id[0]}"))
        raw.execute("INSERT INTO bot_versions (bot_id, submitted_by, bundle, status, "
                    "status_detail, status_changed_at) VALUES (?, '', '', ?, ?, '')",
                    (bot_id, status, detail))
    raw.close()
    storage = Storage(path)
    try:
        assert [expected_hash(storage, bot_id) for bot_id in ("a@1", "b@1", "c@1", "d@1")] == [
            "hash-a", "", "", ""]
        assert [rejection_cause(storage, bot_id) for bot_id in ("a@1", "b@1", "c@1")] == [
            "", "arena", "author"]
    finally:
        storage.close()
