"""The Python SDK for Hollywood Gin Arena bots.

Write a :class:`Bot` subclass with ``decide(observation) -> action`` and call
:func:`serve`::

    import hollywood_sdk as hs

    class FirstLegal(hs.Bot):
        def decide(self, observation: hs.Observation) -> hs.Action:
            return observation.legal_actions[0]

    if __name__ == "__main__":
        hs.serve(FirstLegal())

See docs/bot-guide.md.
"""

from .bot import Bot
from .cards import FULL_DECK, Card, CardError, format_cards, parse_cards
from .melds import (
    Arrangement,
    best_arrangement,
    best_discards,
    is_meld,
    min_deadwood,
    possible_melds,
)
from .results import ExposedHand, HandResult, SeriesResult
from .server import (
    ADDRESS_ENV,
    PROTOCOL_VERSION,
    SOCKET_ENV,
    BotServicer,
    Identity,
    ServeError,
    listen_target,
    serve,
    start_server,
)
from .views import (
    Action,
    ActionKind,
    Observation,
    Phase,
    Profile,
    SeriesStart,
    Sheet,
)

__all__ = [
    "ADDRESS_ENV",
    "FULL_DECK",
    "PROTOCOL_VERSION",
    "SOCKET_ENV",
    "Action",
    "ActionKind",
    "Arrangement",
    "Bot",
    "BotServicer",
    "Card",
    "CardError",
    "ExposedHand",
    "HandResult",
    "Identity",
    "Observation",
    "Phase",
    "Profile",
    "SeriesResult",
    "SeriesStart",
    "ServeError",
    "Sheet",
    "best_arrangement",
    "best_discards",
    "format_cards",
    "is_meld",
    "listen_target",
    "min_deadwood",
    "parse_cards",
    "possible_melds",
    "serve",
    "start_server",
]
