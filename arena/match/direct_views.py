"""The SDK's views of a decision, built straight from the engine's values.

A bot called directly (``arena.match.direct``) is given the same
``hollywood_sdk.Observation`` its gRPC server would build from the
``DecideRequest`` (``Observation.from_proto``), field for field, without the
message being built and parsed. Only the seat's own view is read (the engine's
``Observation`` already holds nothing hidden: docs/rules.md#hidden-information).
``tests/arena/match/test_inprocess_direct.py`` checks that both paths give equal views.
"""

from __future__ import annotations

from typing import Any

from hollywood.bot.v1 import bot_pb2

from arena.match.decision import Decision
from engine.actions import Action
from engine.cards import ALL_CARDS


class ViewBuilder:
    """Builds one series' SDK views (the profile's view is made once per profile)."""

    def __init__(self) -> None:
        import hollywood_sdk.cards
        import hollywood_sdk.views

        self._views: Any = hollywood_sdk.views
        # By card index, not by Card: a Card's hash is a Python call, and a decision
        # looks up two dozen cards.
        self._cards: tuple[Any, ...] = tuple(
            hollywood_sdk.cards.Card.parse(str(card)) for card in ALL_CARDS)
        self._phases = {phase.value: phase for phase in self._views.Phase}
        self._kinds = {kind.value: kind for kind in self._views.ActionKind}
        self._profile_of: tuple[bot_pb2.RuleProfile | None, Any] = (None, None)
        self._actions: dict[tuple[str, int], Any] = {}

    def observation(self, decision: Decision) -> Any:
        """The ``hollywood_sdk.Observation`` of ``decision``."""
        views, cards, view = self._views, self._cards, decision.view
        winners = view.game_winners
        return views.Observation(
            series_id=decision.series_id,
            hand_number=view.hand_number,
            decision_number=decision.decision_number,
            seat=view.seat,
            dealer=view.dealer,
            phase=self._phases[view.phase.value],
            hand=tuple(cards[card.index] for card in view.hand),
            discard_pile=tuple(cards[card.index] for card in view.discard_pile),
            stock_size=view.stock_size,
            opponent_hand_size=view.opponent_hand_size,
            opponent_known_cards=tuple(cards[card.index] for card in view.opponent_known_cards),
            taken_discard=cards[view.taken_card.index] if view.taken_card is not None else None,
            sheet=views.Sheet(
                scores=(tuple(view.scores[0]), tuple(view.scores[1])),
                hands_won=tuple(view.hands_won),
                game_finished=tuple(winner is not None for winner in winners),
                game_winner=tuple(winners),
            ),
            legal_actions=tuple(self.action(action) for action in decision.legal),
            profile=self._profile(decision.profile),
            deadline_ms=decision.deadline_ms,
            reserve_ms=decision.reserve_ms,
        )

    def action(self, action: Action) -> Any:
        """The ``hollywood_sdk.Action`` of an engine action (made once per action
        without melds: views are frozen, and legal actions recur at every turn)."""
        card = action.card
        key = (action.kind, -1 if card is None else card.index)
        known = self._actions.get(key) if not action.melds else None
        if known is not None:
            return known
        cards = self._cards
        view = self._views.Action(
            self._kinds[action.kind.value],
            cards[card.index] if card is not None else None,
            tuple(tuple(cards[melded.index] for melded in meld) for meld in action.melds or ()))
        if not action.melds:
            self._actions[key] = view
        return view

    def _profile(self, message: bot_pb2.RuleProfile) -> Any:
        known, view = self._profile_of
        if known is not message:
            view = self._views.Profile.from_proto(message)
            self._profile_of = (message, view)
        return view
