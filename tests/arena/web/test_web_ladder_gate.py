"""A version's ladder gate on its bot page and the page's JSON twin: the match
against its predecessor, the verdict with pairs, Elo interval and LLR, and
whether it is admitted (by the ladder's rule, or by hand: who, escaped)."""

from __future__ import annotations

from pathlib import Path

from starlette.testclient import TestClient

from arena.core.settings import SeasonConfig
from arena.season.events import EventHub
from arena.season.formats import LADDER_FORMAT, OpenEnded, format_for
from arena.storage import GateMatch, GateVerdict, Storage, admit_to_ladder, decide_gate, open_gate
from arena.web.app import create_app
from tests.helpers.arena_helpers import make_bot_folder
from tests.helpers.gate_helpers import register_folder


def gated(tmp_path: Path, rule: str) -> tuple[Storage, int]:
    """A ladder (gate with ``rule``) of a@1 and b@1, and a@2 gated against a@1."""
    storage = Storage(tmp_path / "arena.db")
    for name, version in (("a", "1.0.0"), ("b", "1.0.0"), ("a", "2.0.0")):
        register_folder(storage, make_bot_folder(tmp_path / "bots", name, version))
    config = SeasonConfig.build(format=LADDER_FORMAT, ladder_gate="sprt", seed=4,
                                ladder_gate_rule=rule)
    ladder_id = storage.create_season(name="ladder", config=config.to_dict(),
                                      profile=config.profile(),
                                      bot_ids=["a@1.0.0", "b@1.0.0"], plan=[]).id
    ladder = format_for(LADDER_FORMAT, config)
    assert isinstance(ladder, OpenEnded) and ladder.gate is not None
    match = ladder.gate.match_config(config, "a@2.0.0")
    open_gate(storage, ladder_id, "a@2.0.0", "a@1.0.0", GateMatch(
        "gate", match.to_dict(), match.profile(),
        [p.as_row() for p in ladder.gate.first_pair("a@2.0.0", "a@1.0.0", match.seed)]))
    return storage, ladder_id


def page(storage: Storage, bot_id: str) -> tuple[str, dict[str, object]]:
    client = TestClient(create_app(storage, EventHub()), raise_server_exceptions=False)
    html = client.get(f"/bots/{bot_id}")
    assert html.status_code == 200, html.text[:500]
    return html.text, client.get(f"/api/bots/{bot_id}").json()


def test_a_pending_gate_shows_its_match_playing(tmp_path: Path) -> None:
    storage, ladder_id = gated(tmp_path, "accepted-replaces")
    html, data = page(storage, "a@2.0.0")
    assert 'id="ladder-gates"' in html
    assert '<td class="gate-status">playing</td>' in html
    assert '<td class="gate-admitted">not admitted</td>' in html
    assert f'<a href="/seasons/{ladder_id + 1}">season {ladder_id + 1}</a>' in html
    [gate] = data["ladder_gates"]  # type: ignore[misc]
    assert (gate["status"], gate["match_id"], gate["admitted"]) == ("pending", 2, False)
    assert 'id="ladder-gates"' not in page(storage, "b@1.0.0")[0]  # never gated


def test_an_accepted_gate_shows_its_figures_and_the_rule_admits_it(tmp_path: Path) -> None:
    storage, ladder_id = gated(tmp_path, "accepted-replaces")
    decide_gate(storage, ladder_id, "a@2.0.0", GateVerdict("accepted", 12, 412.4, 201.6, 980.2,
                                                       2.961))
    html, data = page(storage, "a@2.0.0")
    assert '<td class="gate-status">accepted</td><td class="num">12</td>' in html
    assert "+412 [+202, +980]" in html and "2.96" in html
    assert '<td class="gate-admitted">admitted</td>' in html
    [gate] = data["ladder_gates"]  # type: ignore[misc]
    assert (gate["status"], gate["pairs"], gate["admitted"]) == ("accepted", 12, True)
    assert (gate["elo"], gate["elo_low"], gate["elo_high"], gate["llr"]) == (
        412.4, 201.6, 980.2, 2.961)


def test_who_admitted_it_is_shown_escaped(tmp_path: Path) -> None:
    storage, ladder_id = gated(tmp_path, "owner-decides")
    decide_gate(storage, ladder_id, "a@2.0.0", GateVerdict("rejected", 9, -300.0, -900.0, -100.0,
                                                       -2.97))
    assert '<td class="gate-admitted">not admitted</td>' in page(storage, "a@2.0.0")[0]
    admit_to_ladder(storage, "a@2.0.0", True, "<script>alert(1)</script>")
    html, data = page(storage, "a@2.0.0")
    assert "admitted by &lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert "<script>alert(1)" not in html
    [gate] = data["ladder_gates"]  # type: ignore[misc]
    assert gate["admitted"] is True and gate["admitted_by"] == "<script>alert(1)</script>"
