"""The season manager's hooks on a finished season (what moves a league on): called
once with the season's id when it finishes, never for a cancelled or failed one; a
hook that raises is logged and the season stays finished."""

from __future__ import annotations

from pathlib import Path

from arena.core.settings import SeasonConfig
from arena.core.status import SeasonStatus
from arena.execution import LocalExecutor
from arena.season.events import EventHub
from arena.season.formats import plan_season
from arena.season.manager import SeasonManager
from arena.storage import Storage
from tests.helpers.arena_helpers import register_bots
from tests.helpers.fake_runner import run_fake_series


def test_hooks_hear_of_a_finished_season_and_a_broken_one_changes_nothing(
        tmp_path: Path) -> None:
    storage = Storage(tmp_path / "arena.db")
    ids = register_bots(storage, tmp_path, ("k1", "random1"))
    config = SeasonConfig.build(sandbox="process", seed=4, max_hands=20)
    season = storage.create_season(
        name="", config=config.to_dict(), profile=config.profile(), bot_ids=ids,
        plan=[p.as_row() for p in plan_season(ids, 2, config.seed)])
    manager = SeasonManager(storage, lambda c: LocalExecutor(run_fake_series, 1), EventHub())
    heard: list[int] = []

    def broken(season_id: int) -> None:
        raise RuntimeError("a hook's bug")

    manager.finished_hooks += [broken, heard.append]
    manager.start(season.id)
    assert manager.wait(season.id, timeout=60)
    assert heard == [season.id]
    assert storage.get_season(season.id).status is SeasonStatus.FINISHED
    cancelled = storage.create_season(
        name="", config=config.to_dict(), profile=config.profile(), bot_ids=ids,
        plan=[p.as_row() for p in plan_season(ids, 2, config.seed)])
    manager.cancel(cancelled.id)  # not playing: cancelled at once, no hook
    assert heard == [season.id]
