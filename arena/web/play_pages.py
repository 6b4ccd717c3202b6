"""Play a bot yourself: ``/play`` lists the bots and starts a game (POST), ``/play/ID``
shows the person their own hand, the table and their legal actions as buttons, and
``/play/ID/act`` (POST) takes one. The bot's hand stays hidden until each hand ends;
then both hands, the settlement and the score sheet are shown. A finished game is
stored apart and never rated; its page and ``/api/play/ID/replay`` replay it.

Only the browser that started a game sees it while it is played (its HttpOnly
cookie, ``arena-game-ID``), and every POST is checked as sign-in's are (same
origin, a CSRF token: the start form's cookie, then the game's own token)."""

from __future__ import annotations

import hmac
import secrets
from typing import Any, Final

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse, RedirectResponse, Response
from starlette.routing import Route

from arena.match.human_seat import RefusedAction, SeatView
from arena.storage import NotFoundError, get_human_game, human_game_log
from arena.web.play_games import HumanGames, LiveGame, PlayRefused
from arena.web.replay import UNREPLAYABLE, replay_view
from arena.web.signin import (
    SIGN_IN_FORM_SECONDS,
    Render,
    checked_form,
    client_key,
    cookie_name,
    set_cookie,
    signed_in,
)
from arena.web.twins import get

TURN_WAIT_S: Final = 3.0
"""How long a game page waits for the bot to move before it is sent (it then
refreshes itself every second while the bot thinks)."""
_START_FORM: Final = "arena-play-form"


class PlayPages:
    """The play routes over ``games``."""

    def __init__(self, games: HumanGames, html: Render) -> None:
        self.games = games
        self.html = html

    def routes(self) -> list[Route]:
        return [get("/play", self.choose),
                Route("/play", self.start, methods=["POST"]),
                get("/play/{game_id:arena_game_id}", self.game_page),
                Route("/play/{game_id:arena_game_id}/act", self.act, methods=["POST"]),
                get("/api/play/{game_id:arena_game_id}/replay", self.replay)]

    async def choose(self, request: Request) -> Response:
        return self._choose(request, 200, "")

    def _choose(self, request: Request, status: int, problem: str) -> Response:
        viewer = signed_in()
        nonce = secrets.token_urlsafe(32)
        response = self.html(
            "play.html", status, bots=self.games.bots(), problem=problem, csrf=nonce,
            may_play=self.games.may_play(None if viewer is None else viewer.author),
            settings=self.games.settings)
        set_cookie(response, request, _START_FORM, nonce, SIGN_IN_FORM_SECONDS)
        return response

    async def start(self, request: Request) -> Response:
        form, refusal = await checked_form(request, self.html)
        if refusal is not None:
            return refusal
        expected = request.cookies.get(cookie_name(_START_FORM, request), "")
        if not expected or not hmac.compare_digest(form.get("csrf", ""), expected):
            return self._choose(request, 403, "this form expired or was not sent from this "
                                              "site: choose the bot again")
        viewer = signed_in()
        try:
            game = await run_in_threadpool(
                self.games.start, form.get("bot", ""),
                None if viewer is None else viewer.author, client_key(request))
        except PlayRefused as refused:
            return self._choose(request, refused.status, str(refused))
        response = RedirectResponse(f"/play/{game.id}", 303)
        set_cookie(response, request, f"arena-game-{game.id}", game.key,
                   int(self.games.settings.idle_s * 4))
        return response

    def _owned(self, request: Request, game_id: str) -> LiveGame | None:
        game = self.games.get(game_id)
        if game is None:
            return None
        key = request.cookies.get(cookie_name(f"arena-game-{game.id}", request), "")
        if not key or not hmac.compare_digest(key, game.key):
            return None
        return game

    async def game_page(self, request: Request) -> Response:
        game_id = request.path_params["game_id"]
        game = self._owned(request, game_id)
        if game is None:
            return self._finished(game_id)
        shown = await run_in_threadpool(_wait_for_turn, game)
        if shown.over and await run_in_threadpool(game.done.wait, TURN_WAIT_S):
            return self._finished(game_id)  # stored: its page is the stored game's
        # Over but not stored yet (a loaded machine): this page says so and refreshes.
        return self.html("play_game.html", game=game, shown=shown,
                         table=_table(shown), hands=shown.hands)

    def _finished(self, game_id: str) -> Response:
        if self.games.get(game_id) is not None:  # someone else's game in play
            return self.html("error.html", 403, title="Forbidden",
                             message="this game is being played in another browser: only "
                                     "the browser that started it sees it until it ends")
        stored = get_human_game(self.games.storage, game_id)  # NotFoundError: a 404
        hands = [event for event in human_game_log(self.games.storage, game_id)
                 if event.get("type") == "hand_end"]
        return self.html("play_over.html", game=stored, hands=hands)

    async def act(self, request: Request) -> Response:
        form, refusal = await checked_form(request, self.html)
        if refusal is not None:
            return refusal
        game = self._owned(request, request.path_params["game_id"])
        if game is None:
            return self.html("error.html", 403, title="Forbidden",
                             message="this is not a game of this browser, or it has ended")
        if not hmac.compare_digest(form.get("csrf", ""), game.csrf):
            return self.html("error.html", 403, title="Forbidden",
                             message="the action carried no valid CSRF token of this game: "
                                     "act from the game's page")
        try:
            game.seat.submit(form.get("action", ""))
        except RefusedAction as refused:
            return self.html("error.html", 400, title="Refused action",
                             message=f"{refused} (back to the game: /play/{game.id})")
        return RedirectResponse(f"/play/{game.id}", 303)

    async def replay(self, request: Request) -> Response:
        game_id = request.path_params["game_id"]
        try:
            log = human_game_log(self.games.storage, game_id)
        except NotFoundError as error:
            return JSONResponse({"error": str(error)}, 404)
        try:
            return JSONResponse({"game_id": game_id, **replay_view(log)})
        except UNREPLAYABLE as error:
            return JSONResponse({"error": f"the log of game {game_id} cannot be replayed: "
                                          f"{error}"}, 422)


def _wait_for_turn(game: LiveGame) -> SeatView:
    """The seat once it is the person's turn or the series is over, or as it is
    after ``TURN_WAIT_S``."""
    changes, shown = game.seat.shown()
    waited = 0.0
    while not (shown.my_turn or shown.over) and waited < TURN_WAIT_S:
        changes, shown = game.seat.shown(changes, 0.5)
        waited += 0.5
    return shown


def _table(shown: SeatView) -> dict[str, Any] | None:
    """What the person sees of the table: their hand, the pile's top, the stock,
    how many cards the bot holds and which of them are known, and the scores."""
    view = shown.view
    if view is None:
        return None
    data = view.to_dict()
    return {**data, "me": view.seat, "bot": 1 - view.seat,
            "pile_top": data["discard_pile"][-1] if data["discard_pile"] else None,
            "actions": [str(action) for action in shown.legal]}

