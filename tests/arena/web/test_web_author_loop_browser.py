"""The author's loop in a real browser on a real arena (issue 36, "done when"): a
server (gRPC and its website) where author ann uploads the greedy sample (which
sends a debug note with its moves; this copy also writes a line to stderr when it
starts) and the admin plays a season of it against the random sample in the
process sandbox. Headless chromium opens a series of ann's bot, signs in with
ann's token through the page's form and sees her bot's own logs beside the moves:
its stderr, and one row per decision of its seat with the move, the measured time
and the debug note the bot wrote about that very move; then signs out, and the
pane is gone."""

from __future__ import annotations

import re
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from hollywood.arena.v1 import arena_pb2
from selenium.webdriver.common.by import By
from selenium.webdriver.remote.webdriver import WebDriver

from arena.cli.client import ArenaClient
from arena.cli.submit import pack
from arena.server.app import RunningServer
from tests.helpers.arena_helpers import REPO_ROOT
from tests.helpers.browser import chromium, console_errors, wait_for
from tests.helpers.servers import ServerFactory

pytestmark = pytest.mark.browser

LOCAL = "127.0.0.1"
STDERR_LINE = "ann-greedy: warming up"
LOUD_MAIN = f'''
import sys

import hollywood_sdk as hs
from greedy_bot import GreedyBot

if __name__ == "__main__":
    print("{STDERR_LINE}", file=sys.stderr, flush=True)
    hs.serve(GreedyBot())
'''
TIME = re.compile(r"\d+\.\d ms")


def ann_greedy(root: Path) -> Path:
    """The greedy sample named ``ann-greedy``, started by a module that says hello
    on stderr first."""
    folder = root / "ann-greedy"
    shutil.copytree(REPO_ROOT / "sample_bots" / "greedy", folder)
    toml = (folder / "bot.toml").read_text().replace('name = "greedy"', 'name = "ann-greedy"')
    (folder / "bot.toml").write_text(toml.replace('"-m", "greedy_bot"', '"-m", "loud"'))
    (folder / "loud.py").write_text(LOUD_MAIN)
    return folder


@pytest.fixture
def running(serve: ServerFactory) -> RunningServer:
    return serve(runner=None, host=LOCAL, resume=False, http=(LOCAL, 0))


@pytest.fixture
def browser() -> Iterator[WebDriver]:
    with chromium(1400, 1000) as driver:
        yield driver


def played_series(running: RunningServer, tmp_path: Path) -> tuple[str, str, int]:
    """Ann's token, a series of the season ann's bot played, and its seat in it."""
    with ArenaClient(running.address, running.token) as admin:
        token = admin.stub.AddAuthor(arena_pb2.AddAuthorRequest(name="ann"),
                                     metadata=admin.auth).token
        admin.submit(pack(REPO_ROOT / "sample_bots" / "random"))
        with ArenaClient(running.address, token) as ann:
            ann.submit(pack(ann_greedy(tmp_path)))
        season = admin.stub.CreateSeason(arena_pb2.CreateSeasonRequest(
            bots=["ann-greedy", "random"], config=arena_pb2.SeasonConfig(
                series_per_pair=2, sandbox_backend="process", seed=7)),
            metadata=admin.auth).season
    assert running.manager.wait(season.id, timeout=120)
    [first, *_] = running.storage.results(season.id)
    assert first.fault is None
    return token, first.series_id, first.bots.index("ann-greedy@1.0.0")


def present(driver: WebDriver, element_id: str) -> bool:
    return bool(driver.find_elements(By.ID, element_id))


def test_an_author_signs_in_sees_its_bots_own_logs_beside_the_moves_and_signs_out(
        running: RunningServer, browser: WebDriver, tmp_path: Path) -> None:
    token, series_id, seat = played_series(running, tmp_path)
    assert running.web is not None
    page = f"{running.web.url}/series/{series_id}"
    browser.get(page)
    assert not present(browser, "owner-pane") and STDERR_LINE not in browser.page_source
    browser.find_element(By.CSS_SELECTOR, "#owner-sign-in a").click()
    wait_for(lambda: browser.find_elements(By.ID, "token"), "the sign-in form")[0].send_keys(
        token)
    browser.find_element(By.ID, "sign-in-button").click()
    pane = wait_for(lambda: browser.find_elements(By.ID, "owner-pane"),
                    "the owner pane after signing in")[0]
    assert browser.current_url == page
    assert browser.find_element(By.ID, "signed-in-as").text == "ann"

    [own] = pane.find_elements(By.CSS_SELECTOR, ".owner-seat")  # ann's seat alone
    assert own.get_attribute("data-seat") == str(seat)
    assert f"seat {seat} · ann-greedy@1.0.0" in own.text
    assert STDERR_LINE in own.find_element(By.CSS_SELECTOR, ".owner-stderr").text
    rows = [[cell.text for cell in row.find_elements(By.TAG_NAME, "td")]
            for row in own.find_elements(By.CSS_SELECTOR, ".owner-decisions tbody tr")]
    assert len(rows) > 10
    notes = 0
    for hand, decision, move, measured, note in rows:
        assert int(hand) >= 1 and int(decision) >= 1 and move and TIME.fullmatch(measured)
        # The note the bot wrote about its move sits beside that move.
        discarded = re.fullmatch(r"discard (\S+): deadwood \d+ after it", note)
        if discarded:
            assert move == f"discard {discarded[1]}", (move, note)
        elif note:
            assert re.fullmatch(r"take \S+: it lowers my deadwood", note), note
            assert move == "draw discard", (move, note)
        else:
            assert not move.startswith("discard"), move  # greedy notes every discard
        notes += bool(note)
    assert notes > 5
    # Beside the moves: in the replay's column, next to its list of hands.
    wait_for(lambda: browser.find_element(By.ID, "replay").get_attribute("data-ready"),
             "the replay to load")
    assert browser.execute_script(
        "const pane = document.getElementById('owner-pane');"
        "return pane.closest('.replay-layout') !== null"
        " && pane.parentElement.querySelector('#hands') !== null;")

    browser.find_element(By.ID, "sign-out").click()
    wait_for(lambda: present(browser, "sign-in"), "the sign-in link after signing out")
    browser.get(page)
    wait_for(lambda: present(browser, "owner-sign-in"), "the series page, signed out")
    assert not present(browser, "owner-pane") and STDERR_LINE not in browser.page_source
    assert "it lowers my deadwood" not in browser.page_source
    assert console_errors(browser) == []
