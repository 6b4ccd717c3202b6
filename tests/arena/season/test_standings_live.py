"""Live standings: updated once per stored result and shared; after every series of a
random season (stored out of plan order, with forfeits, draws and capped series)
they equal a full recompute, and the tallies and ratings a hand-written count of
the stored results gives."""

from __future__ import annotations

import random
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from openskill.models import PlackettLuce

from arena.core.faults import BotFault, FaultKind
from arena.core.series import SeriesOutcome
from arena.season.standings import StandingsState
from arena.season.standings_live import StandingsBoard
from arena.storage import NotFoundError, Storage
from engine.profiles import FRIENDLY
from tests.helpers.arena_helpers import fault, made_up_outcome

BOTS = ("ann@1", "bob@1", "cid@1", "dee@1", "eve@1")


def random_outcome(rng: random.Random, series_id: str) -> SeriesOutcome:
    """A random result: a win, a draw (some capped), a forfeit, or both failing to start."""
    kind = rng.choice(["win", "win", "draw", "capped_draw", "capped_win", "forfeit", "both"])
    games = (rng.randint(0, 3), rng.randint(0, 3))
    hands = (rng.randint(0, 30), rng.randint(0, 30))
    points = (rng.randint(0, 400), rng.randint(0, 400))
    if kind == "forfeit":
        seat = rng.randint(0, 1)
        return made_up_outcome(series_id, winner=1 - seat, games_won=games, hands_won=hands,
                           points=points, fault=fault(seat))
    if kind == "both":
        first = BotFault(FaultKind.STARTUP, "no start", seat=0,
                         other_seat_fault=BotFault(FaultKind.STARTUP, "no start", seat=1))
        return made_up_outcome(series_id, winner=None, fault=first)
    winner = None if "draw" in kind else rng.randint(0, 1)
    return made_up_outcome(series_id, winner=winner, games_won=games, hands_won=hands,
                       points=points, capped=kind.startswith("capped"), hands_played=200
                       if kind.startswith("capped") else sum(hands))


def season_with_plan(storage: Storage, per_pair: int = 2) -> int:
    for bot in BOTS:
        name, _, version = bot.partition("@")
        storage.register_bot(name=name, version=version, language="python", author="",
                             description="", content_hash=bot, source_folder=Path(name),
                             files=[])
    plan = [(1000 + n, bool(n % 2), a, b) for n, (a, b) in enumerate(
        (a, b) for a in BOTS for b in BOTS if a != b for _ in range(per_pair // 2))]
    return storage.create_season(name="live", config={}, profile=FRIENDLY,
                                 bot_ids=BOTS, plan=plan).id


def hand_count(stored: list[tuple[Any, SeriesOutcome]]) -> dict[str, dict[str, float]]:
    """Tallies and OpenSkill ratings of ``stored`` ((planned, outcome) in storage order),
    counted here from the outcomes, not from the stored rows."""
    table = {bot: Counter[str]() for bot in BOTS}
    model = PlackettLuce()
    ratings = {bot: model.rating(name=bot) for bot in BOTS}
    for planned, outcome in stored:
        bots = (planned.seat0_bot, planned.seat1_bot)
        forfeits: set[int] = set()
        if outcome.fault is not None:
            forfeits.add(outcome.fault.seat)
            if outcome.fault.other_seat_fault is not None:
                forfeits.add(1 - outcome.fault.seat)
        for seat in (0, 1):
            row = table[bots[seat]]
            row["played"] += 1
            if outcome.winner is None:
                row["drawn"] += 1
            elif outcome.winner == seat:
                row["won"] += 1
            else:
                row["lost"] += 1
            row["forfeited"] += seat in forfeits
            if forfeits:
                continue  # a forfeited series' score counts for neither bot
            row["games_won"] += outcome.games_won[seat]
            row["games_lost"] += outcome.games_won[1 - seat]
            row["points_for"] += outcome.points[seat]
        ranks = ([1, 1] if outcome.winner is None
                 else [1, 2] if outcome.winner == 0 else [2, 1])
        [[first], [second]] = model.rate([[ratings[bots[0]]], [ratings[bots[1]]]], ranks=ranks)
        ratings[bots[0]], ratings[bots[1]] = first, second
    return {bot: {**table[bot], "mu": ratings[bot].mu, "sigma": ratings[bot].sigma}
            for bot in BOTS}


def shown(row: Any) -> dict[str, float]:
    return {"played": row.series_played, "won": row.series_won, "lost": row.series_lost,
            "drawn": row.series_drawn, "forfeited": row.series_forfeited,
            "games_won": row.games_won, "games_lost": row.games_lost,
            "points_for": row.points_for, "mu": row.rating_mu, "sigma": row.rating_sigma}


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_live_standings_equal_a_full_recompute_after_every_series(
        tmp_path: Path, seed: int) -> None:
    rng = random.Random(seed)
    storage = Storage(tmp_path / "a.db")
    season_id = season_with_plan(storage)
    board = StandingsBoard(storage)
    planned = storage.planned_series(season_id)
    order = planned[:]
    rng.shuffle(order)  # stored out of plan order, as concurrent series finish
    stored: list[tuple[Any, SeriesOutcome]] = []
    published = []
    for step, series in enumerate(order, start=1):
        outcome = random_outcome(rng, series.series_id)
        record = storage.store_result(series, outcome, {"name": "friendly"})  # type: ignore[arg-type]
        assert record is not None
        stored.append((series, outcome))
        if step % 3 == 0:
            continue  # not told: the next record must read this result itself
        # As the runner does: the record just stored, applied without reading it back;
        # then as a watcher reads it.
        board.record(season_id, record)
        live = board.latest(season_id)
        assert live.sequence == step
        full = StandingsBoard(storage).recompute(season_id)
        assert live.standings.to_dict() == full.standings.to_dict()
        expected = hand_count(stored)
        for row in live.standings.rows:
            numbers = shown(row)
            assert numbers.pop("mu") == pytest.approx(expected[row.bot_id].pop("mu"), abs=1e-9)
            assert numbers.pop("sigma") == pytest.approx(
                expected[row.bot_id].pop("sigma"), abs=1e-9)
            assert numbers == {key: expected[row.bot_id].get(key, 0) for key in numbers}
        published.append((live, live.standings.to_dict()))
    # A published snapshot never changes afterwards (readers may still hold it).
    for snapshot, as_published in published:
        assert snapshot.standings.to_dict() == as_published
    # The recompute on demand publishes the same numbers.
    assert board.recompute(season_id).standings.to_dict() == published[-1][1]
    storage.close()


def test_recording_a_result_builds_no_table_until_the_standings_are_read(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A big season stores hundreds of results a second and is read a few times a
    second: the table is built by the first read of a new sequence, once."""
    storage = Storage(tmp_path / "a.db")
    season_id = season_with_plan(storage)
    board = StandingsBoard(storage)
    builds: list[int] = []
    table = StandingsState.table

    def counted_table(state: StandingsState) -> Any:
        builds.append(state.sequence)
        return table(state)

    monkeypatch.setattr(StandingsState, "table", counted_table)
    first, second, third = storage.planned_series(season_id)[:3]
    for series, winner in ((first, 0), (second, 1), (third, 0)):
        record = storage.store_result(series, made_up_outcome(series.series_id, winner=winner),
                                      {})
        assert record is not None
        board.record(season_id, record)
    assert builds == []
    snapshot = board.latest(season_id)
    assert (snapshot.sequence, builds) == (3, [3])
    assert board.latest(season_id) is snapshot and board.snapshot(season_id) is snapshot
    assert builds == [3]
    won = {row.bot_id: row.series_won for row in snapshot.standings.rows}
    winners = Counter([first.seat0_bot, second.seat1_bot, third.seat0_bot])
    assert won == {bot: winners[bot] for bot in BOTS}
    storage.close()


def test_a_snapshot_of_an_earlier_sequence_is_the_standings_then(tmp_path: Path) -> None:
    storage = Storage(tmp_path / "a.db")
    season_id = season_with_plan(storage)
    board = StandingsBoard(storage)
    first, second, third = storage.planned_series(season_id)[:3]
    for series in (second, first):
        storage.store_result(series, made_up_outcome(series.series_id, winner=0),
                             {})
    after_two = board.update(season_id).standings.to_dict()
    storage.store_result(third, made_up_outcome(third.series_id, winner=1), {})
    assert board.update(season_id).sequence == 3
    assert board.at(season_id, 2).standings.to_dict() == after_two  # kept
    assert StandingsBoard(storage).at(season_id, 2).standings.to_dict() == after_two  # rebuilt
    wins = {row.bot_id: row.series_won for row in board.at(season_id, 1).standings.rows}
    assert wins[second.seat0_bot] == 1 and sum(wins.values()) == 1
    storage.close()


def test_an_unknown_season_has_no_standings(tmp_path: Path) -> None:
    storage = Storage(tmp_path / "a.db")
    with pytest.raises(NotFoundError):
        StandingsBoard(storage).snapshot(7)
    storage.close()


def test_the_website_shows_the_servers_standings_when_results_come_out_of_plan_order(
        tmp_path: Path) -> None:
    """Ratings depend on the order results are applied in: a website without a
    server builds its standings with a board of its own, which applies the stored
    results in storage order, as the server's live standings do."""
    from arena.season.readings import SeasonReadings
    from arena.web.views import season_page

    rng = random.Random(7)
    storage = Storage(tmp_path / "a.db")
    season_id = season_with_plan(storage)
    order = storage.planned_series(season_id)
    rng.shuffle(order)
    for series in order:
        assert storage.store_result(  # type: ignore[arg-type]
            series, random_outcome(rng, series.series_id), {"name": "friendly"})
    live = StandingsBoard(storage).update(season_id).standings
    shown_on_the_site = season_page(storage, SeasonReadings(storage), season_id)["standings"]
    assert [{name: row[name] for name in live.rows[0].to_dict()}
            for row in shown_on_the_site] == [row.to_dict() for row in live.rows]
    storage.close()
