"""The SDK's views of a decision, built straight from the engine's values.

A bot called directly (``arena.match.direct``) is given the same
``hollywood_sdk.Observation`` its gRPC server would build from the
``DecideRequest`` (``Observation.from_proto``), field for field, without the
message, or the engine's ``Observation`` it is made from, being built and parsed:
straight from the series' current hand and sheet, reading only what the engine's
``observe`` reads for the seat (docs/rules.md#hidden-information).
``tests/arena/match/test_inprocess_direct.py`` checks that both paths give equal views.
"""

from __future__ import annotations

import operator
from collections.abc import Callable
from typing import Any

from hollywood.bot.v1 import bot_pb2

from arena.match.decision import Decision
from engine.actions import Action
from engine.cards import ALL_CARDS
from engine.phase import Phase
from engine.scoresheet import ScoreSheet

_index = operator.attrgetter("index")


def _maker(view_class: type) -> Callable[..., Any]:
    """Makes a frozen dataclass view from its fields. A frozen dataclass's
    ``__init__`` sets each field with ``object.__setattr__`` (~10 us for an
    ``Observation``'s 17, more than the engine's work for a decision); filling the
    instance's ``__dict__`` at once gives an equal object of the same class. Only
    for a plain frozen dataclass (no ``__post_init__``, no slots, no defaults
    computed), else its constructor."""
    fields = getattr(view_class, "__dataclass_fields__", None)
    if (fields is None or hasattr(view_class, "__post_init__")
            or "__slots__" in view_class.__dict__):
        return view_class
    new, set_attribute = object.__new__, object.__setattr__

    def make(**values: Any) -> Any:
        if values.keys() != fields.keys():
            return view_class(**values)
        made: Any = new(view_class)
        set_attribute(made, "__dict__", values)
        return made

    return make


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
        self._new_observation = _maker(hollywood_sdk.views.Observation)
        # By card index, not by Card (see the class).
        self._cards: tuple[Any, ...] = tuple(
            hollywood_sdk.cards.Card.parse(str(card)) for card in ALL_CARDS)
        self._card_at = self._cards.__getitem__
        sdk_phases = {phase.value: phase for phase in self._views.Phase}
        self._phases = {id(phase): sdk_phases[phase.value] for phase in Phase
                        if phase.value in sdk_phases}  # no decision is made once a hand is over
        self._kinds = {kind.value: kind for kind in self._views.ActionKind}
        self._profile_of: tuple[bot_pb2.RuleProfile | None, Any] = (None, None)
        self._legal_views: dict[int, Any] = {}
        """id of an engine action without melds -> its view; the action is kept alive
        (in ``_kept``), so its id is never another object's."""
        self._kept: list[Action] = []
        self._sheet_of: tuple[object, int, Any] = (None, 0, None)

    def observation(self, decision: Decision) -> Any:
        """The ``hollywood_sdk.Observation`` of ``decision``: the deciding seat's own
        view of the series (docs/rules.md#hidden-information: its own cards, the
        public ones, what it knows of the opponent's)."""
        card_at = self._card_at
        series, seat = decision.series, decision.seat
        hand = series.hand
        taken = hand.taken_card if hand.current_player == seat else None
        legal = tuple(map(self._legal_views.get, map(id, decision.legal)))
        if None in legal:
            legal = tuple(map(self._legal_view, decision.legal))
        return self._new_observation(
            series_id=decision.series_id,
            hand_number=hand.hand_number,
            decision_number=decision.decision_number,
            seat=seat,
            dealer=hand.dealer,
            phase=self._phases[id(hand.phase)],
            hand=tuple(map(card_at, map(_index, hand.cards(seat)))),
            discard_pile=tuple(map(card_at, map(_index, hand.discard_pile))),
            stock_size=hand.stock_size,
            opponent_hand_size=hand.hand_size(1 - seat),
            opponent_known_cards=tuple(map(card_at, map(_index, hand.known_cards(1 - seat)))),
            taken_discard=card_at(taken.index) if taken is not None else None,
            sheet=self._sheet(series.sheet, hand.hand_number),
            legal_actions=legal,
            profile=self._profile(decision.profile),
            deadline_ms=decision.deadline_ms,
            reserve_ms=decision.reserve_ms,
        )

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

    def _sheet(self, sheet: ScoreSheet, hand_number: int) -> Any:
        """The sheet's view (made once per hand: only a hand's end changes it)."""
        known, number, view = self._sheet_of
        if known is sheet and number == hand_number:
            return view
        winners = tuple(sheet.game_winner(game) for game in range(3))
        view = self._views.Sheet(
            scores=(sheet.scores(0), sheet.scores(1)),
            hands_won=(sheet.hands_won(0), sheet.hands_won(1)),
            game_finished=tuple(winner is not None for winner in winners),
            game_winner=winners,
        )
        self._sheet_of = (sheet, hand_number, view)
        return view

    def _profile(self, message: bot_pb2.RuleProfile) -> Any:
        known, view = self._profile_of
        if known is not message:
            view = self._views.Profile.from_proto(message)
            self._profile_of = (message, view)
        return view
