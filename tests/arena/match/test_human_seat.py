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


def test_an_action_taken_ends_the_turn_at_once() -> None:
    """Between the person's action and the next decision no legal action is shown:
    a page drawn then offers no button the engine would refuse."""
    import threading

    from arena.match.decision import Decision
    from arena.match.protocol import profile_to_proto
    from engine.series import Series

    series = Series(5, FRIENDLY)
    seat = series.current_player
    assert seat is not None
    legal = series.legal_actions()
    person = HumanSeat("ann", idle_s=60.0)
    request = Decision(series, seat, legal, profile_to_proto(FRIENDLY, 1), series_id="s",
                       decision_number=1, decision_s=1.0, reserve_s=0.0)
    chosen: list[object] = []
    decider = threading.Thread(target=lambda: chosen.append(person.decide(request, legal, 1.0)))
    decider.start()
    changes, shown = person.shown()
    for _ in range(1000):
        if shown.my_turn:
            break
        changes, shown = person.shown(changes, 1.0)
    assert shown.legal == tuple(legal)
    person.submit(str(legal[0]))
    assert person.shown()[1].legal == ()  # at once, whether or not decide has returned
    decider.join()
    assert chosen == [legal[0]]
