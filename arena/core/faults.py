"""Bot faults: every way a bot can forfeit a series (docs/rules.md#faults)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Final

from arena.core.text import safe_text

MAX_FAULT_MESSAGE_CHARS: Final = 2000
"""A fault message quotes what the bot sent: never more than this is kept."""
MAX_STDERR_TAIL_CHARS: Final = 16 * 1024


class FaultKind(StrEnum):
    """Why a bot forfeited. The values are stored and shown to users."""

    STARTUP = "startup"
    """The bot did not come up or answer the handshake in time."""
    TIMEOUT = "timeout"
    """A decision took longer than the deadline plus what was left of the reserve."""
    CRASH = "crash"
    """The bot's process or container exited, or its connection broke."""
    MALFORMED = "malformed"
    """The reply could not be decoded or misses a required field."""
    OVERSIZED = "oversized"
    """The reply exceeded the arena's message size limit."""
    ILLEGAL_ACTION = "illegal_action"
    """The reply named an action that is not in the legal list."""
    PROTOCOL_MISMATCH = "protocol_mismatch"
    """The bot speaks a protocol version the arena does not."""
    OUT_OF_MEMORY = "out_of_memory"
    """The sandbox killed the bot for exceeding its memory limit."""
    DEACTIVATED = "deactivated"
    """The bot version was deactivated (too many faults in a row): it forfeits its
    remaining series without being started."""


@dataclass
class BotFault(Exception):
    """A fault attributed to one bot. Raised by the bot client and the sandboxes,
    completed with the seat and position by the match runner."""

    kind: FaultKind
    message: str
    seat: int | None = None
    hand_number: int | None = None
    decision_number: int | None = None
    stderr_tail: str = field(default="", repr=False)
    other_seat_fault: BotFault | None = None
    """Set when both bots failed to start: the other seat's fault (each forfeits)."""
    rejected_action: dict[str, object] | None = None
    """ILLEGAL_ACTION only: the action the bot sent (``Action.to_dict()``, melds
    included), so the arena can check from the log that it really was illegal."""
    bot_words: str = field(default="", repr=False)
    """What the bot itself said of its failure (its gRPC status details, e.g. its
    exception): its owner's alone, like its stderr; ``message`` is the arena's words."""

    def __post_init__(self) -> None:
        # Both texts come from the bot: neutralised and bounded before anyone
        # stores or shows them (arena.core.text).
        self.message = safe_text(self.message, MAX_FAULT_MESSAGE_CHARS)
        self.stderr_tail = safe_text(self.stderr_tail, MAX_STDERR_TAIL_CHARS,
                                     multiline=True, keep="tail")
        self.bot_words = safe_text(self.bot_words, MAX_FAULT_MESSAGE_CHARS)
        super().__init__(f"{self.kind}: {self.full_message}")

    def __str__(self) -> str:
        # The runner completes message and seat after raising, so format on demand.
        return f"{self.kind}: {self.full_message}"

    @property
    def full_message(self) -> str:
        """The arena's message and the bot's own words (for its owner: a local
        match, vetting, the owner's logs)."""
        return f"{self.message}: {self.bot_words}" if self.bot_words else self.message

    def __reduce__(self) -> tuple[type[BotFault], tuple[object, ...]]:
        # An outcome with a fault comes back from a cluster worker pickled; an
        # exception pickles its ``args`` (one string here), not its fields.
        return (type(self), (self.kind, self.message, self.seat, self.hand_number,
                             self.decision_number, self.stderr_tail, self.other_seat_fault,
                             self.rejected_action, self.bot_words))

    def to_dict(self) -> dict[str, object]:
        data: dict[str, object] = {
            "kind": str(self.kind),
            "message": self.message,
            "seat": self.seat,
            "hand_number": self.hand_number,
            "decision_number": self.decision_number,
            "stderr_tail": self.stderr_tail,
            "other_seat_fault": (None if self.other_seat_fault is None
                                 else self.other_seat_fault.to_dict()),
        }
        if self.rejected_action is not None:
            data["rejected_action"] = self.rejected_action
        if self.bot_words:
            data["bot_words"] = self.bot_words
        return data

    def public_dict(self) -> dict[str, object]:
        """``to_dict`` without the bot's stderr: what the arena says of the fault to
        everyone (kind, message, seat, hand, decision). The stderr is the owner's
        alone (``arena.core.seat_logs``)."""
        data = self.to_dict()
        del data["stderr_tail"]
        data.pop("bot_words", None)
        if self.other_seat_fault is not None:
            data["other_seat_fault"] = self.other_seat_fault.public_dict()
        return data

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> BotFault:
        """The fault ``to_dict`` wrote (as stored): ``ValueError`` for an unknown kind."""
        other = data.get("other_seat_fault")
        rejected = data.get("rejected_action")
        return cls(
            FaultKind(data["kind"]), str(data.get("message", "")),
            seat=_optional_int(data.get("seat")),
            hand_number=_optional_int(data.get("hand_number")),
            decision_number=_optional_int(data.get("decision_number")),
            stderr_tail=str(data.get("stderr_tail", "")),
            other_seat_fault=None if other is None else cls.from_dict(other),
            rejected_action=None if rejected is None else dict(rejected),
            bot_words=str(data.get("bot_words", "")),
        )


def _optional_int(value: object) -> int | None:
    return None if value is None else int(str(value))


SeatFaults = tuple[BotFault | None, BotFault | None]
"""Seat 0's and seat 1's own fault (None: that seat did not forfeit)."""


def faults_by_seat(fault: BotFault | None) -> SeatFaults:
    """Each seat's own fault in ``fault`` as stored (the forfeiting seat's, carrying
    the other seat's as ``other_seat_fault`` when both forfeited: see
    ``joint_fault``). A fault that names no seat is seat 0's. The one reading of
    the stored form: everything that asks "did this seat forfeit" asks it here."""
    if fault is None:
        return (None, None)
    first = fault.seat if fault.seat in (0, 1) else 0
    faults: list[BotFault | None] = [None, None]
    faults[first] = fault
    faults[1 - first] = fault.other_seat_fault
    return (faults[0], faults[1])


def one_seat_fault(seat: int, fault: BotFault) -> SeatFaults:
    """``fault`` as ``seat``'s alone (the other seat did not forfeit)."""
    return (fault, None) if seat == 0 else (None, fault)


def joint_fault(faults: SeatFaults) -> BotFault | None:
    """The one fault a series stores for ``faults`` (the inverse of
    ``faults_by_seat``): the forfeiting seat's, or, when both forfeited, seat 0's
    carrying seat 1's, its message naming both. Each fault's ``seat`` is set."""
    first, second = faults
    for seat, fault in enumerate(faults):
        if fault is not None:
            fault.seat = seat
    if first is None or second is None:
        return first or second
    return BotFault(first.kind, f"{first.message} (seat 1 forfeited too: {second.kind}: "
                    f"{second.message})", seat=0, hand_number=first.hand_number,
                    decision_number=first.decision_number, stderr_tail=first.stderr_tail,
                    other_seat_fault=second, rejected_action=first.rejected_action,
                    bot_words=first.bot_words)


def forfeit_winner(faults: SeatFaults) -> int | None:
    """Who wins a forfeited series: the seat that did not forfeit; nobody (a draw)
    when both did."""
    first, second = faults
    if first is not None and second is not None:
        return None
    if first is None and second is None:
        raise ValueError("a forfeit needs the fault of at least one seat")
    return 1 if first is not None else 0


ARENA_OVERLOAD: Final = "arena_overload"
"""How a series voided by :class:`ArenaOverload` is stored (never as a result)."""


class ArenaOverload(RuntimeError):
    """A bot ran out of time because the machine did not run it (or the arena was
    late), not because of anything it did: the series is void, not a fault of either
    bot, and is played again from the same seed and seats (docs/arena.md)."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message

    def __reduce__(self) -> tuple[type[ArenaOverload], tuple[str]]:
        # It comes back from a cluster worker pickled, like a fault.
        return (type(self), (self.message,))
