"""A season as storage gives it (issue 37): its rule profile typed, built once by
storage from the stored form (a field an older or hand-made row lacks is the named
built-in profile's), and its plan read only when asked, as stored at that moment."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from arena.storage import PlannedSeries, Storage
from engine.profiles import CLASSIC, FRIENDLY, Profile
from tests.helpers.arena_helpers import made_up_outcome, register_bots


def season_of(storage: Storage, tmp_path: Path, profile: Profile = FRIENDLY) -> int:
    a, b = register_bots(storage, tmp_path / "bots", ("a", "b"))
    return storage.create_season(name="s", config={}, profile=profile, bot_ids=[a, b],
                                 plan=[(1, False, a, b), (2, True, b, a)]).id


def test_a_season_reads_back_the_profile_it_was_created_with(tmp_path: Path) -> None:
    storage = Storage(tmp_path / "arena.db")
    house = CLASSIC.derive(undercut_bonus=20)
    season = storage.get_season(season_of(storage, tmp_path, house))
    assert season.profile == Profile(
        name="classic[undercut_bonus=20]", undercut_bonus=20,
        ban_discarding_taken_card=False, dead_hand_redeal_same_dealer=True,
        winner_deals_next=True, knock_discard_face_down=False)
    assert storage.list_seasons()[0].profile == season.profile


@pytest.mark.parametrize(("stored", "expected"), [
    ("{}", Profile(name="friendly")),
    ('{"name": "classic"}', Profile(
        name="classic", undercut_bonus=10, ban_discarding_taken_card=False,
        dead_hand_redeal_same_dealer=True, winner_deals_next=True,
        knock_discard_face_down=False)),
    ('{"name": "classic", "gin_bonus": 30}', Profile(
        name="classic", gin_bonus=30, undercut_bonus=10, ban_discarding_taken_card=False,
        dead_hand_redeal_same_dealer=True, winner_deals_next=True,
        knock_discard_face_down=False)),
    ('{"name": "house", "knock_limit": 5}', Profile(name="house", knock_limit=5)),
])
def test_a_stored_profile_missing_fields_takes_them_from_its_named_profile(
    tmp_path: Path, stored: str, expected: Profile
) -> None:
    storage = Storage(tmp_path / "arena.db")
    season_id = season_of(storage, tmp_path)
    raw = sqlite3.connect(tmp_path / "arena.db")
    raw.execute("UPDATE seasons SET profile_json=? WHERE id=?", (stored, season_id))
    raw.commit()
    raw.close()
    assert storage.get_season(season_id).profile == expected


class CountingStorage(Storage):
    """Storage that counts the reads of a season's plan."""

    plan_reads = 0

    def planned_series(self, season_id: int) -> list[PlannedSeries]:
        self.plan_reads += 1
        return super().planned_series(season_id)

    def pending_series(self, season_id: int) -> list[PlannedSeries]:
        self.plan_reads += 1
        return super().pending_series(season_id)


def test_the_plan_is_read_when_asked_and_as_stored_then(tmp_path: Path) -> None:
    storage = CountingStorage(tmp_path / "arena.db")
    season_id = season_of(storage, tmp_path)
    season = storage.get_season(season_id)
    storage.list_seasons()
    assert storage.plan_reads == 0  # a 999,000-series plan is not read with its season
    a, b = season.bot_ids
    assert [(p.series_id, p.seed, p.swap_seats, p.bots, p.round)
            for p in season.plan.series()] == [
        (f"{season_id}-0", 1, False, (a, b), 1), (f"{season_id}-1", 2, True, (b, a), 1)]
    assert storage.plan_reads == 1
    storage.add_round(season_id, 2, [(3, False, a, b)])
    first, *_ = season.plan.pending()
    storage.store_result(first, made_up_outcome(first.series_id, 0), FRIENDLY.to_dict())
    # The record read before the round was added still reads the plan as it is now.
    assert [p.series_id for p in season.plan.series()] == [
        f"{season_id}-0", f"{season_id}-1", f"{season_id}-2"]
    assert [p.series_id for p in season.plan.pending()] == [f"{season_id}-1", f"{season_id}-2"]
    assert [(p.series_id, None if r is None else r.winner) for p, r in season.plan.page()] == [
        (f"{season_id}-0", 0), (f"{season_id}-1", None), (f"{season_id}-2", None)]
    assert [p.series_id for p, _ in season.plan.page(1, 1)] == [f"{season_id}-1"]
