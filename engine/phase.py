"""The steps of a hand (its own module: the hand and the observation both name them)."""

from __future__ import annotations

from enum import StrEnum


class Phase(StrEnum):
    """The step of the hand; the value is the protocol's and the log's name."""

    UPCARD_OFFER = "upcard_offer"
    DRAW = "draw"
    DISCARD = "discard"
    OVER = "over"
