"""Signing in with a real browser (issue 36, point 4): headless chromium on the
served website opens a series its author's bot forfeited, follows the page's
sign-in link, sends its token through the form, lands back on the series and sees
its bot's stderr in the owner pane beside the moves (the replay and its list of
hands), which the page's scripts cannot read the cookie of; then signs out and
the pane is gone. No console error (the CSP allows the site's own forms only)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.remote.webdriver import WebDriver

from arena.season.events import EventHub
from arena.web.serve import start_web
from tests.helpers.browser import SCREENSHOTS, chromium, console_errors, wait_for
from tests.helpers.signin_helpers import OwnedArena

pytestmark = pytest.mark.browser


@pytest.fixture
def browser() -> Iterator[WebDriver]:
    with chromium(1400, 1000) as driver:
        yield driver


def present(driver: WebDriver, element_id: str) -> bool:
    return bool(driver.find_elements(By.ID, element_id))


def test_an_author_signs_in_sees_its_logs_beside_the_moves_and_signs_out(
        browser: WebDriver, tmp_path: Path) -> None:
    owned = OwnedArena(tmp_path, tmp_path / "signin.db")
    web = start_web(tmp_path / "signin.db", EventHub(), "localhost", 0)
    try:
        page = f"{web.url}/series/{owned.series_id}"
        browser.get(page)
        assert not present(browser, "owner-pane")
        browser.find_element(By.CSS_SELECTOR, "#owner-sign-in a").click()
        token = wait_for(lambda: browser.find_elements(By.ID, "token"), "the sign-in form")[0]
        token.send_keys(owned.tokens[owned.faulty_owner])
        browser.find_element(By.ID, "sign-in-button").click()
        pane = wait_for(lambda: browser.find_elements(By.ID, "owner-pane"),
                        "the owner pane after signing in")[0]
        assert browser.current_url == page
        assert browser.find_element(By.ID, "signed-in-as").text == owned.faulty_owner
        stderr = pane.find_element(By.CSS_SELECTOR, ".owner-stderr").text
        assert stderr == "Traceback: <img src=x onerror=alert(2)>\\x1b[2J"
        assert f"seat 1 · {owned.faulty}" in pane.text
        assert "forfeited: timeout: decision took 3.2 s <b>late</b> (hand 1, decision 4)" in (
            pane.text)
        # Beside the moves: in the column of the replay's hand list, the replay loaded.
        root = browser.find_element(By.ID, "replay")
        wait_for(lambda: root.get_attribute("data-ready"), "the replay to load")
        assert browser.execute_script(
            "const pane = document.getElementById('owner-pane');"
            "return pane.closest('.replay-layout') !== null"
            " && pane.parentElement.querySelector('#hands') !== null;")
        # The session cookie is HttpOnly: the page's scripts cannot read it.
        assert browser.execute_script("return document.cookie;") == ""
        browser.save_screenshot(str(SCREENSHOTS / "owner-pane.png"))

        browser.find_element(By.ID, "sign-out").click()
        wait_for(lambda: present(browser, "sign-in"), "the sign-in link after signing out")
        browser.get(page)
        wait_for(lambda: present(browser, "owner-sign-in"), "the series page, signed out")
        assert not present(browser, "owner-pane") and "Traceback" not in browser.page_source
        assert console_errors(browser) == []
    finally:
        web.stop()
