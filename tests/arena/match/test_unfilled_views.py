"""An in-process bot's observation filled when first read (issue 29): a bot that reads
only the legal actions costs no card views; whatever a bot reads, during its decision
or after the series went on (it kept the observation, its ``__dict__`` or its
filler), equals the SDK's parse of the gRPC message at that decision (an independent
implementation): the engine's ``SeatView`` it is rendered from holds that moment."""

from __future__ import annotations

import random
from typing import Any

import hollywood_sdk as hs
import pytest
from hollywood_sdk.views import UNFILLED

from arena.match import protocol
from arena.match.decision import Decision
from arena.match.direct import DirectConnection
from arena.match.direct_views import ViewBuilder
from arena.sandbox.base import InProcessTarget
from engine.profiles import get_profile
from engine.scoresheet import SheetState
from engine.seat_moment import SeatMoment
from engine.series import Series


def play(bot: hs.Bot, *, inline: bool = True) -> list[hs.Observation]:
    """Two hands of ``bot`` against itself through a ``DirectConnection`` (on this
    thread as in a match, or handed to its worker); each decision's observation as
    the SDK parses the message, made before the bot is asked."""
    series = Series(11, get_profile("friendly"), max_hands=2)
    profile = protocol.profile_to_proto(series.profile, series.max_hands)
    expected: list[hs.Observation] = []
    with DirectConnection(InProcessTarget(bot, "t", "1.0.0", "")) as connection:
        connection.call_guard.watched = inline
        while (seat := series.current_player) is not None:
            legal = series.legal_actions()
            decision = Decision(series, seat, legal, profile, series_id="u",
                                decision_number=len(expected) + 1, decision_s=1.0,
                                reserve_s=5.0)
            expected.append(hs.Observation.from_proto(decision.message()))
            series.apply(connection.decide(decision, legal, allowed_s=5.0))
    return expected


def counted_fills(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    fills: list[int] = []
    original = ViewBuilder._fill

    def fill(self: ViewBuilder, moment: SeatMoment, sheet: SheetState, profile: Any,
             decision_s: float, reserve_s: float, values: dict[str, Any]) -> None:
        fills.append(values.get("decision_number", 0))
        original(self, moment, sheet, profile, decision_s, reserve_s, values)

    monkeypatch.setattr(ViewBuilder, "_fill", fill)
    return fills


class LegalOnly(hs.Bot):
    def __init__(self) -> None:
        self._random = random.Random(4)

    def decide(self, observation: hs.Observation) -> hs.Action:
        return self._random.choice(observation.legal_actions)


class Keeps(LegalOnly):
    """Keeps every observation (or its ``__dict__``) and reads nothing else now."""

    def __init__(self, what: str) -> None:
        super().__init__()
        self.what = what
        self.kept: list[Any] = []

    def decide(self, observation: hs.Observation) -> hs.Action:
        kept = {"dict": vars(observation), "observation": observation,
                "filler": vars(observation).get(UNFILLED)}
        self.kept.append(kept[self.what])
        return super().decide(observation)


class ReadsHand(LegalOnly):
    def __init__(self) -> None:
        super().__init__()
        self.hands: list[tuple[hs.Card, ...]] = []

    def decide(self, observation: hs.Observation) -> hs.Action:
        self.hands.append(observation.hand)
        return super().decide(observation)


@pytest.mark.parametrize("inline", [True, False])
def test_a_bot_reading_only_the_legal_actions_has_nothing_else_built(
        monkeypatch: pytest.MonkeyPatch, inline: bool) -> None:
    fills = counted_fills(monkeypatch)
    expected = play(LegalOnly(), inline=inline)
    assert len(expected) > 50 and fills == []


def test_a_kept_observation_reads_what_it_was_at_its_decision(
        monkeypatch: pytest.MonkeyPatch) -> None:
    fills = counted_fills(monkeypatch)
    bot = Keeps("observation")
    expected = play(bot)
    assert fills == []  # nothing read during the decisions: nothing rendered
    assert bot.kept == expected  # read long after: every field as it was then
    assert fills == list(range(1, len(expected) + 1))  # each rendered once, when read
    assert all(type(kept) is hs.Observation for kept in bot.kept)


def test_a_kept_dict_holds_every_field_as_it_was_once_filled() -> None:
    bot = Keeps("dict")
    expected = play(bot)
    assert all(UNFILLED in kept for kept in bot.kept)  # unread, so unrendered
    for kept in bot.kept:
        kept[UNFILLED](kept)  # what the SDK's observation does at its first read
    assert bot.kept == [vars(view) for view in expected]


def test_a_field_read_during_the_decision_fills_it_once(
        monkeypatch: pytest.MonkeyPatch) -> None:
    fills = counted_fills(monkeypatch)
    bot = ReadsHand()
    expected = play(bot, inline=False)
    assert bot.hands == [view.hand for view in expected]
    assert fills == list(range(1, len(expected) + 1))


def test_a_kept_filler_fills_what_was_at_its_decision() -> None:
    bot = Keeps("filler")
    expected = play(bot)
    for filler, view in zip(bot.kept, expected, strict=True):
        later: dict[str, Any] = {UNFILLED: filler}
        filler(later)
        assert later and UNFILLED not in later
        assert later == {name: getattr(view, name) for name in later}
    lazy = set(later)
    assert {"hand", "opponent_known_cards", "discard_pile", "taken_discard"} <= lazy
