"""The website in a real browser: headless Debian chromium (through chromedriver and
selenium) opens a season page, the season then plays with the sample bots in the
in-process sandbox, and the standings change without a reload; then a series'
replay is stepped through and what is drawn is checked against the stored frames;
a fixed-seed replay is stepped to its knock (both arrangements, the layoff, the
settlement line) and opened at a hand from its list of hands; the pages log no
error (no CSP violation, no failed resource).
Screenshots go to test-artifacts/browser/ (git-ignored)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx2
import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.remote.webdriver import WebDriver
from selenium.webdriver.support.ui import Select

from arena.season.events import EventHub
from arena.server.app import start_server
from arena.storage import Storage
from arena.web.serve import start_web
from tests.helpers.browser import BOUND, SCREENSHOTS, chromium, console_errors, wait_for
from tests.helpers.web_helpers import sample_season, store_knock_series

pytestmark = pytest.mark.browser

SUITS = {"c": "♣", "d": "♦", "h": "♥", "s": "♠"}


def face(card: str) -> str:
    """How the viewer writes a card: rank (10 for T) and suit symbol."""
    return ("10" if card[0] == "T" else card[0]) + SUITS[card[1]]


def shown_cards(frame: dict[str, Any], seat: int) -> list[str]:
    """The cards the viewer draws for a seat, in order: the hand, or at the end of a
    knocked hand its melds, (the defender's) laid-off cards, then its deadwood."""
    result = frame["result"]
    if not result or result["knocker"] is None:
        return [str(card) for card in frame["hands"][seat]]
    exposed = result["exposed"][seat]
    laid = [str(card) for layoff in result["layoffs"] for card in layoff["cards"]
            if seat != result["knocker"]]
    melded = [str(card) for meld in exposed["melds"] for card in meld]
    return melded + laid + [str(card) for card in exposed["deadwood_cards"]]



@pytest.fixture
def browser() -> Iterator[WebDriver]:
    with chromium(1400, 1000) as driver:
        yield driver


def text(driver: WebDriver, element_id: str) -> str:
    """An element's text read in one step (live updates replace elements)."""
    value = driver.execute_script(
        "const e = document.getElementById(arguments[0]); return e ? e.textContent : null;",
        element_id)
    return "" if value is None else str(value).strip()



def test_season_page_updates_live_and_a_replay_steps(browser: WebDriver, tmp_path: Path
                                                     ) -> None:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    running = start_server(tmp_path / "browser.db", port=0, resume=False,
                           http=("localhost", 0))
    try:
        assert running.web is not None
        base = running.web.url
        season_id = sample_season(running.storage, name="browser season")
        browser.get(f"{base}/seasons/{season_id}")
        wait_for(lambda: text(browser, "live-state") == "waiting for the start",
                 "the event stream to connect")
        browser.execute_script("window.notReloaded = true;")
        assert text(browser, "season-done") == "0"
        assert "No series played yet." in text(browser, "live-latest")

        running.manager.start(season_id)
        wait_for(lambda: text(browser, "season-done") not in ("0", ""),
                 "a first result on the page")
        assert text(browser, "live-state") in ("live", "")  # "" once it has finished
        browser.save_screenshot(str(SCREENSHOTS / "season-live.png"))
        wait_for(lambda: text(browser, "season-status") == "finished",
                 "the season to finish on the page")
        assert browser.execute_script("return window.notReloaded === true;")
        assert text(browser, "season-done") == "12"
        # The badge goes with the season's end: a finished season is not live.
        wait_for(lambda: browser.execute_script(
            "return document.getElementById('live-state') === null;"), "the live badge to go")
        final = httpx2.get(f"{base}/api/seasons/{season_id}").json()
        rows = browser.execute_script(
            "return [...document.querySelectorAll('#standings tbody tr')].map("
            "r => [r.dataset.bot, r.cells[3].textContent]);")
        assert rows == [[row["bot_id"], "8"] for row in final["standings"]]
        browser.save_screenshot(str(SCREENSHOTS / "season-finished.png"))
        assert console_errors(browser) == []

        link = browser.find_element(By.CSS_SELECTOR, "#latest a.series")
        series_id = link.text
        link.click()
        wait_for(lambda: browser.find_element(By.ID, "replay").get_attribute("data-ready"),
                 "the replay to load")
        replay = httpx2.get(f"{base}/api/series/{series_id}/replay").json()
        frames = replay["frames"]

        def drawn(container: str) -> list[str]:
            return [card.text for card in
                    browser.find_elements(By.CSS_SELECTOR, f"#{container} .card")]

        def check_frame(index: int) -> None:
            frame = frames[index]
            wait_for(lambda: browser.find_element(By.ID, "replay").get_attribute(
                "data-index") == str(index), f"frame {index}")
            assert drawn("hand-0") == [face(card) for card in shown_cards(frame, 0)]
            assert drawn("hand-1") == [face(card) for card in shown_cards(frame, 1)]
            assert drawn("pile") == [face(card) for card in frame["pile"]]
            assert browser.find_element(By.ID, "stock").text == str(frame["stock"])
            assert frame["action"] in browser.find_element(By.ID, "action").text

        check_frame(0)
        assert len(drawn("hand-0")) == 10 and browser.find_element(By.ID, "stock").text == "31"
        browser.find_element(By.ID, "forward").click()
        check_frame(1)
        body = browser.find_element(By.TAG_NAME, "body")
        body.send_keys(Keys.ARROW_RIGHT)
        check_frame(2)
        body.send_keys(Keys.ARROW_LEFT)
        check_frame(1)
        browser.find_element(By.ID, "last").click()
        check_frame(len(frames) - 1)
        sheet = browser.find_elements(By.CSS_SELECTOR, "#sheet tbody tr")
        assert len(sheet) == 2
        if "2" in replay["hand_starts"]:
            Select(browser.find_element(By.ID, "hand-select")).select_by_value("2")
            check_frame(replay["hand_starts"]["2"])
            link_to_hand = browser.find_element(By.ID, "hand-link").get_attribute("href")
            assert link_to_hand.endswith(f"/series/{series_id}?hand=2")
            browser.get(link_to_hand)
            wait_for(lambda: browser.find_element(By.ID, "replay").get_attribute("data-ready"),
                     "the linked hand to load")
            check_frame(replay["hand_starts"]["2"])
        browser.save_screenshot(str(SCREENSHOTS / "replay.png"))
        assert console_errors(browser) == []
    finally:
        running.stop()


def groups(driver: WebDriver, seat: int) -> list[list[Any]]:
    """The labelled groups of cards drawn for a seat: [label, [card, ...]]."""
    found: list[list[Any]] = driver.execute_script(
        "return [...document.querySelectorAll(arguments[0])].map(g => [g.dataset.label, "
        "[...g.querySelectorAll('.card')].map(c => c.dataset.card)]);", f"#hand-{seat} .group")
    return found


def test_a_replay_steps_to_the_knock_and_opens_hands_from_its_list(
    browser: WebDriver, tmp_path: Path
) -> None:
    """The fixed-seed series of tests/arena/web/test_web_replay.py (numbers worked out there)."""
    db = tmp_path / "knock.db"
    planned, _log = store_knock_series(Storage(db), tmp_path)
    web = start_web(db, EventHub(), "localhost", 0)
    try:
        page = f"{web.url}/series/{planned.series_id}"
        replay = httpx2.get(f"{web.url}/api/series/{planned.series_id}/replay").json()
        starts = replay["hand_starts"]
        browser.get(page)
        root = browser.find_element(By.ID, "replay")
        wait_for(lambda: root.get_attribute("data-ready"), "the replay to load")

        def at(index: int) -> None:
            wait_for(lambda: root.get_attribute("data-index") == str(index), f"frame {index}")

        Select(browser.find_element(By.ID, "hand-select")).select_by_value("2")
        at(starts["2"])
        browser.find_element(By.TAG_NAME, "body").send_keys(Keys.ARROW_LEFT)
        knock = starts["2"] - 1  # the step that ends hand 1: seat 0 knocks
        at(knock)
        assert text(browser, "action").startswith(f"seat 0 ({planned.seat0_bot}): knock")
        assert groups(browser, 0) == [
            ["meld 1", ["3c", "3d", "3h"]], ["meld 2", ["8d", "8h", "8s"]],
            ["meld 3", ["7c", "8c", "9c"]], ["deadwood", ["7h"]]]
        assert groups(browser, 1) == [
            ["meld 1", ["4d", "5d", "6d"]], ["meld 2", ["3s", "4s", "5s"]],
            ["laid off", ["6c"]], ["deadwood", ["Jc", "2d", "7s"]]]
        assert (text(browser, "role-0"), text(browser, "role-1")) == ("· knocker", "· defender")
        assert text(browser, "count-0") == "deadwood 7"
        assert text(browser, "count-1") == "deadwood 19 after layoffs (25 before)"
        assert text(browser, "layoffs") == (
            f"seat 1 ({planned.seat1_bot}) lays off 6♣ on the knocker's meld 3 (7♣ 8♣ 9♣)")
        assert text(browser, "hand-result") == (
            f"Hand 1: knock — seat 0 ({planned.seat0_bot}) scores 12. Seat 0 knocked "
            "discarding A♥ face down.")
        assert text(browser, "settlement") == (
            "knock: knocker 7, defender 19 after laying off 6c (25 before): "
            "knocker scores 19 - 7 = 12")
        frame = replay["frames"][knock]
        assert text(browser, "stock-box") == f"stock: {frame['stock']} cards"
        assert text(browser, "pile-top") == f"· top card {face(frame['pile'][-1])}"
        browser.save_screenshot(str(SCREENSHOTS / "replay-knock.png"))

        browser.execute_script("window.notReloaded = true;")
        browser.find_element(By.CSS_SELECTOR, '#hands a[data-hand="3"]').click()
        at(starts["3"])
        assert browser.current_url == f"{page}?hand=3"
        assert browser.execute_script("return window.notReloaded === true;")
        current = browser.find_elements(By.CSS_SELECTOR, "#hands tr.current")
        assert [row.get_attribute("data-hand") for row in current] == ["3"]
        assert text(browser, "settlement") == ""  # a deal settles nothing

        browser.get(f"{page}?hand=2")  # a deep link as the replay has always written it
        wait_for(lambda: browser.find_element(By.ID, "replay").get_attribute("data-ready"),
                 "the linked hand to load")
        assert browser.find_element(By.ID, "replay").get_attribute("data-index") == str(
            starts["2"])
        assert console_errors(browser) == []
    finally:
        web.stop()


def test_a_page_whose_server_restarts_reconnects_and_catches_up(
    browser: WebDriver, tmp_path: Path
) -> None:
    """The website goes away while the season plays on, and comes back on the same
    address: the open page reconnects by itself and shows the season as it is."""
    db = tmp_path / "restart.db"
    running = start_server(db, port=0, resume=False)
    web = start_web(db, running.manager.hub, "localhost", 0)
    try:
        season_id = sample_season(running.storage, series_per_pair=6, name="restart season")
        browser.get(f"{web.url}/seasons/{season_id}")
        wait_for(lambda: text(browser, "live-state") == "waiting for the start",
                 "the event stream to connect")
        browser.execute_script("window.notReloaded = true;")
        web.stop()
        wait_for(lambda: text(browser, "live-state") == "reconnecting…", "the page to notice")
        running.manager.start(season_id)
        assert running.manager.wait(season_id, BOUND)
        assert text(browser, "season-done") == "0"  # nothing arrived while it was down
        web = start_web(db, running.manager.hub, "localhost", web.port)
        wait_for(lambda: text(browser, "season-status") == "finished", "the page to catch up")
        assert text(browser, "season-done") == "18"
        assert browser.execute_script("return window.notReloaded === true;")
    finally:
        web.stop()
        running.stop()
