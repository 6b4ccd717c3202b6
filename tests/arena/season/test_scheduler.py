"""The round-robin format's plan (every pair, duplicate pairs, fair seats, exactly
the release's plan) and the season runner (plays exactly the pending series through
a local executor, concurrency, cancel, arena-side errors)."""

from __future__ import annotations

import itertools
import re
import threading
from collections import Counter
from pathlib import Path

import pytest

from arena.core.series import SeriesOutcome, SeriesSpec
from arena.core.settings import SeasonConfig
from arena.execution import LocalExecutor
from arena.season.events import EventHub
from arena.season.formats import RoundRobin, circle_rounds, format_for, plan_season
from arena.season.manager import SeasonManager
from arena.storage import Storage
from engine import Series
from engine.dealing import deal_hand
from tests.helpers.arena_helpers import (
    made_up_outcome,
    register_bots,
)
from tests.helpers.season_play import play

BOTS = [f"bot{n}@1" for n in range(6)]


@pytest.mark.parametrize("count", [2, 3, 4, 5, 6])
@pytest.mark.parametrize("series_per_pair", [1, 2, 3, 4])
def test_every_pair_meets_series_per_pair_times(count: int, series_per_pair: int) -> None:
    bots = BOTS[:count]
    plan = plan_season(bots, series_per_pair, seed=7)
    meetings = Counter(frozenset((e.seat0, e.seat1)) for e in plan)
    assert set(meetings) == {frozenset(p) for p in itertools.combinations(bots, 2)}
    assert set(meetings.values()) == {series_per_pair}
    assert all(e.seat0 != e.seat1 for e in plan)


@pytest.mark.parametrize("count", [2, 3, 4, 5, 6])
@pytest.mark.parametrize("series_per_pair", [1, 2, 3])
def test_seats_are_fair(count: int, series_per_pair: int) -> None:
    bots = BOTS[:count]
    plan = plan_season(bots, series_per_pair, seed=7)
    seat0 = Counter(e.seat0 for e in plan)
    seat1 = Counter(e.seat1 for e in plan)
    for bot in bots:
        assert abs(seat0[bot] - seat1[bot]) <= 1, (bot, seat0[bot], seat1[bot])


def test_duplicate_pairs_share_seed_with_bots_exchanged() -> None:
    plan = plan_season(BOTS[:4], 2, seed=11)
    assert len(plan) == 12
    for first, second in zip(plan[0::2], plan[1::2], strict=True):
        assert first.seed == second.seed
        assert (first.seat0, first.seat1) == (second.seat1, second.seat0)
    assert len({entry.seed for entry in plan}) == 6  # each pair its own deals


def test_duplicate_pair_deals_each_bot_the_others_cards_and_first_deal() -> None:
    """The point of a duplicate pair, checked against the engine's dealing: in the
    second series each bot holds, hand by hand, what its opponent held in the first,
    and the other bot deals first."""
    plan = plan_season(BOTS[:2], 2, seed=23)
    legs = [(entry, Series(entry.seed, swap_seats=entry.swap_seats, max_hands=5))
            for entry in plan]
    (first, one), (second, two) = legs
    for hand_number in range(1, 6):
        deal_one = deal_hand(first.seed, hand_number, swap_seats=first.swap_seats)
        deal_two = deal_hand(second.seed, hand_number, swap_seats=second.swap_seats)
        cards_one = {first.seat0: deal_one.hands[0], first.seat1: deal_one.hands[1]}
        cards_two = {second.seat0: deal_two.hands[0], second.seat1: deal_two.hands[1]}
        assert cards_two[first.seat0] == cards_one[first.seat1]
        assert cards_two[first.seat1] == cards_one[first.seat0]
        assert (deal_one.upcard, deal_one.stock) == (deal_two.upcard, deal_two.stock)
    dealer_one = (first.seat0, first.seat1)[one.first_dealer]
    dealer_two = (second.seat0, second.seat1)[two.first_dealer]
    assert dealer_one != dealer_two


def test_plan_is_exactly_the_releases_plan() -> None:
    """Pinned from the release before formats (commit 5142bf6, ``plan_season(["a@1",
    "b@1", "c@1"], 3, 5)``): seeds, seats and order unchanged."""
    assert [e.as_row() for e in plan_season(["a@1", "b@1", "c@1"], 3, seed=5)] == [
        (6593327907631935714, False, "b@1", "c@1"),
        (6593327907631935714, False, "c@1", "b@1"),
        (1671413597788592674, False, "c@1", "a@1"),
        (1671413597788592674, False, "a@1", "c@1"),
        (7682551826292472081, False, "a@1", "b@1"),
        (7682551826292472081, False, "b@1", "a@1"),
        (1437899552528278193, False, "c@1", "b@1"),
        (2831868482596470942, False, "a@1", "c@1"),
        (234767765046993081, False, "b@1", "a@1"),
    ]


def test_round_robin_plans_everything_in_its_first_round() -> None:
    config = SeasonConfig.build(series_per_pair=3, seed=5, sandbox="process", concurrency=1)
    round_robin = format_for("round-robin", config)
    first = round_robin.first_round(["a@1", "b@1", "c@1"], 5)
    assert first == plan_season(["a@1", "b@1", "c@1"], 3, 5)
    assert round_robin.next_round(["a@1", "b@1", "c@1"], 5, [[]]) is None
    assert round_robin.planned_count(3) == 9
    assert RoundRobin(2).planned_count(10) == 90


def test_unknown_format_is_a_config_error() -> None:
    from arena.core.settings import ConfigError

    config = SeasonConfig.build(sandbox="process", concurrency=1)
    with pytest.raises(ConfigError) as caught:
        format_for("pyramid", config)
    assert_names_the_formats(str(caught.value))


def assert_names_the_formats(message: str) -> None:
    """The unknown-format message lists the formats (a new one adds to the list)."""
    listed = re.search(r"format must be one of ([a-z, -]+), got 'pyramid'", message)
    assert listed is not None, message
    names = listed.group(1).split(", ")
    assert names == sorted(names)
    assert {"gauntlet", "knockout", "ladder", "round-robin", "sprt", "swiss"} <= set(names)


def test_plan_is_reproducible_from_its_seed() -> None:
    assert plan_season(BOTS[:4], 2, 5) == plan_season(BOTS[:4], 2, 5)
    assert plan_season(BOTS[:4], 2, 5) != plan_season(BOTS[:4], 2, 6)


def test_circle_rounds_pair_every_player_once_per_round() -> None:
    for count in range(2, 9):
        rounds = circle_rounds(count)
        seen = [pair for round_pairs in rounds for pair in round_pairs]
        assert sorted(seen) == list(itertools.combinations(range(count), 2))
        for round_pairs in rounds:
            players = [p for pair in round_pairs for p in pair]
            assert len(players) == len(set(players))


def test_plan_rejects_too_few_or_repeated_bots() -> None:
    with pytest.raises(ValueError, match="at least two"):
        plan_season(BOTS[:1], 2, 1)
    with pytest.raises(ValueError, match="distinct"):
        plan_season([BOTS[0], BOTS[0]], 2, 1)


# ---------------------------------------------------------------- the season runner


def _season(storage: Storage, root: Path, bots: int = 3, concurrency: int = 2) -> int:
    ids = register_bots(storage, root, [f"b{n}" for n in range(bots)])
    config = SeasonConfig.build(sandbox="process", concurrency=concurrency, seed=3)
    plan = plan_season(ids, config.series_per_pair, config.seed)
    season = storage.create_season(name="", config=config.to_dict(),
                                   profile=config.profile(), bot_ids=ids,
                                   plan=[e.as_row() for e in plan])
    return season.id


def _winner_by_seed(spec: SeriesSpec) -> SeriesOutcome:
    return made_up_outcome(spec.series_id, winner=spec.seed % 2, games_won=(2, 1))


def test_runner_plays_every_planned_series_once(tmp_path: Path) -> None:
    storage = Storage(tmp_path / "a.db")
    season_id = _season(storage, tmp_path)
    played: list[str] = []
    lock = threading.Lock()

    def run(spec: SeriesSpec) -> SeriesOutcome:
        with lock:
            played.append(spec.series_id)
        return _winner_by_seed(spec)

    assert play(storage, season_id, run, concurrency=2) == "finished"
    planned = [p.series_id for p in storage.planned_series(season_id)]
    assert sorted(played) == sorted(planned)
    assert [r.series_id for r in storage.results(season_id)] == planned
    assert storage.get_season(season_id).status == "finished"


def test_runner_passes_the_planned_spec(tmp_path: Path) -> None:
    storage = Storage(tmp_path / "a.db")
    season_id = _season(storage, tmp_path, bots=2)
    specs: list[SeriesSpec] = []
    play(storage, season_id, lambda s: specs.append(s) or _winner_by_seed(s), concurrency=2)
    by_id = {p.series_id: p for p in storage.planned_series(season_id)}
    for spec in specs:
        planned = by_id[spec.series_id]
        assert (spec.seed, spec.swap_seats) == (planned.seed, planned.swap_seats)
        assert tuple(f"{b.name}@{b.version}" for b in spec.bots) == planned.bots
        assert spec.max_hands == 200 and spec.profile.name == "friendly"


def test_runner_resumes_with_only_the_pending_series(tmp_path: Path) -> None:
    storage = Storage(tmp_path / "a.db")
    season_id = _season(storage, tmp_path)
    planned = storage.planned_series(season_id)
    for entry in planned[:2]:
        storage.store_result(entry, made_up_outcome(entry.series_id, winner=0), {})
    played: list[str] = []
    play(storage, season_id, lambda s: played.append(s.series_id) or _winner_by_seed(s),
         concurrency=2)
    assert sorted(played) == sorted(p.series_id for p in planned[2:])
    assert len(storage.results(season_id)) == len(planned)


def test_runner_keeps_the_executors_capacity_busy(tmp_path: Path) -> None:
    """The first series wait until three are in flight together (bounded wait):
    they all get there only if the runner submits ``capacity`` at once, and never
    more are active than that."""
    storage = Storage(tmp_path / "a.db")
    season_id = _season(storage, tmp_path, bots=4)
    active = 0
    peak = 0
    lock = threading.Lock()
    three_together = threading.Event()

    def run(spec: SeriesSpec) -> SeriesOutcome:
        nonlocal active, peak
        with lock:
            active += 1
            peak = max(peak, active)
            if active == 3:
                three_together.set()
        three_together.wait(timeout=30)
        with lock:
            active -= 1
        return _winner_by_seed(spec)

    assert play(storage, season_id, run, concurrency=3) == "finished"
    assert three_together.is_set() and peak == 3


def test_cancel_stops_new_series_and_keeps_finished_ones(tmp_path: Path) -> None:
    storage = Storage(tmp_path / "a.db")
    season_id = _season(storage, tmp_path, concurrency=1)
    cancel = threading.Event()

    def run(spec: SeriesSpec) -> SeriesOutcome:
        if spec.series_id.endswith("-1"):
            cancel.set()
        return _winner_by_seed(spec)

    status = play(storage, season_id, run, concurrency=1, cancel=cancel)
    assert status == "cancelled"
    assert [r.series_id for r in storage.results(season_id)] == [f"{season_id}-0",
                                                                  f"{season_id}-1"]


def test_arena_side_error_fails_the_season_without_storing(tmp_path: Path) -> None:
    storage = Storage(tmp_path / "a.db")
    season_id = _season(storage, tmp_path, concurrency=1)
    hub = EventHub()
    events = hub.subscribe(season_id)

    def run(spec: SeriesSpec) -> SeriesOutcome:
        if spec.series_id.endswith("-2"):
            raise RuntimeError("docker went away")
        return _winner_by_seed(spec)

    assert play(storage, season_id, run, concurrency=1, hub=hub) == "failed"
    season = storage.get_season(season_id)
    assert "docker went away" in season.error and season.series_done == 2
    kinds = []
    while (event := events.get(0.01)) is not None:
        kinds.append(event.kind)
    assert kinds.count("series_finished") == 2 and kinds[-1] == "status"


def test_manager_fails_the_season_when_no_executor_can_be_made(tmp_path: Path) -> None:
    storage = Storage(tmp_path / "a.db")
    season_id = _season(storage, tmp_path)
    hub = EventHub()
    events = hub.subscribe(season_id)

    def no_docker(config: SeasonConfig) -> object:
        raise RuntimeError("Docker is not available")

    manager = SeasonManager(storage, no_docker, hub)  # type: ignore[arg-type]
    manager.start(season_id)
    assert manager.wait(season_id, timeout=10)
    season = storage.get_season(season_id)
    assert season.status == "failed" and "Docker is not available" in season.error
    assert season.series_done == 0
    statuses = []
    while (event := events.get(0.01)) is not None:
        statuses.append(event.status)
    assert statuses[-1] == "failed"


def test_manager_fails_a_season_whose_format_is_unknown(tmp_path: Path) -> None:
    """E.g. a season created by a newer arena with a format this one lacks."""
    storage = Storage(tmp_path / "a.db")
    season_id = _season(storage, tmp_path)
    with storage.transaction() as db:
        db.execute("UPDATE seasons SET config_json=? WHERE id=?",
                   ('{"sandbox": "process", "concurrency": 1, "format": "pyramid"}', season_id))
    played: list[str] = []
    manager = SeasonManager(
        storage, lambda config: LocalExecutor(lambda s: played.append(s.series_id) or
                                              _winner_by_seed(s), 1), EventHub())
    manager.start(season_id)
    assert manager.wait(season_id, timeout=10)
    season = storage.get_season(season_id)
    assert season.status == "failed" and played == []
    assert_names_the_formats(season.error)
    from arena.season.season_statistics import season_statistics
    from arena.season.standings import compute_standings

    results = storage.results(season_id)
    stats = season_statistics(season, results, compute_standings(season.bot_ids, results))
    assert stats.format == "pyramid"
    assert stats.progress.expected is None and stats.progress.seconds_left is None
