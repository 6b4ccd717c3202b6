"""A Hollywood Gin series: hands dealt one after another until all three games on
the sheet are finished (docs/rules.md#who-deals-next, docs/rules.md#the-score-sheet), or the
hand cap stops it (docs/rules.md#hand-cap).

A :class:`Series` is fully determined by its seed, profile, hand cap, seat swap
and the actions applied. :attr:`Series.log` records exactly that, plus every
event, as JSON-safe dicts; :meth:`Series.replay` rebuilds the series from a log
and checks every logged event against the rebuilt one.

Events (each a dict with a ``"type"``)::

    series_start  seed, profile (dict), max_hands, swap_seats, first_dealer
    hand_start    hand, dealer                      (no cards)
    action        hand, seat, action (Action.to_dict())
    hand_end      hand, dealer, kind, winner, points, knocker, knock_discard, exposed
                  (both final hands with melds and deadwood), layoffs, sheet (after)
    series_end    the SeriesResult as a dict

The log contains every card that was played, including a face-down knock
discard: it is for the arena and for people after the fact, never for bots.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final

from engine.actions import Action, IllegalActionError
from engine.dealing import deal_hand, first_dealer
from engine.hand import Hand
from engine.hand_result import HandResult
from engine.legal_moves import NO_LEGAL_MOVES, LegalMasks
from engine.observation import Observation, observe
from engine.profiles import FRIENDLY, Profile, ProfileError
from engine.scoresheet import ScoreSheet

DEFAULT_MAX_HANDS: Final = 200
Event = dict[str, Any]


class ReplayError(ValueError):
    """A log that cannot be replayed: malformed, or an entry that differs from what
    the replay produces (a tampered or corrupted log). The message names the entry."""


@dataclass(frozen=True)
class SeriesResult:
    """How a series ended. Seats are 0 and 1; ``winner`` ``None`` is a draw (only
    possible when the hand cap ended the series)."""

    winner: int | None
    games_won: tuple[int, int]
    game_winners: tuple[int | None, int | None, int | None]
    """Per game: its winner (for a capped series, the higher score in an unfinished
    game; ``None`` on a tie)."""
    game_scores: tuple[tuple[int, int, int], tuple[int, int, int]]
    hands_won: tuple[int, int]
    points: tuple[int, int]
    """Total hand points scored by each seat over the series."""
    hands_played: int
    """Dead hands included."""
    capped: bool
    """``True`` when the hand cap ended the series (docs/rules.md#hand-cap)."""

    def to_dict(self) -> dict[str, Any]:
        return {
            "winner": self.winner,
            "games_won": list(self.games_won),
            "game_winners": list(self.game_winners),
            "game_scores": [list(row) for row in self.game_scores],
            "hands_won": list(self.hands_won),
            "points": list(self.points),
            "hands_played": self.hands_played,
            "capped": self.capped,
        }


class Series:
    """A series between seat 0 and seat 1.

    ``seed`` (any int) fixes every deal and the first dealer; ``swap_seats=True``
    deals each hand with the seats' cards exchanged and the other first dealer (for
    duplicate matches). ``max_hands`` is the hand cap (docs/rules.md#hand-cap).
    """

    def __init__(
        self,
        seed: int,
        profile: Profile = FRIENDLY,
        max_hands: int = DEFAULT_MAX_HANDS,
        swap_seats: bool = False,
    ) -> None:
        if isinstance(seed, bool) or not isinstance(seed, int):
            raise ValueError(f"seed must be an int, got {seed!r}")
        if not isinstance(profile, Profile):
            raise ValueError(f"profile must be a Profile, got {profile!r}")
        if isinstance(max_hands, bool) or not isinstance(max_hands, int) or max_hands < 1:
            raise ValueError(f"max_hands must be an int >= 1, got {max_hands!r}")
        if not isinstance(swap_seats, bool):
            raise ValueError(f"swap_seats must be true or false, got {swap_seats!r}")
        self.seed: Final = seed
        self.profile: Final = profile
        self.max_hands: Final = max_hands
        self.swap_seats: Final = swap_seats
        self.first_dealer: Final = first_dealer(seed, swap_seats=swap_seats)
        self.sheet = ScoreSheet(profile.game_target)
        """The Hollywood score sheet (read it; only the series records wins)."""
        self.hands: list[Hand] = []
        """Every hand dealt so far, the current one last."""
        self.result: SeriesResult | None = None
        self.log: list[Event] = [
            {
                "type": "series_start",
                "seed": seed,
                "profile": profile.to_dict(),
                "max_hands": max_hands,
                "swap_seats": swap_seats,
                "first_dealer": self.first_dealer,
            }
        ]
        self._sheets_after: list[dict[str, Any]] = []
        self._points = [0, 0]
        self.log.append(self._deal(1, self.first_dealer))

    # ------------------------------------------------------------------ reading

    @property
    def hand(self) -> Hand:
        """The current hand (the last one once the series is over)."""
        return self.hands[-1]

    @property
    def hand_number(self) -> int:
        return len(self.hands)

    @property
    def is_over(self) -> bool:
        return self.result is not None

    @property
    def current_player(self) -> int | None:
        """The seat to act, or ``None`` when the series is over."""
        return None if self.result is not None else self.hands[-1].current_player

    @property
    def hand_results(self) -> list[HandResult]:
        """The results of the finished hands, in order."""
        return [hand.result for hand in self.hands if hand.result is not None]

    def legal_actions(self) -> list[Action]:
        """The current player's legal actions in the engine's fixed order; empty when
        the series is over."""
        if self.result is not None:
            return []
        return self.hand.legal_actions()

    def legal_masks(self) -> LegalMasks:
        """``legal_actions()`` as masks (``Hand.legal_masks``); all zero when the series
        is over."""
        if self.result is not None:
            return NO_LEGAL_MOVES
        return self.hands[-1].legal_masks()

    def observation(self, player: int) -> Observation:
        """What seat ``player`` sees now (docs/rules.md#hidden-information)."""
        if isinstance(player, bool) or player not in (0, 1):
            raise ValueError(f"player must be seat 0 or 1, got {player!r}")
        previous = None
        if len(self.hands) > 1:
            finished = self.hands[-2].result
            assert finished is not None
            previous = finished.public_dict(player)
        return observe(
            self.hand, player, self.sheet, max_hands=self.max_hands, previous_result=previous
        )

    # ------------------------------------------------------------------ acting

    def apply(self, action: Action) -> list[Event]:
        """Apply ``action`` for :attr:`current_player` and return the new events
        (the action, and when the hand ends ``hand_end`` followed by ``hand_start``
        of the next hand or ``series_end``).

        Raises :class:`IllegalActionError` naming the reason, state untouched.
        """
        if self.result is not None:
            raise IllegalActionError("the series is over: no action is legal")
        hand = self.hands[-1]
        seat = hand.current_player
        hand.apply(action)
        event = {"type": "action", "hand": hand.hand_number, "seat": seat,
                 "action": action.to_dict()}
        result = hand.result
        if result is None:
            self.log.append(event)
            return [event]
        events: list[Event] = [event, *self._end_hand(hand, result)]
        self.log.extend(events)
        return events

    def _deal(self, hand_number: int, dealer: int) -> Event:
        deal = deal_hand(self.seed, hand_number, swap_seats=self.swap_seats)
        self.hands.append(Hand(deal, dealer, self.profile, hand_number))
        return {"type": "hand_start", "hand": hand_number, "dealer": dealer}

    def _end_hand(self, hand: Hand, result: HandResult) -> list[Event]:
        if result.winner is not None:
            self.sheet.record_win(result.winner, result.points)
            self._points[result.winner] += result.points
        # Separate copies: a consumer editing a logged event must not alter history().
        self._sheets_after.append(self.sheet.to_dict())
        events: list[Event] = [
            {"type": "hand_end", **result.to_dict(), "sheet": self.sheet.to_dict()}
        ]
        if self.sheet.is_over or len(self.hands) >= self.max_hands:
            self.result = self._series_result()
            events.append({"type": "series_end", **self.result.to_dict()})
        else:
            events.append(self._deal(hand.hand_number + 1, self._next_dealer(hand.dealer, result)))
        return events

    def _next_dealer(self, dealer: int, result: HandResult) -> int:
        if result.winner is None:
            return dealer if self.profile.dead_hand_redeal_same_dealer else 1 - dealer
        return result.winner if self.profile.winner_deals_next else 1 - dealer

    def _series_result(self) -> SeriesResult:
        sheet = self.sheet
        if sheet.is_over:
            winners = (sheet.game_winner(0), sheet.game_winner(1), sheet.game_winner(2))
            games_won = (sheet.games_won(0), sheet.games_won(1))
            winner = sheet.winner
            capped = False
        else:
            award = sheet.award_at_cap()
            winners, games_won, winner, capped = (
                award.game_winners,
                award.games_won,
                award.winner,
                True,
            )
        return SeriesResult(
            winner=winner,
            games_won=games_won,
            game_winners=winners,
            game_scores=(sheet.scores(0), sheet.scores(1)),
            hands_won=(sheet.hands_won(0), sheet.hands_won(1)),
            points=(self._points[0], self._points[1]),
            hands_played=len(self.hands),
            capped=capped,
        )

    # ------------------------------------------------------------------ history

    def history(self) -> list[dict[str, Any]]:
        """The full hand-by-hand record for people after the fact (it shows every
        card; never send it to a bot): per hand the dealer, the deal (both hands,
        upcard, stock top first), every move with the card each draw took, the
        result, and the sheet after the hand."""
        records: list[dict[str, Any]] = []
        for index, hand in enumerate(self.hands):
            deal = hand.deal
            records.append(
                {
                    "hand": hand.hand_number,
                    "dealer": hand.dealer,
                    "deal": {
                        "hands": [[str(c) for c in deal.hands[0]], [str(c) for c in deal.hands[1]]],
                        "upcard": str(deal.upcard),
                        "stock": [str(c) for c in deal.stock],
                    },
                    "moves": [
                        {
                            "seat": move.seat,
                            "action": str(move.action),
                            "drawn": None if move.drawn is None else str(move.drawn),
                        }
                        for move in hand.moves
                    ],
                    "result": None if hand.result is None else hand.result.to_dict(),
                    "sheet_after": (
                        self._sheets_after[index] if index < len(self._sheets_after) else None
                    ),
                }
            )
        return records

    # ------------------------------------------------------------------ replay

    @classmethod
    def replay(cls, log: list[Event]) -> Series:
        """Rebuild a series from its :attr:`log` (also after a JSON round trip).

        Every logged event must equal the event the replay produces; a log may stop
        early (e.g. a series ended by a fault) and then gives an unfinished series.
        Raises :class:`ReplayError` naming the first bad entry.
        """
        if not isinstance(log, list) or not log:
            raise ReplayError("a series log must be a non-empty list of events")
        series = cls._from_start_event(log[0])
        while len(series.log) < len(log):
            index = len(series.log)
            entry = log[index]
            if not isinstance(entry, dict) or entry.get("type") != "action":
                raise ReplayError(
                    f"log entry {index}: expected an action event, got {_short(entry)}; "
                    f"the replay produced {len(series.log)} entries up to here"
                )
            if series.is_over:
                raise ReplayError(f"log entry {index}: an action after the series ended")
            try:
                action = Action.from_dict(entry.get("action"))
                series.apply(action)
            except ValueError as error:
                raise ReplayError(f"log entry {index}: cannot apply the action: {error}") from error
        for index, (logged, replayed) in enumerate(zip(log, series.log, strict=False)):
            if logged != replayed:
                raise ReplayError(
                    f"log entry {index} differs from the replay: logged {_short(logged)}, "
                    f"replayed {_short(replayed)}"
                )
        if len(series.log) != len(log):
            raise ReplayError(
                f"the log ends inside an action's events: {len(log)} entries, "
                f"the replay produced {len(series.log)}"
            )
        return series

    @classmethod
    def _from_start_event(cls, start: object) -> Series:
        if not isinstance(start, dict) or start.get("type") != "series_start":
            raise ReplayError(f"log entry 0 must be the series_start event, got {_short(start)}")
        try:
            profile = Profile.from_dict(start["profile"])
            return cls(
                start["seed"],
                profile,
                max_hands=start["max_hands"],
                swap_seats=start["swap_seats"],
            )
        except KeyError as error:
            raise ReplayError(f"log entry 0 (series_start) lacks the field {error}") from None
        except (ProfileError, ValueError) as error:
            raise ReplayError(f"log entry 0 (series_start) is invalid: {error}") from error


def _short(value: object, limit: int = 300) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def history_from_log(log: list[Event]) -> list[dict[str, Any]]:
    """:meth:`Series.history` of the series a log records (replayed and checked)."""
    return Series.replay(log).history()
