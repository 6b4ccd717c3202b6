"""Which outcomes are replayed before they are stored (arena/season/verify_policy.py):
every one from another machine; here, a summary of each (deal, result against the
log's end), a forfeit, the run's first outcome and a sample replayed in full, and
everything after a mismatch. Planted wrong local outcomes are caught: a wrong
result by the summary on an unsampled outcome, a move the rules refuse by the
sampled replay, after which no outcome is sampled; and, in a season played by a
local executor, a planted wrong outcome is never stored."""

from __future__ import annotations

import copy
from concurrent.futures import Future
from dataclasses import replace
from pathlib import Path

import pytest

from arena.core.faults import BotFault, FaultKind
from arena.core.series import SeriesOutcome, SeriesSpec, outcome_of
from arena.core.settings import SeasonConfig
from arena.execution.local import LocalExecutor
from arena.season.formats import plan_season
from arena.season.runner import SeasonRunner
from arena.season.verify import OutcomeMismatch, verify_outcome, verify_summary
from arena.season.verify_policy import LocalCheck, outcome_check_for
from arena.storage import Storage
from engine.actions import ActionKind
from engine.profiles import FRIENDLY
from engine.series import Series
from tests.helpers.arena_helpers import register_bots
from tests.helpers.fake_runner import run_fake_series

SEED = 7
MAX_HANDS = 30


def played(seed: int = SEED, stop_after: int | None = None) -> Series:
    series = Series(seed, FRIENDLY, max_hands=MAX_HANDS)
    count = 0
    while not series.is_over and (stop_after is None or count < stop_after):
        legal = series.legal_actions()
        knocks = [a for a in legal if a.kind is ActionKind.KNOCK]
        series.apply(knocks[0] if knocks else legal[0])
        count += 1
    return series


def true_outcome(seed: int = SEED) -> SeriesOutcome:
    series = played(seed)
    assert series.result is not None
    return outcome_of("1-1", series, series.result.winner, None, (1.0, 1.0), 2.0)


def illegal_move(outcome: SeriesOutcome) -> SeriesOutcome:
    """A log whose first move is one the rules refuse (a discard before any draw):
    a match-loop bug the summary cannot see."""
    log = copy.deepcopy(outcome.log)
    first = next(i for i, event in enumerate(log) if event["type"] == "action")
    log[first] = {**log[first], "action": {"kind": "discard", "card": "Kd"}}
    return replace(outcome, log=log)


class Calls:
    """Records which check each outcome got, then does it."""

    def __init__(self) -> None:
        self.calls: list[str] = []

    def replay(self, outcome: SeriesOutcome, **planned: object) -> None:
        self.calls.append("replay")
        verify_outcome(outcome, **planned)  # type: ignore[arg-type]

    def summary(self, outcome: SeriesOutcome, **planned: object) -> None:
        self.calls.append("summary")
        verify_summary(outcome, **planned)  # type: ignore[arg-type]


def local_check(calls: Calls, draws: list[float]) -> LocalCheck:
    drawn = iter(draws)
    return LocalCheck(every=4, replay=calls.replay, summary=calls.summary,
                      draw=lambda: next(drawn))


def check(policy: LocalCheck, outcome: SeriesOutcome) -> None:
    policy(outcome, seed=SEED, profile=FRIENDLY, max_hands=MAX_HANDS, swap_seats=False)


def test_the_first_outcome_and_the_sample_are_replayed_the_rest_summarised() -> None:
    calls = Calls()
    # Drawn only after the first: 0.5*4 = 2 (no), 0.1*4 < 1 (replay), 0.9 (no).
    policy = local_check(calls, [0.5, 0.1, 0.9])
    for _ in range(4):
        check(policy, true_outcome())
    assert calls.calls == ["replay", "summary", "replay", "summary"]
    assert (policy.replayed, policy.summarised) == (2, 2)


def test_a_wrong_result_on_an_unsampled_outcome_is_caught_by_the_summary() -> None:
    calls = Calls()
    policy = local_check(calls, [0.9, 0.9])
    check(policy, true_outcome())
    outcome = true_outcome()
    wrong = replace(outcome, result=replace(outcome.result, winner=1 - (outcome.winner or 0)))
    with pytest.raises(OutcomeMismatch) as caught:
        check(policy, wrong)
    assert caught.value.check == "winner"
    assert calls.calls == ["replay", "summary"]
    assert policy.strict
    check(policy, true_outcome())  # from now on every outcome is replayed
    assert calls.calls[-1] == "replay"


def test_another_figure_claimed_than_the_logs_end_is_caught_by_the_summary() -> None:
    outcome = true_outcome()
    wrong = replace(outcome, result=replace(outcome.result, points=(9999, 0)))
    with pytest.raises(OutcomeMismatch) as caught:
        verify_summary(wrong, seed=SEED, profile=FRIENDLY, max_hands=MAX_HANDS,
                       swap_seats=False)
    assert caught.value.check == "result"
    with pytest.raises(OutcomeMismatch) as other_deal:
        verify_summary(true_outcome(SEED + 1), seed=SEED, profile=FRIENDLY,
                       max_hands=MAX_HANDS, swap_seats=False)
    assert other_deal.value.check == "deal"


def test_an_illegal_move_is_caught_by_the_sampled_replay() -> None:
    calls = Calls()
    policy = local_check(calls, [0.9, 0.1])
    check(policy, true_outcome())
    check(policy, illegal_move(true_outcome()))  # unsampled: the summary cannot see it
    with pytest.raises(OutcomeMismatch) as caught:
        check(policy, illegal_move(true_outcome()))  # the sample
    assert caught.value.check == "illegal_action"
    assert calls.calls == ["replay", "summary", "replay"] and policy.strict


def test_forfeits_and_outcomes_from_elsewhere_are_always_replayed() -> None:
    calls = Calls()
    policy = local_check(calls, [0.9] * 4)
    check(policy, true_outcome())
    series = played(stop_after=25)
    seat = series.current_player
    assert seat is not None
    fault = BotFault(FaultKind.TIMEOUT, "slow", seat=seat, hand_number=series.hand_number,
                     decision_number=26)
    check(policy, outcome_of("1-1", series, 1 - seat, fault, (0.0, 0.0), 0.0))
    check(policy, replace(true_outcome(), played_by="tls://10.0.0.7:40000"))
    check(policy, true_outcome())
    assert calls.calls == ["replay", "replay", "replay", "summary"]


def test_an_executor_on_other_machines_gets_every_outcome_replayed() -> None:
    class Elsewhere:
        capacity = 1

        def submit(self, spec: SeriesSpec) -> Future[SeriesOutcome]:
            raise AssertionError("not played here")

        def submit_elsewhere(self, spec: SeriesSpec, avoid: str) -> Future[SeriesOutcome]:
            raise AssertionError("not played here")

        def close(self) -> None:
            pass

    assert outcome_check_for(Elsewhere()) is verify_outcome
    local = LocalExecutor(run_fake_series, 1)
    try:
        assert isinstance(outcome_check_for(local), LocalCheck)
    finally:
        local.close()


def test_a_local_season_never_stores_a_planted_wrong_outcome(tmp_path: Path) -> None:
    storage = Storage(tmp_path / "arena.db")
    ids = register_bots(storage, tmp_path, ("greedy-a", "random-b", "greedy-c"))
    config = SeasonConfig.build(sandbox="process", concurrency=1, seed=5)
    plan = plan_season(ids, config.series_per_pair, config.seed)
    season_id = storage.create_season(name="", config=config.to_dict(),
                                      profile=config.profile(), bot_ids=ids,
                                      plan=[e.as_row() for e in plan]).id
    planted: list[str] = []
    honest: dict[str, int | None] = {}

    def buggy_arena(spec: SeriesSpec) -> SeriesOutcome:
        """The first play of the first three series comes back with the other seat
        as winner (a bug in the arena's own conversion of a result)."""
        outcome = run_fake_series(spec)
        honest[spec.series_id] = outcome.winner
        if len(planted) < 3 and spec.series_id not in planted:
            planted.append(spec.series_id)
            winner = 1 if outcome.winner == 0 else 0
            return replace(outcome, result=replace(outcome.result, winner=winner))
        return outcome

    executor = LocalExecutor(buggy_arena, 1)
    try:
        runner = SeasonRunner(storage, season_id, executor)
        runner.run()
    finally:
        executor.close()
    assert len(planted) == 3 and runner.outcomes_refused == 3
    stored = {r.series_id: r.winner for r in storage.results(season_id)}
    assert stored == honest and len(stored) == len(plan)
