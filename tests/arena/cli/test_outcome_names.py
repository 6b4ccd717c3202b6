"""One name per field of a series' outcome, from the engine to every screen: the
Python outcome (``SeriesOutcome`` and the stored ``SeriesRecord``), the proto
``SeriesSummary`` and its ``Fault``, the JSON of ``arena series list --json``,
the website's ``/api/`` and the export's CSV name each figure alike, and carry the
same value under it."""

from __future__ import annotations

from dataclasses import fields

from hollywood.arena.v1 import arena_pb2

from arena.cli.export import RESULT_COLUMNS
from arena.cli.output import to_json
from arena.core.faults import BotFault, FaultKind
from arena.server.convert import series_message
from arena.storage import PlannedSeries, SeriesRecord
from arena.web.views import result_summary
from engine.series import SeriesResult
from tests.helpers.arena_helpers import result

PLAN_ONLY = {"index", "played", "seed_commitment", "seed_revealed", "seed_nonce"}
"""SeriesSummary fields of the plan, not of the outcome: its position, whether a
result is stored, and the commitment to its seed (arena.storage.deal_keys)."""
WEB_VIEWS = {"bots", "winner_bot", "verdicts", "fault_kind"}
"""What the website adds to the outcome for its pages (each a view of a field)."""


def a_record() -> tuple[PlannedSeries, SeriesRecord]:
    planned = PlannedSeries("1-3", 1, 3, 42, False, "a@1", "b@1")
    record = result("1-3", "a@1", "b@1", 1, games=(1, 2), hands=(3, 5), points=(40, 90),
                    seed=42, fault_seat=0)
    return planned, record


def test_the_engines_result_is_read_by_its_own_names() -> None:
    _, record = a_record()
    for name in (f.name for f in fields(SeriesResult)):
        if name != "game_winners":  # read through ``record.result`` only
            assert getattr(record, name) == getattr(record.result, name)


def test_every_proto_field_of_a_series_is_a_field_of_the_outcome() -> None:
    _, record = a_record()
    proto = [field.name for field in arena_pb2.SeriesSummary.DESCRIPTOR.fields]
    assert [name for name in proto if name not in PLAN_ONLY
            and not hasattr(record, name)] == []
    assert "winner" in proto and "winner_seat" not in proto
    fault_fields = {f.name for f in fields(BotFault)}
    assert {field.name for field in arena_pb2.Fault.DESCRIPTOR.fields} <= fault_fields


def test_proto_json_web_and_csv_carry_each_figure_under_its_name() -> None:
    planned, record = a_record()
    message = series_message(planned, record, revealed=True)
    listed = to_json(message)  # as `arena series list --json` prints each series
    page = result_summary(record)
    for name in ("series_id", "winner", "games_won", "hands_won", "points", "hands_played",
                 "capped", "wall_seconds"):
        value = getattr(record, name)
        expected = list(value) if isinstance(value, tuple) else value
        assert listed[name] == expected, name
        assert page[name] == expected, name
    assert (listed["winner"], page["winner"], page["winner_bot"]) == (1, 1, "b@1")
    assert (listed["seat0_bot"], listed["seat1_bot"]) == record.bots
    assert listed["fault"]["kind"] == "crash" and page["fault_kind"] == str(FaultKind.CRASH)
    assert [key for key in page if key not in WEB_VIEWS and not hasattr(record, key)] == []
    assert {"series_id", "seat0_bot", "seat1_bot", "winner", "winner_bot"} <= set(RESULT_COLUMNS)
    assert "winner_seat" not in RESULT_COLUMNS


def test_both_seats_faults_travel_in_the_api() -> None:
    planned, _ = a_record()
    both = result("1-3", "a@1", "b@1", None, fault_seat=0, both_failed_to_start=True)
    fault = series_message(planned, both, revealed=True).fault
    assert (fault.kind, fault.seat) == ("startup", 0)
    assert (fault.other_seat_fault.kind, fault.other_seat_fault.seat) == ("startup", 1)
    assert not fault.other_seat_fault.HasField("other_seat_fault")


def test_a_draw_is_winner_minus_one_in_proto_and_none_elsewhere() -> None:
    planned, _ = a_record()
    drawn = result("1-3", "a@1", "b@1", None)
    assert series_message(planned, drawn, revealed=True).winner == -1
    assert result_summary(drawn)["winner"] is None and drawn.winner is None
