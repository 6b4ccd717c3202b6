"""How the standings are ordered, in words: the one text that the standings
(``arena.season.standings``) state and the ``arena`` tables print under them."""

from __future__ import annotations

from typing import Final

ORDERING_RULE: Final = (
    "series points (win 1, draw 0.5), then rating ordinal (mu - 3 sigma), "
    "then games won - lost, then points for - against, then bot id"
)
