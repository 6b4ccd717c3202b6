"""The match loop tells both seats at once that a hand or the series ended
(``arena.match.loop``): seat 0's notification is still in flight when seat 1's
arrives, and the next Decide of either seat is asked only once both answered. The
stand-ins meet at a barrier with a bounded wait: told one after the other, seat 0
would give up waiting and the test fails."""

from __future__ import annotations

import threading
from typing import Any

import pytest

from arena.core.limits import TimeLimits
from arena.match.loop import play_match
from engine import Series
from engine.actions import Action

WAIT_S = 10.0


class Seat:
    """Plays the first legal action; logs every call in ``log`` (shared by both)."""

    def __init__(self, seat: int, log: list[tuple[int, str]], meet: threading.Barrier) -> None:
        self.seat, self.log, self.meet = seat, log, meet
        self.met_the_other: list[bool] = []
        self._lock = threading.Lock()

    def _note(self, what: str) -> None:
        with self._lock:
            self.log.append((self.seat, what))

    def decide(self, request: Any, legal: list[Action], timeout: float) -> Action:
        self._note("decide")
        return legal[0]

    def _notified(self, what: str) -> bool:
        self._note(f"{what} begun")
        try:
            self.meet.wait(WAIT_S)  # both seats inside their notification at once
            self.met_the_other.append(True)
        except threading.BrokenBarrierError:
            self.met_the_other.append(False)
            self.meet.reset()
        self._note(f"{what} done")
        return True

    def hand_ended(self, request: Any, timeout: float) -> bool:
        return self._notified("hand_ended")

    def series_ended(self, request: Any, timeout: float) -> bool:
        return self._notified("series_ended")


def test_both_seats_are_told_at_once_and_answer_before_the_next_decision() -> None:
    log: list[tuple[int, str]] = []
    meet = threading.Barrier(2)
    seats = (Seat(0, log, meet), Seat(1, log, meet))
    played = play_match(seats, Series(seed=3, max_hands=2), TimeLimits())  # type: ignore[arg-type]
    assert played.outcome.fault is None and played.outcome.hands_played == 2
    # Two hands ended and the series ended: three notifications per seat, each
    # while the other seat's was in flight.
    assert [seat.met_the_other for seat in seats] == [[True] * 3, [True] * 3]
    # After the first hand, no Decide until both seats' notifications are done.
    first = next(i for i, (_, what) in enumerate(log) if what == "hand_ended begun")
    next_decide = next(i for i in range(first, len(log)) if log[i][1] == "decide")
    assert sorted(log[first:next_decide]) == [(0, "hand_ended begun"), (0, "hand_ended done"),
                                              (1, "hand_ended begun"), (1, "hand_ended done")]
    assert sorted(log[-4:]) == [(0, "series_ended begun"), (0, "series_ended done"),
                                (1, "series_ended begun"), (1, "series_ended done")]


class Failing(Seat):
    def hand_ended(self, request: Any, timeout: float) -> bool:
        if self.seat == 1:
            raise RuntimeError("seat 1's notification broke")
        return True


def test_what_seat_ones_notification_raises_reaches_the_caller() -> None:
    log: list[tuple[int, str]] = []
    meet = threading.Barrier(2)
    seats = (Failing(0, log, meet), Failing(1, log, meet))
    with pytest.raises(RuntimeError, match="seat 1's notification broke"):
        play_match(seats, Series(seed=3, max_hands=1), TimeLimits())  # type: ignore[arg-type]
