"""Parsers of the numbers and ids typed on the arena's command lines (``argparse``
``type=`` functions): each value is parsed, and its error worded, in one place.

They raise ``argparse.ArgumentTypeError``, which argparse turns into a usage error
naming the option (exit status 2).
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import TypeVar

Number = TypeVar("Number", int, float)

MAX_SEED = 2**63 - 1
MAX_PORT = 65535


def _number(text: str, convert: Callable[[str], Number], noun: str) -> Number:
    """``text`` as a number, or the usage error saying it is not ``noun``."""
    try:
        return convert(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not {noun}") from None


def positive_int(text: str) -> int:
    """A count or number of at least 1 (series per pair, concurrency, a season)."""
    value = _number(text, int, "a whole number")
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def seconds(text: str) -> float:
    """A duration in seconds, more than 0 (a time limit)."""
    value = _number(text, float, "a number of seconds")
    if not value > 0:  # also refuses nan
        raise argparse.ArgumentTypeError(f"must be more than 0, got {text}")
    return value


def days(text: str) -> float:
    """A number of days, 0 or more (0: for ever, as a retention)."""
    value = _number(text, float, "a number of days")
    if not 0 <= value < 1e6:  # also refuses nan and inf
        raise argparse.ArgumentTypeError(f"must be 0 or more (and below a million), got {text}")
    return value


def seed(text: str) -> int:
    """A random seed: a whole number that fits the database's signed 64 bits."""
    value = _number(text, int, "a whole number")
    if not 0 <= value <= MAX_SEED:
        raise argparse.ArgumentTypeError("must be between 0 and 2**63-1")
    return value


def port(text: str) -> int:
    """A TCP port, 0 (any free port) to 65535."""
    value = _number(text, int, "a port number")
    if not 0 <= value <= MAX_PORT:
        raise argparse.ArgumentTypeError(f"port must be 0..{MAX_PORT}, got {value}")
    return value


def http_address(text: str) -> tuple[str, int]:
    """HOST:PORT to serve the website on (an IPv6 host in brackets; port 0 = any)."""
    host, sep, port_text = text.rpartition(":")
    host = host.removeprefix("[").removesuffix("]")
    if not sep or not host:
        raise argparse.ArgumentTypeError(f"{text!r} is not HOST:PORT (like localhost:8080)")
    return host, port(port_text)


def series_id(text: str) -> str:
    """A series id: its season number and its index in the plan, like ``3-17``."""
    season, sep, index = text.partition("-")
    if not (sep and season.isdigit() and index.isdigit()):
        raise argparse.ArgumentTypeError(f"{text!r} is not a series id (like 3-17)")
    return text
