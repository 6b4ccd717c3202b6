"""The SDK's ``Observation`` with fields left unfilled (``views.UNFILLED``, what an
in-process arena makes): a missing field is filled by its filler on first read, any
other missing attribute is the usual ``AttributeError``, and a copy or a pickle has
every field. Made here by hand from the SDK's own parse of a message."""

from __future__ import annotations

import copy
import pickle
from typing import Any

import hollywood_sdk as hs
import pytest
from hollywood.bot.v1 import bot_pb2
from hollywood_sdk.views import UNFILLED

REQUEST = bot_pb2.DecideRequest(
    series_id="s-1", hand_number=2, decision_number=7, deadline_ms=1000, reserve_ms=4500,
    observation=bot_pb2.Observation(
        seat=1, dealer=0, phase=bot_pb2.PHASE_DISCARD,
        hand=["As", "2s", "3s", "Kd", "Kh", "Kc", "9c", "Tc", "Jc", "4h", "7d"],
        discard_pile=["5d", "Qs"], stock_size=29, opponent_hand_size=10,
        opponent_known_cards=["Qh"], taken_discard="7d"),
    legal_actions=[bot_pb2.Action(kind=bot_pb2.ACTION_KIND_DISCARD, card="As")])
FULL = hs.Observation.from_proto(REQUEST)
KEPT_AT_ONCE = ("series_id", "hand_number", "decision_number", "seat", "legal_actions")


def unfilled(calls: list[str]) -> hs.Observation:
    """``FULL`` with only ``KEPT_AT_ONCE`` filled; its filler counts its calls."""
    def fill(values: dict[str, Any]) -> None:
        calls.append("fill")
        values.update({name: value for name, value in vars(FULL).items()
                       if name not in values})
        values.pop(UNFILLED)

    made: Any = object.__new__(hs.Observation)
    values: dict[str, Any] = {name: getattr(FULL, name) for name in KEPT_AT_ONCE}
    values[UNFILLED] = fill
    object.__setattr__(made, "__dict__", values)
    return made  # type: ignore[no-any-return]


def test_a_missing_field_is_filled_once_on_first_read() -> None:
    calls: list[str] = []
    observation = unfilled(calls)
    assert observation.legal_actions == FULL.legal_actions and calls == []
    assert observation.hand == FULL.hand and calls == ["fill"]
    assert observation.taken_discard == hs.Card.parse("7d") and calls == ["fill"]
    assert vars(observation) == vars(FULL)
    assert observation == FULL


def test_any_other_missing_attribute_is_the_usual_error() -> None:
    calls: list[str] = []
    observation = unfilled(calls)
    with pytest.raises(AttributeError, match="'Observation' object has no attribute 'hnad'"):
        observation.hnad  # type: ignore[attr-defined]  # noqa: B018
    assert getattr(observation, "hnad", None) is None and calls == []
    with pytest.raises(AttributeError, match="'Observation' object has no attribute 'x'"):
        FULL.x  # type: ignore[attr-defined]  # noqa: B018


@pytest.mark.parametrize("duplicate", [copy.copy, copy.deepcopy,
                                       lambda view: pickle.loads(pickle.dumps(view))])
def test_a_copy_or_a_pickle_has_every_field(duplicate: Any) -> None:
    calls: list[str] = []
    made = duplicate(unfilled(calls))
    assert calls == ["fill"]
    assert type(made) is hs.Observation and vars(made) == vars(FULL) and made == FULL
