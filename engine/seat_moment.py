"""A seat's view of a hand, taken at one moment and read later (lazily).

Making a :class:`~engine.observation.SeatView` at every decision costs more than the
engine's own work for one; most decisions of a bot in the arena's process are never
rendered beyond their legal actions. A :class:`SeatMoment` only notes the hand and
how many moves it had; its ``view()`` is that seat view, read from the hand while
it has not moved since, else from a replay of the hand up to that moment (a bot
that kept its observation and reads it after the series went on). What the seat
sees is still only ever decided by ``SeatView`` (docs/rules.md#hidden-information).

Read it on the thread that moves the hand, or while the hand stands still (as a bot
does during its decision, or in a notification about a finished hand): a thread of
a bot's own reading while another applies a move could meet that move half made.
"""

from __future__ import annotations

from engine.hand import Hand
from engine.observation import SeatView


class SeatMoment:
    """``seat``'s view of ``hand`` as it stands now, made when asked (see the module)."""

    __slots__ = ("_hand", "_move_count", "_seat")

    def __init__(self, hand: Hand, seat: int) -> None:
        self._hand = hand
        self._seat = seat
        self._move_count = hand.move_count

    def view(self) -> SeatView:
        """The seat's view at the moment this was made (made anew at each call)."""
        hand = self._hand
        if hand.move_count != self._move_count:
            hand = _replayed(hand, self._move_count)
        return SeatView(hand, self._seat)


def _replayed(hand: Hand, move_count: int) -> Hand:
    """A copy of ``hand`` after only its first ``move_count`` moves."""
    copy = Hand(hand.deal, hand.dealer, hand.profile, hand.hand_number)
    for move in hand.moves[:move_count]:
        copy.apply(move.action)
    return copy
