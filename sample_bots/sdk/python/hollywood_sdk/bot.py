"""The class a bot author subclasses."""

from __future__ import annotations

from .results import HandResult, SeriesResult
from .views import Action, Observation, SeriesStart


class Bot:
    """Subclass it and implement :meth:`decide`; pass an instance to
    :func:`hollywood_sdk.serve`.

    ``name``, ``version`` and ``author`` are sent in the handshake; left empty, they
    are read from ``bot.toml`` in the working directory (the arena starts a bot in
    its folder).

    One object may play several series, one after another: the arena reuses a bot's
    process, and every Handshake starts a series (:meth:`on_series_start`). What a
    bot learnt of the last series' opponent must go then; what it computed for
    itself (caches, tables) may stay (docs/bot-guide.md, "Between series").
    """

    name: str = ""
    version: str = ""
    author: str = ""
    _debug_note: str = ""

    def debug(self, text: str) -> None:
        """Attach a short note to the move being decided (call it inside
        :meth:`decide`): why this move. It travels with the answer
        (``DecideResponse.debug``) and is shown to you alone, beside that move, by
        ``arena series logs`` and ``arena series download``; never to the opponent or
        the public. Several calls in one decision are joined by `` | ``. The arena
        keeps at most 256 bytes a decision and 64 KiB a series (docs/bot-guide.md,
        "Debug notes")."""
        text = str(text)
        self._debug_note = f"{self._debug_note} | {text}" if self._debug_note else text

    def take_debug_note(self) -> str:
        """The note of the decision just made, cleared (the SDK's server sends it)."""
        note, self._debug_note = self._debug_note, ""
        return note

    def on_series_start(self, start: SeriesStart) -> None:
        """Called at every Handshake, before the series' first decision: forget what
        the previous series taught about its opponent. The default keeps nothing
        because it has nothing; a bot with per-series state resets it here."""

    def decide(self, observation: Observation) -> Action:
        """Return one of ``observation.legal_actions`` (a KNOCK may carry melds)."""
        raise NotImplementedError(f"{type(self).__name__} must implement decide()")

    def on_hand_end(self, result: HandResult) -> None:
        """Called after every hand with both exposed hands and the sheet. Optional."""

    def on_series_end(self, result: SeriesResult) -> None:
        """Called once at the end of the series. Optional."""
