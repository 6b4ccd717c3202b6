"""The ladder's fairness rule as a property (docs/formats.md, "ladder"): over random
ladders whose members join and leave round by round, with any number of
meetings per round and any results,

* every round pairs distinct members, each at most once, ``min(m, n // 2)``
  meetings of ``series_per_pair`` series;
* every member owed a meeting (at least one meeting behind its share) is in the
  round whenever no more members are owed than the round has places;
* no member is ever ``MAX_DEBT`` (2) meetings behind its share.

Shares and debts are kept here by the test's own bookkeeping (a share of
``2m / n`` per round present, minus the meetings played since the bot last
joined), not by the code under test. Plus the first rounds of a small ladder
worked out by hand."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from arena.core.settings import SeasonConfig
from arena.season.formats import format_for
from arena.season.formats.ladder import MAX_MEMBERS, Ladder
from arena.season.formats.ladder_matchmaking import MAX_DEBT, Rating, Standing, pair_closest
from arena.storage import SeriesRecord
from tests.arena.season.test_format_king_of_the_hill import won_by

A, B, C, D = "a@1", "b@1", "c@1", "d@1"

EVENTS = st.lists(st.tuples(st.sampled_from(["stay", "stay", "join", "leave"]),
                            st.integers(0, 1000)), min_size=1, max_size=60)


@settings(max_examples=60, deadline=None)
@given(start=st.integers(2, 9), events=EVENTS, meetings=st.integers(0, 5),
       series_per_pair=st.sampled_from([1, 2, 3]), luck=st.integers(0, 2**32))
def test_no_member_falls_two_meetings_behind_its_share(
        start: int, events: list[tuple[str, int]], meetings: int, series_per_pair: int,
        luck: int) -> None:
    ladder = Ladder(series_per_pair, meetings=meetings)
    rng = random.Random(luck)
    strength = {}
    members = [f"bot{i}@1" for i in range(start)]
    joined = len(members)
    history: list[list[str]] = []
    results_by_round: list[list[SeriesRecord]] = []
    debt = {bot: 0.0 for bot in members}
    for kind, pick in events:
        if kind == "join":
            members.append(f"bot{joined}@1")
            debt[members[-1]] = 0.0
            joined += 1
        elif kind == "leave" and len(members) > 2:
            del debt[members.pop(pick % len(members))]
        for bot in members:
            strength.setdefault(bot, rng.random())
        history.append(list(members))
        plan = ladder.plan(history, 11, results_by_round)
        assert plan is not None
        n = len(members)
        expected_meetings = min(meetings or max(1, n // 4), n // 2)
        assert len(plan) == expected_meetings * series_per_pair
        pairs = [plan[k * series_per_pair] for k in range(expected_meetings)]
        playing = [bot for p in pairs for bot in (p.seat0, p.seat1)]
        assert len(set(playing)) == len(playing) and set(playing) <= set(members)
        owed = [bot for bot in members if debt[bot] >= 1 - 1e-9]
        if len(owed) <= len(playing):
            assert set(owed) <= set(playing), (owed, playing)
        for bot in members:
            debt[bot] += len(playing) / n
        for bot in playing:
            debt[bot] -= 1
        assert max(debt.values()) < MAX_DEBT
        winners = [p.seat0 if strength[p.seat0] + rng.random() > strength[p.seat1] + 0.5
                   else p.seat1 for p in plan]
        results_by_round.append(won_by(plan, winners))


def seats(plan: list) -> list[tuple[str, str]]:
    return [(pairing.seat0, pairing.seat1) for pairing in plan]


def test_the_first_rounds_of_four_bots_by_hand() -> None:
    ladder = format_for("ladder", SeasonConfig.build(format="ladder", series_per_pair=2))
    assert isinstance(ladder, Ladder)
    bots = [A, B, C, D]
    assert ladder.first_round(bots, 5) == []  # every round is planned by the runner
    # 4 members: one meeting a round. Nobody is owed, every sigma is a new bot's:
    # the first two in member order meet.
    first = ladder.next_round(bots, 5, [])
    assert first is not None and seats(first) == [(A, B), (B, A)]
    assert first[0].seed == first[1].seed  # a duplicate pair
    # a and b have played a meeting, half a meeting above their share; c and d
    # are half a meeting behind (not yet owed one) but the most uncertain: they meet.
    rounds = [won_by(first, [A, A])]
    second = ladder.next_round(bots, 5, rounds)
    assert second is not None and seats(second) == [(C, D), (D, C)]
    assert second[0].seed != first[0].seed
    # Everybody is even again (a share of 2 meetings, 2 played) and nobody owed.
    rounds.append(won_by(second, [C, D]))
    third = ladder.next_round(bots, 5, rounds)
    assert third is not None and len(third) == 2 and third[0].seat0 != third[0].seat1


def test_a_ladder_with_a_round_limit_ends_and_one_without_never_does() -> None:
    limited = Ladder(2, rounds=1)
    assert limited.plan([[A, B]], 1, []) is not None
    assert limited.plan([[A, B], [A, B]], 1, [[]]) is None
    assert limited.over(1) and not limited.over(0)
    endless = Ladder(2)
    assert not endless.over(10**6)
    assert endless.plan([[A]], 1, []) == []  # one member: nothing to play, wait


def test_members_are_the_newest_active_versions_unless_kept() -> None:
    active = ["a@1", "b@1", "a@2", "c@1", "b@2"]
    assert Ladder(2).members(active, set()) == ["a@2", "c@1", "b@2"]
    assert Ladder(2).members(active, {"b@1", "c@1", "z@1"}) == ["b@1", "a@2", "c@1", "b@2"]
    crowd = [f"bot{i}@1" for i in range(MAX_MEMBERS + 2)]
    assert Ladder(2).members(crowd, set()) == crowd[:MAX_MEMBERS] and MAX_MEMBERS == 1024


def test_the_windowed_elo_reads_only_the_latest_series_and_marks_provisional() -> None:
    from arena.season.formats import Pairing, SeasonView

    ladder = Ladder(2, window=4)
    ab, ba, ac = Pairing(1, False, A, B), Pairing(1, False, B, A), Pairing(1, False, A, C)
    # 40 series of a and b, split evenly, then 4 that b wins, then 2 that a and c split.
    plan = [ab, ba] * 20 + [ab, ba, ab, ba] + [ac, ac]
    winners = [A, B] * 20 + [B, B, B, B] + [A, C]
    results = won_by(plan, winners)
    extras = ladder.standings(SeasonView([A, B, C, D], 1, [], results, [results], {}))
    assert [column.label for column in extras.columns] == ["Elo (last 4)", "Provisional"]
    elo, mark = (dict(column.cells) for column in extras.columns)
    # The window is the last 4 series: b's 2 wins over a, then a and c's split;
    # d played none of them.
    assert float(elo[B]) > 0 > float(elo[A]) and elo[D] == "–"
    # a and b: 44+ series, sigma below 4 -> settled; c: 2 series; d: none.
    assert mark == {A: "", B: "", C: "provisional", D: "provisional"}
    assert extras.row_api[A]["provisional"] is False and extras.row_api[C]["provisional"]
    assert extras.row_api[D]["window_elo"] == 0.0


def test_matchmaking_by_hand() -> None:
    from arena.season.formats.ladder_matchmaking import Rating, choose_meetings

    members = [A, B, C, D]
    ratings = {A: Rating(30, 8), B: Rating(20, 7), C: Rating(29, 5), D: Rating(21, 6)}
    even = dict.fromkeys(members, 0.0)
    # Nobody owed: all four places by sigma (a, b, d, c); a, the most uncertain,
    # meets the closest rating (c at 29), then b meets d.
    assert choose_meetings(members, even, ratings, 2) == [(A, C), (B, D)]
    # One meeting: the two most uncertain, a and b, however far apart.
    assert choose_meetings(members, even, ratings, 1) == [(A, B)]
    # c and d are owed a meeting: they play before the more uncertain a and b.
    owed = {A: -1.0, B: -1.2, C: 1.2, D: 1.0}
    assert choose_meetings(members, owed, ratings, 1) == [(D, C)]
    # Only c is owed: c, then the most uncertain of the rest (a).
    assert choose_meetings(members, {**owed, D: 0.9}, ratings, 1) == [(A, C)]
    # More meetings than pairs of members: as many as there are pairs.
    assert len(choose_meetings(members, even, ratings, 5)) == 2


@settings(max_examples=30, deadline=None)
@given(rounds=st.lists(st.lists(st.tuples(st.integers(0, 5), st.integers(0, 5),
                                          st.sampled_from([0, 1, None])),
                                min_size=1, max_size=6), min_size=1, max_size=8),
       restart=st.integers(0, 8))
def test_ratings_kept_between_rounds_are_the_standings_ratings(
        rounds: list[list[tuple[int, int, int | None]]], restart: int) -> None:
    from arena.season.formats import Pairing
    from arena.season.formats.ladder_ratings import PlanOrderRatings
    from arena.season.standings import compute_standings

    bots = [f"bot{i}@1" for i in range(6)]
    results_by_round: list[list[SeriesRecord]] = []
    for number, meetings in enumerate(rounds):
        plan = [Pairing(number, False, bots[a], bots[b if b != a else (a + 1) % 6])
                for a, b, _ in meetings]
        winners = [None if w is None else (p.seat0, p.seat1)[w]
                   for p, (_, _, w) in zip(plan, meetings, strict=True)]
        results = won_by(plan, winners)
        results_by_round.append([SeriesRecord(**{**vars(r), "series_id": f"{number}-{k}"})
                                 for k, r in enumerate(results)])
    kept = PlanOrderRatings()
    for end in range(1, len(results_by_round) + 1):
        if end == restart:  # another ladder's history through the same object: rated afresh
            kept.ratings(bots, [results_by_round[-1]])
        ratings = kept.ratings(bots, results_by_round[:end])
        table = {row.bot_id: row for row in compute_standings(
            bots, [r for rs in results_by_round[:end] for r in rs]).rows}
        assert {bot: (rating.mu, rating.sigma) for bot, rating in ratings.items()} == {
            bot: (table[bot].rating_mu, table[bot].rating_sigma) for bot in bots}


def scanned_pairs(chosen: list[Standing]) -> list[tuple[str, str]]:
    """The pairing by a scan of every unpaired member (the rule as first written,
    before the mu-ordered search), the reference the faster one must equal."""
    unpaired = sorted(chosen, key=lambda s: (-round(s.rating.sigma, 9), s.position))
    pairs: list[tuple[str, str]] = []
    while unpaired:
        first = unpaired.pop(0)
        partner = min(unpaired, key=lambda s: (round(abs(s.rating.mu - first.rating.mu), 9),
                                                -round(s.rating.sigma, 9), s.position))
        unpaired.remove(partner)
        pairs.append((first.bot_id, partner.bot_id))
    return pairs


@settings(max_examples=200, deadline=None)
@given(ratings=st.lists(st.tuples(st.sampled_from([0.0, 1.0, 2.5, 3.0, 25.0, 24.999999999]),
                                  st.sampled_from([1.0, 4.0, 8.0, 8.333])),
                        min_size=1, max_size=12).map(lambda rows: rows[:len(rows) // 2 * 2]))
def test_pairing_by_mu_order_is_the_scan_of_every_member(
        ratings: list[tuple[float, float]]) -> None:
    # Few distinct mus and sigmas: ties of distance (both sides, equal mus) are common.
    chosen = [Standing(f"bot{index}", 0.0, Rating(mu, sigma), index)
              for index, (mu, sigma) in enumerate(ratings)]
    assert pair_closest(chosen) == scanned_pairs(chosen)


def test_a_thousand_members_are_paired_as_the_scan_pairs_them() -> None:
    generator = random.Random(42)
    chosen = [Standing(f"bot{index}", 0.0, Rating(round(generator.gauss(25, 5), 1),
                                                  generator.choice([2.0, 3.5, 8.333])), index)
              for index in range(500)]
    assert pair_closest(chosen) == scanned_pairs(chosen)
