"""A series replay for people: the stored event log replayed by the engine into
frames, one per deal and one per action, each showing both hands (every card: the
series is over), the discard pile, the stock size, the action taken and the score
sheet; the frame that ends a hand also carries both exposed arrangements (in its
``result``) and the settlement line. The viewer (static/replay.js) steps through
them."""

from __future__ import annotations

from typing import Any

from arena.web.hands import hand_list, settlement_line
from engine import Series
from engine.actions import Action
from engine.profiles import Profile
from engine.series import ReplayError

UNREPLAYABLE = (ReplayError, KeyError, TypeError, ValueError)
"""What replaying a stored log that is not a valid series can raise."""


def _cards(cards: Any) -> list[str]:
    """Cards as text, by suit then rank (how a player holds them)."""
    return [str(card) for card in sorted(cards, key=lambda card: (card.suit, card.rank))]


def _frame(series: Series, hand_index: int, kind: str, seat: int | None, action: str,
           drawn: str | None) -> dict[str, Any]:
    hand = series.hands[hand_index]
    result = None if hand.result is None else hand.result.to_dict()
    return {
        "hand": hand.hand_number, "dealer": hand.dealer, "kind": kind, "seat": seat,
        "action": action, "drawn": drawn,
        "hands": [_cards(hand.cards(0)), _cards(hand.cards(1))],
        # The pile in its order, bottom first: its last card is the top one.
        "pile": [str(card) for card in hand.discard_pile], "stock": hand.stock_size,
        "result": result,
        "settlement": None if result is None else settlement_line(result, series.profile),
        # The sheet changes only when a hand ends: sent with deals and results only.
        "sheet": series.sheet.to_dict() if kind == "deal" or result is not None else None,
    }


def replay_view(log: list[dict[str, Any]]) -> dict[str, Any]:
    """What the viewer needs of a stored series log: its frames, the index of each
    hand's first frame (``hand_starts``, keyed by the hand number as text: the
    ``?hand=N`` deep links) and the side list of hands."""
    series, frames = _walk(log)
    return {"frames": frames,
            "hand_starts": {str(k): v for k, v in hand_starts(frames).items()},
            "hands": hand_list(series)}


def replay_frames(log: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The frames of a stored series log. The log is first checked by the engine's
    own replay (``ReplayError`` names the first bad entry)."""
    return _walk(log)[1]


def _walk(log: list[dict[str, Any]]) -> tuple[Series, list[dict[str, Any]]]:
    """The series replayed action by action (after the engine checked the whole log)
    and a frame for each step."""
    Series.replay(log)
    start = log[0]
    walker = FrameWalker(start["seed"], Profile.from_dict(start["profile"]),
                         start["max_hands"], start["swap_seats"])
    for entry in log[1:]:
        if entry.get("type") == "action":
            walker.apply(entry)
    return walker.series, walker.frames


class FrameWalker:
    """A series walked action by action into frames: the replay's, and a live
    series page's as its moves arrive (``apply`` raises what the engine raises for
    an action it refuses: ``IllegalActionError``, a ``ValueError``)."""

    def __init__(self, seed: int, profile: Profile, max_hands: int, swap_seats: bool) -> None:
        self.series = Series(seed, profile, max_hands=max_hands, swap_seats=swap_seats)
        self.frames = [_frame(self.series, 0, "deal", None,
                              f"hand 1 dealt by seat {self.series.hand.dealer}", None)]

    def apply(self, entry: dict[str, Any]) -> list[dict[str, Any]]:
        """The frames of one action entry of the log (a second, the next deal, when
        the action ended a hand)."""
        series = self.series
        hand_index = len(series.hands) - 1
        hand = series.hand
        seat = hand.current_player
        before = set(_cards(hand.cards(seat))) if seat is not None else set()
        action = Action.from_dict(entry["action"])
        series.apply(action)
        after = set(_cards(hand.cards(seat))) if seat is not None else set()
        drawn = sorted(after - before)
        added = [_frame(series, hand_index, "action", seat, str(action),
                        drawn[0] if drawn else None)]
        if len(series.hands) - 1 > hand_index:
            new = series.hand
            added.append(_frame(series, len(series.hands) - 1, "deal", None,
                                f"hand {new.hand_number} dealt by seat {new.dealer}", None))
        self.frames.extend(added)
        return added


def hand_starts(frames: list[dict[str, Any]]) -> dict[int, int]:
    """Hand number -> index of its first frame."""
    starts: dict[int, int] = {}
    for index, frame in enumerate(frames):
        starts.setdefault(int(frame["hand"]), index)
    return starts


__all__ = ["UNREPLAYABLE", "FrameWalker", "ReplayError", "hand_starts", "replay_frames",
           "replay_view"]
