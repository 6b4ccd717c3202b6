"""A played series told hand by hand, for people (``arena series show ID``).

Built from the engine's history (``engine.series.history_from_log``, which replays
and checks the stored event log): per hand the deal, every draw and discard, the
knock, both exposed hands with melds and deadwood, the layoffs, the points and the
score sheet after the hand.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final

from arena.core.faults import BotFault
from engine.series import history_from_log

GAME_NAMES = ("I", "II", "III")
NO_HAND_PLAYED: Final = "no hand was played: the series ended before the first deal"


def _cards(cards: Sequence[str]) -> str:
    return " ".join(cards) if cards else "-"


def _melds(melds: Sequence[Sequence[str]]) -> str:
    return " | ".join(_cards(meld) for meld in melds) if melds else "no melds"


def sheet_line(sheet: dict[str, Any], names: Sequence[str]) -> str:
    """``sheet after: A 30/0/0 (1 won) · B 18/0/0 (1 won)`` plus finished games."""
    parts = []
    for seat in (0, 1):
        scores = "/".join(str(score) for score in sheet["scores"][seat])
        parts.append(f"{names[seat]} {scores} ({sheet['hands_won'][seat]} won)")
    finished = [
        f"{GAME_NAMES[game]}: {names[winner]}"
        for game, winner in enumerate(sheet.get("game_winners", []))
        if winner is not None
    ]
    line = "sheet after: " + " · ".join(parts)
    if finished:
        line += " — games won: " + ", ".join(finished)
    return line


def hand_lines(record: dict[str, Any], names: Sequence[str], *,
               with_play: bool = True) -> list[str]:
    """The lines telling one hand of ``Series.history()``; without ``with_play`` only
    how it ended (no deal, no moves)."""
    deal = record["deal"]
    lines = [
        f"dealer: {names[record['dealer']]}",
        f"deal: {names[0]}: {_cards(deal['hands'][0])}",
        f"      {names[1]}: {_cards(deal['hands'][1])}",
        f"upcard: {deal['upcard']}",
    ] if with_play else []
    for move in record["moves"] if with_play else ():
        text = f"{names[move['seat']]}: {move['action']}"
        if move.get("drawn"):
            text += f" ({move['drawn']})"
        lines.append(text)
    result = record.get("result")
    if result is None:
        lines.append("(hand not finished: the series stopped here)")
        return lines
    kind = result["kind"]
    if kind == "dead":
        lines.append("dead hand: no score")
    else:
        knocker = result["knocker"]
        discard = result.get("knock_discard")
        lines.append(f"{names[knocker]} knocks" + (f", discarding {discard}" if discard else ""))
        for seat in (knocker, 1 - knocker):
            exposed = result["exposed"][seat]
            lines.append(
                f"  {names[seat]}: melds {_melds(exposed['melds'])}; deadwood "
                f"{_cards(exposed['deadwood_cards'])} = {exposed['deadwood']}"
            )
        for layoff in result.get("layoffs", []):
            lines.append(
                f"  {names[1 - knocker]} lays off {_cards(layoff['cards'])} "
                f"on meld {layoff['meld_index'] + 1}"
            )
        winner = result["winner"]
        lines.append(f"{kind}: {names[winner]} scores {result['points']}")
    sheet = record.get("sheet_after")
    if sheet is not None:
        lines.append(sheet_line(sheet, names))
    return lines


def series_story(
    log: list[dict[str, Any]],
    names: Sequence[str],
    fault: BotFault | None = None,
) -> list[list[str]]:
    """Each hand of the series recorded by ``log`` as lines; ``names`` are the bots
    in seat 0 and seat 1. ``fault`` is the stored fault of a forfeited series: one
    at start-up (no hand number) means the series ended before the first deal, and
    the story has no hands (``NO_HAND_PLAYED`` says so), even though the engine's
    log holds the first hand's deal. Raises ``engine.series.ReplayError`` for a bad
    log."""
    history = history_from_log(log)
    if fault is not None and not fault.hand_number and not any(
            record["moves"] or record.get("result") for record in history):
        return []
    return [hand_lines(record, names) for record in history]
