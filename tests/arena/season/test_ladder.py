"""A ladder played by the season runner on a real database: bots join (a new bot,
a new version of a member) and leave (superseded, deactivated) mid-way, and every
invariant holds: each round is stored with its members, no series is planned or
played twice, every member stays within the fairness bound, and a ladder stopped
mid-round (a cancel) or killed between rounds resumes to exactly the ladder an
uninterrupted run plays."""

from __future__ import annotations

import threading
from collections import Counter
from pathlib import Path

from arena.core.manifest import content_hash, iter_bot_files
from arena.core.series import SeriesOutcome, SeriesSpec
from arena.core.settings import SeasonConfig
from arena.execution import LocalExecutor
from arena.season.formats import LADDER_FORMAT, OpenEnded, format_for
from arena.season.formats.ladder_matchmaking import MAX_DEBT
from arena.season.runner import SeasonRunner
from arena.storage import Storage, members_by_round
from tests.helpers.arena_helpers import made_up_outcome, make_bot_folder, trust_outcome
from tests.helpers.season_play import play

ROUNDS = 9


def register(storage: Storage, root: Path, name: str, version: str = "1.0.0") -> str:
    folder = make_bot_folder(root, name, version)
    record, _ = storage.register_bot(
        name=name, version=version, language="python", author="", description="",
        content_hash=content_hash(folder), source_folder=folder,
        files=list(iter_bot_files(folder)))
    return record.id


def deactivate(storage: Storage, bot_id: str) -> None:
    with storage.transaction() as db:
        # A version registered by the operator has no lifecycle row until one is needed.
        db.execute("INSERT OR IGNORE INTO bot_versions (bot_id, submitted_by, bundle, status, "
                   "status_changed_at) VALUES (?, '', '', 'active', '')", (bot_id,))
        db.execute("UPDATE bot_versions SET status='deactivated', status_detail='by the test' "
                   "WHERE bot_id=?", (bot_id,))


def make_ladder(storage: Storage, root: Path, **settings: object) -> int:
    ids = [register(storage, root, name) for name in ("a", "b", "c", "d", "e")]
    config = SeasonConfig.build(format=LADDER_FORMAT, sandbox="process", concurrency=1,
                                seed=17, ladder_rounds=ROUNDS, ladder_meetings=2,
                                **settings)
    first = format_for(LADDER_FORMAT, config).first_round(ids, config.seed)
    return storage.create_season(name="ladder", config=config.to_dict(),
                                 profile=config.profile(), bot_ids=ids,
                                 plan=[p.as_row() for p in first]).id


def outcome(spec: SeriesSpec) -> SeriesOutcome:
    """A result fixed by the deal seed alone: a third drawn, else a seat by parity."""
    return made_up_outcome(spec.series_id, winner=None if spec.seed % 3 == 0 else spec.seed % 2)


class Arrivals:
    """The fake runner of a ladder whose field changes as it plays: while round 3
    is played a new bot f and a new version of a arrive; while round 5 is played c
    is deactivated. Counts every play of every series."""

    def __init__(self, storage: Storage, root: Path, cancel_at: str = "",
                 cancel: threading.Event | None = None) -> None:
        self.storage, self.root = storage, root
        self.cancel_at, self.cancel = cancel_at, cancel
        self.plays: Counter[str] = Counter()

    def __call__(self, spec: SeriesSpec) -> SeriesOutcome:
        self.plays[spec.series_id] += 1
        round_number = self.storage.get_planned(spec.series_id).round
        if round_number == 3 and "f@1.0.0" not in {b.id for b in self.storage.list_bots()}:
            register(self.storage, self.root, "f")
            register(self.storage, self.root, "a", "2.0.0")
        if round_number == 5:
            deactivate(self.storage, "c@1.0.0")
        if spec.series_id == self.cancel_at and self.cancel is not None:
            self.cancel.set()
        return outcome(spec)


def ladder_state(storage: Storage, season_id: int) -> tuple[object, ...]:
    plan = [(p.series_id, p.round, p.seed, p.bots) for p in storage.planned_series(season_id)]
    results = [(r.series_id, r.winner) for r in storage.results(season_id)]
    return (plan, results, members_by_round(storage, season_id),
            storage.get_season(season_id).bot_ids, storage.get_season(season_id).status)


def test_bots_join_and_leave_and_every_invariant_holds(tmp_path: Path) -> None:
    storage = Storage(tmp_path / "arena.db")
    season_id = make_ladder(storage, tmp_path / "bots")
    run = Arrivals(storage, tmp_path / "bots")
    assert play(storage, season_id, run) == "finished"

    members = members_by_round(storage, season_id)
    assert len(members) == ROUNDS
    original = ["a@1.0.0", "b@1.0.0", "c@1.0.0", "d@1.0.0", "e@1.0.0"]
    assert members[:3] == [original] * 3
    # f and a's new version arrived during round 3: members from round 4, and a's
    # old version left; c, deactivated during round 5, left at round 6.
    arrived = ["b@1.0.0", "c@1.0.0", "d@1.0.0", "e@1.0.0", "f@1.0.0", "a@2.0.0"]
    assert members[3:5] == [arrived] * 2
    assert members[5:] == [[bot for bot in arrived if bot != "c@1.0.0"]] * (ROUNDS - 5)
    assert storage.get_season(season_id).bot_ids == (*original, "f@1.0.0", "a@2.0.0")

    planned = storage.planned_series(season_id)
    for planned_series in planned:
        assert set(planned_series.bots) <= set(members[planned_series.round - 1])
    # No series planned or played twice; every planned series has its one result.
    assert len({p.series_id for p in planned}) == len(planned) == 2 * 2 * ROUNDS
    assert set(run.plays) == {p.series_id for p in planned} and set(run.plays.values()) == {1}
    assert sorted(r.series_id for r in storage.results(season_id)) == sorted(run.plays)

    # The fairness bound, by this test's own bookkeeping of shares.
    debt: dict[str, float] = {}
    for number, round_members in enumerate(members, start=1):
        debt = {bot: debt.get(bot, 0.0) for bot in round_members}
        playing = [bot for p in planned if p.round == number for bot in p.bots]
        for bot in round_members:
            debt[bot] += (len(playing) / 2) / len(round_members)
        for bot in playing:
            debt[bot] -= 0.5  # two series a meeting, each bot in both
        assert max(debt.values()) < MAX_DEBT


def test_a_new_member_plays_more_until_its_rating_settles(tmp_path: Path) -> None:
    storage = Storage(tmp_path / "arena.db")
    season_id = make_ladder(storage, tmp_path / "bots")
    assert play(storage, season_id, Arrivals(storage, tmp_path / "bots")) == "finished"
    played = Counter(bot for p in storage.planned_series(season_id) if p.round in (4, 5)
                     for bot in p.bots)
    # Rounds 4 and 5 (4 meetings) go to the two newcomers first: their sigma is a
    # new bot's, the others' have settled over three rounds.
    assert played["f@1.0.0"] == played["a@2.0.0"] == 4


def test_cancelled_mid_round_resumes_to_the_uninterrupted_ladder(tmp_path: Path) -> None:
    whole = Storage(tmp_path / "whole.db")
    whole_id = make_ladder(whole, tmp_path / "w")
    assert play(whole, whole_id, Arrivals(whole, tmp_path / "w")) == "finished"
    # Stopped in the middle of round 4, after the arrivals, and resumed.
    stopped = Storage(tmp_path / "stopped.db")
    season_id = make_ladder(stopped, tmp_path / "s")
    fourth = [p.series_id for p in whole.planned_series(whole_id) if p.round == 4]
    cancel = threading.Event()
    first_run = Arrivals(stopped, tmp_path / "s", cancel_at=fourth[1], cancel=cancel)
    assert play(stopped, season_id, first_run, cancel) == "cancelled"
    assert 0 < len(stopped.results(season_id)) < len(whole.results(whole_id))
    second_run = Arrivals(stopped, tmp_path / "s")
    assert play(stopped, season_id, second_run) == "finished"
    assert ladder_state(stopped, season_id) == ladder_state(whole, whole_id)
    assert not set(first_run.plays) & set(second_run.plays)  # resume replayed none


def test_killed_between_rounds_resumes_to_the_uninterrupted_ladder(tmp_path: Path) -> None:
    """Round 1 played and stored, round 2 never planned: the state a kill -9 right
    after a round's last result leaves."""
    whole = Storage(tmp_path / "whole.db")
    whole_id = make_ladder(whole, tmp_path / "w")
    assert play(whole, whole_id, Arrivals(whole, tmp_path / "w")) == "finished"
    killed = Storage(tmp_path / "killed.db")
    season_id = make_ladder(killed, tmp_path / "k")
    cancel = threading.Event()
    first = [p.series_id for p in whole.planned_series(whole_id) if p.round == 1]
    run = Arrivals(killed, tmp_path / "k", cancel_at=first[-1], cancel=cancel)
    assert play(killed, season_id, run, cancel) == "cancelled"
    assert len(killed.results(season_id)) == len(first)
    assert max(p.round for p in killed.planned_series(season_id)) == 1
    reopened = Storage(tmp_path / "killed.db")
    assert play(reopened, season_id, Arrivals(reopened, tmp_path / "k")) == "finished"
    assert ladder_state(reopened, season_id) == ladder_state(whole, whole_id)


def test_the_live_standings_take_in_members_that_join(tmp_path: Path) -> None:
    from arena.season.standings import compute_standings
    from arena.season.standings_live import StandingsBoard

    storage = Storage(tmp_path / "arena.db")
    season_id = make_ladder(storage, tmp_path / "bots")
    board = StandingsBoard(storage)
    board.update(season_id)  # the board knows the five first bots before any result
    with LocalExecutor(Arrivals(storage, tmp_path / "bots"), 1) as executor:
        assert SeasonRunner(storage, season_id, executor, board=board,
                            verify=trust_outcome).run() == "finished"
    live = board.latest(season_id).standings
    full = compute_standings(storage.get_season(season_id).bot_ids, storage.results(season_id))
    assert [row.to_dict() for row in live.rows] == [row.to_dict() for row in full.rows]
    assert {"f@1.0.0", "a@2.0.0"} <= {row.bot_id for row in live.rows}


class ArrivalOnWait(threading.Event):
    """The runner's cancel event: its first wait (the ladder idle, too few members)
    registers a new bot instead of sleeping."""

    def __init__(self, storage: Storage, root: Path) -> None:
        super().__init__()
        self.storage, self.root, self.waits = storage, root, 0

    def wait(self, timeout: float | None = None) -> bool:
        self.waits += 1
        if self.waits == 1:
            register(self.storage, self.root, "late")
        return self.is_set()


def test_a_ladder_left_with_one_member_waits_for_another(tmp_path: Path) -> None:
    storage = Storage(tmp_path / "arena.db")
    a, b = (register(storage, tmp_path / "bots", name) for name in ("a", "b"))
    config = SeasonConfig.build(format=LADDER_FORMAT, sandbox="process", concurrency=1,
                                seed=3, ladder_rounds=3)
    season_id = storage.create_season(name="", config=config.to_dict(),
                                      profile=config.profile(), bot_ids=[a, b],
                                      plan=[]).id

    def b_leaves(spec: SeriesSpec) -> SeriesOutcome:
        deactivate(storage, b)
        return outcome(spec)

    cancel = ArrivalOnWait(storage, tmp_path / "bots")
    assert play(storage, season_id, b_leaves, cancel) == "finished"
    assert cancel.waits == 1
    assert members_by_round(storage, season_id) == [[a, b], [a, "late@1.0.0"],
                                                    [a, "late@1.0.0"]]


def test_a_version_that_cannot_run_in_the_ladders_sandbox_does_not_join(
        tmp_path: Path) -> None:
    from arena.season.open_rounds import plan_open_round

    storage = Storage(tmp_path / "arena.db")
    with_class = []
    for name in ("a", "b"):
        folder = make_bot_folder(tmp_path / "bots", name, code="class Bot: pass\n")
        with (folder / "bot.toml").open("a") as toml:
            toml.write(f'sdk_class = "{name}:Bot"\n')
        record, _ = storage.register_bot(
            name=name, version="1.0.0", language="python", author="", description="",
            content_hash=content_hash(folder), source_folder=folder,
            files=list(iter_bot_files(folder)))
        with_class.append(record.id)
    # c has no SDK bot class (the in-process sandbox needs one), nor has b's version 2.
    register(storage, tmp_path / "bots", "c")
    register(storage, tmp_path / "bots", "b", "2.0.0")
    config = SeasonConfig.build(format=LADDER_FORMAT, sandbox="inprocess", seed=4)
    season_id = storage.create_season(name="", config=config.to_dict(),
                                      profile=config.profile(), bot_ids=with_class,
                                      plan=[]).id
    ladder = format_for(LADDER_FORMAT, config)
    assert isinstance(ladder, OpenEnded)
    assert plan_open_round(storage, season_id, ladder, config, lambda match_id: None)
    assert members_by_round(storage, season_id) == [with_class]  # b@1.0.0 stays
