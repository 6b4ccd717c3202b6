"""Checking an outcome before it is stored: the season stores no result it did not
verify, whoever played the series (a thread of this process or a cluster worker on
another machine).

``verify_outcome`` replays the outcome's event log with the engine on a fresh
``Series`` built from the *planned* seed, seat swap, hand cap and profile (never
from what the log claims), and accepts the outcome only when

* the log starts with exactly the planned series (so the deal is the planned one),
* every logged action is legal where it stands and produces exactly the logged
  events (hand results, sheets),
* the outcome's result (winner, games and who won each, game scores, hands won,
  points, hands played, capped) is the replay's, and
* a forfeit is where the log stops: a start-up fault before any action, a fault in
  play at the seat to act and the hand and decision the log reached, and an
  ``illegal_action`` fault names an action the engine really refuses there.

Anything else raises ``OutcomeMismatch`` whose ``check`` names what failed (one of
``CHECKS``). The engine does the rules; this module only compares.
"""

from __future__ import annotations

from dataclasses import fields
from typing import Any, Final, Protocol

from arena.core.faults import BotFault, forfeit_winner
from arena.core.series import SeriesOutcome, standing_result
from engine.actions import Action
from engine.profiles import Profile
from engine.series import Series, SeriesResult

DEAL: Final = "deal"
ILLEGAL_ACTION: Final = "illegal_action"
LOG: Final = "log"
TRUNCATED: Final = "truncated"
SERIES: Final = "series"
WINNER: Final = "winner"
RESULT: Final = "result"
FAULT: Final = "fault"
CHECKS: Final = (DEAL, ILLEGAL_ACTION, LOG, TRUNCATED, SERIES, WINNER, RESULT, FAULT)
"""What a mismatch can be about: the start of the series (its deal), an action the
rules refuse, a logged event the replay does not produce, a log that stops early,
an outcome of another series (the season runner checks it), the winner, another
figure of the result, the forfeit's fault."""

_FIGURES: Final = tuple(f.name for f in fields(SeriesResult) if f.name != "winner")


class OutcomeMismatch(ValueError):
    """An outcome its own log does not bear out; ``check`` is one of ``CHECKS``."""

    def __init__(self, check: str, message: str) -> None:
        super().__init__(f"{check}: {message}")
        self.check = check


class OutcomeCheck(Protocol):
    """The shape of ``verify_outcome`` (a season runner takes one)."""

    def __call__(self, outcome: SeriesOutcome, *, seed: int, profile: Profile,
                 max_hands: int, swap_seats: bool) -> None: ...


def _planned_start(log: object, series: Series) -> Series:
    """``series`` (as planned, nothing played), once ``log`` is seen to start with its
    start and first deal; else ``OutcomeMismatch``."""
    if not isinstance(log, list) or len(log) < 2:
        raise OutcomeMismatch(TRUNCATED, "the log lacks the series' start and first deal")
    for index in (0, 1):
        if log[index] != series.log[index]:
            raise OutcomeMismatch(DEAL, f"log entry {index} is not the planned series' "
                                  f"start: logged {_short(log[index])}, planned "
                                  f"{_short(series.log[index])}")
    return series


def verify_outcome(outcome: SeriesOutcome, *, seed: int, profile: Profile, max_hands: int,
                   swap_seats: bool) -> None:
    """Accept ``outcome`` of the series planned with these settings, or raise
    ``OutcomeMismatch`` saying what does not match."""
    log = outcome.log
    series = _planned_start(log, Series(seed, profile, max_hands=max_hands,
                                        swap_seats=swap_seats))
    _replay_actions(series, log)
    if outcome.fault is None:
        _check_played_out(series, outcome)
    else:
        _check_forfeit(series, outcome, outcome.fault)


def verify_summary(outcome: SeriesOutcome, *, seed: int, profile: Profile, max_hands: int,
                   swap_seats: bool) -> None:
    """The cheap part of ``verify_outcome`` for a played-out outcome (no replay): the
    log starts with the planned series and ends with the result the outcome claims,
    winner and figures. What it cannot see (a wrong move in the middle, events the
    rules do not produce) only the replay finds (``arena.season.verify_policy``
    decides which outcomes get it)."""
    log = outcome.log
    _planned_start(log, Series(seed, profile, max_hands=max_hands, swap_seats=swap_seats))
    end = log[-1]
    if not isinstance(end, dict) or end.get("type") != "series_end":
        raise OutcomeMismatch(TRUNCATED, f"the log ends with {_short(end)}, not the "
                              "series' end, and the outcome names no fault")
    if outcome.winner != end.get("winner"):
        raise OutcomeMismatch(WINNER, f"the outcome names winner {outcome.winner!r}, its "
                              f"log {end.get('winner')!r}")
    for name in _FIGURES:
        claimed, logged = getattr(outcome.result, name), end.get(name)
        if _plain(claimed) != _plain(logged):
            raise OutcomeMismatch(RESULT, f"{name} is {claimed!r}, the log's end says "
                                  f"{logged!r}")


def _replay_actions(series: Series, log: list[Any]) -> None:
    index = len(series.log)
    while index < len(log):
        entry = log[index]
        if not isinstance(entry, dict) or entry.get("type") != "action":
            raise OutcomeMismatch(LOG, f"log entry {index}: expected an action, got "
                                  f"{_short(entry)}")
        if series.is_over:
            raise OutcomeMismatch(LOG, f"log entry {index}: an action after the series ended")
        if entry.get("seat") != series.current_player or entry.get("hand") != series.hand_number:
            raise OutcomeMismatch(LOG, f"log entry {index}: logged for seat {entry.get('seat')!r}"
                                  f" in hand {entry.get('hand')!r}; seat "
                                  f"{series.current_player} is to act in hand "
                                  f"{series.hand_number}")
        try:
            action = Action.from_dict(entry.get("action"))
            events = series.apply(action)
        except ValueError as error:  # IllegalActionError, a bad action or bad melds
            raise OutcomeMismatch(ILLEGAL_ACTION, f"log entry {index}: seat "
                                  f"{series.current_player}'s {_short(entry.get('action'))} "
                                  f"is refused by the rules: {error}") from None
        logged = log[index:index + len(events)]
        if len(logged) < len(events):
            raise OutcomeMismatch(TRUNCATED, f"the log ends inside the events of entry "
                                  f"{index}: {len(log)} entries")
        for offset, (seen, replayed) in enumerate(zip(logged, events, strict=True)):
            if seen != replayed:
                raise OutcomeMismatch(LOG, f"log entry {index + offset} differs from the "
                                      f"replay: logged {_short(seen)}, replayed "
                                      f"{_short(replayed)}")
        index += len(events)


def _check_played_out(series: Series, outcome: SeriesOutcome) -> None:
    result = series.result
    if result is None:
        raise OutcomeMismatch(TRUNCATED, f"the log stops in hand {series.hand_number} before "
                              "the series ended, and the outcome names no fault")
    if outcome.winner != result.winner:
        raise OutcomeMismatch(WINNER, f"the outcome names winner {outcome.winner!r}, the "
                              f"replay {result.winner!r}")
    _check_figures(outcome, result)


def _check_forfeit(series: Series, outcome: SeriesOutcome, fault: BotFault) -> None:
    if series.is_over:
        raise OutcomeMismatch(FAULT, "a forfeit whose log plays the series to its end")
    if fault.seat not in (0, 1):
        raise OutcomeMismatch(FAULT, f"the fault names no seat ({fault.seat!r})")
    actions = sum(1 for event in series.log if event.get("type") == "action")
    if fault.decision_number is None:
        if actions:
            raise OutcomeMismatch(FAULT, f"a fault before play ({fault.kind}) after "
                                  f"{actions} logged action(s)")
    else:
        _check_fault_position(series, fault, actions)
    expected_winner = forfeit_winner(outcome.seat_faults)
    if outcome.winner != expected_winner:
        seats = " and ".join(str(seat) for seat in outcome.forfeiting_seats)
        raise OutcomeMismatch(WINNER, f"the outcome names winner {outcome.winner!r}; seat "
                              f"{seats}'s forfeit makes it {expected_winner!r}")
    _check_figures(outcome, standing_result(series, expected_winner))


def _check_fault_position(series: Series, fault: BotFault, actions: int) -> None:
    where = (fault.seat, fault.hand_number, fault.decision_number)
    expected = (series.current_player, series.hand_number, actions + 1)
    if where != expected:
        raise OutcomeMismatch(FAULT, f"the fault is at seat, hand, decision {where}; the "
                              f"log stops where {expected} is next")
    if fault.kind != ILLEGAL_ACTION:
        return
    if fault.rejected_action is None:
        raise OutcomeMismatch(FAULT, "an illegal_action fault without the rejected action")
    try:  # the bot's reply was a well-formed action, or the fault would be MALFORMED
        action = Action.from_dict(fault.rejected_action)
    except ValueError as error:
        raise OutcomeMismatch(FAULT, f"the rejected action cannot be read: {error}") from None
    try:
        series.apply(action)
    except ValueError:
        return  # refused, as the fault says (and the series is left untouched)
    raise OutcomeMismatch(FAULT, f"the 'illegal' {_short(fault.rejected_action)} is legal "
                          "where the log stops")


def _check_figures(outcome: SeriesOutcome, expected: SeriesResult) -> None:
    for name in _FIGURES:
        claimed, value = getattr(outcome.result, name), getattr(expected, name)
        if _plain(claimed) != _plain(value):
            raise OutcomeMismatch(RESULT, f"{name} is {claimed!r}, the replay gives {value!r}")


def _plain(value: object) -> object:
    """Tuples and lists compare alike (an outcome may come back through JSON)."""
    if isinstance(value, list | tuple):
        return tuple(_plain(item) for item in value)
    return value


def _short(value: object, limit: int = 200) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."
