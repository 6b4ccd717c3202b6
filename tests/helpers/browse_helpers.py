"""A stored arena to browse (issue 28, points 4 and 5): bots of several owners and
statuses, a finished season in which one bot forfeits every series after leading
it, a created season, and an SPRT match of three pairs. For the TestClient tests
(tests/arena/web/test_web_browse.py) and the browser's
(tests/arena/web/test_web_browse_browser.py)."""

from __future__ import annotations

from pathlib import Path

from arena.core.faults import BotFault, FaultKind
from arena.core.settings import SeasonConfig
from arena.season.formats import format_for
from arena.storage import Storage, add_author
from tests.helpers.arena_helpers import made_up_outcome
from tests.helpers.season_play import play
from tests.helpers.web_helpers import HOSTILE_NAME, create_season, register

SPRT_SPEC = "elo0=0,elo1=20,alpha=0.05,beta=0.05"
SPRT_PAIRS = [(True, True), (True, False), (True, None)]
"""A's series in each pair: won, lost or drawn (None): pair scores 1, ½ and ¾."""


def set_owner(storage: Storage, name: str, owner: str) -> None:
    """What an author's upload stores: the name claimed by the author."""
    with storage.transaction() as db:
        db.execute("INSERT OR REPLACE INTO bot_names (name, owner, claimed_at) "
                   "VALUES (?, ?, '2026-01-01T00:00:00Z')", (name, owner))


def set_status(storage: Storage, bot_id: str, status: str, detail: str,
               cause: str = "") -> None:
    """What the vetting worker or the deactivation stores for a version."""
    with storage.transaction() as db:
        db.execute("INSERT OR REPLACE INTO bot_versions (bot_id, submitted_by, bundle, status, "
                   "status_detail, status_changed_at, rejection_cause) "
                   "VALUES (?, '', '', ?, ?, '2026-01-02T03:04:05Z', ?)",
                   (bot_id, status, detail, cause))


class BrowseArena:
    """Four bots: alpha (two versions, the second rejected), a hostile name owned
    by author ann, crashy (forfeits every series; deactivated) and random-dan; one
    finished season of them, one created (``idle_season``), and an SPRT match
    between two more bots, a and b (``sprt_season``)."""

    def __init__(self, root: Path, path: Path) -> None:
        self.storage = Storage(path)
        self.alpha = register(self.storage, root, "alpha")
        self.hostile = register(self.storage, root, HOSTILE_NAME)
        self.crashy = register(self.storage, root, "crashy")
        self.dan = register(self.storage, root, "random-dan")
        self.ids = [self.alpha, self.hostile, self.crashy, self.dan]
        add_author(self.storage, "ann")
        set_owner(self.storage, HOSTILE_NAME, "ann")
        self.season_id = create_season(self.storage, self.ids, max_hands=3)
        plan = self.storage.planned_series(self.season_id)
        self.crashy_series = {p.series_id: p.bots.index(self.crashy) for p in plan
                              if self.crashy in p.bots}
        # A scripted runner's results: crashy leads each of its series (a game won,
        # 147 points up, 3 hands to 1) and then crashes.
        for planned in plan:
            seat = self.crashy_series.get(planned.series_id)
            if seat is None:
                continue
            score = (1, 0) if seat == 0 else (0, 1)
            self.storage.store_result(planned, made_up_outcome(
                planned.series_id, winner=1 - seat, games_won=score,
                hands_won=(3, 1) if seat == 0 else (1, 3),
                points=(147, 0) if seat == 0 else (0, 147), hands_played=4,
                fault=BotFault(FaultKind.CRASH, "exit code 3", seat=seat)), {})
        assert set(self.crashy_series.values()) == {0, 1}  # both seats, both sides checked
        assert play(self.storage, self.season_id) == "finished"
        self.alpha2 = register(self.storage, root, "alpha", version="2.0.0")
        set_status(self.storage, self.alpha2, "rejected", "alpha faulted: <b>boom</b>",
                   "author")
        set_status(self.storage, self.crashy, "deactivated",
                   "lost 3 series in a row by a fault in season 1")
        self.idle_season = create_season(self.storage, self.ids[:2], name="idle")
        self.bot_a, self.bot_b = (register(self.storage, root, name) for name in ("a", "b"))
        self.sprt_season = sprt_match(self.storage, self.bot_a, self.bot_b)


def sprt_match(storage: Storage, a: str, b: str) -> int:
    """An SPRT match of a against b with the pairs of ``SPRT_PAIRS`` stored."""
    config = SeasonConfig.build(sandbox="inprocess", concurrency=1, seed=5, format="sprt",
                                sprt=SPRT_SPEC, max_pairs=50)
    match = format_for(config.format, config)
    season_id = storage.create_season(
        name="match", config=config.to_dict(), profile=config.profile(),
        bot_ids=[a, b], plan=[p.as_row() for p in match.first_round([a, b], config.seed)]).id
    for number, pair in enumerate(SPRT_PAIRS, start=1):
        if number > 1:
            following = match.next_round([a, b], config.seed, storage.results_by_round(season_id))
            assert following is not None
            assert storage.add_round(season_id, number, [p.as_row() for p in following])
        planned = [p for p in storage.planned_series(season_id) if p.round == number]
        for series, a_wins in zip(planned, pair, strict=True):
            seat_a = series.bots.index(a)
            winner = None if a_wins is None else seat_a if a_wins else 1 - seat_a
            storage.store_result(series, made_up_outcome(series.series_id, winner=winner), {})
    return season_id
