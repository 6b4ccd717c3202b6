"""The rules page (/rules): docs/rules.md served as escaped HTML with the site's
headers, its sections reachable by anchor, and a link to it on every page."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from arena.season.events import EventHub
from arena.storage import Storage
from arena.web.app import create_app
from arena.web.rules_page import RULES_DOC, RulesMissingError, render_markdown, rules_html
from tests.helpers.season_play import play
from tests.helpers.web_helpers import create_season, register

SECTIONS = ("cards", "melds", "deadwood", "the-deal", "the-upcard-offer", "a-turn",
            "dead-hands", "knocking-and-gin", "layoffs", "scoring-a-hand", "who-deals-next",
            "the-score-sheet", "profiles", "platform-rules", "hand-cap", "faults",
            "hidden-information", "worked-examples", "a-whole-series")


class Site:
    def __init__(self, root: Path) -> None:
        self.storage = Storage(root / "rules.db")
        self.bots = [register(self.storage, root, name) for name in ("alpha", "beta")]
        self.season_id = create_season(self.storage, self.bots)
        assert play(self.storage, self.season_id) == "finished"
        self.series_id = self.storage.planned_series(self.season_id)[0].series_id
        self.client = TestClient(create_app(self.storage, EventHub()))


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Site:
    return Site(tmp_path_factory.mktemp("rules"))


def test_the_rules_page_shows_every_section_with_its_anchor(site: Site) -> None:
    response = site.client.get("/rules")
    assert response.status_code == 200
    html = response.text
    assert "<h1 id=\"the-rules-of-hollywood-gin-in-this-arena\">" in html
    for section in SECTIONS:
        assert f' id="{section}"' in html, section
    # Every in-page link of the contents leads to a heading of the page.
    ids = set(re.findall(r' id="([^"]+)"', html))
    targets = set(re.findall(r'href="#([^"]+)"', html))
    assert targets and targets <= ids, targets - ids
    assert "<table>" in html and "<code>undercut_bonus</code>" in html
    assert 'class="language-example"' in html


def test_the_rules_page_carries_the_sites_security_headers(site: Site) -> None:
    headers = site.client.get("/rules").headers
    policy = headers["content-security-policy"]
    assert "script-src 'self'" in policy and "unsafe-inline" not in policy
    assert headers["x-content-type-options"] == "nosniff"
    assert headers["content-type"].startswith("text/html")


def test_the_rules_page_is_get_only(site: Site) -> None:
    for method in ("POST", "PUT", "DELETE"):
        assert site.client.request(method, "/rules").status_code == 405


def test_every_page_links_to_the_rules(site: Site) -> None:
    for path in ("/", f"/seasons/{site.season_id}", f"/series/{site.series_id}",
                 f"/bots/{site.bots[0]}", "/rules", "/seasons/99"):
        html = site.client.get(path).text
        assert '<a href="/rules">rules</a>' in html, path


def test_markdown_is_rendered_with_everything_escaped() -> None:
    html = render_markdown(
        "# Title <b>x</b>\n\n<script>alert(1)</script>\n\n"
        "[click](javascript:alert(2)) <img src=x onerror=alert(3)>\n\n"
        "| a | b |\n|---|---|\n| <i>c</i> | `<d>` |\n")
    assert "<script" not in html and "<img" not in html and "<i>" not in html
    assert "<b>" not in html and 'href="javascript' not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert "<td>&lt;i&gt;c&lt;/i&gt;</td>" in html and "<code>&lt;d&gt;</code>" in html
    assert '<h1 id="title-bxb">' in html  # the tag's letters stay, as on GitHub


def test_repeated_headings_get_distinct_anchors() -> None:
    html = render_markdown("## Notes\n\n## Notes\n")
    assert '<h2 id="notes">' in html and '<h2 id="notes-1">' in html


def test_the_page_served_is_docs_rules_md_and_is_packaged() -> None:
    root = Path(__file__).resolve().parents[3]
    assert RULES_DOC.read_bytes() == (root / "docs" / "rules.md").read_bytes()
    package_data = tomllib.loads((root / "pyproject.toml").read_text())["tool"]["setuptools"][
        "package-data"]["arena"]
    assert "web/rules.md" in package_data  # a built wheel holds the file itself


def test_an_arena_without_the_rules_file_says_so(tmp_path: Path) -> None:
    with pytest.raises(RulesMissingError, match="rules page is not installed") as raised:
        rules_html(tmp_path / "rules.md")
    assert str(tmp_path) not in str(raised.value)  # no server path reaches a visitor


def test_a_missing_rules_file_is_a_404_page_without_the_server_path(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import arena.web.app as web_app

    missing = tmp_path / "rules.md"
    monkeypatch.setattr(web_app, "rules_html", lambda: rules_html(missing))
    client = TestClient(create_app(Storage(tmp_path / "empty.db"), EventHub()))
    response = client.get("/rules")
    assert response.status_code == 404
    assert "rules page is not installed" in response.text
    assert str(tmp_path) not in response.text
    assert response.headers["content-security-policy"]
