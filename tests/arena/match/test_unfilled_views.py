"""An in-process bot's observation filled when first read (issue 29): a bot that reads
only the legal actions costs no card views; whatever a bot reads, during its decision
or after the series went on (it kept the observation, or its ``__dict__``), equals the
SDK's parse of the gRPC message at that decision (an independent implementation)."""

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
                                decision_number=len(expected) + 1, deadline_s=1.0,
                                reserve_s=5.0)
            expected.append(hs.Observation.from_proto(decision.message()))
            series.apply(connection.decide(decision, legal, timeout=5.0))
    return expected


def counted_fills(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    fills: list[int] = []
    original = ViewBuilder._fill

    def fill(self: ViewBuilder, values: dict[str, Any], decision: Decision) -> None:
        fills.append(decision.decision_number)
        original(self, values, decision)

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
    assert fills == list(range(1, len(expected) + 1))  # each filled once, at its decision
    assert bot.kept == expected  # read long after: every field as it was then
    assert all(type(kept) is hs.Observation for kept in bot.kept)


def test_a_kept_dict_holds_every_field_as_it_was() -> None:
    bot = Keeps("dict")
    expected = play(bot)
    assert [{name: kept[name] for name in vars(view)} for kept, view
            in zip(bot.kept, expected, strict=True)] == [vars(view) for view in expected]
    assert not any(UNFILLED in kept for kept in bot.kept)


def test_a_field_read_during_the_decision_fills_it_once(
        monkeypatch: pytest.MonkeyPatch) -> None:
    fills = counted_fills(monkeypatch)
    bot = ReadsHand()
    expected = play(bot, inline=False)
    assert bot.hands == [view.hand for view in expected]
    assert fills == list(range(1, len(expected) + 1))


def test_a_kept_filler_fills_nothing_once_the_series_went_on(
        monkeypatch: pytest.MonkeyPatch) -> None:
    fills = counted_fills(monkeypatch)
    bot = Keeps("filler")
    expected = play(bot)
    assert fills == list(range(1, len(expected) + 1))  # each observation, at its decision
    later: dict[str, Any] = {UNFILLED: bot.kept[0]}
    bot.kept[0](later)
    assert later == {UNFILLED: bot.kept[0]} and len(fills) == len(expected)
