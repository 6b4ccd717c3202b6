"""The prose of docs/rules.md, not only its example boxes, against the engine.

tests/engine/test_rules_doc.py replays every ```example box; this file checks the
sentences around them: each sum of card values written in the prose (the
engine's values of the cards it names, and the arithmetic), the numbers of the
deal, the corrected sentences of issue 44 (the first turn's two knocks, the
deadwood a declared arrangement keeps, what a whole series shows about adding
points) and the two rules the page did not state (a win that scores in no game,
the choice among equally good layoffs). Each test first finds its sentence in the
page, so rewording it without the test fails."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from engine import (
    ALL_CARDS,
    CLASSIC,
    FRIENDLY,
    Deal,
    ScoreSheet,
    deadwood_after_each_discard,
    deadwood_of,
    deal_hand,
    min_deadwood,
    parse_cards,
    settle,
)

RULES = (Path(__file__).resolve().parents[2] / "docs" / "rules.md").read_text(encoding="utf-8")
PROSE = " ".join(re.sub(r"```example\n.*?```", "", RULES, flags=re.S).split())
"""The page without its example boxes, its lines joined (a sentence may wrap)."""


def said(sentence: str) -> None:
    assert " ".join(sentence.split()) in PROSE, f"docs/rules.md no longer says: {sentence}"


def section(title: str) -> str:
    body = RULES.split(f"\n### {title}\n", 1)[1].split("\n### ", 1)[0].split("\n## ", 1)[0]
    return " ".join(re.sub(r"```example\n.*?```", "", body, flags=re.S).split())


# -- every sum in the prose

CARDS_THEN_SUM = re.compile(
    r"`((?:[A2-9TJQK][cdhs] ?)+)`(?: ?[:=]| \(| as deadwood \(| the set \(|)"
    r" ?((?:\d+ \+ )+\d+) = (\d+)")
CARDS_EQUAL = re.compile(r"`((?:[A2-9TJQK][cdhs] ?)+)` = (\d+)(?! [+-])")
SUM = re.compile(r"(?<![\w.])((?:\d+ [+-] )+\d+) = (\d+)")


def test_every_sum_in_the_prose_adds_up() -> None:
    sums = SUM.findall(PROSE)
    assert len(sums) >= 13
    for terms, total in sums:
        tokens = terms.split()
        value = int(tokens[0]) + sum(int(number) if sign == "+" else -int(number)
                                     for sign, number in zip(tokens[1::2], tokens[2::2],
                                                             strict=True))
        assert value == int(total), f"{terms} = {total}"


def test_the_values_summed_are_the_engines_values_of_the_cards_named() -> None:
    found = CARDS_THEN_SUM.findall(PROSE)
    assert len(found) >= 5
    for cards, terms, total in found:
        values = [card.value for card in parse_cards(cards)]
        assert [int(term) for term in terms.split(" + ")] == values, cards
        assert sum(values) == int(total)
    totals = CARDS_EQUAL.findall(PROSE)
    assert len(totals) >= 3  # Left: `Kc 2h Jh` = 22, leaving `2c 2d 3d 8s` = 15, ...
    for cards, total in totals:
        assert sum(card.value for card in parse_cards(cards)) == int(total), cards


# -- cards and the deal


def test_the_deck_the_values_and_the_deal() -> None:
    said("Two players, one ordinary 52-card deck")
    said("an ace is worth 1, the cards 2 to 10 are worth their number, and the jack, "
         "queen and king are worth 10 each.")
    assert len(ALL_CARDS) == 52
    values = {str(card)[0]: card.value for card in ALL_CARDS}
    assert values == {"A": 1, **{str(n): n for n in range(2, 10)}, "T": 10,
                      "J": 10, "Q": 10, "K": 10}
    said("the dealer giving ten cards to each player. The next card is turned face up")
    said("The remaining 31 cards, face down, are the **stock**.")
    deal = deal_hand(7, 1)
    assert isinstance(deal, Deal)
    assert [len(hand) for hand in deal.hands] == [10, 10] and len(deal.stock) == 31


def test_dead_hands_and_the_knock_limit() -> None:
    said("only two cards are left in the stock, the hand is **dead**")
    said("at most the knock limit (the `knock_limit` setting: 10 in both profiles)")
    assert FRIENDLY.dead_hand_stock_size == CLASSIC.dead_hand_stock_size == 2
    assert FRIENDLY.knock_limit == CLASSIC.knock_limit == 10


def test_the_scoring_section_names_the_profiles_bonuses() -> None:
    said("| gin | `k = 0` | the knocker | the gin bonus (25) plus `d0` |")
    said("the undercut bonus (`friendly` 25, `classic` 10)")
    assert FRIENDLY.gin_bonus == CLASSIC.gin_bonus == 25
    assert (FRIENDLY.undercut_bonus, CLASSIC.undercut_bonus) == (25, 10)
    said("reaches 100 (the `game_target` setting)")
    assert FRIENDLY.game_target == CLASSIC.game_target == 100


# -- the corrected sentences (issue 44)

FIRST_TURN = parse_cards("4h 5h 6h 9c 9d 9s Ac 2c 3c Kd 7h")


def test_the_first_turn_knocks_with_kd_for_gin_and_with_4h_at_the_limit() -> None:
    text = section("The first turn")
    assert "Discarding `Kd` leaves no deadwood: a gin knock." in text
    assert ("Discarding `4h` leaves `5h 6h 7h` a run and `Kd` as deadwood (10), exactly the "
            "knock limit: a knock, but not gin.") in text
    assert "either is a gin knock" not in text
    after = {str(card): deadwood for card, deadwood in deadwood_after_each_discard(
        FIRST_TURN).items()}
    assert after["Kd"] == 0
    assert after["4h"] == 10 == FRIENDLY.knock_limit
    # classic's knock discarding the 7h just taken: the ten left keep only Kd (10).
    assert "keep only `Kd` (10), exactly the knock limit" in text
    assert after["7h"] == 10 == CLASSIC.knock_limit


def test_a_declared_arrangement_counts_even_when_another_leaves_less() -> None:
    said("a knocker who declares an arrangement is held to it, and its deadwood counts even "
         "when another arrangement would leave less")
    said("So the defender, and a knocker who declares nothing, never lose points by "
         "arranging badly; a bot that declares its knock can.")
    assert "players never lose points by arranging badly" not in PROSE
    knocker = parse_cards("3c 3d 3h 4h 5h 8s 9s Ts Js Ac")
    defender = parse_cards("Kc Kd Qh Jc 9h 8d 6c 2d Td 9c")
    assert min_deadwood(knocker) == 7  # 3h 4h 5h + 8s-Js, 3c 3d Ac idle
    declared = settle(knocker, defender, FRIENDLY, knocker_melds=[
        parse_cards("3c 3d 3h"), parse_cards("8s 9s Ts Js")])  # 4h 5h Ac idle: 10
    assert declared.knocker_deadwood == 10 > min_deadwood(knocker)
    undeclared = settle(knocker, defender, FRIENDLY)
    assert undeclared.knocker_deadwood == 7
    # The defender is always counted at its least (no layoff fits here).
    assert declared.defender_deadwood == min_deadwood(defender) == undeclared.defender_deadwood


WHOLE_SERIES = (("Ann", 30), ("Bob", 20), ("Ann", 43), ("Ann", 35), ("Bob", 26),
                ("Bob", 40), ("Ann", 22), ("Bob", 61))


def test_a_whole_series_adds_hand_points_and_game_scores_as_the_page_says() -> None:
    text = section("A whole series")
    match = re.search(r"Bob's winning hands scored more points in all "
                      r"\(20 \+ 26 \+ 40 \+ 61 = (\d+) against Ann's "
                      r"30 \+ 43 \+ 35 \+ 22 = (\d+)\)", text)
    assert match, text
    bob_hands, ann_hands = int(match[1]), int(match[2])
    games = re.search(r"\(108 \+ 100 \+ 57 = (\d+) against Bob's 20 \+ 66 \+ 101 = (\d+)\)",
                      text)
    assert games, text
    sheet = ScoreSheet(FRIENDLY.game_target)
    players = ["Ann", "Bob"]
    for player, points in WHOLE_SERIES:
        sheet.record_win(players.index(player), points)
    hand_points = [sum(p for who, p in WHOLE_SERIES if who == name) for name in players]
    assert hand_points == [ann_hands, bob_hands] == [130, 147]
    assert [sum(sheet.scores(seat)) for seat in (0, 1)] == [int(games[1]), int(games[2])]
    assert sheet.is_over and sheet.winner == 0  # Ann: more games, fewer hand points
    # The rule it illustrates speaks of both sums.
    said("The game scores are never added up to choose the winner, and neither are the "
         "points of the hands won: a player whose hands scored more points in all can still "
         "lose")


# -- the rules the page did not state


def test_a_win_can_score_in_no_game() -> None:
    said("So a player whose first win comes after the opponent has finished game I scores "
         "nothing with it: it counts in game I only, which is over. The win still counts as "
         "a win: the player's second win scores in game II")
    text = section("A win that scores in no game")
    assert "Bob's first win (30) counts in game I only, which is over" in text
    assert "his second (20) counts in games I and II, and only II takes it" in text
    sheet = ScoreSheet(FRIENDLY.game_target)
    sheet.record_win(0, 60)
    sheet.record_win(0, 45)  # Ann 105: game I is over
    sheet.record_win(1, 30)
    assert sheet.scores(1) == (0, 0, 0) and sheet.opened(1) == (False, False, False)
    sheet.record_win(1, 20)
    assert sheet.scores(1) == (0, 20, 0)


def layoff_melds(knocker: str, defender: str, declared: list[str] | None = None
                 ) -> list[tuple[str, str]]:
    settlement = settle(parse_cards(knocker), parse_cards(defender), FRIENDLY,
                        knocker_melds=None if declared is None
                        else [parse_cards(meld) for meld in declared])
    return [(" ".join(map(str, layoff.cards)), " ".join(map(str, layoff.meld)))
            for layoff in settlement.layoffs]


def test_equally_good_layoffs_are_chosen_as_the_page_says() -> None:
    said("When several choices leave the defender the same least deadwood, the engine lays "
         "off as few cards as it can.")
    said("it takes the knocker's melds in the order they are listed (the declared order; an "
         "arrangement the engine made lists sets first, by rank, then runs, by suit and rank) "
         "and gives each in turn as few cards as it can")
    defender = "7s Kd Qh Jc 9h 8d 5h 3d Td 9c"
    # The engine's own arrangement: the set comes first, so 7s goes onto the run.
    assert layoff_melds("7c 7d 7h 4s 5s 6s Ac 2c 3c 2d", defender) == [("7s", "4s 5s 6s")]
    # Declared with the run first: the run gets nothing, the set takes 7s.
    assert layoff_melds("7c 7d 7h 4s 5s 6s Ac 2c 3c 2d", defender,
                        ["4s 5s 6s", "7c 7d 7h", "Ac 2c 3c"]) == [("7s", "7c 7d 7h")]
    # Fewest cards: the defender's own run 8s 9s Ts leaves as little as laying it off.
    assert layoff_melds("5s 6s 7s Kc Kd Kh Ac 2c 3c 2d",
                        "8s 9s Ts Qh Jc 9h 8d 5h 3d Td") == []
    # A run: as few cards below it as possible, then above. 7c fits below 8c 9c Tc and
    # the set 7d 7h 7s; listed first, the run leaves it to the set.
    assert layoff_melds("8c 9c Tc 7d 7h 7s Ad 2d 3d 2h", "7c Kd Qh 6h 9h 8d 4h 3s Ts 9s",
                        ["8c 9c Tc", "7d 7h 7s", "Ad 2d 3d"]) == [("7c", "7d 7h 7s")]


@pytest.mark.parametrize("title", ["A knock with layoffs", "Gin"])
def test_the_worked_examples_points_follow_the_scoring_rule(title: str) -> None:
    """The points stated in the prose of a settled example are the rule's: d - k for
    a knock, the gin bonus plus d0 for gin (the boxes check them against settle)."""
    text = section(title)
    if title == "Gin":
        assert "so the knocker scores 25 + 18 = 43" in text
    else:
        assert "The knocker scores 22 - 4 = 18, in either profile." in text


def test_the_set_or_run_and_undercut_prose() -> None:
    text = section("Set or run")
    assert "which beats the long run `4h 5h 6h 7h` (deadwood 39)" in text
    hand = parse_cards("4h 5h 6h 7h 7c 7d Ks Qs 2c 3d")
    assert deadwood_of(hand, [parse_cards("4h 5h 6h 7h")]) == 39
    assert min_deadwood(hand) == 25
    text = section("An undercut (and friendly against classic)")
    assert ("The knocker's 8 is not below 7, so the defender undercuts and scores the "
            "difference, 1, plus the undercut bonus: 1 + 25 = 26 in `friendly`, 1 + 10 = 11 in "
            "`classic`.") in text
    knocker = parse_cards("Ah 2h 3h 7c 7d 7s 9s Ts Js 8d")
    defender = parse_cards("Kc Kd Kh 4h 5h 6h 2c 2d 3d 8s")
    for profile, points in ((FRIENDLY, 26), (CLASSIC, 11)):
        settlement = settle(knocker, defender, profile)
        assert (settlement.knocker_deadwood, settlement.defender_deadwood) == (8, 7)
        assert settlement.points == points == 1 + profile.undercut_bonus
    assert "the defender scores 0 + 25 in `friendly`, 0 + 10 in `classic`" in text
