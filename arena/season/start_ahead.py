"""The first series' bots started while a season gets ready (issue 41, point 3).

When a season starts playing, its executor is made and its runner reads the plan;
meanwhile an executor that ``StartsAhead`` (a local one over a sandbox that starts
bots ahead: the Docker backend's warm pool) is handed the bots of the first series
it will play (as many series as it plays at once), so their containers start at
once rather than when each series asks. Within the admission limits: a container
started ahead takes a start slot only when one is free and no playing bot waits
for one (``arena.sandbox.admission``); a version with a container kept from an
earlier season starts nothing. A bot that cannot be read here is left to its
series, which meets the problem where it belongs.
"""

from __future__ import annotations

import logging
from dataclasses import replace

from arena.core.series import BotRef
from arena.execution import Executor, StartsAhead
from arena.storage import SeasonRecord, Storage, vetted_code

log = logging.getLogger(__name__)


def start_first_series(storage: Storage, season: SeasonRecord, executor: Executor) -> list[str]:
    """Hand the bots of the season's first pending series to ``executor`` to start
    ahead; returns their ids (none for an executor that cannot)."""
    if not isinstance(executor, StartsAhead):
        return []
    first = season.plan.pending()[:executor.capacity]
    bot_ids = list(dict.fromkeys(bot for planned in first
                                 for bot in (planned.seat0_bot, planned.seat1_bot)))
    bots: list[BotRef] = []
    for bot_id in bot_ids:
        try:
            folder, vetted = vetted_code(storage, bot_id)
            bots.append(replace(BotRef.from_folder(folder), vetted_hash=vetted))
        except Exception as error:  # its series meets it (UnvettedCodeError, a manifest)
            log.info("season %d: %s not started ahead: %s", season.id, bot_id, error)
    if bots:
        executor.start_ahead(bots)
    return [f"{bot.name}@{bot.version}" for bot in bots]
