"""The SDK's views of a decision, rendered from the engine's ``SeatView``.

A bot called directly (``arena.match.direct``) is given the same
``hollywood_sdk.Observation`` its gRPC server would build from the
``DecideRequest`` (``Observation.from_proto``), field for field, without the
message, or the engine's ``Observation`` it is made from, being built and parsed:
what the seat sees is the engine's ``SeatView`` of the decision (the one definition,
docs/rules.md#hidden-information; taken lazily, ``engine.seat_moment``), rendered
here into SDK values when the bot first reads one.
``tests/arena/match/test_direct_views.py`` checks that both paths give equal views.
"""

from __future__ import annotations

import operator
from collections.abc import Callable
from functools import partial
from typing import Any, Final

from hollywood.bot.v1 import bot_pb2

from arena.match import protocol
from arena.match.decision import Decision
from engine.actions import Action
from engine.cards import ALL_CARDS, Card
from engine.phase import Phase
from engine.scoresheet import SheetState
from engine.seat_moment import SeatMoment

_index = operator.attrgetter("index")


_OBSERVATION_FIELDS: Final = (
    "series_id", "hand_number", "decision_number", "seat", "dealer", "phase", "hand",
    "discard_pile", "stock_size", "opponent_hand_size", "opponent_known_cards",
    "taken_discard", "sheet", "legal_actions", "profile", "deadline_ms", "reserve_ms")
"""The fields of ``hollywood_sdk.Observation``, in order, as ``ViewBuilder`` fills them."""


def _maker(view_class: type) -> tuple[Callable[[dict[str, Any]], Any], bool]:
    """Makes an ``Observation`` from its fields, and whether it may be made with some
    left unfilled. A frozen dataclass's ``__init__`` sets each field with
    ``object.__setattr__`` (~10 us for an ``Observation``'s 17, more than the
    engine's work for a decision); filling the instance's ``__dict__`` at once gives
    an equal object of the same class. Only while the class is the plain frozen
    dataclass of exactly those fields (no ``__post_init__``, no slots), else its
    constructor (every field given)."""
    fields = tuple(getattr(view_class, "__dataclass_fields__", ()))
    if (fields != _OBSERVATION_FIELDS or hasattr(view_class, "__post_init__")
            or "__slots__" in view_class.__dict__):
        return (lambda values: view_class(**values)), False
    new, set_attribute = object.__new__, object.__setattr__

    def make(values: dict[str, Any]) -> Any:
        made: Any = new(view_class)
        set_attribute(made, "__dict__", values)
        return made

    return make, True


def _sdk_cards(parse: Callable[[str], Any]) -> tuple[tuple[Any, ...], _Rows]:
    """The SDK's card of each card index, and the SDK cards of every row of 7 bits
    (8 of them: ranks A-7 and 8-K of each suit; a mask's cards are eight lookups),
    made once per process. Not one row per 13-bit suit mask as ``engine.cards``
    has: 32,768 more tuples for the collector to walk at every full collection
    cost more than the four lookups saved."""
    global _SDK_CARDS
    if _SDK_CARDS is None:
        cards = tuple(parse(str(card)) for card in ALL_CARDS)
        tables = []
        for start in range(0, 52, 13):
            for low, high in ((start, start + 7), (start + 7, start + 13)):
                rows: list[tuple[Any, ...]] = [()]
                for card in cards[low:high]:
                    rows += [(*row, card) for row in rows]
                tables.append(tuple(rows))
        _SDK_CARDS = cards, tuple(tables)
    return _SDK_CARDS


_Rows = tuple[tuple[tuple[Any, ...], ...], ...]
_SDK_CARDS: tuple[tuple[Any, ...], _Rows] | None = None


class ViewBuilder:
    """Builds one connection's SDK views. Everything that recurs is made once: the
    profile's view (per profile), the sheet's (per hand: it changes only when a
    hand ends), each legal action's (engine actions without melds are shared
    objects, so they are looked up by identity: an engine ``Action``'s or
    ``Card``'s hash is a Python call)."""

    def __init__(self) -> None:
        import hollywood_sdk.cards
        import hollywood_sdk.views

        self._views: Any = hollywood_sdk.views
        self._new_observation, lazy = _maker(hollywood_sdk.views.Observation)
        self._unfilled: str | None = getattr(self._views, "UNFILLED", None) if lazy else None
        # By card index, not by Card (see the class).
        self._cards, self._rows = _sdk_cards(hollywood_sdk.cards.Card.parse)
        self._card_at = self._cards.__getitem__
        self._millis: dict[float, int] = {}
        sdk_phases = {phase.value: phase for phase in self._views.Phase}
        self._phases = {id(phase): sdk_phases[phase.value] for phase in Phase
                        if phase.value in sdk_phases}  # no decision is made once a hand is over
        self._kinds = {kind.value: kind for kind in self._views.ActionKind}
        self._profile_of: tuple[bot_pb2.RuleProfile | None, Any] = (None, None)
        self._legal_views: dict[int, Any] = {}
        """id of an engine action without melds -> its view; the action is kept alive
        (in ``_kept``), so its id is never another object's."""
        self._legal_view_of = self._legal_views.__getitem__
        self._kept: list[Action] = []
        self._sheet_of: tuple[SheetState | None, Any] = (None, None)
        self._pile_of: tuple[tuple[Card, ...], tuple[Any, ...]] = ((), ())

    def observation(self, decision: Decision) -> Any:
        """The ``hollywood_sdk.Observation`` of ``decision``: the deciding seat's
        ``SeatView`` rendered (docs/rules.md#hidden-information: its own cards, the
        public ones, what it knows of the opponent's). Only its numbers and legal
        actions are filled at once, the rest when the bot first reads one of them
        (``hollywood_sdk.views.UNFILLED``: a bot that reads only the legal actions
        saves most of the work). The seat's moment and the sheet's state are noted
        now, so a bot that reads later, after the series went on, reads what was."""
        try:
            legal = tuple(map(self._legal_view_of, map(id, decision.legal)))
        except KeyError:  # one not seen yet (a first, or one with melds)
            legal = tuple(map(self._legal_view, decision.legal))
        series = decision.series
        moment = SeatMoment(series.hand, decision.seat)
        values = {
            "series_id": decision.series_id,
            "hand_number": series.hand_number,
            "decision_number": decision.decision_number,
            "seat": decision.seat,
            "legal_actions": legal,
        }
        fill = partial(self._fill, moment, series.sheet.state, decision.profile,
                       decision.decision_s, decision.reserve_s)
        if self._unfilled is None:  # an SDK that cannot fill later: all at once
            fill(values)
        else:
            values[self._unfilled] = fill
        return self._new_observation(values)

    def _fill(self, moment: SeatMoment, sheet: SheetState, profile: bot_pb2.RuleProfile,
              decision_s: float, reserve_s: float, values: dict[str, Any]) -> None:
        """Render the fields an observation left unfilled into ``values`` (its
        ``__dict__``), and drop the filler (it is asked once)."""
        view = moment.view()
        millis = self._millis
        taken = view.taken_card
        values.update({
            "dealer": view.dealer,
            "phase": self._phases[id(view.phase)],
            "hand": self._cards_of(view.held),
            "discard_pile": self._pile(view.discard_pile),
            "stock_size": view.stock_size,
            "opponent_hand_size": view.opponent_hand_size,
            "opponent_known_cards": self._cards_of(view.opponent_known),
            "taken_discard": self._cards[taken.index] if taken is not None else None,
            "sheet": self._sheet(sheet),
            "profile": self._profile(profile),
            "deadline_ms": millis.get(decision_s) or self._to_millis(decision_s),
            "reserve_ms": millis.get(reserve_s) or self._to_millis(reserve_s),
        })
        if self._unfilled is not None:
            values.pop(self._unfilled, None)

    def _cards_of(self, mask: int) -> tuple[Any, ...]:
        """The SDK cards of a mask, in index order (as ``engine.cards.mask_to_cards``)."""
        if not mask:  # the opponent's known cards, mostly
            return ()
        c1, c2, d1, d2, h1, h2, s1, s2 = self._rows
        return (c1[mask & 127] + c2[(mask >> 7) & 63] + d1[(mask >> 13) & 127]
                + d2[(mask >> 20) & 63] + h1[(mask >> 26) & 127] + h2[(mask >> 33) & 63]
                + s1[(mask >> 39) & 127] + s2[mask >> 46])

    def _pile(self, pile: tuple[Card, ...]) -> tuple[Any, ...]:
        """The SDK cards of the discard pile, in order. Between two decisions of a seat
        the pile gains a card or two, or loses its top: the last view is extended or
        cut rather than made again (the view is always that of the cards compared)."""
        known, view = self._pile_of
        if pile != known:  # the same cards: compared by identity first, in C
            size = len(known)
            if len(pile) > size and pile[:size] == known:
                view += tuple(map(self._card_at, map(_index, pile[size:])))
            elif len(pile) < size and pile == known[:len(pile)]:
                view = view[:len(pile)]
            else:
                view = tuple(map(self._card_at, map(_index, pile)))
            self._pile_of = (pile, view)
        return view

    def _to_millis(self, seconds: float) -> int:
        """``protocol.millis``, remembered (a series asks the same few values)."""
        value = self._millis[seconds] = protocol.millis(seconds)
        if len(self._millis) > 4096:  # each seat's reserve left: bounded all the same
            self._millis.clear()
        return value

    def _legal_view(self, action: Action) -> Any:
        known = self._legal_views.get(id(action))
        if known is not None:
            return known
        view = self.action(action)
        if not action.melds:
            self._kept.append(action)
            self._legal_views[id(action)] = view
        return view

    def action(self, action: Action) -> Any:
        """The ``hollywood_sdk.Action`` of an engine action."""
        card, cards = action.card, self._cards
        return self._views.Action(
            self._kinds[action.kind.value],
            cards[card.index] if card is not None else None,
            tuple(tuple(cards[melded.index] for melded in meld) for meld in action.melds or ()))

    def _sheet(self, sheet: SheetState) -> Any:
        """The sheet's view (made once per state: only a hand's end changes it)."""
        known, view = self._sheet_of
        if known is sheet:
            return view
        view = self._views.Sheet(
            scores=sheet.scores,
            hands_won=sheet.hands_won,
            game_finished=tuple(winner is not None for winner in sheet.game_winners),
            game_winner=sheet.game_winners,
        )
        self._sheet_of = (sheet, view)
        return view

    def _profile(self, message: bot_pb2.RuleProfile) -> Any:
        known, view = self._profile_of
        if known is not message:
            view = self._views.Profile.from_proto(message)
            self._profile_of = (message, view)
        return view
