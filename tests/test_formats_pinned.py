"""Hand-made fixtures for the format pairing rules, written for the survivors of
`make mutation` (docs/testing.md): each expected plan is worked out by hand from
docs/formats.md; deal seeds come from the hash written out here, not from the
format's own helpers."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

import pytest

from arena.core.settings import ConfigError
from arena.season.formats import Pairing, SprtMatch
from arena.season.formats.base import meeting
from arena.season.formats.sprt_match import pentanomial_counts
from arena.storage import SeriesRecord

A, B, C = "a@1", "b@1", "c@1"


def round_seed(season_seed: int, label: str) -> int:
    """RULES of the season seeds: the first 8 bytes of SHA-256 of
    ``hollywood-season:<seed>:<label>``, big-endian, top bit cleared."""
    digest = hashlib.sha256(f"hollywood-season:{season_seed}:{label}".encode()).digest()
    return int.from_bytes(digest[:8], "big") & (2**63 - 1)


def record(pairing: Pairing, winner_seat: int | None, number: int = 0) -> SeriesRecord:
    return SeriesRecord(
        series_id=f"1-{number}", season_id=1, seed=pairing.seed, swap_seats=False,
        seat0_bot=pairing.seat0, seat1_bot=pairing.seat1, winner_seat=winner_seat,
        games_won=(0, 0), hands_won=(0, 0), points=(0, 0), game_scores=(), hands_played=1,
        capped=False, fault=None, think_seconds=(0.0, 0.0), wall_seconds=0.0, finished_at="")


def won_by(plan: Sequence[Pairing], winners: Sequence[str | None]) -> list[SeriesRecord]:
    """Results of ``plan`` in which the named bot won each series (None: drawn)."""
    return [record(p, None if w is None else (p.seat0, p.seat1).index(w), n)
            for n, (p, w) in enumerate(zip(plan, winners, strict=True))]


# ------------------------------------------------------------------ meeting

def test_a_meeting_is_duplicate_pairs_then_one_single_series() -> None:
    plan = meeting(A, B, 5, 77)
    pair1, single = round_seed(77, "pair-1"), round_seed(77, "single")
    assert plan == [
        Pairing(77, False, A, B), Pairing(77, False, B, A),
        Pairing(pair1, False, A, B), Pairing(pair1, False, B, A),
        Pairing(single, False, A, B),
    ]
    assert meeting(A, B, 1, 77) == [Pairing(single, False, A, B)]
    assert meeting(A, B, 0, 77) == []


# ------------------------------------------------------------------ sprt match

def test_sprt_match_plays_one_duplicate_pair_per_round_on_its_own_deal() -> None:
    match = SprtMatch.from_config("elo0=0,elo1=20", max_pairs=3)
    first = match.first_round([A, B], 9)
    zero = round_seed(9, "sprt:0")
    assert first == [Pairing(zero, False, A, B), Pairing(zero, False, B, A)]
    second = match.next_round([A, B], 9, [won_by(first, [A, None])])
    one = round_seed(9, "sprt:1")
    assert second == [Pairing(one, False, A, B), Pairing(one, False, B, A)]
    rounds = [won_by(first, [A, None]), won_by(second, [B, B])]
    third = match.next_round([A, B], 9, rounds)
    two = round_seed(9, "sprt:2")
    assert third == [Pairing(two, False, A, B), Pairing(two, False, B, A)]
    # max_pairs 3: the third stored round is the last, decided or not
    assert match.next_round([A, B], 9, [*rounds, won_by(third, [A, B])]) is None
    assert match.planned_count(2) is None


def test_pentanomial_counts_score_each_complete_pair_for_the_first_bot() -> None:
    pair = [Pairing(1, False, A, B), Pairing(1, False, B, A)]
    rounds = [
        won_by(pair, [A, A]),        # 1 + 1: slot 4
        won_by(pair, [A, None]),     # 1 + 1/2: slot 3
        won_by(pair, [B, A]),        # 0 + 1: slot 2
        won_by(pair, [None, None]),  # 1/2 + 1/2: slot 2
        won_by(pair, [None, B]),     # 1/2 + 0: slot 1
        won_by(pair, [B, B]),        # 0 + 0: slot 0
        won_by(pair[:1], [A]),       # a pair still being played: not counted
    ]
    assert pentanomial_counts(A, rounds) == [1, 1, 2, 1, 1]
    assert pentanomial_counts(B, rounds) == [1, 1, 2, 1, 1][::-1]


def test_sprt_match_stops_when_the_test_decides() -> None:
    match = SprtMatch.from_config("elo0=0,elo1=20", max_pairs=1000)
    pair = [Pairing(1, False, A, B), Pairing(1, False, B, A)]
    # a scores 3/4 over 200 pairs (about +190 Elo), far past the bounds of 0 and 20
    rounds = [won_by(pair, [A, A]), won_by(pair, [A, B])] * 100
    assert match.state([A, B], rounds).decision == "H1"
    assert match.next_round([A, B], 9, rounds) is None
    assert match.state([B, A], rounds).decision == "H0"
    assert match.next_round([B, A], 9, rounds) is None


def test_sprt_match_refuses_other_than_two_distinct_bots() -> None:
    match = SprtMatch.from_config("elo0=0,elo1=20", max_pairs=3)
    with pytest.raises(ConfigError) as three:
        match.first_round([A, B, C], 1)
    assert str(three.value) == "an sprt match is between exactly two bots, got 3"
    with pytest.raises(ConfigError) as one:
        match.planned_count(1)
    assert str(one.value) == "an sprt match is between exactly two bots, got 1"
    with pytest.raises(ValueError) as same:
        match.first_round([A, A], 1)
    assert str(same.value) == "a match needs two distinct bots"
    with pytest.raises(ConfigError):
        SprtMatch.from_config("elo0=20,elo1=0", max_pairs=3)
