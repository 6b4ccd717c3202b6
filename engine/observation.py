"""What one player at the table may see (docs/rules.md#hidden-information), and nothing more.

A :class:`SeatView` is the one place that says what a seat sees of a hand: it
reads the full state once and keeps only public information and the seat's own
cards, never the opponent's unseen cards, the stock's order, or a face-down knock
discard of the opponent. Everything a bot or a player is shown is rendered from
one: :func:`observe` renders it whole as an :class:`Observation` (and so the gRPC
request), and a bot in the arena's process gets its views rendered from it field by
field when it reads them (``arena.match.direct_views``). Two states that differ
only in those hidden things give equal observations and byte-identical
``json.dumps(observation.to_dict())``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from engine.cards import Card, mask_to_cards
from engine.hand_result import HandResult
from engine.phase import Phase
from engine.profiles import Profile
from engine.scoresheet import ScoreSheet, ThreeScores


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
    def masks(self, seat: int) -> tuple[int, int]: ...


class SeatView:
    """What ``seat`` (0 or 1) sees of ``hand`` at the moment it is made: values that
    never change (ints, card masks with bit = card index, tuples, the finished
    hand's result), so that it may be rendered later, after the hand went on, and
    still show that moment. Cheap to make (no card lists): the in-process path makes
    one at every decision, and most are never rendered beyond their numbers.

    ``held`` is the seat's own cards; ``opponent_known`` the cards the opponent took
    from the discard pile (the upcard included) and has not discarded since;
    ``taken_card`` and ``banned_discard`` are set on the seat's own turn only;
    ``result`` is the hand's result once it is over (its ``public_dict(seat)`` is
    what the seat may see of it) and ``knock_discard`` the knock discard if the seat
    may see it (it is the knocker, or the profile lays it face up)."""

    __slots__ = ("banned_discard", "current_player", "dealer", "discard_pile", "hand_number",
                 "held", "knock_discard", "opponent_hand_size", "opponent_known", "phase",
                 "result", "seat", "stock_size", "taken_card")

    def __init__(self, hand: ObservedHand, seat: int) -> None:
        if type(seat) is not int or not 0 <= seat <= 1:  # a bool too: not a seat
            raise ValueError(f"seat must be 0 or 1, got {seat!r}")
        self.seat = seat
        self.hand_number = hand.hand_number
        self.dealer = hand.dealer
        self.current_player = current = hand.current_player
        self.phase = hand.phase
        self.held: int = hand.masks(seat)[0]
        opponent_held, self.opponent_known = hand.masks(1 - seat)
        self.opponent_hand_size = opponent_held.bit_count()
        self.discard_pile = hand.discard_pile
        self.stock_size = hand.stock_size
        own_turn = current == seat
        self.taken_card = hand.taken_card if own_turn else None
        self.banned_discard = hand.banned_discard if own_turn else None
        self.result = result = hand.result
        self.knock_discard: Card | None = None
        if (result is not None and result.knock_discard is not None
                and (not result.knock_discard_face_down or result.knocker == seat)):
            self.knock_discard = result.knock_discard


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
    view = SeatView(hand, seat)
    if sheet is None:
        sheet = ScoreSheet(hand.profile.game_target)
    sheet_state = sheet.state
    result = view.result
    last_result = _plain(result.public_dict(seat)) if result is not None else previous_result
    return Observation(
        seat=seat,
        hand_number=view.hand_number,
        dealer=view.dealer,
        current_player=view.current_player,
        phase=view.phase,
        hand=tuple(mask_to_cards(view.held)),
        discard_pile=view.discard_pile,
        stock_size=view.stock_size,
        opponent_hand_size=view.opponent_hand_size,
        opponent_known_cards=tuple(mask_to_cards(view.opponent_known)),
        taken_card=view.taken_card,
        banned_discard=view.banned_discard,
        knock_discard=view.knock_discard,
        scores=sheet_state.scores,
        opened=sheet_state.opened,
        game_winners=sheet_state.game_winners,
        hands_won=sheet_state.hands_won,
        profile=hand.profile,
        max_hands=max_hands,
        last_hand_result=last_result,
    )
