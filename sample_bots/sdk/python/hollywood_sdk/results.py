"""Views of what a bot is told after a hand and after a series (``on_hand_end``,
``on_series_end``); the decision's views are in ``views``."""

from __future__ import annotations

from dataclasses import dataclass

from hollywood.bot.v1 import bot_pb2

from .cards import Card, parse_cards
from .views import Sheet


@dataclass(frozen=True)
class ExposedHand:
    """One player's hand as shown at the end of a hand."""

    cards: tuple[Card, ...]
    melds: tuple[tuple[Card, ...], ...]
    deadwood_cards: tuple[Card, ...]
    deadwood: int


@dataclass(frozen=True)
class HandResult:
    """What happened in a hand (``outcome`` is "dead", "knock", "gin" or "undercut")."""

    series_id: str
    hand_number: int
    seat: int
    outcome: str
    knocker: int | None
    winner: int | None
    points: int
    hands: tuple[ExposedHand, ...]
    layoffs: tuple[tuple[Card, int], ...]
    """(card, index of the knocker's meld it was laid on)."""
    sheet: Sheet
    knock_discard: Card | None
    """The knocker's discard, if this seat may see it."""

    @classmethod
    def from_proto(cls, message: bot_pb2.HandEndedRequest) -> HandResult:
        outcome = bot_pb2.HandOutcome.Name(message.outcome).removeprefix("HAND_OUTCOME_").lower()
        return cls(
            series_id=message.series_id,
            hand_number=message.hand_number,
            seat=message.seat,
            outcome=outcome,
            knocker=message.knocker if message.HasField("knocker") else None,
            winner=message.winner if message.HasField("winner") else None,
            points=message.points,
            hands=tuple(
                ExposedHand(
                    cards=tuple(parse_cards(hand.cards)),
                    melds=tuple(tuple(parse_cards(meld.cards)) for meld in hand.melds),
                    deadwood_cards=tuple(parse_cards(hand.deadwood_cards)),
                    deadwood=hand.deadwood,
                )
                for hand in message.hands
            ),
            layoffs=tuple((Card.parse(lay.card), lay.meld_index) for lay in message.layoffs),
            sheet=Sheet.from_proto(message.sheet),
            knock_discard=Card.parse(message.knock_discard) if message.knock_discard else None,
        )


@dataclass(frozen=True)
class SeriesResult:
    """How the series ended (``end`` is "complete", "hand_cap" or "forfeit")."""

    series_id: str
    seat: int
    end: str
    winner: int | None
    games_won: tuple[int, ...]
    sheet: Sheet
    hands_played: int
    fault_seat: int | None
    fault_kind: str

    @classmethod
    def from_proto(cls, message: bot_pb2.SeriesEndedRequest) -> SeriesResult:
        return cls(
            series_id=message.series_id,
            seat=message.seat,
            end=bot_pb2.SeriesEnd.Name(message.end).removeprefix("SERIES_END_").lower(),
            winner=message.winner if message.HasField("winner") else None,
            games_won=tuple(message.games_won),
            sheet=Sheet.from_proto(message.sheet),
            hands_played=message.hands_played,
            fault_seat=message.fault_seat if message.HasField("fault_seat") else None,
            fault_kind=message.fault_kind,
        )
