"""How each hand of a series ended, for the replay: the settlement line of a knocked
hand (the deadwood counts, the layoffs and the sum behind the points, as
docs/rules.md#scoring-a-hand writes it) and the side list of every hand with its
winner, its kind and its points. Both are read from the engine's own results
(``HandResult.to_dict()``, the ``hand_end`` entries of the event log), never
recomputed here."""

from __future__ import annotations

from typing import Any

from engine import Series
from engine.profiles import Profile


def settlement_line(result: dict[str, Any], profile: Profile) -> str:
    """``knock: knocker 7, defender 19 after laying off 6c (25 before): knocker
    scores 19 - 7 = 12`` for a hand's ``HandResult.to_dict()``."""
    kind = result["kind"]
    if kind == "dead":
        return "dead hand: no score"
    knocker = result["knocker"]
    k = result["exposed"][knocker]["deadwood"]
    d = result["exposed"][1 - knocker]["deadwood"]
    d0 = result["defender_deadwood_before_layoffs"]
    points = result["points"]
    if kind == "gin":
        return (f"gin: knocker 0, defender {d0} (no layoffs on gin): knocker scores "
                f"{profile.gin_bonus} bonus + {d0} = {points}")
    laid = [card for layoff in result["layoffs"] for card in layoff["cards"]]
    defender = (f"defender {d} after laying off {' '.join(laid)} ({d0} before)" if laid
                else f"defender {d}, nothing laid off")
    if kind == "knock":
        return f"knock: knocker {k}, {defender}: knocker scores {d} - {k} = {points}"
    return (f"undercut: knocker {k}, {defender}: defender scores {k} - {d} + "
            f"{profile.undercut_bonus} bonus = {points}")


def hand_list(series: Series) -> list[dict[str, Any]]:
    """Every hand dealt in a (replayed) series: its number, how it ended (``kind``
    is None for a hand the series stopped in), the seat that scored, the points,
    the knocker, and each seat's points over the series so far (``totals``)."""
    rows = []
    totals = [0, 0]
    for hand in series.hands:
        result = hand.result
        if result is not None and result.winner is not None:
            totals[result.winner] += result.points
        rows.append({
            "hand": hand.hand_number,
            "kind": None if result is None else result.kind,
            "winner": None if result is None else result.winner,
            "points": 0 if result is None else result.points,
            "knocker": None if result is None else result.knocker,
            "totals": list(totals),
        })
    return rows


def series_hands(log: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The side list of a stored series log, checked by the engine's replay first
    (``ReplayError`` names the first bad entry)."""
    return hand_list(Series.replay(log))
