"""The `shark` sample bot: its card arithmetic, its decisions in constructed
situations, legality everywhere, and (slow) that it beats `greedy`."""

from __future__ import annotations

import importlib
import itertools
import random
from concurrent.futures import ProcessPoolExecutor
from typing import Any

import hollywood_sdk as hs
import pytest
from hollywood.bot.v1 import bot_pb2 as pb

from arena.match import protocol
from engine import FRIENDLY, Series
from tests.helpers.sdk_duel import load_bot_class, play_duplicate_pair, play_series, wilson_interval

SharkBot: Any = load_bot_class("shark", "shark_bot", "SharkBot")
GreedyBot = load_bot_class("greedy", "greedy_bot", "GreedyBot")
RandomBot: Any = load_bot_class("random", "random_bot", "RandomBot")
shark_bot: Any = importlib.import_module("shark_bot")  # its folder is on the path now

PHASES = {"offer": pb.PHASE_UPCARD_OFFER, "draw": pb.PHASE_DRAW, "discard": pb.PHASE_DISCARD}


def observe(
    hand: str,
    *,
    phase: str = "discard",
    pile: str = "2d",
    known: str = "",
    stock: int = 25,
    knocks: bool = True,
    taken: str = "",
    seat: int = 0,
    dealer: int = 1,
) -> hs.Observation:
    """A decision as the arena would send it; the legal actions follow the rules
    (knocks offered when the deadwood after the discard is at most 10)."""
    cards = hand.split()
    legal: list[pb.Action] = []
    if phase == "discard":
        for card in cards:
            if card == taken:
                continue
            legal.append(pb.Action(kind=pb.ACTION_KIND_DISCARD, card=card))
        for card in cards:
            rest = hs.parse_cards(c for c in cards if c != card)
            if knocks and card != taken and hs.min_deadwood(rest) <= 10:
                legal.append(pb.Action(kind=pb.ACTION_KIND_KNOCK, card=card))
    elif phase == "draw":
        legal = [pb.Action(kind=pb.ACTION_KIND_DRAW_STOCK),
                 pb.Action(kind=pb.ACTION_KIND_DRAW_DISCARD)]
    else:
        legal = [pb.Action(kind=pb.ACTION_KIND_DRAW_DISCARD), pb.Action(kind=pb.ACTION_KIND_PASS)]
    request = pb.DecideRequest(
        series_id="constructed", hand_number=1, decision_number=9,
        observation=pb.Observation(
            seat=seat, dealer=dealer, phase=PHASES[phase], hand=cards, discard_pile=pile.split(),
            stock_size=stock, opponent_hand_size=10, opponent_known_cards=known.split(),
            taken_discard=taken,
        ),
        legal_actions=legal,
        profile=protocol.profile_to_proto(FRIENDLY, 200),
        deadline_ms=1000, reserve_ms=30000,
    )
    return hs.Observation.from_proto(request)


def decide(observation: hs.Observation, bot: Any = None) -> str:
    return str((bot or SharkBot()).decide(observation))


# ------------------------------------------------------------------ card arithmetic


def test_its_deadwood_search_agrees_with_the_sdk() -> None:
    rng = random.Random(5)
    for size in (3, 9, 10, 11):
        for _ in range(400):
            cards = rng.sample(hs.FULL_DECK, size)
            assert shark_bot.deadwood(shark_bot._mask_of(cards)) == hs.min_deadwood(cards), cards
    # Run-heavy hands from two suits stress overlapping runs and sets.
    two_suits = [card for card in hs.FULL_DECK if card.suit in "cd"]
    for _ in range(300):
        cards = rng.sample(two_suits, 11)
        assert shark_bot.deadwood(shark_bot._mask_of(cards)) == hs.min_deadwood(cards), cards


def test_expected_deadwood_after_a_draw_matches_brute_force() -> None:
    rng = random.Random(8)
    for _ in range(40):
        cards = rng.sample(hs.FULL_DECK, 25)
        hand, unseen = cards[:10], cards[10:]
        expected = sum(
            min(hs.min_deadwood(hand), hs.best_discards([*hand, drawn])[0]) for drawn in unseen
        ) / len(unseen)
        got = shark_bot.expected_after_draw(shark_bot._mask_of(hand),
                                            [shark_bot._INDEX[c] for c in unseen])
        assert got == pytest.approx(expected)


# ------------------------------------------------------------------ discards


def test_it_withholds_the_card_that_completes_the_opponents_known_meld() -> None:
    # Kh and Ks are interchangeable for this hand (swap hearts and spades): only the
    # opponent's pick-ups tell them apart.
    hand = "2c 3c 4c 7d 8d 9d 5c 5h 5s Kh Ks"
    assert decide(observe(hand, known="Qh Jh", knocks=False)) == "discard Ks"
    assert decide(observe(hand, known="Qs Js", knocks=False)) == "discard Kh"
    assert decide(observe(hand, known="Kc Kd", knocks=False)) in ("discard Kh", "discard Ks")


def test_it_still_breaks_up_nothing_to_avoid_a_risky_discard() -> None:
    # The only deadwood is Kh, which the opponent wants; any other discard breaks a
    # meld and costs far more than the risk.
    hand = "2c 3c 4c 7d 8d 9d 5c 5h 5s Ac Kh"
    assert decide(observe(hand, known="Qh Jh", knocks=False)) == "discard Kh"


def test_a_card_the_opponent_declined_makes_the_same_meld_unlikely() -> None:
    # This bot deals (seat 0); the opponent passes the upcard Ts, then draws from the
    # stock and throws Qd. Kh and Ks are interchangeable for this hand except that an
    # opponent holding Js Qs would have taken Ts: so Ks is the safer discard.
    ten = "2c 3c 4c 7d 8d 9d 5c 5h 5s Kh"
    eleven = ten + " Ks"
    bot = SharkBot()
    assert decide(observe(ten, phase="offer", pile="Ts", seat=0, dealer=0), bot) == "pass"
    assert decide(observe(ten, phase="draw", pile="Ts Qd", seat=0, dealer=0), bot) == "draw stock"
    assert decide(observe(eleven, pile="Ts Qd", knocks=False, seat=0, dealer=0), bot) == (
        "discard Ks")
    # Without that memory (a bot that sees only this decision) the two are equal.
    assert decide(observe(eleven, pile="Ts Qd", knocks=False, seat=0, dealer=0)) == "discard Kh"


def test_its_discards_keep_the_deadwood_low() -> None:
    hand = "4h 5h 6h 9c 9d 9s Ac 2c 3c Kd Qs"
    assert decide(observe(hand, knocks=False)) in ("discard Kd", "discard Qs")


def test_it_never_discards_the_card_it_just_took() -> None:
    hand = "4h 5h 6h 9c 9d 9s Ac 2c 3c Kd 7h"
    for stock in (30, 5):
        action = decide(observe(hand, taken="Kd", knocks=False, stock=stock))
        assert action != "discard Kd" and action.startswith("discard")


# ------------------------------------------------------------------ draws


def test_it_takes_a_face_up_card_that_makes_a_meld() -> None:
    hand = "4h 5h 9c 9d Ac 2c 3c Kd Qs 7s"
    assert decide(observe(hand, phase="draw", pile="2d 6h")) == "draw discard"
    assert decide(observe(hand, phase="offer", pile="9s")) == "draw discard"


def test_it_leaves_a_face_up_card_that_does_not_help() -> None:
    hand = "4h 5h 9c 9d Ac 2c 3c Kd Qs 7s"
    assert decide(observe(hand, phase="draw", pile="2d Jc")) == "draw stock"
    assert decide(observe(hand, phase="offer", pile="Jc")) == "pass"


# ------------------------------------------------------------------ knocks


def test_it_knocks_for_gin_at_any_stage() -> None:
    hand = "4h 5h 6h 9c 9d 9s Ac 2c 3c Kd 7h"
    for stock in (31, 15, 3):
        assert decide(observe(hand, stock=stock)) == "knock Kd"


def test_it_knocks_early_but_waits_late_with_a_high_deadwood() -> None:
    # Nine deadwood after discarding the king (9c).
    hand = "4h 5h 6h 7d 8d 9d Ac 2c 3c Kd 9c"
    assert decide(observe(hand, stock=30)) == "knock Kd"
    late = decide(observe(hand, stock=4))
    assert late.startswith("discard")


def test_it_knocks_with_a_tiny_deadwood_late_in_the_hand() -> None:
    hand = "4h 5h 6h 7d 8d 9d Ac 2c 3c Kd 2s"
    assert decide(observe(hand, stock=4)) == "knock Kd"


def test_it_plays_on_for_gin_with_a_tiny_deadwood_early() -> None:
    # Two deadwood with a full stock: gin (or an undercut if the opponent knocks)
    # is worth more than a knock; it still throws the king, not a meld card.
    hand = "4h 5h 6h 7d 8d 9d Ac 2c 3c Kd 2s"
    assert decide(observe(hand, stock=30)) == "discard Kd"
    assert decide(observe(hand, stock=30), SharkBot(shark_bot.Tuning(gin_hunt_deadwood=0))) == (
        "knock Kd")


def test_its_knock_discard_leaves_the_least_deadwood() -> None:
    # Both the king and the 9c may go with the knock; the 9c would leave 10, not 9.
    hand = "4h 5h 6h 7d 8d 9d Ac 2c 3c Kd 9c"
    assert decide(observe(hand, stock=30)) == "knock Kd"


# ------------------------------------------------------------------ legality


def test_every_decision_is_legal_over_many_random_game_states() -> None:
    """Random play drives the engine; shark answers every state (both seats) in a
    fresh instance and in one long-lived instance that sees the states in order."""
    rng = random.Random(11)
    profile = protocol.profile_to_proto(FRIENDLY, 200)
    checked = 0
    for seed in range(3):
        series = Series(seed, FRIENDLY, max_hands=4)
        watchers = (SharkBot(), SharkBot())
        while series.current_player is not None:
            seat = series.current_player
            legal = series.legal_actions()
            request = protocol.decide_request(
                series.observation(seat), legal, profile, series_id=f"s{seed}",
                decision_number=checked, decision_s=1.0, reserve_s=30.0)
            observation = hs.Observation.from_proto(request)
            for bot in (watchers[seat], SharkBot()):
                action = bot.decide(observation)
                assert action in observation.legal_actions, (action, observation)
            checked += 1
            series.apply(rng.choice(legal))
    assert checked > 200


def test_it_plays_whole_series_legally_against_random_and_greedy() -> None:
    # play_series decodes every reply as the arena does and raises on an illegal one.
    for seed, opponent in itertools.product((1, 2), (RandomBot, GreedyBot)):
        result = play_series((SharkBot(), opponent()), seed, max_hands=30)
        assert result.hands_played >= 1


# ------------------------------------------------------------------ strength


def _pair(seed: int) -> tuple[int, int]:
    pair = play_duplicate_pair(SharkBot, GreedyBot, seed)
    return pair.series_won, 2 - pair.series_won - pair.series_drawn


@pytest.mark.slow
def test_shark_beats_greedy_over_duplicate_series() -> None:
    """30 duplicate pairs (60 series). The full measurement with its confidence
    interval is tests/bench/bench_shark_strength.py."""
    with ProcessPoolExecutor(2) as pool:
        results = list(pool.map(_pair, range(5000, 5030)))
    shark = sum(won for won, _ in results)
    greedy = sum(lost for _, lost in results)
    assert shark > greedy, (shark, greedy)
    assert wilson_interval(shark, 60)[0] > 0.5, (shark, greedy)


def test_a_strategy_failure_still_answers_a_legal_action(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    bot = SharkBot()

    def broken(observation: hs.Observation) -> hs.Action:
        raise RuntimeError("strategy bug")

    monkeypatch.setattr(bot, "_draw", broken)
    observation = observe("4h 5h 9c 9d Ac 2c 3c Kd Qs 7s", phase="draw", pile="2d 6h")
    assert bot.decide(observation) in observation.legal_actions
    assert "strategy bug" in capsys.readouterr().err


# ------------------------------------------------------------------ in its container


@pytest.mark.docker
def test_shark_builds_and_plays_a_series_in_its_container(docker_sandbox: Any) -> None:
    from arena.core.limits import TimeLimits
    from arena.core.series import SeriesSpec
    from arena.match.runner import run_series
    from tests.helpers.sandboxes import SAMPLE_BOTS, bot_ref

    spec = SeriesSpec(
        series_id="shark-docker", seed=77, profile=FRIENDLY, max_hands=30, swap_seats=False,
        bots=(bot_ref(SAMPLE_BOTS / "shark"), bot_ref(SAMPLE_BOTS / "greedy")),
        limits=TimeLimits(startup_s=20.0, decision_s=1.0, reserve_s=10.0),
    )
    outcome = run_series(spec, docker_sandbox)
    assert outcome.fault is None, outcome.fault
    replayed = Series.replay(outcome.log).result
    assert replayed is not None and outcome.winner == replayed.winner
    assert outcome.hands_played == replayed.hands_played >= 1
