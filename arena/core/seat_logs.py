"""What one seat of a series leaves for its owner alone (docs/arena.md, "Your
bot's logs"): its stderr during the series (bounded, the tail kept), and for each
of its decisions the time the fair clock charged and the debug note the bot sent
with its move (``DecideResponse.debug``).

A ``SeatLog`` travels in the ``SeriesOutcome`` (``seat_logs``) and is stored apart
from the results (``arena.storage.seat_logs``); no public page, JSON or RPC reads
it. Everything in it is the bot's text: neutralised and bounded here, before
anyone stores or shows it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Final

from arena.core.text import neutralise

SERIES_STDERR_BYTES: Final = 256 * 1024
"""How much of a seat's stderr one series keeps (the end of it)."""
NOTE_BYTES: Final = 256
"""How much of one decision's debug note is kept (the rest is cut)."""
SERIES_NOTE_BYTES: Final = 64 * 1024
"""How many bytes of debug notes one seat may leave in a series (later ones dropped)."""


def cut_utf8(text: str, limit: int) -> str:
    """The longest start of ``text`` whose UTF-8 is at most ``limit`` bytes (never
    a character cut in half)."""
    raw = text.encode("utf-8", errors="replace")
    if len(raw) <= limit:
        return text
    return raw[:limit].decode("utf-8", errors="ignore")


def debug_note(text: str) -> str:
    """A bot's debug note as kept: control characters escaped (a note is one line),
    at most ``NOTE_BYTES`` bytes."""
    return cut_utf8(neutralise(text), NOTE_BYTES) if text else ""


def stderr_text(raw: bytes, total: int) -> str:
    """A seat's stderr as kept: ``raw`` is the end of the ``total`` bytes the bot
    wrote (the sandbox read at most ``SERIES_STDERR_BYTES``); a marker says what was
    cut. Control characters other than newlines and tabs are escaped."""
    text = neutralise(raw.decode("utf-8", errors="replace"), multiline=True)
    if total > len(raw):
        return (f"[... the first {total - len(raw)} bytes of this series' {total} bytes of "
                f"stderr were cut: the last {len(raw)} bytes are kept ...]\n{text}")
    return text


def think_ms_of(think_s: float) -> float:
    """A decision's charged time as a ``DecisionLog`` holds it: milliseconds to the
    microsecond."""
    return round(think_s * 1000.0, 3)


@dataclass(frozen=True)
class DecisionLog:
    """One decision of a seat: where it was, the time charged (milliseconds, the fair
    clock's reading, to the microsecond: ``think_ms_of``) and the bot's debug note
    ("" without one). Its fields are its stored form: storage writes the dataclass
    as it is (``arena.storage.seat_log_rows``)."""

    hand_number: int
    decision_number: int
    think_ms: float
    debug: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {"hand_number": self.hand_number, "decision_number": self.decision_number,
                "think_ms": round(self.think_ms, 3), "debug": self.debug}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> DecisionLog:
        return cls(int(data["hand_number"]), int(data["decision_number"]),
                   float(data["think_ms"]), str(data.get("debug", "")))


@dataclass(frozen=True)
class SeatLog:
    """One seat's log of one series (see the module)."""

    seat: int
    stderr: str = ""
    stderr_bytes: int = 0
    """How many bytes the bot wrote to stderr in the series (kept or not)."""
    decisions: tuple[DecisionLog, ...] = field(default_factory=tuple)
    notes_dropped: int = 0
    """Debug notes dropped past ``SERIES_NOTE_BYTES``."""
    fault_words: str = ""
    """When the seat forfeited: what the bot itself said of it (``BotFault.bot_words``)."""

    def to_dict(self) -> dict[str, Any]:
        return {"seat": self.seat, "stderr": self.stderr, "stderr_bytes": self.stderr_bytes,
                "decisions": [decision.to_dict() for decision in self.decisions],
                "notes_dropped": self.notes_dropped, "fault_words": self.fault_words}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> SeatLog:
        return cls(int(data["seat"]), str(data.get("stderr", "")),
                   int(data.get("stderr_bytes", 0)),
                   tuple(DecisionLog.from_dict(item) for item in data.get("decisions", ())),
                   int(data.get("notes_dropped", 0)), str(data.get("fault_words", "")))


class DecisionRecorder:
    """The loop's record of each seat's decisions: the charged time and the note,
    with the per-series budget of notes enforced (``SERIES_NOTE_BYTES``)."""

    _KNOWN_NOTES: Final = 1024
    """How many distinct notes the recorder remembers as kept (a bot's notes repeat:
    neutralising, cutting and measuring one again at each decision cost more than the
    rest of its record)."""

    def __init__(self) -> None:
        self.decisions: tuple[list[DecisionLog], list[DecisionLog]] = ([], [])
        self.note_bytes = [0, 0]
        self.notes_dropped = [0, 0]
        self._kept: dict[str, tuple[str, int]] = {}
        """A bot's note -> the note as kept, and its size in bytes."""

    def record(self, seat: int, hand_number: int, decision_number: int, think_s: float,
               note: str = "") -> None:
        if note:
            kept, size = self._kept.get(note) or self._keep(note)
            if size:
                if self.note_bytes[seat] + size > SERIES_NOTE_BYTES:
                    self.notes_dropped[seat] += 1
                    kept = ""
                else:
                    self.note_bytes[seat] += size
        else:
            kept = ""
        self.decisions[seat].append(DecisionLog(hand_number, decision_number,
                                                think_ms_of(think_s), kept))

    def _keep(self, note: str) -> tuple[str, int]:
        """``note`` as kept and its size, remembered if short (the memory bounded)."""
        kept = debug_note(note)
        known = (kept, len(kept.encode()))
        if len(note) <= NOTE_BYTES:  # a longer one is cut: a bot's megabytes are not kept
            if len(self._kept) >= self._KNOWN_NOTES:
                self._kept.clear()
            self._kept[note] = known
        return known

    def seat_log(self, seat: int, stderr: str = "", stderr_bytes: int = 0,
                 fault_words: str = "") -> SeatLog:
        return SeatLog(seat, stderr, stderr_bytes, tuple(self.decisions[seat]),
                       self.notes_dropped[seat], fault_words)
