"""Which pending series the season runner submits next: the first in plan order
whose bots are not playing now, else the first with the fewest bots playing.

Why not simply the plan's order: a bot version that plays two series at once needs
two running bots, and a sandbox that keeps a bot's container for its version's
next series (``arena.sandbox.reuse``) then starts, and keeps, a second container of
it. The round robin's plan puts the two series of a duplicate pair next to each
other, so with two series at once its first two series shared both bots: a 4-bot
season started 8 containers for 4 bots. Taking the first series whose bots are
free plays the pairs of a round side by side and a version's series one after the
other on its one container. A second container of a version starts only when no
pending series has all its bots free (e.g. at a round's end while the other pair
still plays, or a 2- or 3-bot season, which has no two disjoint pairs), and then
for one bot rather than two where the plan allows: capacity is never left idle to
save a start (waiting for the series in flight cost more than the start it saves,
and nothing once the containers are up). With the sample bots' uneven series a
4-bot season with 2 at once started 6 or 7 containers instead of 8. Since a kept
container is never dealt the same cards twice (issue 43), a bot's second half of
a duplicate pair needs a second container whatever the order, so a duplicate
format starts two per bot (8 for 4 bots), which then take turns over the halves;
the order still keeps a bot to one series at a time where the plan allows, so
that no third container starts for it there (at more series at once the plan's
order would put a bot in two or three of them).

A series' result depends on its seed and seats alone (each is played from them),
never on when it is played, so the order changes no result.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from itertools import islice
from typing import Final

from arena.storage import PlannedSeries

LOOK_AHEAD: Final = 64
"""How far down the plan a series with free bots is looked for: a few rounds of a
small season; it keeps a big season's pick cheap (40,000 series with every bot
busy would be scanned whole for each submission) and its order near the plan's."""


def next_to_play(waiting: Sequence[PlannedSeries], playing: Iterable[PlannedSeries]) -> int:
    """The index in ``waiting`` (in plan order, not empty) of the series to submit
    next, given the series ``playing`` now, among the first ``LOOK_AHEAD``; see the
    module docstring."""
    if not waiting:
        raise ValueError("no series is waiting")
    busy = {bot for series in playing for bot in series.bots}
    best, fewest = 0, len(waiting[0].bots) + 1
    for index, series in enumerate(islice(waiting, LOOK_AHEAD)):
        shared = sum(bot in busy for bot in series.bots)
        if shared == 0:
            return index
        if shared < fewest:
            best, fewest = index, shared
    return best
