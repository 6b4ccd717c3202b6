"""The season page's live deltas applied by its script in a real browser (headless
Debian chromium): while a season plays, the page follows one stream of one snapshot
and then deltas (rows and cells of its tables), and when the season has finished
its live sections are exactly those of the page loaded afresh."""

from __future__ import annotations

import contextlib
import functools
from collections.abc import Iterator
from pathlib import Path

import pytest
from selenium.webdriver.remote.webdriver import WebDriver

from arena.server.app import start_server
from tests.helpers.browser import chromium, console_errors, wait_for
from tests.helpers.fake_runner import run_fake_series
from tests.helpers.web_helpers import create_season, register

pytestmark = pytest.mark.browser

COUNT_EVENTS = """
window.liveEvents = {opened: 0, snapshot: 0, delta: 0, rows: 0, moved: 0};
const RealEventSource = window.EventSource;
window.EventSource = function (url) {
  const source = new RealEventSource(url);
  if (!url.includes("/api/seasons/")) { return source; }  // the "now playing" list's
  window.liveEvents.opened += 1;
  source.addEventListener("snapshot", function () { window.liveEvents.snapshot += 1; });
  source.addEventListener("delta", function (event) {
    window.liveEvents.delta += 1;
    if (event.data.includes('"rows"')) { window.liveEvents.rows += 1; }
    if (event.data.includes('"order"')) { window.liveEvents.moved += 1; }
  });
  return source;
};
window.EventSource.CLOSED = RealEventSource.CLOSED;
"""
"""Counts the season streams the page opens and their events (installed before the
page's scripts)."""

FRESH_SECTIONS = r"""
const done = arguments[arguments.length - 1];
fetch(location.href).then(r => r.text()).then(function (html) {
  const fresh = new DOMParser().parseFromString(html, "text/html");
  const names = ["progress", "standings", "crosstable"];
  // Moved rows leave the white space between them behind: compared without it.
  const shown = (page, name) => page.getElementById("live-" + name).innerHTML.replace(
    />\s+</g, "><").trim();
  done(names.map(name => [shown(document, name), shown(fresh, name)]));
});
"""


@contextlib.contextmanager
def watched_to_the_end(browser: WebDriver, tmp_path: Path, query: str, *,
                       delay_s: float) -> Iterator[dict[str, int]]:
    """A season of five bots played with the season page (``query``: which page)
    open from before its start to its end; yields the page's stream events."""
    running = start_server(
        tmp_path / "live.db", port=0, resume=False, http=("localhost", 0),
        runner_factory=lambda config: functools.partial(run_fake_series, delay_s=delay_s))
    try:
        assert running.web is not None
        ids = [register(running.storage, tmp_path, name)
               for name in ("alpha", "beta", "gamma", "random-delta", "random-eps")]
        season_id = create_season(running.storage, ids)
        browser.get(f"{running.web.url}/seasons/{season_id}{query}")
        wait_for(lambda: browser.execute_script("return window.liveEvents.snapshot") == 1,
                 "the first snapshot")
        running.manager.start(season_id)
        wait_for(lambda: browser.execute_script(
            "return document.getElementById('season-status').textContent") == "finished",
            "the season to finish on the page")
        yield browser.execute_script("return window.liveEvents")
    finally:
        running.stop()


@pytest.fixture
def browser() -> Iterator[WebDriver]:
    with chromium(1400, 1000) as driver:
        driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument",
                               {"source": COUNT_EVENTS})
        yield driver


def test_the_page_patches_its_tables_from_deltas_into_the_fresh_page(
        browser: WebDriver, tmp_path: Path) -> None:
    with watched_to_the_end(browser, tmp_path, "", delay_s=0.3) as events:
        # One stream, one snapshot; every change after it came as a delta that
        # followed the one before (a gap would have opened a second stream), and
        # some patched rows or cells, or moved rows, rather than sending whole sections.
        assert events["opened"] == 1 and events["snapshot"] == 1
        assert events["delta"] >= 2 and events["rows"] >= 1 and events["moved"] >= 1
        for live, fresh in browser.execute_async_script(FRESH_SECTIONS):
            assert live == fresh
        assert console_errors(browser) == []


def test_page_2_of_the_standings_follows_its_own_rows_live(
        browser: WebDriver, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A season of more bots than a whole crosstable shows (made small here: 2 rows
    a page, a whole crosstable up to 3 bots, else the page's rows against the top
    3): page 2 opens the stream of page 2 and, when the season has finished, its
    live sections are those of page 2 loaded afresh."""
    monkeypatch.setattr("arena.web.views.STANDINGS_PER_PAGE", 2)
    monkeypatch.setattr("arena.web.views.FULL_CROSSTABLE_BOTS", 3)
    monkeypatch.setattr("arena.web.views.CROSSTABLE_COLUMNS", 3)
    with watched_to_the_end(browser, tmp_path, "?page=2", delay_s=0.2) as events:
        assert events["opened"] == 1 and events["snapshot"] == 1 and events["delta"] >= 2
        for live, fresh in browser.execute_async_script(FRESH_SECTIONS):
            assert live == fresh
        rows = browser.execute_script(
            "return Array.from(document.querySelectorAll('#crosstable tbody tr'))"
            ".map(row => [row.dataset.bot, row.cells.length])")
        ranks = browser.execute_script(
            "return Array.from(document.querySelectorAll('#standings tbody tr'))"
            ".map(row => [row.dataset.bot, row.cells[0].textContent])")
        assert [rank for _, rank in ranks] == ["3", "4"]
        assert [bot for bot, _ in rows] == [bot for bot, _ in ranks]
        assert all(cells == 1 + 3 for _, cells in rows)  # its name and the top 3
        assert console_errors(browser) == []
