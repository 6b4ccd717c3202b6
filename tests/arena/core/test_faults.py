"""BotFault: what users read and what gets stored."""

from __future__ import annotations

import json

from arena.core.faults import BotFault, FaultKind


def test_text_follows_a_message_completed_after_raising() -> None:
    fault = BotFault(FaultKind.CRASH, "connection reset")
    fault.message = "connection reset (exit code 137)"
    assert str(fault) == "crash: connection reset (exit code 137)"


def test_both_seats_failing_is_stored_with_each_fault() -> None:
    other = BotFault(FaultKind.STARTUP, "no handshake", seat=1)
    fault = BotFault(FaultKind.CRASH, "exited", seat=0, other_seat_fault=other)
    stored = json.loads(json.dumps(fault.to_dict()))
    assert stored["seat"] == 0 and stored["kind"] == "crash"
    assert stored["other_seat_fault"]["seat"] == 1
    assert stored["other_seat_fault"]["kind"] == "startup"
    assert BotFault(FaultKind.TIMEOUT, "slow").to_dict()["other_seat_fault"] is None
