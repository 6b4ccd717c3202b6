"""Planning a round of an open-ended format (the ladder): its members are read
from the bots active now, and the round is stored with them.

Before each round, the format chooses the members from every active bot version
(``OpenEnded.members``); a bot that becomes active joins at the next round, one
that is deactivated, rejected or superseded leaves at it (a series of it
already planned is still played: the runner forfeits a deactivated bot's). The
members and the round are stored in one transaction
(``arena.storage.ladder_rounds``), so a resumed ladder plans from exactly the
members it stored, and never plans a stored round again.
"""

from __future__ import annotations

from arena.season.formats import OpenEnded, Pairing
from arena.storage import Storage
from arena.storage.ladder_rounds import active_versions, add_ladder_round, members_by_round


class OpenRoundError(RuntimeError):
    """An open-ended format planned a round the runner cannot play."""


def plan_open_round(storage: Storage, season_id: int, season_format: OpenEnded,
                    seed: int) -> list[Pairing] | None:
    """Plan and store the next round: its pairings, [] when there are too few
    members to play now (nothing stored), None when the format is over."""
    history = members_by_round(storage, season_id)
    results = storage.results_by_round(season_id)
    if len(results) != len(history):
        raise OpenRoundError(f"season {season_id} has {len(results)} rounds planned but "
                             f"members stored for {len(history)}")
    members = season_format.members(active_versions(storage))
    pairings = season_format.plan([*history, members], seed, results)
    if not pairings:
        return pairings
    outside = {bot for p in pairings for bot in (p.seat0, p.seat1)} - set(members)
    if outside:
        raise OpenRoundError(f"round {len(history) + 1} pairs bots that are not members: "
                             + ", ".join(sorted(outside)))
    add_ladder_round(storage, season_id, len(history) + 1, members,
                     [p.as_row() for p in pairings])
    return pairings
