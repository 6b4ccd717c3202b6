"""The games people play against the bots from the website, bounded: at most
``max_games`` at once, each ended after ``idle_s`` without an action from its person,
at most ``starts_per_window`` games started per client address per ``window_s``.
Each game is one thread playing ``arena.match.human_seat.play_against`` with the
bot in the configured sandbox on its usual clock, then storing the game apart from
every season (``arena.storage.human_games``: never rated)."""

from __future__ import annotations

import logging
import random
import secrets
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field, replace

from arena.core.limits import TimeLimits
from arena.core.series import BotRef
from arena.core.settings import DEFAULT_SANDBOX
from arena.match.human_seat import HumanSeat, HumanSeries, play_against
from arena.sandbox.base import Sandbox
from arena.sandbox.registry import backend
from arena.storage import Storage, newest_active, store_human_game, utc_now, vetted_code
from engine.profiles import FRIENDLY, Profile

log = logging.getLogger(__name__)

Clock = Callable[[], float]


@dataclass(frozen=True)
class PlaySettings:
    """What the organiser allows: who may play (``guest_play``: guests too), how
    many games at once, how long a person may idle, how often one address may start
    a game, and what a game is (its bot's sandbox and clock, the rules)."""

    guest_play: bool = False
    max_games: int = 4
    idle_s: float = 600.0
    starts_per_window: int = 10
    window_s: float = 3600.0
    sandbox: str = DEFAULT_SANDBOX
    limits: TimeLimits = field(default_factory=TimeLimits)
    profile: Profile = FRIENDLY
    max_hands: int = 40


class PlayRefused(Exception):
    """A game that cannot start; ``status`` is the HTTP status that says why."""

    def __init__(self, message: str, status: int) -> None:
        super().__init__(message)
        self.status = status


@dataclass
class LiveGame:
    """A game being played: its person's seat, whom it belongs to (``key``: the
    cookie of the browser that started it) and the CSRF token of its forms."""

    id: str
    bot_id: str
    player: str
    seat: HumanSeat
    key: str
    csrf: str
    done: threading.Event = field(default_factory=threading.Event)


class HumanGames:
    """The games in play over ``storage``; ``clock`` times the address limits."""

    def __init__(self, storage: Storage, settings: PlaySettings, *,
                 clock: Clock = time.monotonic, sandbox: Sandbox | None = None) -> None:
        self.storage = storage
        self.settings = settings
        self._clock = clock
        self._sandbox = sandbox
        self._lock = threading.Lock()
        self._games: dict[str, LiveGame] = {}
        self._starts: dict[str, deque[float]] = {}

    def may_play(self, author: str | None) -> bool:
        return author is not None or self.settings.guest_play

    def bots(self) -> list[str]:
        """The bots a person may play: the newest active version of each."""
        return newest_active(self.storage)

    def start(self, bot_id: str, author: str | None, address: str) -> LiveGame:
        """A new game of ``author`` (None: a guest) against ``bot_id``, started;
        ``PlayRefused`` naming why not."""
        if not self.may_play(author):
            raise PlayRefused("sign in to play the bots: this arena lets only its authors "
                              "play (the organiser may open it to guests with --guest-play)",
                              403)
        if bot_id not in self.bots():
            raise PlayRefused(f"{bot_id} is not an active bot: choose one from the list", 404)
        bot = self._bot_ref(bot_id)
        now = self._clock()
        with self._lock:
            starts = self._starts.setdefault(address, deque())
            while starts and starts[0] <= now - self.settings.window_s:
                starts.popleft()
            if len(starts) >= self.settings.starts_per_window:
                raise PlayRefused(f"{address} started {len(starts)} games in the last "
                                  f"{self.settings.window_s / 60:.0f} minutes, the most "
                                  "allowed: try again later", 429)
            if len(self._games) >= self.settings.max_games:
                raise PlayRefused(f"all {self.settings.max_games} tables are taken: at most "
                                  f"{self.settings.max_games} games against the bots are "
                                  "played at once; try again when one ends", 503)
            starts.append(now)
            game = LiveGame(secrets.token_urlsafe(16), bot_id, author or "guest",
                            HumanSeat(author or "guest", self.settings.idle_s),
                            secrets.token_urlsafe(32), secrets.token_urlsafe(32))
            self._games[game.id] = game
        threading.Thread(target=self._play, args=(game, bot), name=f"human-game-{game.id}",
                         daemon=True).start()
        return game

    def get(self, game_id: str) -> LiveGame | None:
        with self._lock:
            return self._games.get(game_id)

    def playing(self) -> int:
        with self._lock:
            return len(self._games)

    def _bot_ref(self, bot_id: str) -> BotRef:
        folder, vetted = vetted_code(self.storage, bot_id)
        return replace(BotRef.from_folder(folder), vetted_hash=vetted)

    def _play(self, game: LiveGame, bot: BotRef) -> None:
        settings = self.settings
        person_seat = random.randrange(2)
        series = HumanSeries(f"play-{game.id}", random.randrange(2**62), settings.profile,
                             settings.max_hands, person_seat, bot, settings.limits)
        started_at = utc_now()
        try:
            sandbox = self._sandbox or backend(settings.sandbox).create()
            outcome = play_against(series, game.seat, sandbox)
            store_human_game(self.storage, game_id=game.id, bot_id=game.bot_id,
                             player=game.player, person_seat=person_seat, seed=series.seed,
                             profile=settings.profile.to_dict(), max_hands=settings.max_hands,
                             started_at=started_at, outcome=outcome,
                             ended=game.seat.shown()[1].ended)
        except Exception as error:  # the arena's side failed: say so, keep serving
            log.exception("the game %s against %s failed", game.id, game.bot_id)
            game.seat.finish(f"the arena could not play this game: {error}")
        finally:
            with self._lock:
                self._games.pop(game.id, None)
            game.done.set()
