"""Playing a bot yourself in a real browser (issue 38, point 3; headless Debian
chromium as in tests/arena/web/test_web_browser.py): a guest (the organiser allows
guests) plays a whole one-hand series against greedy by clicking legal actions,
sees the settlement, and the game is stored unrated; an action edited by hand
before it is sent is refused; a second game while the only table is taken is
refused with a clear message. A screenshot of the game is saved under
test-artifacts/browser/ (and, with HOLLYWOOD_DOCS_SCREENSHOTS=1, as
docs/images/human-game.png)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.remote.webdriver import WebDriver

from arena.season.events import EventHub
from arena.storage import Storage, get_human_game
from arena.web.serve import WebServer, start_web
from tests.arena.web.test_web_browser import (
    browser,  # noqa: F401 (the fixture)
    text,
)
from tests.helpers.browser import SCREENSHOTS, console_errors, wait_for
from tests.helpers.play_helpers import play_settings, store_greedy

pytestmark = pytest.mark.browser

DOCS_IMAGES = Path(__file__).resolve().parents[3] / "docs" / "images"


class PlaySite:
    """greedy stored in a database, and the website over it letting guests play one
    game at a time."""

    def __init__(self, root: Path) -> None:
        self.db = root / "play.db"
        storage = Storage(self.db)
        self.greedy = store_greedy(storage)
        storage.close()
        self.web: WebServer = start_web(
            self.db, EventHub(), "localhost", 0,
            play=play_settings(guest_play=True, max_games=1))
        self.base = self.web.url


@pytest.fixture
def site(tmp_path: Path) -> Iterator[PlaySite]:
    served = PlaySite(tmp_path)
    try:
        yield served
    finally:
        served.web.stop()


def buttons(driver: WebDriver) -> list[str]:
    return [str(b.get_attribute("value")) for b in
            driver.find_elements(By.CSS_SELECTOR, "#actions .action-button")]


def submitted(driver: WebDriver, click: str, *args: object) -> None:
    """Run the script ``click`` (it submits a form) and wait for the next page: a
    page that is still the old one a moment later would hand out stale buttons."""
    driver.execute_script("window.oldPage = true;")
    driver.execute_script(click, *args)
    wait_for(lambda: driver.execute_script(
        "return window.oldPage === undefined && document.readyState === 'complete'"),
        "the next page")


LAST_ACTION = "Array.from(document.querySelectorAll('#actions .action-button')).pop().click();"


def my_turn_or_over(driver: WebDriver) -> bool:
    return bool(driver.find_elements(By.CSS_SELECTOR, "#actions .action-button")
                or driver.find_elements(By.ID, "game-result"))


def test_a_guest_plays_a_hand_against_greedy_by_clicking(browser: WebDriver,  # noqa: F811
                                                         site: PlaySite) -> None:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    browser.get(f"{site.base}/play")
    browser.find_element(By.CSS_SELECTOR, f'button[data-bot="{site.greedy}"]').click()
    wait_for(lambda: "/play/" in browser.current_url, "the game's page")
    game_path = browser.current_url.split(site.base, 1)[1]
    game_id = game_path.rsplit("/", 1)[1]
    wait_for(lambda: my_turn_or_over(browser), "the person's first turn")
    # The bot's hand is hidden: only card backs and the cards it took face up.
    hidden = browser.find_elements(By.CSS_SELECTOR, "#bot-seat .card.back")
    assert len(hidden) >= 9
    assert len(browser.find_elements(By.CSS_SELECTOR, "#my-hand .card")) >= 10

    # The only table is taken: a second game is refused, saying why.
    browser.get(f"{site.base}/play")
    submitted(browser, "document.querySelector(arguments[0]).click();",
              f'button[data-bot="{site.greedy}"]')
    wait_for(lambda: browser.find_elements(By.ID, "play-problem"), "the refusal")
    assert ("all 1 tables are taken: at most 1 games against the bots are played at once"
            in text(browser, "play-problem"))

    # An action edited by hand before it is sent is refused by the engine's checks.
    browser.get(f"{site.base}{game_path}")
    wait_for(lambda: buttons(browser), "the person's turn")
    legal = buttons(browser)
    forged = next(f"discard {card}" for card in ("2c", "3c", "4c", "5c")
                  if f"discard {card}" not in legal)
    submitted(browser, "const b = document.querySelector('#actions .action-button');"
                       "b.value = arguments[0]; b.click();", forged)
    wait_for(lambda: "is not legal here" in browser.page_source, "the refusal")
    browser.get(f"{site.base}{game_path}")
    wait_for(lambda: buttons(browser) == legal, "the same turn, still the person's")

    # A whole hand by clicking: the last legal action each turn (a knock or gin
    # when allowed, else a discard or a draw).
    screenshot_taken = False
    for _ in range(300):
        try:
            wait_for(lambda: my_turn_or_over(browser), "the person's turn or the result")
        except AssertionError as error:  # say what the page showed instead
            main = browser.execute_script("return document.body.innerText")
            raise AssertionError(f"{error}; the page showed: {str(main)[:600]}") from None
        if browser.find_elements(By.ID, "game-result"):
            break
        if not screenshot_taken and len(browser.find_elements(
                By.CSS_SELECTOR, "#bot-seat .card")) and buttons(browser):
            browser.save_screenshot(str(SCREENSHOTS / "human-game.png"))
            if os.environ.get("HOLLYWOOD_DOCS_SCREENSHOTS") == "1":
                DOCS_IMAGES.mkdir(parents=True, exist_ok=True)
                browser.save_screenshot(str(DOCS_IMAGES / "human-game.png"))
            screenshot_taken = True
        submitted(browser, LAST_ACTION)
    assert browser.find_elements(By.ID, "game-result")
    # The settlement: both hands face up (or the dead hand said) and the score sheet.
    settlement = browser.find_element(By.CSS_SELECTOR, ".settlement-box")
    assert settlement.text.startswith("Hand 1:")
    assert browser.find_elements(By.ID, "score-sheet")
    assert "Unrated" in text(browser, "game-result")
    storage = Storage(site.db)
    try:
        stored = get_human_game(storage, game_id)
        assert stored.player == "guest" and stored.bot_id == site.greedy
        assert stored.result["hands_played"] == 1
        assert storage.list_seasons() == []
        assert storage.count_rows()["series_results"] == 0
    finally:
        storage.close()
    # Only the two refusals above: no script, CSP or resource error.
    errors = console_errors(browser)
    assert len(errors) == 2, errors
    assert "503 (Service Unavailable)" in errors[0] and "400 (Bad Request)" in errors[1]
