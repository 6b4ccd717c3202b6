"""Series: dealer rotation per profile, the Hollywood sheet, series end, the hand cap."""

from __future__ import annotations

import json
import random

import pytest

from engine import (
    CLASSIC,
    FRIENDLY,
    Action,
    Card,
    IllegalActionError,
    Profile,
    ScoreSheet,
    Series,
    deal_hand,
    first_dealer,
)
from tests.helpers.deal_helpers import never_knock_choice, play_series


def events_of(series: Series, kind: str) -> list[dict[str, object]]:
    return [event for event in series.log if event["type"] == kind]


def test_first_dealer_comes_from_the_seed_and_swap_flips_it() -> None:
    for seed in range(20):
        plain, swapped = Series(seed), Series(seed, swap_seats=True)
        assert plain.hand.dealer == first_dealer(seed)
        assert swapped.hand.dealer == 1 - plain.hand.dealer
        assert plain.current_player == 1 - plain.hand.dealer


def test_swap_seats_gives_each_seat_the_other_seats_cards() -> None:
    plain, swapped = Series(42), Series(42, swap_seats=True)
    assert plain.hand.cards(0) == swapped.hand.cards(1)
    assert plain.hand.cards(1) == swapped.hand.cards(0)
    assert plain.hand.deal.stock == swapped.hand.deal.stock
    assert plain.hand.deal == deal_hand(42, 1)


def test_friendly_deal_alternates_after_every_hand_dead_hands_included() -> None:
    seen = {"dead": 0, "won": 0}
    for seed in range(6):
        series = Series(seed, FRIENDLY, max_hands=40)
        play_series(series, random.Random(seed), greedy=0.6)
        for before, after in zip(series.hands, series.hands[1:], strict=False):
            assert after.dealer == 1 - before.dealer
            assert before.result is not None
            seen["dead" if before.result.winner is None else "won"] += 1
    assert seen["dead"] > 0 and seen["won"] > 0


def test_classic_winner_deals_next_and_dead_hand_redeals_same_dealer() -> None:
    seen = {"dead": 0, "won by non-dealer": 0, "won by dealer": 0}
    for seed in range(8):
        series = Series(seed, CLASSIC, max_hands=40)
        play_series(series, random.Random(seed), greedy=0.6)
        for before, after in zip(series.hands, series.hands[1:], strict=False):
            result = before.result
            assert result is not None
            if result.winner is None:
                assert after.dealer == before.dealer
                seen["dead"] += 1
            else:
                assert after.dealer == result.winner
                by_dealer = result.winner == before.dealer
                seen["won by dealer" if by_dealer else "won by non-dealer"] += 1
    assert all(count > 0 for count in seen.values()), seen


@pytest.mark.parametrize("profile", [FRIENDLY, CLASSIC])
def test_sheet_follows_the_hand_results_and_series_ends_when_all_games_finish(
    profile: Profile,
) -> None:
    series = Series(11, profile)
    play_series(series, random.Random(11))
    result = series.result
    assert result is not None and not result.capped
    expected = ScoreSheet(profile.game_target)
    for hand_end in events_of(series, "hand_end"):
        winner = hand_end["winner"]
        if winner is not None:
            expected.record_win(winner, hand_end["points"])  # type: ignore[arg-type]
        assert hand_end["sheet"] == expected.to_dict()
    assert expected.is_over and series.sheet == expected
    assert result.winner == expected.winner
    assert result.games_won == (expected.games_won(0), expected.games_won(1))
    assert result.game_scores == (expected.scores(0), expected.scores(1))
    assert result.hands_won == (expected.hands_won(0), expected.hands_won(1))
    assert result.hands_played == len(series.hands)
    points = [0, 0]
    for hand_result in series.hand_results:
        if hand_result.winner is not None:
            points[hand_result.winner] += hand_result.points
    assert result.points == (points[0], points[1])
    assert max(result.games_won) >= 2


def test_a_finished_series_accepts_no_more_actions() -> None:
    series = Series(3)
    play_series(series, random.Random(3))
    assert series.is_over and series.current_player is None
    assert series.legal_actions() == []
    log_length = len(series.log)
    with pytest.raises(IllegalActionError, match="series is over"):
        series.apply(series.hand.moves[0].action)
    assert len(series.log) == log_length
    assert series.log[-1]["type"] == "series_end"
    assert series.log[-1]["winner"] == series.result.winner  # type: ignore[union-attr]


def test_apply_returns_the_action_and_hand_boundary_events() -> None:
    series = Series(8, max_hands=2)
    first = series.apply(series.legal_actions()[1])  # pass
    seat = 1 - series.hands[0].dealer
    assert first == [{"type": "action", "hand": 1, "seat": seat, "action": {"kind": "pass"}}]
    boundary: list[list[dict[str, object]]] = []
    while not series.is_over:
        events = series.apply(never_knock_choice(series.hand))
        if len(events) > 1:
            boundary.append(events)
    assert [[e["type"] for e in events] for events in boundary] == [
        ["action", "hand_end", "hand_start"],
        ["action", "hand_end", "series_end"],
    ]
    hand_start = boundary[0][2]
    assert set(hand_start) == {"type", "hand", "dealer"}  # no cards at the start
    hand_end = boundary[0][1]
    assert hand_end["kind"] == "dead" and hand_end["hand"] == 1
    assert len(hand_end["exposed"][0]["cards"]) == 10  # type: ignore[index]


def test_hand_cap_with_only_dead_hands_is_a_draw() -> None:
    series = Series(5, FRIENDLY, max_hands=3)
    while not series.is_over:
        series.apply(never_knock_choice(series.hand))
    result = series.result
    assert result is not None
    assert result.capped and result.hands_played == 3
    assert result.winner is None
    assert result.game_winners == (None, None, None)
    assert result.games_won == (0, 0)


def find_first_hand_won(profile: Profile) -> tuple[int, Series]:
    """A seed whose first hand the greedy policy wins, played with max_hands=1."""
    for seed in range(200):
        series = Series(seed, profile, max_hands=1)
        play_series(series, random.Random(seed), greedy=1.0)
        if series.hand_results[0].winner is not None:
            return seed, series
    raise AssertionError("no seed with a first hand won")


def test_hand_cap_awards_unfinished_games_by_higher_score() -> None:
    _, series = find_first_hand_won(FRIENDLY)
    first = series.hand_results[0]
    assert first.winner is not None and first.points < 100
    result = series.result
    assert result is not None and result.capped and result.hands_played == 1
    # Only game I has a score: it goes to the hand's winner; II and III are tied at 0.
    assert result.game_winners == (first.winner, None, None)
    games = [0, 0]
    games[first.winner] = 1
    assert result.games_won == (games[0], games[1])
    assert result.winner == first.winner
    assert series.log[-1]["capped"] is True


def test_hand_cap_matches_the_sheet_award_on_longer_series() -> None:
    capped = 0
    for seed in range(10):
        series = Series(seed, CLASSIC, max_hands=6)
        play_series(series, random.Random(seed), greedy=0.8)
        result = series.result
        assert result is not None
        if not result.capped:
            assert series.sheet.is_over
            continue
        capped += 1
        award = series.sheet.award_at_cap()
        assert len(series.hands) == 6
        assert (result.winner, result.games_won, result.game_winners) == (
            award.winner,
            award.games_won,
            award.game_winners,
        )
    assert capped > 0


def test_observation_carries_the_sheet_and_the_previous_hand() -> None:
    _, single = find_first_hand_won(FRIENDLY)
    # Replay the same first hand in a longer series and look at hand 2.
    series = Series(single.seed, FRIENDLY, max_hands=10)
    for move in single.hands[0].moves:
        series.apply(move.action)
    assert series.hand_number == 2
    first = single.hand_results[0]
    assert first.winner is not None
    for seat in (0, 1):
        view = series.observation(seat)
        assert view.hand_number == 2
        assert view.hands_won[first.winner] == 1
        assert view.scores[first.winner][0] == first.points
        assert view.last_hand_result == json.loads(json.dumps(first.public_dict(seat)))
        assert view.max_hands == 10
    with pytest.raises(ValueError, match="seat 0 or 1"):
        series.observation(2)


def test_history_has_every_deal_move_result_and_sheet() -> None:
    series = Series(21, CLASSIC, max_hands=30)
    play_series(series, random.Random(21))
    history = series.history()
    assert len(history) == len(series.hands)
    hand_ends = events_of(series, "hand_end")
    for record, hand, hand_end in zip(history, series.hands, hand_ends, strict=True):
        assert record["hand"] == hand.hand_number
        assert record["deal"]["upcard"] == str(hand.deal.upcard)
        assert len(record["deal"]["stock"]) == 31
        assert [m["action"] for m in record["moves"]] == [str(m.action) for m in hand.moves]
        draws = [m for m in record["moves"] if m["action"].startswith("draw")]
        assert all(m["drawn"] is not None for m in draws)
        assert record["result"] == {k: v for k, v in hand_end.items() if k not in ("type", "sheet")}
        assert record["sheet_after"] == hand_end["sheet"]
    json.dumps(history)


@pytest.mark.parametrize(
    ("kwargs", "fragment"),
    [
        ({"seed": "1"}, "seed must be an int"),
        ({"seed": 1, "max_hands": 0}, "max_hands"),
        ({"seed": 1, "max_hands": True}, "max_hands"),
        ({"seed": 1, "profile": "friendly"}, "profile must be a Profile"),
        ({"seed": 1, "swap_seats": 1}, "swap_seats"),
    ],
)
def test_bad_series_arguments_are_rejected(kwargs: dict[str, object], fragment: str) -> None:
    with pytest.raises(ValueError, match=fragment):
        Series(**kwargs)  # type: ignore[arg-type]


def test_profile_game_target_is_used() -> None:
    short = FRIENDLY.derive(game_target=30)
    series = Series(4, short)
    play_series(series, random.Random(4))
    assert series.sheet.game_target == 30
    assert series.result is not None and not series.result.capped


def test_illegal_action_leaves_the_series_untouched() -> None:
    series = Series(6)
    before_log = json.dumps(series.log)
    before_views = [json.dumps(series.observation(seat).to_dict()) for seat in (0, 1)]
    for bad in (Action.draw_stock(), Action.discard(Card.parse("As")), "pass"):
        with pytest.raises(IllegalActionError):
            series.apply(bad)  # type: ignore[arg-type]
        assert json.dumps(series.log) == before_log
        assert [json.dumps(series.observation(s).to_dict()) for s in (0, 1)] == before_views


def test_history_records_each_hands_dealer() -> None:
    # FRIENDLY alternates the deal after every hand, dead hands included
    # (docs/rules.md#who-deals-next).
    series = Series(7, FRIENDLY, max_hands=4)
    play_series(series, random.Random(7))
    first = first_dealer(7)
    assert [record["dealer"] for record in series.history()] == [
        (first + number) % 2 for number in range(len(series.hands))]


def test_replay_errors_quote_a_bad_entry_up_to_300_characters() -> None:
    from engine import ReplayError

    start = Series(1).log[:2]  # series_start and hand_start
    exact = "a" * 298  # its repr, with the quotes, is exactly 300 characters
    with pytest.raises(ReplayError) as caught:
        Series.replay([*start, exact])
    assert f"log entry 2: expected an action event, got '{exact}';" in str(caught.value)
    longer = "b" * 299  # repr 301 characters: cut to 297 and "..."
    with pytest.raises(ReplayError) as caught:
        Series.replay([*start, longer])
    assert f"got '{'b' * 296}...;" in str(caught.value)


def test_history_of_a_hand_in_progress() -> None:
    series = Series(5, FRIENDLY, max_hands=3)
    dealt = deal_hand(5, 1)
    non_dealer = 1 - series.first_dealer
    for text in ("pass", "pass", "draw stock"):
        series.apply(Action.parse(text))
    [record] = series.history()
    assert record["hand"] == 1
    assert record["deal"]["hands"] == [[str(card) for card in dealt.hands[0]],
                                       [str(card) for card in dealt.hands[1]]]
    assert record["deal"]["hands"][0] != record["deal"]["hands"][1]
    assert record["deal"]["upcard"] == str(dealt.upcard)
    stock = record["deal"]["stock"]
    assert stock == [str(card) for card in dealt.stock]
    # The stock is listed top first: the draw took its first card.
    assert record["moves"] == [
        {"seat": non_dealer, "action": "pass", "drawn": None},
        {"seat": 1 - non_dealer, "action": "pass", "drawn": None},
        {"seat": non_dealer, "action": "draw stock", "drawn": stock[0]},
    ]
    assert record["result"] is None
    assert record["sheet_after"] is None


def test_replay_names_a_first_entry_that_is_not_the_start() -> None:
    from engine import ReplayError

    with pytest.raises(ReplayError, match=(
            r"^log entry 0 must be the series_start event, got \{'type': 'hand_start'\}$")):
        Series.replay([{"type": "hand_start"}])


def test_series_result_to_dict_names_every_field() -> None:
    from engine.series import SeriesResult

    result = SeriesResult(
        winner=1, games_won=(1, 2), game_winners=(1, 0, 1),
        game_scores=((40, 110, 20), (105, 60, 100)), hands_won=(5, 7), points=(170, 265),
        hands_played=13, capped=False,
    )
    assert result.to_dict() == {
        "winner": 1, "games_won": [1, 2], "game_winners": [1, 0, 1],
        "game_scores": [[40, 110, 20], [105, 60, 100]], "hands_won": [5, 7],
        "points": [170, 265], "hands_played": 13, "capped": False,
    }


@pytest.mark.parametrize("log", [[], {"type": "series_start"}, "log"])
def test_replay_refuses_a_log_that_is_not_a_non_empty_list(log: object) -> None:
    from engine import ReplayError

    with pytest.raises(ReplayError, match=r"^a series log must be a non-empty list of events$"):
        Series.replay(log)  # type: ignore[arg-type]


def test_replay_error_messages_in_full() -> None:
    from engine import ReplayError

    series = Series(3, FRIENDLY, max_hands=2)
    series.apply(Action.parse("pass"))
    log = json.loads(json.dumps(series.log))
    dealer = log[1]["dealer"]
    # An event of another type where an action belongs.
    with pytest.raises(ReplayError) as caught:
        Series.replay([log[0], log[1], {"type": "hand_start"}])
    assert str(caught.value) == (
        "log entry 2: expected an action event, got {'type': 'hand_start'}; "
        "the replay produced 2 entries up to here")
    # A changed entry: both versions quoted.
    log[1]["dealer"] = 1 - dealer
    with pytest.raises(ReplayError) as caught:
        Series.replay(log)
    assert str(caught.value) == (
        f"log entry 1 differs from the replay: logged {{'type': 'hand_start', 'hand': 1, "
        f"'dealer': {1 - dealer}}}, replayed {{'type': 'hand_start', 'hand': 1, "
        f"'dealer': {dealer}}}")


def test_a_finished_series_reports_each_games_own_winner() -> None:
    # A series whose games were won by different seats, so no game's winner can stand
    # in for another's; the per-game winners are the sheet's (pinned in test_scoresheet).
    for seed in range(40):
        series = Series(seed, FRIENDLY)
        play_series(series, random.Random(seed))
        result = series.result
        assert result is not None
        winners = tuple(series.sheet.game_winner(game) for game in range(3))
        if not result.capped and winners[0] != winners[1] and winners[1] != winners[2]:
            break
    else:
        pytest.fail("no seed gave games won by alternating seats")
    assert result.game_winners == winners
    assert result.games_won == (winners.count(0), winners.count(1))
    assert result.capped is False
    assert result.to_dict()["capped"] is False


def test_the_first_hand_has_no_previous_result() -> None:
    series = Series(2, FRIENDLY)
    assert series.observation(0).last_hand_result is None
    assert series.observation(1).last_hand_result is None
