"""Time limits a bot plays under (the single definition; see docs/design.md)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class TimeLimits:
    """How long a bot may take.

    ``startup_s`` bounds the time from starting the bot to its handshake answer.
    ``decision_s`` is the per-decision deadline; a decision that takes longer draws
    the excess from ``reserve_s``, a time bank for the whole series. A decision is
    cut off (TIMEOUT) once it has used its deadline plus whatever reserve is left.
    """

    startup_s: float = 20.0
    decision_s: float = 1.0
    reserve_s: float = 30.0

    def __post_init__(self) -> None:
        for name in ("startup_s", "decision_s", "reserve_s"):
            value = getattr(self, name)
            if not isinstance(value, int | float) or value < 0:
                raise ValueError(f"TimeLimits.{name} must be a number >= 0, got {value!r}")
        if self.decision_s <= 0:
            raise ValueError(f"TimeLimits.decision_s must be > 0, got {self.decision_s!r}")
