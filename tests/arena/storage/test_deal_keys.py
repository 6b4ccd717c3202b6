"""Deal keys and sealed seeds (arena.storage.deal_keys): a season's secret deal key
is kept and read back; a series' seed stays sealed until it and every series of
its round between the same two bots are played (the other half of a duplicate pair
plays the same deal)."""

from __future__ import annotations

from pathlib import Path

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


def test_a_seed_is_sealed_until_its_meeting_in_the_round_is_played(tmp_path: Path) -> None:
    storage = Storage(tmp_path / "arena.db")
    season = season_of(storage, tmp_path, key=5)
    ids = [f"{season}-{n}" for n in range(6)]
    assert sealed_series(storage, season) == set(ids)
    play(storage, ids[0])  # a's and b's first half: b's half plays the same deal
    assert sealed_series(storage, season) == set(ids)
    play(storage, ids[1])
    play(storage, ids[2])  # a and b still have pair 2's second half to play
    assert sealed_series(storage, season) == set(ids)
    play(storage, ids[3])
    assert sealed_series(storage, season) == set(ids[4:])
    assert [is_sealed(storage, i) for i in ids] == [False] * 4 + [True] * 2
    play(storage, ids[5])  # c's meeting: its first half still unplayed
    assert sealed_series(storage, season) == set(ids[4:])
    play(storage, ids[4])
    assert sealed_series(storage, season) == set()
    assert not any(is_sealed(storage, i) for i in ids)
    assert not is_sealed(storage, "999-0")  # unknown: nothing to seal
