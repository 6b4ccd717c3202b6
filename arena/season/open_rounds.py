"""Planning a round of an open-ended format (the ladder): its members are read
from the bots active now, and the round is stored with them.

Before each round, the format chooses the members from every active bot version
(``OpenEnded.members``); a bot that becomes active joins at the next round, one
that is deactivated, rejected or superseded leaves at it (a series of it
already planned is still played: the runner forfeits a deactivated bot's); a
gated format's new versions wait for their gate (``arena.season.ladder_gating``). The
members and the round are stored in one transaction
(``arena.storage.ladder_rounds``), so a resumed ladder plans from exactly the
members it stored, and never plans a stored round again.

Planning a round costs the same however long the ladder has run (issue 42: 1,000
members, 100 ms): a runner reads each round's results from storage once
(``RoundsRead``: a round played to its end never changes), and whether a bot
version can run in a sandbox is checked once per version (its files never change
once registered), not by reading its manifest every round.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from pathlib import Path

from arena.core.manifest import BotManifest, ManifestError
from arena.core.settings import SeasonConfig
from arena.sandbox import registry as sandbox_registry
from arena.season.formats import OpenEnded, Pairing
from arena.season.ladder_gating import GateMatches, held_off
from arena.storage import (
    SeriesRecord,
    Storage,
    active_versions,
    add_ladder_round,
    deal_key,
    kept_versions,
    members_by_round,
    results_of_rounds,
)

log = logging.getLogger(__name__)


class OpenRoundError(RuntimeError):
    """An open-ended format planned a round the runner cannot play."""


class RoundsRead:
    """One ladder's results by round, as a runner has read them: the rounds whose
    every planned series has a result are kept, and only the later ones are read
    again (by plan index, never the whole season)."""

    def __init__(self) -> None:
        self._season_id: int | None = None
        self._complete: list[list[SeriesRecord]] = []
        self._next_index = 0

    def results(self, storage: Storage, season_id: int) -> list[list[SeriesRecord]]:
        """Every round's results in plan order, round 1 first (as
        ``Storage.results_by_round`` reads them)."""
        if season_id != self._season_id:
            self._season_id, self._complete, self._next_index = season_id, [], 0
        rounds = list(self._complete)
        complete = True
        for planned, results in results_of_rounds(storage, season_id, len(rounds) + 1,
                                                  self._next_index):
            rounds.append(results)
            complete = complete and len(results) == planned
            if complete:
                self._complete.append(results)
                self._next_index += planned
        return rounds


def plan_open_round(storage: Storage, season_id: int, season_format: OpenEnded,
                    config: SeasonConfig, gate_matches: GateMatches,
                    rounds_read: RoundsRead | None = None) -> list[Pairing] | None:
    """Plan and store the next round: its pairings, [] when there are too few
    members to play now (nothing stored), None when the format is over. Only
    versions that can run in the season's sandbox are candidates, and, when the
    format has a gate, only those it admits (``arena.season.ladder_gating``: its
    matches are started and stopped with ``gate_matches``). ``rounds_read``: the
    results its runner has read before (None: read them all)."""
    history = members_by_round(storage, season_id)
    results = (rounds_read or RoundsRead()).results(storage, season_id)
    if len(results) != len(history):
        raise OpenRoundError(f"season {season_id} has {len(results)} rounds planned but "
                             f"members stored for {len(history)}")
    candidates = runnable(storage, active_versions(storage), config.sandbox)
    if season_format.gate is not None:
        held = held_off(storage, season_id, config, season_format.gate, candidates, history,
                        gate_matches)
        candidates = [bot_id for bot_id in candidates if bot_id not in held]
    members = season_format.members(candidates, kept_versions(storage))
    pairings = season_format.plan([*history, members],
                                  deal_key(storage, season_id, config.seed), results)
    if not pairings:
        return pairings
    outside = {bot for p in pairings for bot in (p.seat0, p.seat1)} - set(members)
    if outside:
        raise OpenRoundError(f"round {len(history) + 1} pairs bots that are not members: "
                             + ", ".join(sorted(outside)))
    add_ladder_round(storage, season_id, len(history) + 1, members,
                     [p.as_row() for p in pairings])
    return pairings


def runnable(storage: Storage, bot_ids: Sequence[str], sandbox: str) -> list[str]:
    """The versions of ``bot_ids`` that can run in ``sandbox`` (e.g. the in-process
    sandbox needs an SDK bot class), in order; the others are left out, and a
    member's newer version that cannot run does not replace it."""
    known = _CHECKED.setdefault((storage.path, sandbox), {})
    unknown = [bot_id for bot_id in bot_ids if bot_id not in known]
    if unknown:
        backend = sandbox_registry.backend(sandbox)
        for bot_id in unknown:
            try:
                backend.check_bot(BotManifest.load(storage.get_bot(bot_id).folder))
                known[bot_id] = True
            except ManifestError as error:
                log.info("%s cannot join the %s sandbox's ladder: %s", bot_id, sandbox, error)
                known[bot_id] = False
    return [bot_id for bot_id in bot_ids if known[bot_id]]


_CHECKED: dict[tuple[Path, str], dict[str, bool]] = {}
"""Whether each bot version of a database can run in a sandbox, checked once: a
version's files never change once registered."""
