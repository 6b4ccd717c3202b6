"""Arena TV in a real browser (issue 38, point 1; headless Debian chromium as in
tests/arena/web/test_web_browser.py): the front page's TV shows the featured series
move by move, never faster than the set pace, names the series queued next and
moves on to it. Screenshots of the TV and the front page are saved under
test-artifacts/browser/ (and, with HOLLYWOOD_DOCS_SCREENSHOTS=1, as
docs/images/arena-tv.png and docs/images/front-page.png)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from selenium.webdriver.remote.webdriver import WebDriver

from arena.season.events import EventHub
from arena.storage import Storage
from arena.web.replay import replay_frames
from arena.web.serve import WebServer, start_web
from arena.web.tv import TvPace
from tests.arena.web.test_web_browser import (
    browser,  # noqa: F401 (the fixture)
    text,
)
from tests.helpers.browser import SCREENSHOTS, console_errors, wait_for
from tests.helpers.season_play import play
from tests.helpers.web_helpers import create_season, register

pytestmark = pytest.mark.browser

DOCS_IMAGES = Path(__file__).resolve().parents[3] / "docs" / "images"
PACE = TvPace(move_s=0.25, linger_s=1.0)

RECORD = """
window.tvSteps = [];
const root = document.getElementById('replay');
new MutationObserver(function () {
  window.tvSteps.push([root.dataset.series, Number(root.dataset.frames), performance.now()]);
}).observe(root, {attributes: true, attributeFilter: ['data-frames']});
"""
"""Records every change of the frames shown, with the series and the time (the test
reads them later: a slow test never misses one)."""


class TvSite:
    """A season of three bots with its three one-hand series stored, and the website."""

    def __init__(self, root: Path) -> None:
        db = root / "tv.db"
        storage = Storage(db)
        ids = [register(storage, root, name) for name in ("north", "south", "east")]
        create_season_id = create_season(storage, ids, max_hands=1, name="tv season")
        play(storage, create_season_id)
        self.latest = storage.latest_result_ids(2)
        self.frames = {series_id: replay_frames(storage.result_log(series_id)[0])
                       for series_id in self.latest}
        storage.close()
        self.web: WebServer = start_web(db, EventHub(), "localhost", 0, tv_pace=PACE)
        self.base = self.web.url


@pytest.fixture
def site(tmp_path: Path) -> Iterator[TvSite]:
    served = TvSite(tmp_path)
    try:
        yield served
    finally:
        served.web.stop()


def test_the_front_page_tv_shows_a_series_move_by_move_and_moves_on(
        browser: WebDriver, site: TvSite) -> None:  # noqa: F811 (the fixture)
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    first, second = site.latest
    browser.get(f"{site.base}/")
    wait_for(lambda: browser.execute_script(
        "return document.getElementById('replay').dataset.series") == first,
        "the featured series on the TV")
    browser.execute_script(RECORD)
    assert "Hollywood Gin" in text(browser, "intro")
    wait_for(lambda: second in text(browser, "tv-next") or
             browser.execute_script("return window.tvSteps.length") > 3,
             "the queued series named")
    wait_for(lambda: browser.execute_script("return window.tvSteps.length") >= 3,
             "three moves")
    browser.save_screenshot(str(SCREENSHOTS / "front-page.png"))
    if os.environ.get("HOLLYWOOD_DOCS_SCREENSHOTS") == "1":
        DOCS_IMAGES.mkdir(parents=True, exist_ok=True)
        browser.save_screenshot(str(DOCS_IMAGES / "front-page.png"))
    wait_for(lambda: browser.execute_script(
        "return document.getElementById('replay').dataset.series") == second,
        "the next series on the TV")
    steps = browser.execute_script("return window.tvSteps")
    shown_first = [(frames, at) for series, frames, at in steps if series == first]
    # Move by move: every frame of the first series, one at a time, in order...
    assert [frames for frames, _ in shown_first] == list(
        range(shown_first[0][0], shown_first[0][0] + len(shown_first)))
    # ...at the set pace: the span between the first and the last frame seen is what
    # their delays add up to (a move's, or a hand end's linger), less the slack of
    # one linger for the delivery of the first (the browser may see a frame late).
    frames = site.frames[first]
    assert shown_first[-1][0] == len(frames)  # to its end
    scheduled = sum(PACE.linger_s if frames[index - 1]["result"] is not None else PACE.move_s
                    for index in range(shown_first[0][0], shown_first[-1][0]))
    span = (shown_first[-1][1] - shown_first[0][1]) / 1000
    assert span >= scheduled - PACE.linger_s, (span, scheduled)
    # The next series starts from its first deal.
    started = [frames for series, frames, _ in steps if series == second]
    assert started[0] == 1
    browser.get(f"{site.base}/tv")
    wait_for(lambda: browser.execute_script(
        "return document.getElementById('replay').dataset.ready") == "true", "the TV page")
    browser.save_screenshot(str(SCREENSHOTS / "arena-tv.png"))
    if os.environ.get("HOLLYWOOD_DOCS_SCREENSHOTS") == "1":
        browser.save_screenshot(str(DOCS_IMAGES / "arena-tv.png"))
    assert console_errors(browser) == []
