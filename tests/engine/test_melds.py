"""Melds, deadwood, best discards and arrangements (docs/rules.md#deadwood), checked against the
independent brute force in tests/helpers/brute_force.py and the checked-in fixture."""

from __future__ import annotations

import json
from itertools import combinations
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.cards import ALL_CARDS, Card, DuplicateCardError, parse_cards
from engine.melds import (
    InvalidMeldsError,
    best_arrangement,
    best_discards,
    deadwood_after_each_discard,
    deadwood_of,
    is_valid_meld,
    min_deadwood,
    validate_arrangement,
)
from tests.helpers.brute_force import all_melds, brute_best_discards, brute_deadwood, card_value

FIXTURE = Path(__file__).parents[1] / "fixtures" / "deadwood_hands.json"


def plain(cards: list[Card]) -> list[tuple[int, int]]:
    return [(card.rank, int(card.suit)) for card in cards]


def cards_of(indices: set[int] | list[int]) -> list[Card]:
    return [ALL_CARDS[index] for index in indices]


uniform_hands = st.sets(st.integers(0, 51), min_size=10, max_size=10).map(cards_of)
uniform_eleven = st.sets(st.integers(0, 51), min_size=11, max_size=11).map(cards_of)


@st.composite
def meld_rich_hands(draw: st.DrawFn, size: int) -> list[Card]:
    """Hands drawn from 4-7 consecutive ranks in 2-4 suits (where sets and runs compete)."""
    rank_count = draw(st.integers(4, 7))
    low = draw(st.integers(1, 14 - rank_count))
    suit_count = draw(st.integers(2, 4))
    if suit_count * rank_count < size:
        suit_count = 4
        rank_count = max(rank_count, 3)
        low = min(low, 14 - rank_count)
    suits = draw(st.lists(st.integers(0, 3), min_size=suit_count, max_size=suit_count,
                          unique=True))
    pool = [card for card in ALL_CARDS
            if low <= card.rank < low + rank_count and card.suit in suits]
    return sorted(draw(st.lists(st.sampled_from(pool), min_size=size, max_size=size,
                                unique=True)))


# -- fixture -----------------------------------------------------------------

def test_fixture_has_the_required_hands() -> None:
    data = json.loads(FIXTURE.read_text())
    kinds = {hand["kind"] for hand in data["ten_card_hands"]}
    assert len(data["ten_card_hands"]) + len(data["eleven_card_hands"]) >= 300
    assert kinds == {"uniform", "meld-rich", "set-run-overlap"}
    assert len(data["eleven_card_hands"]) >= 100


def test_every_fixture_ten_card_hand() -> None:
    data = json.loads(FIXTURE.read_text())
    wrong = []
    for hand in data["ten_card_hands"]:
        cards = parse_cards(hand["cards"])
        deadwood, melds = best_arrangement(cards)
        if min_deadwood(cards) != hand["deadwood"] or deadwood != hand["deadwood"]:
            wrong.append(hand["cards"])
        validate_arrangement(cards, melds)
    assert wrong == []


def test_every_fixture_eleven_card_hand() -> None:
    data = json.loads(FIXTURE.read_text())
    for hand in data["eleven_card_hands"]:
        cards = parse_cards(hand["cards"])
        best, discards = best_discards(cards)
        assert (best, [str(card) for card in discards]) == (
            hand["best_deadwood"], hand["best_discards"]), hand["cards"]
        after = {str(card): value for card, value in deadwood_after_each_discard(cards).items()}
        assert after == hand["deadwood_after_discard"], hand["cards"]


# -- agreement with the brute force -------------------------------------------

@settings(max_examples=400, deadline=None)
@given(uniform_hands)
def test_min_deadwood_matches_brute_force_on_random_hands(cards: list[Card]) -> None:
    assert min_deadwood(cards) == brute_deadwood(plain(cards))


@settings(max_examples=400, deadline=None)
@given(meld_rich_hands(10))
def test_min_deadwood_matches_brute_force_on_meld_rich_hands(cards: list[Card]) -> None:
    assert min_deadwood(cards) == brute_deadwood(plain(cards))


@settings(max_examples=200, deadline=None)
@given(st.one_of(uniform_eleven, meld_rich_hands(11)))
def test_best_discards_matches_brute_force(cards: list[Card]) -> None:
    best, discards = best_discards(cards)
    expected_best, expected_discards = brute_best_discards(plain(cards))
    assert best == expected_best
    assert plain(discards) == expected_discards


@settings(max_examples=150, deadline=None)
@given(st.one_of(uniform_eleven, meld_rich_hands(11)))
def test_deadwood_after_each_discard_is_min_deadwood_of_the_rest(cards: list[Card]) -> None:
    after = deadwood_after_each_discard(cards)
    assert set(after) == set(cards)
    for card, value in after.items():
        assert value == brute_deadwood(plain([other for other in cards if other != card]))


@settings(max_examples=300, deadline=None)
@given(st.one_of(uniform_hands, meld_rich_hands(10)))
def test_best_arrangement_is_legal_minimal_and_deterministic(cards: list[Card]) -> None:
    deadwood, melds = best_arrangement(cards)
    assert deadwood == min_deadwood(cards)
    assert validate_arrangement(cards, melds) == deadwood
    assert best_arrangement(list(reversed(cards))) == (deadwood, melds)


@settings(max_examples=100, deadline=None)
@given(st.sets(st.integers(0, 51), max_size=9).map(cards_of))
def test_small_hands_match_brute_force(cards: list[Card]) -> None:
    assert min_deadwood(cards) == brute_deadwood(plain(cards))


# -- rule points --------------------------------------------------------------

@pytest.mark.parametrize(
    ("text", "deadwood"),
    [
        ("As 2s 3s", 0),                       # ace low run
        ("Qs Ks As", 21),                      # no wrap: Q K A is not a run
        ("Ks As 2s", 13),                      # no wrap the other way either
        ("7c 7d 7h", 0),
        ("7c 7d 7h 7s", 0),
        ("7c 7d", 14),
        ("4h 5h 6h 7h 8h 9h Th Jh Qh Kh", 0),  # one long run
        ("Ah 5h 6h 7h 8h 9h Th Jh Qh Kh", 1),  # the ace does not follow the king
        ("Jc Qc Kc Jd Qd Kd Jh Qh Kh 2s", 2),
        ("", 0),
        ("Kc", 10),
        ("Tc Jd Qh Ks", 40),                   # face cards count 10
    ],
)
def test_known_deadwood(text: str, deadwood: int) -> None:
    assert min_deadwood(parse_cards(text)) == deadwood


def test_a_card_is_in_at_most_one_meld() -> None:
    # 7h could complete both the set and the run, but only one of them.
    assert min_deadwood(parse_cards("7c 7d 7h 5h 6h")) == 11  # set; 5h 6h idle
    assert min_deadwood(parse_cards("7c 7d 7h 5h 6h 8h")) == 14  # run 5-8h; 7c 7d idle


def test_three_card_set_leaving_the_fourth_to_a_run() -> None:
    hand = parse_cards("5c 5d 5h 5s 3s 4s")
    # 5c 5d 5h as a set and 3s 4s 5s as a run: nothing left.
    assert min_deadwood(hand) == 0
    assert best_arrangement(hand)[1] == (
        tuple(parse_cards("5c 5d 5h")), tuple(parse_cards("3s 4s 5s")))


def test_text_input_is_accepted() -> None:
    assert min_deadwood("As 2s 3s Kd") == 10


def test_best_discards_weighs_every_discard() -> None:
    # Best arrangement keeps 5c 5d 5s + 2h 3h 4h, idle Ac 3c 2d As 3s (10): dropping its
    # highest idle card leaves 7, but discarding 4h (sets of 5s and 3s) leaves 6.
    hand = parse_cards("Ac 3c 5c 2d 5d 2h 3h 4h As 3s 5s")
    assert best_arrangement(hand)[0] == 10
    assert best_discards(hand) == (6, parse_cards("4h"))


def test_best_discards_lists_every_equal_discard() -> None:
    hand = parse_cards("As 2s 3s 4s 5s 6s 7s 8s 9s Ts Kd")
    assert best_discards(hand) == (0, parse_cards("Kd"))
    hand = parse_cards("As 2s 3s 4s 5s 6s 7s 8s 9s Kc Kd")
    assert best_discards(hand) == (10, parse_cards("Kc Kd"))


def test_hand_size_errors_are_specific() -> None:
    with pytest.raises(ValueError, match="at most 11 cards, got 12"):
        min_deadwood(ALL_CARDS[:12])
    with pytest.raises(ValueError, match="exactly 11 cards, got 10"):
        best_discards(ALL_CARDS[:10])
    with pytest.raises(DuplicateCardError, match="duplicate card: As"):
        min_deadwood([Card.parse("As"), Card.parse("As")])
    with pytest.raises(TypeError, match="expected a Card"):
        min_deadwood(["As"])  # type: ignore[list-item]


# -- arrangement tie-break ------------------------------------------------------

def test_tie_break_prefers_runs_over_sets() -> None:
    # Three sets or three runs meld the same nine cards: runs win the tie.
    hand = parse_cards("7c 8c 9c 7d 8d 9d 7h 8h 9h Ks")
    deadwood, melds = best_arrangement(hand)
    assert deadwood == 10
    assert melds == tuple(tuple(parse_cards(run)) for run in ("7c 8c 9c", "7d 8d 9d", "7h 8h 9h"))


def test_tie_break_prefers_smaller_set_mask() -> None:
    # 5c or 5h can go to a run (3c 4c 5c or 3h 4h 5h); both leave 7 deadwood with one
    # 3-card set of 5s. The tie-break keeps the smallest set bitmask: the set leaves
    # out the highest-index card it can, so the set is 5c 5d 5s and 3h 4h 5h a run.
    hand = parse_cards("3c 4c 5c 5d 5h 5s 3h 4h")
    deadwood, melds = best_arrangement(hand)
    assert deadwood == 7
    assert melds == (tuple(parse_cards("5c 5d 5s")), tuple(parse_cards("3h 4h 5h")))


def _documented_tie_break_choice(cards: list[Card]) -> tuple[int, int, int, int]:
    """Brute force over every combination of disjoint melds: the smallest key
    (deadwood, deadwood cards, set cards, set-card bitmask)."""
    hand = plain(cards)
    melds = all_melds(hand)
    keys: list[tuple[int, int, int, int]] = []

    def search(start: int, used: frozenset[tuple[int, int]], set_cards: frozenset[tuple[int, int]]
               ) -> None:
        idle = [card for card in hand if card not in used]
        set_mask = sum(1 << (suit * 13 + rank - 1) for rank, suit in set_cards)
        keys.append((sum(card_value(card) for card in idle), len(idle), len(set_cards), set_mask))
        for position in range(start, len(melds)):
            meld = melds[position]
            if not meld & used:
                is_set = len({rank for rank, _ in meld}) == 1
                search(position + 1, used | meld, set_cards | meld if is_set else set_cards)

    search(0, frozenset(), frozenset())
    return min(keys)


@settings(max_examples=150, deadline=None)
@given(meld_rich_hands(10))
def test_best_arrangement_follows_the_documented_tie_break(cards: list[Card]) -> None:
    deadwood, melds = best_arrangement(cards)
    idle = [card for card in cards if not any(card in meld for meld in melds)]
    set_cards = [card for meld in melds if len({c.rank for c in meld}) == 1 for card in meld]
    key = (deadwood, len(idle), len(set_cards), sum(card.bit for card in set_cards))
    assert key == _documented_tie_break_choice(cards)


def test_runs_are_never_split() -> None:
    deadwood, melds = best_arrangement(parse_cards("3d 4d 5d 6d 7d 8d"))
    assert (deadwood, melds) == (0, (tuple(parse_cards("3d 4d 5d 6d 7d 8d")),))


# -- meld validation ------------------------------------------------------------

@pytest.mark.parametrize("text", ["7c 7d 7h", "7c 7d 7h 7s", "As 2s 3s", "9h Th Jh Qh Kh",
                                  "5d 3d 4d"])
def test_valid_melds(text: str) -> None:
    assert is_valid_meld(parse_cards(text))
    assert is_valid_meld(text)


@pytest.mark.parametrize("text", ["7c 7d", "Qs Ks As", "As 2s 4s", "As 2s 3h", "7c 7c 7d",
                                  "", "5d 5d 5d 5d 5d", "nonsense"])
def test_invalid_melds(text: str) -> None:
    assert not is_valid_meld(text)


def test_validate_arrangement_returns_deadwood() -> None:
    hand = parse_cards("7c 7d 7h As 2s 3s 9d Td Kh Qh")
    melds = [parse_cards("7c 7d 7h"), parse_cards("As 2s 3s")]
    assert validate_arrangement(hand, melds) == 9 + 10 + 10 + 10


@pytest.mark.parametrize(
    ("melds", "message"),
    [
        (["7c 7d 9d"], r"\[7c 7d 9d\] is neither a set nor a run"),
        (["7c 7d 7s"], "card 7s in meld .* is not in the hand"),
        (["7c 7d 7h", "7h 8h 9h"], "card 7h is used twice"),
        (["As 2s 3s"], "deadwood 60 is over the knock limit 10"),
    ],
)
def test_validate_arrangement_names_the_problem(melds: list[str], message: str) -> None:
    hand = parse_cards("7c 7d 7h As 2s 3s 9d Td Kh Qh")
    with pytest.raises(InvalidMeldsError, match=message):
        validate_arrangement(hand, [parse_cards(meld, allow_duplicates=True) for meld in melds],
                             knock_limit=10)


def test_invalid_melds_error_is_a_value_error() -> None:
    assert issubclass(InvalidMeldsError, ValueError)


# -- the lookup tables built at import ------------------------------------------
# engine.melds builds its tables once, at import; these tests rebuild them by calling
# the builders and compare against a plain reading of the rules (docs/rules.md#melds), so a
# mistake in a builder cannot hide behind the import-time copy.

def _values_by_rules(ranks: list[int]) -> int:
    """Deadwood value of cards of the given 0-based ranks (ace 1, faces 10)."""
    return sum(min(rank + 1, 10) for rank in ranks)


def _runs_by_rules(suit_mask: int) -> list[int]:
    """The 0-based ranks in a suit mask that lie in some stretch of 3+ consecutive ranks."""
    ranks = [rank for rank in range(13) if suit_mask >> rank & 1]
    in_runs: list[int] = []
    stretch: list[int] = []
    for rank in [*ranks, 99]:  # 99 closes the last stretch
        if stretch and rank != stretch[-1] + 1:
            if len(stretch) >= 3:
                in_runs.extend(stretch)
            stretch = []
        stretch.append(rank)
    return in_runs


def test_run_tables_follow_the_rules_for_every_suit_mask() -> None:
    from engine import deadwood_tables

    run_value, run_cards, drop_gain, drop_cards = deadwood_tables.build_run_tables()
    assert len(run_value) == len(run_cards) == len(drop_gain) == len(drop_cards) == 8192
    for mask in range(8192):
        runs = _runs_by_rules(mask)
        assert run_value[mask] == _values_by_rules(runs), mask
        assert run_cards[mask] == sum(1 << rank for rank in runs), mask
    # A discard's gain: its value plus what the runs lose (docs/rules.md#deadwood).
    for mask in range(1, 8192):
        gains = {
            rank: min(rank + 1, 10) + _values_by_rules(_runs_by_rules(mask & ~(1 << rank)))
            - _values_by_rules(_runs_by_rules(mask))
            for rank in range(13) if mask >> rank & 1
        }
        best = max(gains.values())
        assert drop_gain[mask] == best, mask
        assert drop_cards[mask] == sum(1 << rank for rank, gain in gains.items()
                                       if gain == best), mask
    assert drop_gain[0] == deadwood_tables.NO_CARD_GAIN
    assert drop_cards[0] == 0


def test_value_tables_follow_the_rules_for_every_suit_mask() -> None:
    from engine import deadwood_tables

    run_value = deadwood_tables.build_run_tables()[0]
    row_value, row_idle = deadwood_tables.build_value_tables(run_value)
    assert len(row_value) == len(row_idle) == 8192
    for mask in range(8192):
        values = [min(rank + 1, 10) for rank in range(13) if mask >> rank & 1]
        assert row_value[mask] == sum(values), mask
        # Without sets, a row's deadwood is its cards outside its runs.
        assert row_idle[mask] == sum(values) - _values_by_rules(_runs_by_rules(mask)), mask
    # Hand-checked: A 2 3 and a king: the king alone is idle; J Q K 9: the 9.
    assert row_idle[0b1000000000111] == 10
    assert row_idle[0b1110100000000] == 9


def test_run_tables_hand_checked_entries() -> None:
    from engine import deadwood_tables

    run_value, run_cards, drop_gain, drop_cards = deadwood_tables.build_run_tables()
    a23 = 0b111
    assert (run_value[a23], run_cards[a23]) == (6, 0b111)
    assert (drop_gain[a23], drop_cards[a23]) == (-3, 0b100)  # drop the 3: gain 3 - 6
    # A 2 3 . 5 6 7 8: both stretches are runs (6 + 26); dropping the 5 or the 8 keeps
    # 6 7 8 or 5 6 7 melded, so each gains 0 (its value back, the same value unmelded).
    a_to_8 = 0b11110111
    assert (run_value[a_to_8], run_cards[a_to_8]) == (32, a_to_8)
    assert (drop_gain[a_to_8], drop_cards[a_to_8]) == (0, 0b10010000)
    # J Q K with the 9: the 9 is idle and is the best discard.
    jqk9 = 0b1110100000000
    assert (run_value[jqk9], run_cards[jqk9]) == (30, 0b1110000000000)
    assert (drop_gain[jqk9], drop_cards[jqk9]) == (9, 0b0000100000000)
    # Two idle tens-valued cards tie: both are listed.
    tk = (1 << 9) | (1 << 12)
    assert (run_value[tk], drop_gain[tk], drop_cards[tk]) == (0, 10, tk)


def _set_options_by_rules(rank: int, pattern: int) -> set[tuple[int, int]]:
    all_ones = (1 << 52) - 1
    suits = [suit for suit in range(4) if pattern >> suit & 1]
    options = {(0, all_ones)}
    if len(suits) >= 3:
        for size in range(3, len(suits) + 1):
            for subset in combinations(suits, size):
                taken = sum(1 << (suit * 13 + rank) for suit in subset)
                options.add((min(rank + 1, 10) * size, all_ones ^ taken))
    return options


def test_set_options_follow_the_rules_for_every_rank_and_suit_pattern() -> None:
    from engine import deadwood_tables

    options = deadwood_tables.build_set_options()
    assert len(options) == 13 * 16
    for rank in range(13):
        for pattern in range(16):
            choices = options[rank * 16 + pattern]
            assert choices[0] == (0, (1 << 52) - 1), (rank, pattern)  # "no set" first
            assert len(set(choices)) == len(choices), (rank, pattern)
            assert set(choices) == _set_options_by_rules(rank, pattern), (rank, pattern)


def test_set_options_hand_checked_entries() -> None:
    from engine import deadwood_tables

    options = deadwood_tables.build_set_options()
    all_ones = (1 << 52) - 1
    # Sevens (rank index 6) in clubs, diamonds and spades: no set, or the set of three.
    sevens = options[6 * 16 + 0b1011]
    assert sevens == ((0, all_ones), (21, all_ones ^ ((1 << 6) | (1 << 19) | (1 << 45))))
    # Four kings: no set, all four (40), then each three (30) leaving one king out.
    kings = options[12 * 16 + 0b1111]
    assert [value for value, _ in kings] == [0, 40, 30, 30, 30, 30]
    assert kings[2][1] == all_ones ^ ((1 << 25) | (1 << 38) | (1 << 51))  # leaves the club
    # Two aces: no set possible.
    assert options[0 * 16 + 0b0101] == ((0, all_ones),)


# -- small helpers and validation messages ----------------------------------------

def test_deadwood_of_counts_the_cards_outside_the_melds() -> None:
    hand = parse_cards("7c 7d 7h As 2s 3s 9d Kh")
    assert deadwood_of(hand, [parse_cards("7c 7d 7h")]) == 1 + 2 + 3 + 9 + 10
    assert deadwood_of(hand, [parse_cards("7c 7d 7h"), parse_cards("As 2s 3s")]) == 19
    assert deadwood_of(hand, []) == 21 + 6 + 19


def test_a_list_holding_non_cards_is_not_a_meld() -> None:
    assert not is_valid_meld(["7c", "7d", "7h"])  # type: ignore[list-item]
    assert not is_valid_meld([Card.parse("7c"), Card.parse("7d"), "7h"])  # type: ignore[list-item]


def test_validate_arrangement_names_a_non_card_in_a_meld() -> None:
    hand = parse_cards("7c 7d 7h")
    with pytest.raises(InvalidMeldsError, match=r"^not a card in a meld: '7h'$"):
        validate_arrangement(hand, [[Card.parse("7c"), Card.parse("7d"), "7h"]])  # type: ignore[list-item]


def test_best_arrangement_refuses_more_than_11_cards() -> None:
    with pytest.raises(ValueError, match="at most 11 cards, got 12"):
        best_arrangement(ALL_CARDS[:12])
