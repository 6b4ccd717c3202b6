"""When challenges play: below ranked play, a few at once.

A challenge (``arena.storage.challenges``) is stored as a season that is not
started. ``ChallengeQueue.pump`` starts the oldest waiting ones, at most
``ChallengeRules.at_once`` playing at a time, and none while a ranked season plays
(one that is no challenge; an open-ended format such as the ladder, which never
ends, does not hold them back). It runs when a challenge is made, when any season
finishes, and when the server starts. Each challenge plays one series at a time
(its season's concurrency is 1).
"""

from __future__ import annotations

import logging
import threading
from dataclasses import dataclass

from arena.core.settings import ConfigError
from arena.core.status import SeasonStatus
from arena.season.formats import OpenEnded, format_class
from arena.season.manager import SeasonManager
from arena.storage import Storage, challenge_seasons

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class ChallengeRules:
    """The bounds of challenges."""

    max_series: int = 20
    """Series one challenge may ask for."""
    series_per_hour: int = 40
    """Challenge series one author may ask for in any hour."""
    at_once: int = 2
    """Challenges playing at the same time (the others wait their turn)."""
    sandbox: str = ""
    """The sandbox backend they play in ("" = the season default)."""


class ChallengeQueue:
    """Starts waiting challenges when their turn comes (see the module docstring)."""

    def __init__(self, storage: Storage, manager: SeasonManager,
                 rules: ChallengeRules | None = None) -> None:
        self.storage, self.manager = storage, manager
        self.rules = rules or ChallengeRules()
        self._lock = threading.Lock()
        manager.finished_hooks.append(self._season_finished)

    def _season_finished(self, _season_id: int) -> None:
        self.pump()

    def pump(self) -> list[int]:
        """Start the waiting challenges that may play now; their season ids."""
        with self._lock:
            if self.ranked_playing():
                return []
            playing = len(challenge_seasons(self.storage, SeasonStatus.RUNNING))
            started: list[int] = []
            for season_id in challenge_seasons(self.storage, SeasonStatus.CREATED):
                if playing >= self.rules.at_once:
                    break
                self.manager.start(season_id)
                playing += 1
                started.append(season_id)
            if started:
                log.info("challenge season(s) %s started", ", ".join(map(str, started)))
            return started

    def ranked_playing(self) -> bool:
        """Whether a season that is no challenge and not open-ended is playing."""
        challenges = set(challenge_seasons(self.storage, SeasonStatus.RUNNING))
        for season_id in self.storage.seasons_with_status(SeasonStatus.RUNNING):
            if season_id in challenges:
                continue
            config = self.storage.get_season(season_id).config
            try:
                open_ended = issubclass(format_class(config.format), OpenEnded)
            except ConfigError:
                open_ended = False
            if not open_ended:
                return True
        return False
