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
"""

from __future__ import annotations

import logging
from collections.abc import Sequence

from arena.core.manifest import BotManifest, ManifestError
from arena.core.settings import SeasonConfig
from arena.sandbox import registry as sandbox_registry
from arena.season.formats import OpenEnded, Pairing
from arena.season.ladder_gating import GateMatches, held_off
from arena.storage import (
    Storage,
    active_versions,
    add_ladder_round,
    deal_key,
    kept_versions,
    members_by_round,
)

log = logging.getLogger(__name__)


class OpenRoundError(RuntimeError):
    """An open-ended format planned a round the runner cannot play."""


def plan_open_round(storage: Storage, season_id: int, season_format: OpenEnded,
                    config: SeasonConfig, gate_matches: GateMatches) -> list[Pairing] | None:
    """Plan and store the next round: its pairings, [] when there are too few
    members to play now (nothing stored), None when the format is over. Only
    versions that can run in the season's sandbox are candidates, and, when the
    format has a gate, only those it admits (``arena.season.ladder_gating``: its
    matches are started and stopped with ``gate_matches``)."""
    history = members_by_round(storage, season_id)
    results = storage.results_by_round(season_id)
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
    backend = sandbox_registry.backend(sandbox)
    fit = []
    for bot_id in bot_ids:
        try:
            backend.check_bot(BotManifest.load(storage.get_bot(bot_id).folder))
        except ManifestError as error:
            log.info("%s cannot join the %s sandbox's ladder: %s", bot_id, sandbox, error)
            continue
        fit.append(bot_id)
    return fit
