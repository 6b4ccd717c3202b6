"""The direct path's SDK views against the SDK's own parsing of the gRPC message
(an independent implementation): equal at every decision of random series, from
any position (cards of every suit and rank, known cards, taken discards)."""

from __future__ import annotations

import random

import hollywood_sdk as hs
import pytest

from arena.match import protocol
from arena.match.decision import Decision
from arena.match.direct_views import ViewBuilder
from engine.profiles import get_profile
from engine.series import Series


@pytest.mark.parametrize("seed", [1, 29, 2026])
@pytest.mark.parametrize("profile", ["friendly", "classic"])
def test_every_view_equals_the_sdks_parse_of_the_message(seed: int, profile: str) -> None:
    series = Series(seed, get_profile(profile), max_hands=6, swap_seats=bool(seed % 2))
    message_profile = protocol.profile_to_proto(series.profile, series.max_hands)
    builders = (ViewBuilder(), ViewBuilder())
    choices = random.Random(seed)
    decisions = 0
    seen_known = seen_taken = 0
    while (seat := series.current_player) is not None and decisions < 1500:
        decisions += 1
        legal = series.legal_actions()
        decision = Decision(series, seat, legal, message_profile, series_id="views",
                            decision_number=decisions, decision_s=1.0,
                            reserve_s=choices.choice([0.0, 0.25, 7.5]))
        built = builders[seat].observation(decision)
        assert built == hs.Observation.from_proto(decision.message())
        assert type(built) is hs.Observation
        seen_known += bool(built.opponent_known_cards)
        seen_taken += built.taken_discard is not None
        series.apply(choices.choice(legal))
    assert decisions > 100 and seen_known > 0 and seen_taken > 0
