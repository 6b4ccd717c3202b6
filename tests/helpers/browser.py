"""Headless Debian chromium for the browser tests (through chromedriver and selenium):
starting it, waiting on a page, reading what it logged. The browser tests fail, never
skip, when chromium is missing: `make setup` installs it."""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from selenium import webdriver
from selenium.common.exceptions import StaleElementReferenceException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.remote.webdriver import WebDriver

REPO_ROOT = Path(__file__).resolve().parents[2]
SCREENSHOTS = REPO_ROOT / "test-artifacts" / "browser"
"""Where the tests save screenshots (git-ignored; the README's are copies in docs/images)."""
CHROMIUM = os.environ.get("HOLLYWOOD_CHROMIUM", "/usr/bin/chromium")
CHROMEDRIVER = os.environ.get("HOLLYWOOD_CHROMEDRIVER", "/usr/bin/chromedriver")
BOUND = 60.0
"""Generous: only a broken page waits this long, and then the test fails."""


@contextmanager
def chromium(width: int, height: int, time_zone: str | None = None) -> Iterator[WebDriver]:
    """A headless chromium with a window of ``width`` x ``height`` that keeps the
    page's console log, in ``time_zone`` (the machine's when None); quit on exit."""
    for binary in (CHROMIUM, CHROMEDRIVER):
        if not os.access(binary, os.X_OK):
            pytest.fail(f"{binary} is missing: run `make setup` (arena/scripts/ensure-chromium.sh)")
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for argument in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage",
                     "--disable-gpu", f"--window-size={width},{height}"):
        options.add_argument(argument)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    environment = None if time_zone is None else {**os.environ, "TZ": time_zone}
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER, env=environment), options=options)
    try:
        yield driver
    finally:
        driver.quit()


def wait_for(condition: Callable[[], Any], what: str, bound: float = BOUND) -> Any:
    """The first truthy value of ``condition()`` (an element a live update replaced
    counts as not yet); ``AssertionError`` naming ``what`` after ``bound`` seconds."""
    deadline = time.monotonic() + bound
    while time.monotonic() < deadline:
        try:
            value = condition()
        except StaleElementReferenceException:
            value = None
        if value:
            return value
        time.sleep(0.05)
    raise AssertionError(f"timed out after {bound} s waiting for {what}")


def console_errors(driver: WebDriver) -> list[str]:
    """Errors the page logged (a CSP violation, a failed script or resource)."""
    return [entry["message"] for entry in driver.get_log("browser")
            if entry["level"] == "SEVERE"]
