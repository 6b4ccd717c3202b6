"""Deal keys and sealed seeds (arena.storage.deal_keys): a season's secret deal key
is kept and read back; a series' seed stays sealed until it and every series of
its round between the same two bots are played (the other half of a duplicate pair
plays the same deal)."""

from __future__ import annotations

from pathlib import Path

import pytest

from arena.storage import Storage
from arena.storage.deal_keys import deal_key, is_sealed, sealed_series
from engine.commitment import seed_commitment
from engine.profiles import FRIENDLY
from tests.helpers.arena_helpers import made_up_outcome, register_bots


def season_of(storage: Storage, tmp_path: Path, *, key: int | None, seed: int = 0) -> int:
    a, b, c = register_bots(storage, tmp_path / "bots", ("a", "b", "c"))
    plan = [(11, False, a, b), (11, False, b, a), (22, False, a, b), (22, False, b, a),
            (33, False, a, c), (33, False, c, a)]
    return storage.create_season(name="s", config={"seed": seed}, profile=FRIENDLY,
                                 bot_ids=[a, b, c], plan=plan, deal_key=key).id


def play(storage: Storage, series_id: str) -> None:
    stored = storage.store_result(storage.get_planned(series_id),
                                  made_up_outcome(series_id, 0), {})
    assert stored is not None


def test_the_deal_key_is_kept_and_a_season_without_one_uses_its_seed(tmp_path: Path) -> None:
    storage = Storage(tmp_path / "arena.db")
    secret = 2**255 + 12345
    keyed = season_of(storage, tmp_path, key=secret)
    assert deal_key(storage, keyed, 0) == secret
    public = storage.create_season(name="p", config={"seed": 7}, profile=FRIENDLY,
                                   bot_ids=storage.get_season(keyed).bot_ids, plan=[])
    assert deal_key(storage, public.id, 7) == 7
    # The key is nowhere in the season's record (what every screen is built from).
    assert str(secret) not in repr(storage.get_season(keyed))
    assert format(secret, "x") not in repr(storage.get_season(keyed))


def test_each_planned_series_has_its_own_nonce_and_commitment(tmp_path: Path) -> None:
    storage = Storage(tmp_path / "arena.db")
    season = season_of(storage, tmp_path, key=5)
    planned = storage.planned_series(season)
    assert len({p.seed_nonce for p in planned}) == len(planned) == 6
    for p in planned:
        assert p.seed_commitment == seed_commitment(p.seed, p.seed_nonce)
    # Both halves of a pair share the seed but not the commitment.
    assert planned[0].seed == planned[1].seed
    assert planned[0].seed_commitment != planned[1].seed_commitment


def check_each(storage: Storage, season: int, ids: list[str]) -> None:
    """``is_sealed`` of each series agrees with the season's whole reading."""
    sealed = sealed_series(storage, season)
    assert [is_sealed(storage, i) for i in ids] == [i in sealed for i in ids]


@pytest.mark.parametrize("numbered", [True, False], ids=["meetings", "planned-before-20"])
def test_a_seed_is_sealed_until_its_meeting_in_the_round_is_played(
        tmp_path: Path, numbered: bool) -> None:
    storage = Storage(tmp_path / "arena.db")
    season = season_of(storage, tmp_path, key=5)
    ids = [f"{season}-{n}" for n in range(6)]
    if not numbered:  # rows planned before schema 20 have no meeting number
        storage.query("UPDATE planned_series SET meeting = NULL")

    def step(series_id: str) -> None:
        """Play one series, then check every series' seal both ways."""
        play(storage, series_id)
        check_each(storage, season, ids)

    check_each(storage, season, ids)
    assert sealed_series(storage, season) == set(ids)
    step(ids[0])  # a's and b's first half: b's half plays the same deal
    assert sealed_series(storage, season) == set(ids)
    step(ids[1])
    step(ids[2])  # a and b still have pair 2's second half to play
    assert sealed_series(storage, season) == set(ids)
    step(ids[3])
    assert sealed_series(storage, season) == set(ids[4:])
    assert [is_sealed(storage, i) for i in ids] == [False] * 4 + [True] * 2
    step(ids[5])  # c's meeting: its first half still unplayed
    assert sealed_series(storage, season) == set(ids[4:])
    step(ids[4])
    assert sealed_series(storage, season) == set()
    assert not any(is_sealed(storage, i) for i in ids)
    assert not is_sealed(storage, "999-0")  # unknown: nothing to seal


def test_a_meeting_is_numbered_by_its_first_series_in_each_round(tmp_path: Path) -> None:
    storage = Storage(tmp_path / "arena.db")
    a, b, c = register_bots(storage, tmp_path / "bots", ("a", "b", "c"))
    season = storage.create_season(
        name="s", config={}, profile=FRIENDLY, bot_ids=[a, b, c],
        plan=[(1, False, a, b), (2, False, a, c), (1, False, b, a), (2, False, c, a),
              (3, False, b, c)]).id
    assert storage.add_round(season, 2, [(4, False, b, a), (5, False, a, b)])

    def meetings() -> list[int]:
        return [int(row[0]) for row in storage.query(
            "SELECT meeting FROM planned_series WHERE season_id=? ORDER BY idx", (season,))]

    # Round 1: a-b is series 0's meeting (either seating), a-c series 1's, b-c its
    # own; round 2's a-b is a new meeting, numbered by its own first series.
    assert meetings() == [0, 1, 0, 1, 4, 5, 5]
    play(storage, f"{season}-0")
    play(storage, f"{season}-2")
    assert not is_sealed(storage, f"{season}-0")  # round 1's a-b meeting is played out
    assert is_sealed(storage, f"{season}-5")
