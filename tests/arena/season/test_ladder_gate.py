"""The ladder's gate (``--gate sprt``, issue #30 point 2) on fixed seeds with the
sample bots in process: a new version of a member first plays an SPRT match
against its predecessor; a clearly better one (greedy replacing random) is
accepted and replaces it, a worse one (random replacing greedy) is rejected and
stays off; an undecided match ends inconclusive after its pairs; the owner's
admission lets a version in whatever its match said; the match is opened once,
however often the ladder is stopped and resumed."""

from __future__ import annotations

import re
import threading
from pathlib import Path

import pytest

from arena.core.settings import ConfigError, SeasonConfig
from arena.execution import local_executor_factory
from arena.season.events import EventHub
from arena.season.formats import LADDER_FORMAT, OpenEnded, format_for
from arena.season.ladder_gating import GateMatches, held_off, predecessors
from arena.season.manager import SeasonManager
from arena.season.verify import verify_outcome
from arena.storage import (
    NotFoundError,
    Storage,
    add_ladder_round,
    admit_to_ladder,
    gates_of_ladder,
    gates_of_version,
    members_by_round,
)
from tests.helpers.gate_helpers import (
    ArrivesInRoundOne,
    in_process_runner,
    make_gated_ladder,
    register_folder,
    sample_as,
)
from tests.helpers.season_play import play

NO_MATCHES = GateMatches(lambda match_id: None, lambda match_id: None)
"""Gate matches neither started nor stopped (the test plays them itself, or not)."""


def gated_ladder(tmp_path: Path, old: str, new: str, **settings: object
                 ) -> tuple[Storage, int, ArrivesInRoundOne]:
    """``player@1.0.0`` (sample ``old``) and ``rival@1.0.0`` (random) on a gated
    ladder; ``player@2.0.0`` (sample ``new``) arrives while round 1 plays."""
    storage = Storage(tmp_path / "arena.db")
    bots = tmp_path / "bots"
    ids = [register_folder(storage, sample_as(bots, old, "player", "1.0.0")),
           register_folder(storage, sample_as(bots, "random", "rival", "1.0.0"))]
    ladder_id = make_gated_ladder(storage, ids, **settings)
    return storage, ladder_id, ArrivesInRoundOne(
        storage, ladder_id, sample_as(bots, new, "player", "2.0.0"))


def test_a_clearly_better_version_is_accepted_and_replaces_its_predecessor(
        tmp_path: Path) -> None:
    storage, ladder_id, run = gated_ladder(tmp_path, old="random", new="greedy")
    assert play(storage, ladder_id, run, verify=verify_outcome) == "finished"
    [gate] = gates_of_ladder(storage, ladder_id)
    assert (gate.bot_id, gate.predecessor, gate.verdict.status) == (
        "player@2.0.0", "player@1.0.0", "accepted")
    verdict = gate.verdict
    assert 1 <= verdict.pairs < 30 and verdict.elo_low < verdict.elo < verdict.elo_high
    assert gate.verdict.elo > 100 and gate.verdict.llr > 2.94  # log((1 - beta) / alpha) = 2.944
    verdict = gate.verdict
    print(f"GATE accepted after {verdict.pairs} pairs: Elo {verdict.elo:+.0f} "
          f"[{verdict.elo_low:+.0f}, {verdict.elo_high:+.0f}], LLR {verdict.llr:.2f}")
    match = storage.get_season(gate.match_id)
    assert match.status == "finished" and match.bot_ids == ("player@2.0.0", "player@1.0.0")
    assert match.config.format == "sprt" and match.config.values()["max_pairs"] == 30
    assert len(storage.results(gate.match_id)) == 2 * gate.verdict.pairs
    assert members_by_round(storage, ladder_id) == [
        ["player@1.0.0", "rival@1.0.0"], ["rival@1.0.0", "player@2.0.0"]]


def test_a_worse_version_is_rejected_and_its_predecessor_stays(tmp_path: Path) -> None:
    storage, ladder_id, run = gated_ladder(tmp_path, old="greedy", new="random")
    assert play(storage, ladder_id, run, verify=verify_outcome) == "finished"
    [gate] = gates_of_ladder(storage, ladder_id)
    assert (gate.bot_id, gate.verdict.status) == ("player@2.0.0", "rejected")
    assert gate.verdict.elo < 0 and gate.verdict.llr < -2.94  # log(beta / (1 - alpha)) = -2.944
    verdict = gate.verdict
    print(f"GATE rejected after {verdict.pairs} pairs: Elo {verdict.elo:+.0f} "
          f"[{verdict.elo_low:+.0f}, {verdict.elo_high:+.0f}], LLR {verdict.llr:.2f}")
    assert members_by_round(storage, ladder_id) == [["player@1.0.0", "rival@1.0.0"]] * 2
    assert gates_of_version(storage, "player@2.0.0") == [gate]


def test_an_undecided_match_is_inconclusive_and_the_owner_may_admit_it(
        tmp_path: Path) -> None:
    storage, ladder_id, run = gated_ladder(
        tmp_path, old="random", new="greedy", ladder_rounds=3,
        ladder_gate_sprt="elo0=0,elo1=5,alpha=0.001,beta=0.001", ladder_gate_max_pairs=1)
    assert play(storage, ladder_id, run, verify=verify_outcome) == "finished"
    [gate] = gates_of_ladder(storage, ladder_id)
    assert (gate.verdict.status, gate.verdict.pairs) == ("inconclusive", 1)
    assert len(storage.results(gate.match_id)) == 2
    # Inconclusive under accepted-replaces: it stayed off, round after round.
    assert members_by_round(storage, ladder_id) == [["player@1.0.0", "rival@1.0.0"]] * 3
    [admitted] = admit_to_ladder(storage, "player@2.0.0", True, "author ann")
    assert admitted.admitted_by == "author ann" and admitted.verdict.status == "inconclusive"
    ladder = format_for(LADDER_FORMAT, storage.get_season(ladder_id).config)
    assert isinstance(ladder, OpenEnded) and ladder.gate is not None
    candidates = ["player@1.0.0", "rival@1.0.0", "player@2.0.0"]
    history = members_by_round(storage, ladder_id)
    config = storage.get_season(ladder_id).config
    assert held_off(storage, ladder_id, config, ladder.gate, candidates, history,
                    NO_MATCHES) == set()
    admit_to_ladder(storage, "player@2.0.0", False, "author ann")  # withdrawn: off again
    assert held_off(storage, ladder_id, config, ladder.gate, candidates, history,
                    NO_MATCHES) == {"player@2.0.0"}
    with pytest.raises(NotFoundError, match=r"rival@1\.0\.0 has no gate match"):
        admit_to_ladder(storage, "rival@1.0.0", True, "author ann")


def test_owner_decides_keeps_even_an_accepted_version_off_until_admitted(
        tmp_path: Path) -> None:
    storage, ladder_id, run = gated_ladder(tmp_path, old="random", new="greedy",
                                           ladder_gate_rule="owner-decides")
    assert play(storage, ladder_id, run, verify=verify_outcome) == "finished"
    [gate] = gates_of_ladder(storage, ladder_id)
    assert gate.verdict.status == "accepted" and gate.admitted_by == ""
    assert members_by_round(storage, ladder_id)[-1] == ["player@1.0.0", "rival@1.0.0"]


def test_the_match_is_opened_once_across_a_stop_and_a_resume(tmp_path: Path) -> None:
    storage, ladder_id, run = gated_ladder(tmp_path, old="random", new="greedy",
                                           ladder_rounds=3)
    cancel = threading.Event()
    started: list[int] = []

    def stop_before_the_match(match_id: int) -> None:  # the server dies here
        started.append(match_id)
        cancel.set()

    matches = GateMatches(stop_before_the_match, lambda match_id: None)
    assert play(storage, ladder_id, run, cancel, verify=verify_outcome,
                gate_matches=matches) == "cancelled"
    [opened] = gates_of_ladder(storage, ladder_id)
    assert opened.verdict.status == "pending" and started == [opened.match_id]
    assert storage.get_season(opened.match_id).status == "created"
    assert storage.results(opened.match_id) == []
    # Resumed: the match in place.
    assert play(storage, ladder_id, run, verify=verify_outcome) == "finished"
    [decided] = gates_of_ladder(storage, ladder_id)
    assert decided.match_id == opened.match_id and decided.verdict.status == "accepted"
    assert len(storage.list_seasons()) == 2  # the ladder and its one gate match
    # Round 2 was planned (without it) before the stop; it joined at round 3.
    assert members_by_round(storage, ladder_id) == [
        ["player@1.0.0", "rival@1.0.0"]] * 2 + [["rival@1.0.0", "player@2.0.0"]]


def test_predecessors_are_each_names_latest_member() -> None:
    history = [["a@1", "b@1"], ["a@1", "b@2"], ["b@2", "c@1"]]
    assert predecessors(history) == {"a": "a@1", "b": "b@2", "c": "c@1"}
    assert predecessors([["a@1", "a@2"]]) == {"a": "a@2"}  # a kept version beside a newer


@pytest.mark.parametrize(("settings", "message"), [
    ({"ladder_gate": "knockout"}, "ladder_gate must be none or sprt, got 'knockout'"),
    ({"ladder_gate_rule": "coin"}, "ladder_gate_rule must be one of accepted-replaces, "
                                   "owner-decides, got 'coin'"),
    ({"ladder_gate_sprt": "elo0=9,elo1=1"}, "ladder_gate_sprt: elo0 (9) must be less"),
])
def test_bad_gate_settings_are_refused(settings: dict[str, object], message: str) -> None:
    config = SeasonConfig.build(format=LADDER_FORMAT, **settings)
    with pytest.raises(ConfigError, match=re.escape(message)):
        format_for(LADDER_FORMAT, config)


def test_a_server_killed_during_the_match_resumes_it_once(tmp_path: Path) -> None:
    """The manager's path: a killed server left the ladder and its gate match
    RUNNING; a new manager resumes both, the ladder's rounds find the match
    playing (no second match), and its verdict is stored as it ends."""
    storage = Storage(tmp_path / "arena.db")
    bots = tmp_path / "bots"
    ids = [register_folder(storage, sample_as(bots, "random", "player", "1.0.0")),
           register_folder(storage, sample_as(bots, "random", "rival", "1.0.0"))]
    ladder_id = make_gated_ladder(storage, ids, ladder_rounds=4)
    add_ladder_round(storage, ladder_id, 1, ids, [(7, False, ids[0], ids[1]),
                                                  (7, False, ids[1], ids[0])])
    newcomer = register_folder(storage, sample_as(bots, "greedy", "player", "2.0.0"))
    config = storage.get_season(ladder_id).config
    ladder = format_for(LADDER_FORMAT, config)
    assert isinstance(ladder, OpenEnded) and ladder.gate is not None
    assert held_off(storage, ladder_id, config, ladder.gate, [*ids, newcomer], [ids],
                    NO_MATCHES) == {newcomer}
    [opened] = gates_of_ladder(storage, ladder_id)
    for season_id in (ladder_id, opened.match_id):  # as the killed server left them
        storage.set_season_status(season_id, "running")

    manager = SeasonManager(storage, local_executor_factory(lambda c: in_process_runner()),
                            EventHub())
    assert manager.resume_interrupted() == [ladder_id, opened.match_id]
    assert manager.wait(ladder_id, 240) and manager.wait(opened.match_id, 240)
    [decided] = gates_of_ladder(storage, ladder_id)
    assert decided.match_id == opened.match_id and decided.verdict.status == "accepted"
    assert len(storage.list_seasons()) == 2
    planned = [p.series_id for p in storage.planned_series(opened.match_id)]
    assert sorted(r.series_id for r in storage.results(opened.match_id)) == sorted(planned)
    assert len(planned) == 2 * decided.verdict.pairs
