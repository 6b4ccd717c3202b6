"""A season's progress as both screens write it (the terminal's throughput line
under the standings and the website's progress line), so the same numbers read
the same everywhere."""

from __future__ import annotations


def duration_text(seconds: float) -> str:
    """``45 s``, ``3 min 20 s``, ``2 h 5 min`` (rounded to the second)."""
    minutes, rest = divmod(round(max(0.0, seconds)), 60)
    hours, minutes = divmod(minutes, 60)
    if hours:
        return f"{hours} h {minutes} min"
    return f"{minutes} min {rest} s" if minutes else f"{rest} s"


def progress_line(series_per_minute: float, done: int, expected: int | None,
                  seconds_left: float | None) -> str:
    """``12.5 series/min, 40/192 series expected, about 3 min 20 s left`` (without
    the count when the format cannot say, without the time left when unknown)."""
    text = f"{series_per_minute:.1f} series/min"
    if expected:
        text += f", {done}/{expected} series expected"
    if seconds_left is None:
        return text
    return f"{text}, about {duration_text(seconds_left)} left"
