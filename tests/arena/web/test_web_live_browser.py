"""The live series page in a real browser (headless Debian chromium, as in
tests/arena/web/test_web_browser.py): the home page lists the series being played; its page
follows the scripted series move by move (the action, both hands as the engine
holds them, the list of hands filling in as hands end) and, when the series ends,
becomes its replay. The pages log no error. A screenshot of the live page is saved
under test-artifacts/browser/ (and, with HOLLYWOOD_DOCS_SCREENSHOTS=1, as
docs/images/live-series.png)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from selenium.common.exceptions import StaleElementReferenceException
from selenium.webdriver.common.by import By
from selenium.webdriver.remote.webdriver import WebDriver

from arena.match.live_moves import MoveBoard
from arena.server.app import RunningServer, start_server
from arena.storage import PlannedSeries
from engine import Series
from tests.arena.web.test_web_browser import (
    browser,  # noqa: F401 (the fixture)
    face,
    text,
)
from tests.helpers.browser import BOUND, SCREENSHOTS, console_errors, wait_for
from tests.helpers.live_helpers import SteppedRunner
from tests.helpers.web_helpers import create_season, register

pytestmark = pytest.mark.browser

DOCS_IMAGES = Path(__file__).resolve().parents[3] / "docs" / "images"


class LiveSite:
    """An arena server and website whose season's series move only when allowed."""

    def __init__(self, root: Path) -> None:
        self.board = MoveBoard()
        self.runner = SteppedRunner(self.board)
        self.running: RunningServer = start_server(
            root / "live.db", port=0, resume=False, http=("localhost", 0),
            runner_factory=lambda config: self.runner, board=self.board)
        storage = self.running.storage
        ids = [register(storage, root, name) for name in ("alpha", "beta")]
        self.season_id = create_season(storage, ids, max_hands=2, name="live season")
        self.first: PlannedSeries = storage.planned_series(self.season_id)[0]
        self.profile = storage.get_season(self.season_id).profile
        assert self.running.web is not None
        self.base = self.running.web.url

    def engine_after(self, moves: int) -> Series:
        series = Series(self.first.seed, self.profile, max_hands=2,
                        swap_seats=self.first.swap_seats)
        for action in self.runner.moves[:moves]:
            series.apply(action)
        return series


@pytest.fixture
def site(tmp_path: Path) -> Iterator[LiveSite]:
    live = LiveSite(tmp_path)
    try:
        yield live
    finally:
        live.runner.allow(10**6)
        live.running.stop()


def shown(driver: WebDriver, seat: int) -> list[str]:
    return [str(e.text) for e in driver.find_elements(By.CSS_SELECTOR, f"#hand-{seat} .card")]


def test_a_live_series_is_followed_to_its_end_and_becomes_the_replay(
        browser: WebDriver, site: LiveSite) -> None:  # noqa: F811 (the fixture)
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    series_id = site.first.series_id
    site.running.manager.start(site.season_id)
    assert site.runner.started.wait(BOUND)
    browser.get(f"{site.base}/")
    wait_for(lambda: browser.find_elements(By.CSS_SELECTOR, f'tr[data-series="{series_id}"]'),
             "the series in the home page's now playing")

    def click_watch() -> bool:
        # The now-playing list is redrawn live: its row may be replaced between the
        # find and the click, so both are tried again until one click lands.
        try:
            browser.find_element(By.CSS_SELECTOR,
                                 f'tr[data-series="{series_id}"] a.watch').click()
        except StaleElementReferenceException:
            return False
        return True

    wait_for(click_watch, "a click on the series' watch link")
    wait_for(lambda: browser.execute_script(
        "return document.getElementById('replay').dataset.ready === 'true'"), "the live view")
    assert text(browser, "live-state") == "live"
    browser.execute_script("window.notReloaded = true;")
    bots = list(site.first.bots)
    # Move by move: the action and both hands as the engine has them.
    for moves in (1, 2, 3):
        site.runner.allow(1)
        wait_for(lambda n=moves: browser.execute_script(
            "return document.getElementById('replay').dataset.frames") == str(n + 1),
            f"frame {moves + 1}")
        seat = site.engine_after(moves - 1).hand.current_player
        played = site.engine_after(moves)
        move = site.runner.moves[moves - 1]
        assert text(browser, "action").startswith(f"seat {seat} ({bots[seat]}): {move}")
        for hand_seat in (0, 1):
            assert sorted(shown(browser, hand_seat)) == sorted(
                face(str(card)) for card in played.hand.cards(hand_seat))
    # Through the end of hand 1: the list of hands shows how it ended.
    moves = 3
    while played.hand_number == 1:
        moves += 1
        site.runner.allow(1)
        wait_for(lambda n=moves: len(site.runner.moves) == n, f"move {moves}")
        played = site.engine_after(moves)
    result = played.hands[0].result
    assert result is not None
    how = "dead hand" if result.kind == "dead" else result.kind
    wait_for(lambda: how in text(browser, "hands"), "hand 1 in the list of hands")
    wait_for(lambda: browser.execute_script(
        "return document.getElementById('replay').dataset.hand") == "2", "hand 2 on the table")
    site.runner.allow(3)  # a few moves into hand 2: a card just drawn is marked
    wait_for(lambda: browser.execute_script(
        "return document.getElementById('replay').dataset.frames") == str(moves + 2 + 3),
        "three moves of hand 2")
    browser.save_screenshot(str(SCREENSHOTS / "live-series.png"))
    if os.environ.get("HOLLYWOOD_DOCS_SCREENSHOTS") == "1":
        DOCS_IMAGES.mkdir(parents=True, exist_ok=True)
        browser.set_window_size(1400, 880)
        browser.save_screenshot(str(DOCS_IMAGES / "live-series.png"))
    # The end: the page becomes the replay (a new page: the flag set above is gone).
    site.runner.allow(10**6)
    wait_for(lambda: browser.execute_script(
        "const r = document.getElementById('replay');"
        "return r && !r.dataset.live && r.dataset.ready === 'true' && !window.notReloaded"),
        "the replay")
    assert browser.find_elements(By.CSS_SELECTOR, "p.outcome")
    assert browser.current_url.endswith(f"/series/{series_id}")
    assert console_errors(browser) == []
