"""What one player at the table may see (docs/rules.md#hidden-information), and nothing more.

An :class:`Observation` is built from the full state by :func:`observe`; it holds
only public information and the observing seat's own cards: never the opponent's
unseen cards, the stock's order, or a face-down knock discard of the opponent.
Two states that differ only in those hidden things give equal observations and
byte-identical ``json.dumps(observation.to_dict())``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from engine.cards import Card
from engine.hand_result import HandResult
from engine.phase import Phase
from engine.profiles import Profile
from engine.scoresheet import ScoreSheet

ThreeScores = tuple[int, int, int]


def _texts(cards: tuple[Card, ...]) -> list[str]:
    return [str(card) for card in cards]


def _card_text(card: Card | None) -> str | None:
    return None if card is None else str(card)


@dataclass(frozen=True)
class Observation:
    """One seat's view of the table at one moment. Card tuples are sorted by suit,
    then rank, except ``discard_pile`` (bottom first: the last card is the top)."""

    seat: int
    hand_number: int
    """1-based number of the current hand in the series."""
    dealer: int
    current_player: int | None
    """The seat to act, ``None`` once the hand (or series) is over."""
    phase: Phase
    hand: tuple[Card, ...]
    """The observing seat's own cards (10, or 11 in the discard phase)."""
    discard_pile: tuple[Card, ...]
    """Face-up cards only: a face-down knock discard is never on it."""
    stock_size: int
    opponent_hand_size: int
    opponent_known_cards: tuple[Card, ...]
    """Cards the opponent took from the discard pile (the upcard included) and has
    not discarded since."""
    taken_card: Card | None
    """On this seat's turn after taking from the discard pile: the card taken."""
    banned_discard: Card | None
    """On this seat's turn: the card it may not discard or knock with (friendly)."""
    knock_discard: Card | None
    """The knock discard once the hand is knocked, if this seat may see it (it is
    the knocker, or the profile lays it face up)."""
    scores: tuple[ThreeScores, ThreeScores]
    """Game scores (I, II, III) per seat, as the sheet stands now."""
    opened: tuple[tuple[bool, bool, bool], tuple[bool, bool, bool]]
    """Per seat, whether it has scored in each game yet."""
    game_winners: tuple[int | None, int | None, int | None]
    hands_won: tuple[int, int]
    profile: Profile
    max_hands: int
    last_hand_result: Mapping[str, Any] | None
    """The public result (:meth:`~engine.hand_result.HandResult.public_dict` for this
    seat) of the current hand once it is over, else of the previous hand; ``None``
    before the first hand ends."""

    @property
    def is_my_turn(self) -> bool:
        return self.current_player == self.seat

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe, deterministic form: the same observation always gives the same
        ``json.dumps`` text. Cards as text such as ``"Td"``."""
        return {
            "seat": self.seat,
            "hand_number": self.hand_number,
            "dealer": self.dealer,
            "current_player": self.current_player,
            "phase": self.phase.value,
            "hand": _texts(self.hand),
            "discard_pile": _texts(self.discard_pile),
            "stock_size": self.stock_size,
            "opponent_hand_size": self.opponent_hand_size,
            "opponent_known_cards": _texts(self.opponent_known_cards),
            "taken_card": _card_text(self.taken_card),
            "banned_discard": _card_text(self.banned_discard),
            "knock_discard": _card_text(self.knock_discard),
            "scores": [list(row) for row in self.scores],
            "opened": [list(row) for row in self.opened],
            "game_winners": list(self.game_winners),
            "hands_won": list(self.hands_won),
            "profile": self.profile.to_dict(),
            "max_hands": self.max_hands,
            "last_hand_result": _plain(self.last_hand_result),
        }


def _plain(value: object) -> Any:
    """A deep copy made of dicts and lists only, so callers cannot alter the source."""
    if isinstance(value, Mapping):
        return {str(key): _plain(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(item) for item in value]
    return value


class ObservedHand(Protocol):
    """What ``observe`` reads of a hand (``engine.hand.Hand`` is one): named here so
    that this module does not import the hand, which imports it."""

    @property
    def hand_number(self) -> int: ...
    @property
    def dealer(self) -> int: ...
    @property
    def profile(self) -> Profile: ...
    @property
    def result(self) -> HandResult | None: ...
    @property
    def phase(self) -> Phase: ...
    @property
    def current_player(self) -> int | None: ...
    @property
    def stock_size(self) -> int: ...
    @property
    def discard_pile(self) -> tuple[Card, ...]: ...
    @property
    def taken_card(self) -> Card | None: ...
    @property
    def banned_discard(self) -> Card | None: ...
    def cards(self, seat: int) -> list[Card]: ...
    def known_cards(self, seat: int) -> list[Card]: ...


def observe(
    hand: ObservedHand,
    seat: int,
    sheet: ScoreSheet | None = None,
    *,
    max_hands: int = 200,
    previous_result: Mapping[str, Any] | None = None,
) -> Observation:
    """The observation of ``seat`` (0 or 1) in ``hand``.

    ``sheet`` is the series' score sheet (an empty sheet when ``None``);
    ``previous_result`` is the seat's public view of the previous hand's result,
    shown until this hand ends.
    """
    if isinstance(seat, bool) or seat not in (0, 1):
        raise ValueError(f"seat must be 0 or 1, got {seat!r}")
    if sheet is None:
        sheet = ScoreSheet(hand.profile.game_target)
    own_turn = hand.current_player == seat
    opponent = 1 - seat
    result = hand.result
    knock_discard = None
    if (
        result is not None
        and result.knock_discard is not None
        and (not result.knock_discard_face_down or result.knocker == seat)
    ):
        knock_discard = result.knock_discard
    last_result = _plain(result.public_dict(seat)) if result is not None else previous_result
    return Observation(
        seat=seat,
        hand_number=hand.hand_number,
        dealer=hand.dealer,
        current_player=hand.current_player,
        phase=hand.phase,
        hand=tuple(hand.cards(seat)),
        discard_pile=hand.discard_pile,
        stock_size=hand.stock_size,
        opponent_hand_size=len(hand.cards(opponent)),
        opponent_known_cards=tuple(hand.known_cards(opponent)),
        taken_card=hand.taken_card if own_turn else None,
        banned_discard=hand.banned_discard if own_turn else None,
        knock_discard=knock_discard,
        scores=(sheet.scores(0), sheet.scores(1)),
        opened=(sheet.opened(0), sheet.opened(1)),
        game_winners=(sheet.game_winner(0), sheet.game_winner(1), sheet.game_winner(2)),
        hands_won=(sheet.hands_won(0), sheet.hands_won(1)),
        profile=hand.profile,
        max_hands=max_hands,
        last_hand_result=last_result,
    )
