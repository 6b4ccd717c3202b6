"""A person's seat (issue 38, point 3): a person who does not act within their
idle time-out forfeits as a bot that never answers would, the bot in its sandbox
is stopped, and the seat is told why the series ended."""

from __future__ import annotations

import random
from dataclasses import replace

from arena.core.faults import FaultKind
from arena.core.limits import TimeLimits
from arena.core.series import BotRef
from arena.match.human_seat import HumanSeat, HumanSeries, RefusedAction, play_against
from arena.sandbox.registry import backend
from engine.profiles import FRIENDLY
from tests.helpers.web_helpers import SAMPLE_BOTS


def test_a_person_who_never_acts_forfeits_by_timeout() -> None:
    bot = replace(BotRef.from_folder(SAMPLE_BOTS / "greedy"), vetted_hash=None)
    person = HumanSeat("ann", idle_s=0.05)
    game = HumanSeries("play-idle", random.Random(3).randrange(2**62), FRIENDLY, 1, 0, bot,
                       TimeLimits())
    outcome = play_against(game, person, backend("inprocess").create())
    assert outcome.fault is not None
    assert outcome.fault.kind is FaultKind.TIMEOUT and outcome.fault.seat == 0
    assert outcome.winner == 1
    _, shown = person.shown()
    assert shown.over and not shown.my_turn
    assert shown.ended == "you forfeited: the person did not act within 0.05 s"
    try:
        person.submit("draw stock")
    except RefusedAction as refused:
        assert str(refused) == "it is not your turn"
    else:
        raise AssertionError("an action after the end was taken")
