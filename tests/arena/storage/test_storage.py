"""Storage: schema versioning, bot registration rules, one-transaction results,
plans stored round by round."""

from __future__ import annotations

import sqlite3
from dataclasses import fields, replace
from pathlib import Path

import pytest

from arena.core.faults import BotFault, FaultKind
from arena.core.manifest import content_hash, iter_bot_files
from arena.core.seat_logs import SeatLog
from arena.core.series import SeriesOutcome
from arena.core.settings import SeasonConfig
from arena.storage import ConflictError, NotFoundError, Storage, StorageError
from arena.storage.seat_logs import read_seat_logs
from engine.profiles import FRIENDLY
from engine.series import SeriesResult
from tests.helpers.arena_helpers import fault, made_up_outcome, make_bot_folder


def register(storage: Storage, folder: Path, name: str, version: str = "1.0.0"):
    return storage.register_bot(
        name=name, version=version, language="python", author="", description="",
        content_hash=content_hash(folder), source_folder=folder,
        files=list(iter_bot_files(folder)))


def season(storage: Storage, ids: list[str]) -> int:
    plan = [(42, False, ids[0], ids[1]), (42, True, ids[1], ids[0])]
    return storage.create_season(name="", config={"sandbox": "process"},
                                 profile=FRIENDLY, bot_ids=ids, plan=plan).id


def test_fresh_database_uses_wal_and_records_schema_version(tmp_path: Path) -> None:
    Storage(tmp_path / "a.db").close()
    raw = sqlite3.connect(tmp_path / "a.db")
    assert raw.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert raw.execute("SELECT value FROM meta WHERE key='schema_version'").fetchone()[0] == "20"
    columns = [row[1] for row in raw.execute("PRAGMA table_info(planned_series)")]
    assert columns == ["id", "season_id", "idx", "seed", "swap_seats", "seat0_bot",
                       "seat1_bot", "round", "seed_nonce", "meeting"]


def test_newer_schema_is_refused_saying_what_to_do(tmp_path: Path) -> None:
    Storage(tmp_path / "a.db").close()
    raw = sqlite3.connect(tmp_path / "a.db")
    raw.execute("UPDATE meta SET value='99' WHERE key='schema_version'")
    raw.commit()
    raw.close()
    with pytest.raises(StorageError) as refused:
        Storage(tmp_path / "a.db")
    message = str(refused.value)
    assert str(tmp_path / "a.db") in message
    assert "schema version 99 is newer than this arena's version 20" in message
    assert "written by a newer arena release" in message and "another --db" in message
    raw = sqlite3.connect(tmp_path / "a.db")
    assert raw.execute("SELECT value FROM meta").fetchone()[0] == "99"  # left alone


def test_a_file_that_is_not_an_arena_database_is_refused(tmp_path: Path) -> None:
    raw = sqlite3.connect(tmp_path / "other.db")
    raw.execute("CREATE TABLE bots (x)")
    raw.commit()
    raw.close()
    with pytest.raises(StorageError, match=r"from version 0 to 1 .* failed: table bots "
                                           r"already exists; the file is unchanged at version 0"):
        Storage(tmp_path / "other.db")


def test_registration_copies_files_and_is_idempotent(tmp_path: Path) -> None:
    storage = Storage(tmp_path / "db" / "a.db")
    folder = make_bot_folder(tmp_path, "alpha")
    record, created = register(storage, folder, "alpha")
    assert created and record.id == "alpha@1.0.0"
    assert (record.folder / "bot.toml").read_text() == (folder / "bot.toml").read_text()
    again, created_again = register(storage, folder, "alpha")
    assert not created_again and again == record
    assert [bot.id for bot in storage.list_bots()] == ["alpha@1.0.0"]


def test_same_version_other_content_is_a_conflict_and_changes_nothing(tmp_path: Path) -> None:
    storage = Storage(tmp_path / "a.db")
    folder = make_bot_folder(tmp_path, "alpha")
    record, _ = register(storage, folder, "alpha")
    (folder / "alpha.py").write_text("print('changed')\n")
    before = storage.count_rows()
    with pytest.raises(ConflictError, match="already registered with different content"):
        register(storage, folder, "alpha")
    assert storage.count_rows() == before
    assert (record.folder / "alpha.py").read_text() == "pass\n"


def test_new_version_is_a_separate_entry(tmp_path: Path) -> None:
    storage = Storage(tmp_path / "a.db")
    register(storage, make_bot_folder(tmp_path, "alpha", "1.0.0"), "alpha", "1.0.0")
    register(storage, make_bot_folder(tmp_path, "alpha", "2.0.0", code="x = 2\n"),
             "alpha", "2.0.0")
    assert [b.id for b in storage.list_bots()] == ["alpha@1.0.0", "alpha@2.0.0"]
    assert storage.resolve_bot("alpha").id == "alpha@2.0.0"
    assert storage.resolve_bot("alpha@1.0.0").version == "1.0.0"
    with pytest.raises(NotFoundError, match="unknown bot 'beta'"):
        storage.resolve_bot("beta")


def test_result_is_stored_whole_with_everything(tmp_path: Path) -> None:
    storage = Storage(tmp_path / "a.db")
    ids = [register(storage, make_bot_folder(tmp_path, n), n)[0].id for n in ("a", "b")]
    season_id = season(storage, ids)
    planned = storage.planned_series(season_id)[0]
    outcome = made_up_outcome(planned.series_id, winner=0, games_won=(2, 1), hands_won=(5, 3),
                          points=(250, 90), fault=fault(1),
                          log=[{"type": "series_start", "seed": 42}])
    returned = storage.store_result(planned, outcome, {"name": "friendly"})
    stored = storage.get_result(planned.series_id)
    assert stored is not None
    assert returned == stored and stored.stored_seq == 1  # the caller needs no re-read
    assert (stored.winner, stored.games_won, stored.points) == (0, (2, 1), (250, 90))
    # The arena's words stay with the result; the bot's stderr goes to its seat's log.
    assert stored.fault == BotFault(FaultKind.TIMEOUT, "too slow", seat=1, hand_number=3,
                                    decision_number=7)
    assert read_seat_logs(storage, planned.series_id) == [SeatLog(1, "last words", 10)]
    assert stored.forfeiting_seats == (1,)
    assert (stored.seed, stored.bots) == (42, (ids[0], ids[1]))
    log, profile = storage.result_log(planned.series_id)
    assert log == [{"type": "series_start", "seed": 42}] and profile == {"name": "friendly"}


def test_second_result_for_a_planned_series_is_dropped(tmp_path: Path) -> None:
    storage = Storage(tmp_path / "a.db")
    ids = [register(storage, make_bot_folder(tmp_path, n), n)[0].id for n in ("a", "b")]
    planned = storage.planned_series(season(storage, ids))[0]
    assert storage.store_result(planned, made_up_outcome(planned.series_id, winner=0), {})
    assert storage.store_result(planned, made_up_outcome(planned.series_id, winner=1), {}) is None
    stored = storage.get_result(planned.series_id)
    assert stored is not None and stored.winner == 0
    assert storage.count_rows()["series_results"] == 1


def outcome_part(outcome: SeriesOutcome) -> SeriesOutcome:
    """The ``SeriesOutcome`` in ``outcome`` (a stored record is one plus its place)."""
    return SeriesOutcome(**{f.name: getattr(outcome, f.name) for f in fields(SeriesOutcome)})


def test_a_stored_outcome_reads_back_equal_with_its_typed_faults(tmp_path: Path) -> None:
    """Everything an outcome holds comes back as it went in: the engine's result
    (who won each game included), both seats' faults as ``BotFault``s (an illegal
    action's rejected action too), the timings, the player, and the log apart;
    the bot's stderr tail apart too, in the seat's log."""
    storage = Storage(tmp_path / "a.db")
    ids = [register(storage, make_bot_folder(tmp_path, n), n)[0].id for n in ("a", "b")]
    first, second, *_ = storage.planned_series(season(storage, ids))
    both = BotFault(FaultKind.STARTUP, "no socket", seat=0, stderr_tail="boom",
                    other_seat_fault=BotFault(FaultKind.OUT_OF_MEMORY, "killed", seat=1))
    illegal = BotFault(FaultKind.ILLEGAL_ACTION, "'knock 2c' rejected", seat=1,
                       hand_number=2, decision_number=9,
                       rejected_action={"kind": "knock", "card": "2c"})
    outcomes = [
        SeriesOutcome(first.series_id, SeriesResult(None, (0, 0), (None, None, None),
                                             ((0, 0, 0), (0, 0, 0)), (0, 0), (0, 0), 0,
                                             False), both, (0.0, 0.0), 0.25,
                      [{"type": "series_start"}], "tls://10.0.0.7:4000"),
        SeriesOutcome(second.series_id, SeriesResult(0, (1, 0), (0, None, 1),
                                              ((100, 20, 0), (0, 15, 30)), (4, 2), (120, 45),
                                              6, False), illegal, (1.5, 2.25), 9.5,
                      [{"type": "series_start", "seed": 7}]),
    ]
    for planned, outcome in zip((first, second), outcomes, strict=True):
        storage.store_result(planned, outcome, {})
        stored = storage.get_result(planned.series_id)
        assert stored is not None and isinstance(stored.fault, BotFault)
        log, _ = storage.result_log(planned.series_id)
        assert outcome.fault is not None
        # All but the bot's stderr, which goes to the seat's log (its owner's alone).
        public = replace(outcome, fault=BotFault.from_dict(outcome.fault.public_dict()))
        assert replace(outcome_part(stored), log=log) == public
    assert [(log.seat, log.stderr)
            for log in read_seat_logs(storage, first.series_id)] == [(0, "boom")]
    reloaded = storage.results(first.season_id)
    assert [r.forfeiting_seats for r in reloaded] == [(0, 1), (1,)]


def test_failed_result_write_leaves_nothing_behind(tmp_path: Path) -> None:
    storage = Storage(tmp_path / "a.db")
    ids = [register(storage, make_bot_folder(tmp_path, n), n)[0].id for n in ("a", "b")]
    planned = storage.planned_series(season(storage, ids))[0]
    unserialisable = made_up_outcome(planned.series_id, winner=0, log=[{"bad": object()}])
    with pytest.raises(TypeError):
        storage.store_result(planned, unserialisable, {})
    assert storage.get_result(planned.series_id) is None
    assert [p.series_id for p in storage.pending_series(planned.season_id)] == [
        planned.series_id, f"{planned.season_id}-1"]


def test_transaction_rolls_back_everything_on_error(tmp_path: Path) -> None:
    storage = Storage(tmp_path / "a.db")
    ids = [register(storage, make_bot_folder(tmp_path, n), n)[0].id for n in ("a", "b")]
    before = storage.count_rows()
    with pytest.raises(sqlite3.IntegrityError), storage.transaction() as db:
        db.execute("INSERT INTO seasons (name, config_json, profile_json, status, created_at,"
                   " updated_at) VALUES ('x', '{}', '{}', 'created', 'now', 'now')")
        db.execute("INSERT INTO season_bots VALUES (1, 0, 'nobody@0')")  # foreign key fails
    assert storage.count_rows() == before
    assert ids


def test_plan_is_stored_with_the_season(tmp_path: Path) -> None:
    storage = Storage(tmp_path / "a.db")
    ids = [register(storage, make_bot_folder(tmp_path, n), n)[0].id for n in ("a", "b")]
    season_id = season(storage, ids)
    reopened = Storage(tmp_path / "a.db")
    planned = reopened.planned_series(season_id)
    assert [(p.series_id, p.seed, p.swap_seats, p.bots) for p in planned] == [
        (f"{season_id}-0", 42, False, (ids[0], ids[1])),
        (f"{season_id}-1", 42, True, (ids[1], ids[0])),
    ]
    record = reopened.get_season(season_id)
    assert (record.series_total, record.series_done, record.status) == (2, 0, "created")
    assert record.config == SeasonConfig(sandbox="process")  # the defaults filled in


def test_a_version_string_never_becomes_a_path(tmp_path: Path) -> None:
    storage = Storage(tmp_path / "db" / "a.db")
    folder = make_bot_folder(tmp_path, "alpha")
    record, _ = register(storage, folder, "alpha", version="../../escape")
    assert record.id == "alpha@../../escape"
    assert record.folder.parent == (tmp_path / "db" / "a.bots").resolve()
    assert not (tmp_path / "escape").exists()


def test_two_databases_in_one_directory_keep_their_bot_copies_apart(tmp_path: Path) -> None:
    first, second = Storage(tmp_path / "one.db"), Storage(tmp_path / "two.db")
    one, _ = register(first, make_bot_folder(tmp_path / "a", "alpha", code="a = 1\n"), "alpha")
    two, _ = register(second, make_bot_folder(tmp_path / "b", "alpha", code="b = 2\n"), "alpha")
    assert one.folder != two.folder
    assert (one.folder / "alpha.py").read_text() == "a = 1\n"
    assert (two.folder / "alpha.py").read_text() == "b = 2\n"


def test_rounds_are_added_in_order_with_ids_numbered_on(tmp_path: Path) -> None:
    storage = Storage(tmp_path / "a.db")
    ids = [register(storage, make_bot_folder(tmp_path, n), n)[0].id for n in ("a", "b")]
    season_id = season(storage, ids)
    assert not storage.add_round(season_id, 3, [(7, False, ids[0], ids[1])])  # skips 2
    assert not storage.add_round(season_id, 1, [(7, False, ids[0], ids[1])])  # stored
    assert storage.add_round(season_id, 2, [(7, False, ids[1], ids[0])])
    assert not storage.add_round(season_id, 2, [(8, False, ids[0], ids[1])])  # twice
    planned = storage.planned_series(season_id)
    assert [(p.series_id, p.round, p.seed, p.bots) for p in planned] == [
        (f"{season_id}-0", 1, 42, (ids[0], ids[1])),
        (f"{season_id}-1", 1, 42, (ids[1], ids[0])),
        (f"{season_id}-2", 2, 7, (ids[1], ids[0])),
    ]
    assert storage.get_season(season_id).series_total == 3
    assert storage.get_planned(f"{season_id}-2").round == 2


def test_results_by_round(tmp_path: Path) -> None:
    storage = Storage(tmp_path / "a.db")
    ids = [register(storage, make_bot_folder(tmp_path, n), n)[0].id for n in ("a", "b")]
    season_id = season(storage, ids)
    storage.add_round(season_id, 2, [(7, False, ids[1], ids[0])])
    assert storage.results_by_round(season_id) == [[], []]
    first, _, third = storage.planned_series(season_id)
    storage.store_result(third, made_up_outcome(third.series_id, winner=1), {})
    storage.store_result(first, made_up_outcome(first.series_id, winner=0), {})
    rounds = storage.results_by_round(season_id)
    assert [[r.series_id for r in results] for results in rounds] == [
        [first.series_id], [third.series_id]]
    assert rounds[1][0].winner == 1


def test_a_seasons_rows_are_read_by_index_whatever_is_stored(tmp_path: Path) -> None:
    """Reading one season's plan or its results in storage order never scans every
    stored row (a thousand-bot round robin stores a million), and no index only
    repeats a unique one (each costs a B-tree write per stored row)."""
    storage = Storage(tmp_path / "a.db")
    plans = {
        "SELECT * FROM planned_series WHERE season_id=? ORDER BY idx": "planned_series",
        "SELECT * FROM series_results WHERE season_id=? AND stored_seq > ? "
        "ORDER BY stored_seq": "series_results",
        "SELECT COALESCE(MAX(stored_seq), 0) FROM series_results WHERE season_id=?":
            "series_results",
    }
    for sql, table in plans.items():
        steps = " / ".join(row["detail"] for row in storage.query(
            "EXPLAIN QUERY PLAN " + sql, (1,) * sql.count("?")))
        assert f"SCAN {table}" not in steps and "USING" in steps and "INDEX" in steps, steps
    indexes = {row["name"] for row in storage.query(
        "SELECT name FROM sqlite_master WHERE type='index' "
        "AND tbl_name IN ('planned_series', 'series_results')")}
    assert "planned_series_by_season" not in indexes
    assert "series_results_by_season" not in indexes
    storage.close()
