"""The readable replay over HTTP: the step that ends a knocked hand carries both
exposed arrangements, the layoffs and the settlement line; the series page lists
its hands with who won each, how and the points, each linking to its deep link
(``?hand=N``, which keeps landing on the hand's first frame).

The series is a fixed-seed one (seed 1620, three hands, greedy play from
tests/helpers/deal_helpers.py); every expected number below was worked out by hand from the
exposed cards (card values of docs/rules.md#cards):

* hand 1, seat 0 knocks: 3c 3d 3h | 8d 8h 8s | 7c 8c 9c, deadwood 7h = 7. Seat 1
  holds 4d 5d 6d | 3s 4s 5s and 6c Jc 2d 7s = 6 + 10 + 2 + 7 = 25; the 6c extends
  the knocker's 7c 8c 9c, leaving Jc 2d 7s = 19. Knock: 19 - 7 = 12 to seat 0.
* hand 2, seat 0 knocks: 7d 7h 7s | Kc Kd Kh Ks, deadwood Ac As 5s = 7. Seat 1
  holds 2d 2h 2s | 9c 9d 9h 9s and 7c Ad 4d = 12; the 7c goes on the sevens,
  leaving 5. 7 >= 5: undercut, 7 - 5 + 25 (friendly bonus) = 27 to seat 1.
* hand 3 is dead: no score.
"""

from __future__ import annotations

import random
import re
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from arena.season.events import EventHub
from arena.storage import Storage
from arena.web.app import create_app
from arena.web.hands import settlement_line
from engine import CLASSIC, FRIENDLY, Series
from tests.helpers.arena_helpers import made_up_outcome
from tests.helpers.deal_helpers import play_series
from tests.helpers.web_helpers import HOSTILE_NAME, create_season, register, store_knock_series


class Replayed:
    def __init__(self, root: Path) -> None:
        self.storage = Storage(root / "replay.db")
        planned, self.log = store_knock_series(self.storage, root, ("ann", HOSTILE_NAME))
        self.bots = [planned.seat0_bot, planned.seat1_bot]
        self.series_id = planned.series_id
        self.client = TestClient(create_app(self.storage, EventHub()))
        response = self.client.get(f"/api/series/{planned.series_id}/replay")
        assert response.status_code == 200, response.text[:300]
        self.replay: dict[str, Any] = response.json()


@pytest.fixture(scope="module")
def replayed(tmp_path_factory: pytest.TempPathFactory) -> Replayed:
    return Replayed(tmp_path_factory.mktemp("replay"))


def end_of_hand(replayed: Replayed, hand: int) -> dict[str, Any]:
    frames: list[dict[str, Any]] = [
        f for f in replayed.replay["frames"] if f["hand"] == hand and f["result"]]
    assert len(frames) == 1
    return frames[0]


def test_the_knock_step_shows_both_arrangements_the_layoff_and_the_settlement(
        replayed: Replayed) -> None:
    frame = end_of_hand(replayed, 1)
    assert frame["action"].startswith("knock") and frame["seat"] == 0
    result = frame["result"]
    assert (result["kind"], result["knocker"], result["winner"], result["points"]) == (
        "knock", 0, 0, 12)
    knocker, defender = result["exposed"]
    assert knocker["melds"] == [["3c", "3d", "3h"], ["8d", "8h", "8s"], ["7c", "8c", "9c"]]
    assert (knocker["deadwood_cards"], knocker["deadwood"]) == (["7h"], 7)
    assert defender["melds"] == [["4d", "5d", "6d"], ["3s", "4s", "5s"]]
    assert (defender["deadwood_cards"], defender["deadwood"]) == (["Jc", "2d", "7s"], 19)
    assert result["layoffs"] == [{"meld_index": 2, "cards": ["6c"]}]
    assert result["defender_deadwood_before_layoffs"] == 25
    assert frame["settlement"] == (
        "knock: knocker 7, defender 19 after laying off 6c (25 before): "
        "knocker scores 19 - 7 = 12")


def test_an_undercut_and_a_dead_hand_have_their_settlement_lines(replayed: Replayed) -> None:
    undercut = end_of_hand(replayed, 2)
    assert undercut["result"]["layoffs"] == [{"meld_index": 0, "cards": ["7c"]}]
    assert undercut["settlement"] == (
        "undercut: knocker 7, defender 5 after laying off 7c (12 before): "
        "defender scores 7 - 5 + 25 bonus = 27")
    assert end_of_hand(replayed, 3)["settlement"] == "dead hand: no score"
    # Only the steps that end a hand carry a settlement.
    assert sum(f["settlement"] is not None for f in replayed.replay["frames"]) == 3


def test_a_gin_settlement_counts_the_defenders_deadwood_before_layoffs() -> None:
    """Seed 147's first hand: seat 1 goes gin; seat 0's best is 3s 4s 5s with
    3c 7c Ad 3d 5d 6d Qd = 3 + 7 + 1 + 3 + 5 + 6 + 10 = 35 (the set of threes would
    leave 38); gin scores 25 + 35 = 60."""
    series = Series(147, max_hands=1)
    play_series(series, random.Random(147))
    result = series.hands[0].result
    assert result is not None
    assert settlement_line(result.to_dict(), FRIENDLY) == (
        "gin: knocker 0, defender 35 (no layoffs on gin): knocker scores 25 bonus + 35 = 60")


def test_a_knock_with_nothing_laid_off_and_an_undercut_by_seat_1_read_right() -> None:
    """Hand-written results (only the fields the line reads): seat 1 knocks."""
    def result(kind: str, k: int, d: int, points: int) -> dict[str, Any]:
        return {"kind": kind, "knocker": 1, "points": points, "layoffs": [],
                "exposed": [{"deadwood": d}, {"deadwood": k}],
                "defender_deadwood_before_layoffs": d}

    assert settlement_line(result("knock", 6, 14, 8), FRIENDLY) == (
        "knock: knocker 6, defender 14, nothing laid off: knocker scores 14 - 6 = 8")
    assert settlement_line(result("undercut", 9, 9, 10), CLASSIC) == (
        "undercut: knocker 9, defender 9, nothing laid off: defender scores 9 - 9 + 10 "
        "bonus = 10")


EXPECTED_HANDS = [
    {"hand": 1, "kind": "knock", "winner": 0, "points": 12, "knocker": 0, "totals": [12, 0]},
    {"hand": 2, "kind": "undercut", "winner": 1, "points": 27, "knocker": 0,
     "totals": [12, 27]},
    {"hand": 3, "kind": "dead", "winner": None, "points": 0, "knocker": None,
     "totals": [12, 27]},
]


def test_the_hand_list_says_who_won_each_hand_how_and_the_points(replayed: Replayed) -> None:
    assert replayed.replay["hands"] == EXPECTED_HANDS
    page = replayed.client.get(f"/api/series/{replayed.series_id}").json()
    assert page["hands"] == EXPECTED_HANDS and page["hands_error"] is None
    html = replayed.client.get(f"/series/{replayed.series_id}").text
    rows = re.findall(r'<tr data-hand="(\d)"><td><a href="\?hand=(\d)" data-hand="\d">'
                      r'hand \d</a></td>\n<td>(.*?)</td>\n<td>(.*?)</td>\n'
                      r'<td class="num">(\d+)</td><td class="num">(\d+–\d+)</td></tr>', html)
    hostile = "&lt;script&gt;alert(1)&lt;/script&gt;"
    assert replayed.bots[1].startswith(HOSTILE_NAME)
    assert [row[:3] for row in rows] == [
        ("1", "1", "seat 0 · ann@1.0.0"), ("2", "2", f"seat 1 · {hostile}@1.0.0"),
        ("3", "3", "–")]
    assert [row[3:] for row in rows] == [("knock", "12", "12–0"), ("undercut", "27", "12–27"),
                                         ("dead hand", "0", "12–27")]
    assert "<script>alert" not in html


def test_an_old_deep_link_still_names_the_first_frame_of_its_hand(replayed: Replayed) -> None:
    """``?hand=N`` opens ``hand_starts[N]``: the deal of hand N, one frame for the
    first deal plus one per action of the hands before it (counted in the log)."""
    actions = [entry["hand"] for entry in replayed.log if entry["type"] == "action"]
    starts = replayed.replay["hand_starts"]
    assert starts == {"1": 0, "2": 1 + actions.count(1),
                      "3": 2 + actions.count(1) + actions.count(2)}
    for hand, index in starts.items():
        frame = replayed.replay["frames"][index]
        assert (frame["kind"], frame["hand"]) == ("deal", int(hand))
    # The page itself ignores the query: an old or mangled link still opens it.
    for query in ("?hand=2", "?hand=99", "?hand=abc"):
        assert replayed.client.get(f"/series/{replayed.series_id}{query}").status_code == 200


def test_the_table_labels_the_stock_and_the_discard_pile(replayed: Replayed) -> None:
    html = replayed.client.get(f"/series/{replayed.series_id}").text
    assert '<p>stock: <span id="stock"></span> <span id="stock-unit">cards</span></p>' in html
    assert '<p>discard pile<span id="pile-top"></span></p><div class="cards pile" id="pile">' \
        in html


def test_the_discard_pile_keeps_its_order_with_the_last_discard_on_top(
        replayed: Replayed) -> None:
    frames = replayed.replay["frames"]
    discards = [(i, f) for i, f in enumerate(frames) if f["action"].startswith("discard ")]
    assert len(discards) > 20
    for index, frame in discards:
        assert frame["pile"][-1] == frame["action"].removeprefix("discard ")
        before = frames[index - 1]["pile"]
        if frames[index - 1]["hand"] == frame["hand"]:
            assert frame["pile"][:-1] == before  # nothing under the top moved
    assert len(frames[0]["pile"]) == 1  # the upcard


def test_a_series_page_whose_log_does_not_replay_says_so(tmp_path: Path) -> None:
    storage = Storage(tmp_path / "bad.db")
    ids = [register(storage, tmp_path, name) for name in ("a", "b")]
    planned = storage.planned_series(create_season(storage, ids))[0]
    storage.store_result(planned, made_up_outcome(planned.series_id, winner=0), {})
    client = TestClient(create_app(storage, EventHub()))
    response = client.get(f"/series/{planned.series_id}")
    assert response.status_code == 200
    assert f"the stored log of series {planned.series_id} cannot be replayed: log entry 0" \
        in response.text
    assert client.get(f"/api/series/{planned.series_id}").json()["hands"] == []


def test_a_hand_the_series_stopped_in_is_listed_as_not_finished(tmp_path: Path) -> None:
    storage = Storage(tmp_path / "fault.db")
    ids = [register(storage, tmp_path, name) for name in ("a", "b")]
    planned = storage.planned_series(create_season(storage, ids))[0]
    series = Series(planned.seed, max_hands=6, swap_seats=planned.swap_seats)
    for _ in range(5):  # five moves of hand 1, then the bot to act timed out
        series.apply(series.legal_actions()[0])
    outcome = made_up_outcome(planned.series_id, winner=0, log=list(series.log))
    storage.store_result(planned, outcome, {})  # type: ignore[arg-type]
    client = TestClient(create_app(storage, EventHub()))
    unfinished = {"hand": 1, "kind": None, "winner": None, "points": 0, "knocker": None,
                  "totals": [0, 0]}
    assert client.get(f"/api/series/{planned.series_id}").json()["hands"] == [unfinished]
    html = client.get(f"/series/{planned.series_id}").text
    assert "<td>–</td>\n<td>not finished</td>\n<td class=\"num\">0</td>" in html
