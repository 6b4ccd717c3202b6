"""A seat's log as kept (issue 36): debug notes neutralised and bounded per decision
and per series, stderr bounded with a marker saying what was cut, and a public fault
that carries neither the bot's stderr nor its own words."""

from __future__ import annotations

from arena.core.faults import BotFault, FaultKind
from arena.core.seat_logs import (
    NOTE_BYTES,
    SERIES_NOTE_BYTES,
    DecisionLog,
    DecisionRecorder,
    SeatLog,
    cut_utf8,
    debug_note,
    stderr_text,
)


def test_a_note_is_cut_at_a_character_boundary_and_its_controls_escaped() -> None:
    assert cut_utf8("ééé", 5) == "éé"  # 2 bytes each: the third would be cut in half
    assert debug_note("a\x1b[2Jb\nc") == "a\\x1b[2Jb\\x0ac"
    assert debug_note("x" * 300) == "x" * NOTE_BYTES
    assert len(debug_note("€" * 100).encode()) == 255  # 85 whole 3-byte characters
    assert debug_note("") == ""


def test_notes_past_the_series_budget_are_dropped_and_counted() -> None:
    recorder = DecisionRecorder()
    full = "n" * NOTE_BYTES
    for number in range(SERIES_NOTE_BYTES // NOTE_BYTES + 3):
        recorder.record(0, 1, number + 1, 0.002, full)
    recorder.record(1, 1, 999, 0.5, "the other seat has its own budget")
    log = recorder.seat_log(0)
    kept = [decision.debug for decision in log.decisions]
    assert kept.count(full) == 256 and kept[256:] == ["", "", ""]  # 256 x 256 B = 64 KiB
    assert log.notes_dropped == 3
    assert log.decisions[0] == DecisionLog(1, 1, 2.0, full)  # the time in milliseconds
    assert recorder.seat_log(1).decisions == (
        DecisionLog(1, 999, 500.0, "the other seat has its own budget"),)


def test_stderr_past_the_limit_keeps_its_end_behind_a_marker() -> None:
    assert stderr_text(b"line 1\nline 2\n", 14) == "line 1\nline 2\n"
    assert stderr_text(b"\x1b[31mred\ttab\n", 13) == "\\x1b[31mred\ttab\n"
    assert stderr_text(b"the end\n", 1000) == (
        "[... the first 992 bytes of this series' 1000 bytes of stderr were cut: the last "
        "8 bytes are kept ...]\nthe end\n")


def test_a_seat_log_reads_back_as_written() -> None:
    log = SeatLog(1, "out\n", 4, (DecisionLog(2, 7, 12.5, "why"),), 1, "bot error: boom")
    assert SeatLog.from_dict(log.to_dict()) == log


def test_the_public_fault_keeps_the_arenas_words_only() -> None:
    other = BotFault(FaultKind.STARTUP, "no socket", seat=1, stderr_tail="secret 2",
                     bot_words="mine too")
    fault = BotFault(FaultKind.CRASH, "the bot failed Decide with status UNKNOWN", seat=0,
                     hand_number=3, decision_number=12, stderr_tail="secret 1",
                     bot_words="bot error: KeyError: 'plan'", other_seat_fault=other)
    public = fault.public_dict()
    assert public == {
        "kind": "crash", "message": "the bot failed Decide with status UNKNOWN", "seat": 0,
        "hand_number": 3, "decision_number": 12,
        "other_seat_fault": {"kind": "startup", "message": "no socket", "seat": 1,
                             "hand_number": None, "decision_number": None,
                             "other_seat_fault": None}}
    assert fault.full_message == ("the bot failed Decide with status UNKNOWN: "
                                  "bot error: KeyError: 'plan'")
    assert BotFault.from_dict(fault.to_dict()) == fault  # the whole fault, for its owner


def test_notes_repeated_or_many_are_kept_as_each_alone() -> None:
    recorder = DecisionRecorder()
    for number in range(1, 2502):  # more distinct notes than the recorder remembers
        recorder.record(number % 2, 1, number, 0.001, f"pick {number % 1200}\x07")
    recorder.record(0, 2, 2502, 0.25, "pick 5\x07")  # remembered, then forgotten: same
    recorder.record(0, 2, 2503, 0.25, "é" * 300)  # too long to remember: cut all the same
    log = recorder.seat_log(0)
    assert log.decisions[0] == DecisionLog(1, 2, 1.0, "pick 2\\x07")
    assert log.decisions[-2:] == (DecisionLog(2, 2502, 250.0, "pick 5\\x07"),
                                  DecisionLog(2, 2503, 250.0, "é" * 128))
    assert recorder.seat_log(1).decisions[599] == DecisionLog(1, 1199, 1.0, "pick 1199\\x07")
    assert log.notes_dropped == 0


def test_a_seat_logs_decisions_are_stored_as_one_dict_each() -> None:
    recorder = DecisionRecorder()
    recorder.record(1, 3, 40, 0.0123456, "why")
    recorder.record(1, 3, 42, 1.5)
    assert recorder.seat_log(1, "err\n", 4).to_dict() == {
        "seat": 1, "stderr": "err\n", "stderr_bytes": 4,
        "decisions": [
            {"hand_number": 3, "decision_number": 40, "think_ms": 12.346, "debug": "why"},
            {"hand_number": 3, "decision_number": 42, "think_ms": 1500.0, "debug": ""}],
        "notes_dropped": 0, "fault_words": ""}
