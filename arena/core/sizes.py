"""Byte counts as people read them: ``human_size(52428800) == "50 MiB"``.

Every message that states a size (a bot folder over its limit, a ``bot.toml`` too
large, ...) says it in B, KiB, MiB, GiB or TiB (powers of 1024)."""

from __future__ import annotations

from typing import Final

UNITS: Final = ("KiB", "MiB", "GiB", "TiB")


def human_size(size: int) -> str:
    """``size`` bytes in the largest unit that keeps the number at least 1: whole
    numbers as they are, others with one decimal (``1536`` is ``"1.5 KiB"``)."""
    if abs(size) < 1024:
        return f"{size} B"
    value = float(size)
    unit = "B"
    for unit in UNITS:
        value /= 1024
        if abs(value) < 1024 or unit == UNITS[-1]:
            break
    return f"{value:.0f} {unit}" if value.is_integer() else f"{value:.1f} {unit}"
