"""The class a bot author subclasses."""

from __future__ import annotations

from .views import Action, HandResult, Observation, SeriesResult


class Bot:
    """Subclass it and implement :meth:`decide`; pass an instance to
    :func:`hollywood_sdk.serve`.

    ``name``, ``version`` and ``author`` are sent in the handshake; left empty, they
    are read from ``bot.toml`` in the working directory (the arena starts a bot in
    its folder).
    """

    name: str = ""
    version: str = ""
    author: str = ""

    def decide(self, observation: Observation) -> Action:
        """Return one of ``observation.legal_actions`` (a KNOCK may carry melds)."""
        raise NotImplementedError(f"{type(self).__name__} must implement decide()")

    def on_hand_end(self, result: HandResult) -> None:
        """Called after every hand with both exposed hands and the sheet. Optional."""

    def on_series_end(self, result: SeriesResult) -> None:
        """Called once at the end of the series. Optional."""
