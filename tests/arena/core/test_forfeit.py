"""One forfeit: each seat's own fault on the outcome (``SeriesOutcome.seat_faults``),
made by one constructor (``SeriesOutcome.forfeit``), stored in the unchanged form
(the first forfeiting seat's fault carrying the other's) and read back per seat."""

from __future__ import annotations

import json

import pytest

from arena.core.faults import BotFault, FaultKind, faults_by_seat, forfeit_winner, joint_fault
from arena.core.series import SeriesOutcome
from arena.season.verify import verify_outcome
from engine.profiles import FRIENDLY
from engine.series import Series


def unstarted() -> Series:
    return Series(5, FRIENDLY, max_hands=20, swap_seats=False)


def check(outcome: SeriesOutcome) -> None:
    verify_outcome(outcome, seed=5, profile=FRIENDLY, max_hands=20, swap_seats=False)


def test_both_seats_forfeiting_is_a_draw_each_seat_holding_its_own_fault() -> None:
    crash = BotFault(FaultKind.CRASH, "exited")
    startup = BotFault(FaultKind.STARTUP, "no handshake")
    outcome = SeriesOutcome.forfeit("1-0", unstarted(), (crash, startup), (0.0, 0.0), 1.5)
    assert outcome.winner is None
    assert outcome.forfeiting_seats == (0, 1)
    first, second = outcome.seat_faults
    assert first is not None and second is not None
    assert (first.kind, first.seat) == (FaultKind.CRASH, 0)
    assert (second.kind, second.seat, second.message) == (FaultKind.STARTUP, 1, "no handshake")
    assert first.message == "exited (seat 1 forfeited too: startup: no handshake)"
    check(outcome)


@pytest.mark.parametrize("seat", [0, 1])
def test_one_seat_forfeiting_loses_to_the_other(seat: int) -> None:
    fault = BotFault(FaultKind.DEACTIVATED, "bot is deactivated")
    faults = (fault, None) if seat == 0 else (None, fault)
    outcome = SeriesOutcome.forfeit("1-0", unstarted(), faults, (0.0, 0.0), 0.0)
    assert outcome.winner == 1 - seat
    assert outcome.forfeiting_seats == (seat,)
    assert outcome.seat_faults[seat] is fault and outcome.seat_faults[1 - seat] is None
    assert fault.seat == seat and fault.message == "bot is deactivated"
    check(outcome)


def test_the_stored_form_reads_back_per_seat() -> None:
    # Stored as before this redesign: seat 0's fault carrying seat 1's.
    both = joint_fault((BotFault(FaultKind.TIMEOUT, "slow"),
                        BotFault(FaultKind.OUT_OF_MEMORY, "killed")))
    assert both is not None
    stored = json.loads(json.dumps(both.to_dict()))
    assert (stored["seat"], stored["other_seat_fault"]["seat"]) == (0, 1)
    first, second = faults_by_seat(BotFault.from_dict(stored))
    assert first is not None and second is not None
    assert (first.kind, second.kind) == (FaultKind.TIMEOUT, FaultKind.OUT_OF_MEMORY)
    only = BotFault(FaultKind.CRASH, "exited", seat=1)
    assert faults_by_seat(only) == (None, only)
    assert faults_by_seat(None) == (None, None)


def test_a_fault_naming_no_seat_is_seat_zeros() -> None:
    fault = BotFault(FaultKind.CRASH, "exited")
    assert faults_by_seat(fault) == (fault, None)


def test_a_forfeit_without_a_fault_is_refused() -> None:
    with pytest.raises(ValueError, match="at least one seat"):
        forfeit_winner((None, None))
    with pytest.raises(ValueError, match="at least one seat"):
        SeriesOutcome.forfeit("1-0", unstarted(), (None, None), (0.0, 0.0), 0.0)
