"""The code that plays is the code that was vetted (issue 25, point 2), over real
gRPC with the vetting itself replaced by a fake that blocks until the test
releases it: a replace during vetting cancels that vetting and the new code is
vetted; an ``active`` version records the hash it was vetted with; a rejection the
arena caused is marked so, retried automatically (bounded) and ``bots revet``
vets a version again on demand."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import grpc
import pytest
from hollywood.arena.v1 import arena_pb2

from arena.cli.client import ArenaClient
from arena.cli.submit import pack
from arena.core.manifest import content_hash
from arena.core.series import BotRef
from arena.execution.vetting import Vetting
from arena.server import vetting as vetting_module
from arena.server.app import RunningServer, start_server
from arena.storage import expected_hash
from tests.arena.server.test_lifecycle import bot_folder, run
from tests.arena.server.test_submit import add_author
from tests.helpers.polling import wait_until
from tests.helpers.servers import ServerFactory


class GatedVetter:
    """Stands in for ``vet_bot``: records the hash of each folder it is given and
    blocks the calls the test gates until released."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.vetted: list[str] = []
        self.gates: dict[int, threading.Event] = {}
        self.verdicts: list[Vetting] = []

    def __call__(self, bot: BotRef, sandbox_name: str, *, on_stage: Callable[[str], None],
                 on_line: Callable[[str], None] = print, **_: Any) -> Vetting:
        with self.lock:
            call = len(self.vetted)
            self.vetted.append(content_hash(bot.folder))
            gate = self.gates.get(call)
            verdict = (self.verdicts[call] if call < len(self.verdicts)
                       else Vetting(passed=True, validation_log="fake: passed"))
        on_stage("validating")
        if gate is not None:
            assert gate.wait(timeout=120), "the test never released the vetting"
        on_line("played")  # as vet_bot reports each hand
        return verdict

    def calls(self) -> int:
        with self.lock:
            return len(self.vetted)


@pytest.fixture
def vetter(monkeypatch: pytest.MonkeyPatch) -> GatedVetter:
    fake = GatedVetter()
    monkeypatch.setattr(vetting_module, "vet_bot", fake)
    return fake


@pytest.fixture
def server(serve: ServerFactory, vetter: GatedVetter) -> Iterator[RunningServer]:
    yield serve(runner=None, resume=False, vetting_sandbox="process")
    for gate in vetter.gates.values():
        gate.set()


def status_of(client: ArenaClient, bot_id: str) -> arena_pb2.BotVersion:
    """``bot_id`` as the client's token sees it (its logs for the owner or the admin)."""
    [version] = client.stub.GetBot(arena_pb2.GetBotRequest(name=bot_id),
                                   metadata=client.auth).versions
    return version


def test_a_replace_during_vetting_cancels_it_and_the_new_code_is_vetted(
        server: RunningServer, vetter: GatedVetter, tmp_path: Path) -> None:
    old = bot_folder(tmp_path / "old", "omega")
    new = bot_folder(tmp_path / "new", "omega")
    (new / "random_bot.py").write_text((new / "random_bot.py").read_text() + "\n# v2\n")
    old_hash, new_hash = content_hash(old), content_hash(new)
    assert old_hash != new_hash
    vetter.gates[0] = threading.Event()
    with ArenaClient(server.address, server.token) as client:
        client.submit(pack(old))
        wait_until(lambda: vetter.calls() == 1, what="the old code's vetting starts",
                   bound_s=30)
        replaced = client.submit(pack(new), replace=True)
        assert replaced.replaced
        assert status_of(client, "omega@1.0.0").bot.status == "received"
        with pytest.raises(grpc.RpcError) as info:
            client.stub.RevetBot(arena_pb2.RevetBotRequest(bot_id="omega@1.0.0"),
                                 metadata=client.auth)
        assert info.value.code() == grpc.StatusCode.FAILED_PRECONDITION
        assert "omega@1.0.0 is received: it is being vetted already" in str(
            info.value.details())
        vetter.gates[0].set()  # the old code's vetting ends (it "passed")
        wait_until(lambda: status_of(client, "omega@1.0.0").bot.status == "active",
                   what="the new code is vetted", bound_s=30)
        version = status_of(client, "omega@1.0.0")
    # Today's bug: the old code's verdict made the new, never vetted, code active.
    assert vetter.vetted == [old_hash, new_hash]
    assert version.bot.content_hash == new_hash
    from arena.storage import Storage
    assert expected_hash(Storage(tmp_path / "arena.db"), "omega@1.0.0") == new_hash


def test_a_rejection_the_arena_caused_is_marked_retried_and_revet_vets_again(
        tmp_path: Path, vetter: GatedVetter, capsys: pytest.CaptureFixture[str]) -> None:
    arena_fault = Vetting(passed=False, arena_caused=True,
                          reason="the arena's reference bot failed, not yours: random "
                          "faulted: timeout: no answer to Handshake")
    vetter.verdicts = [arena_fault, arena_fault, arena_fault, Vetting(passed=True)]
    retries: list[tuple[float, Callable[[], None]]] = []
    running = start_server(tmp_path / "arena.db", port=0, resume=False,
                           vetting_sandbox="process")
    assert running.vetting is not None
    # One automatic retry, driven by the test instead of a timer.
    running.vetting.retry_delays_s = (30.0,)
    running.vetting._schedule = lambda delay, action: retries.append((delay, action))
    server = ("--server", running.address, "--token", running.token)
    try:
        with ArenaClient(running.address, running.token) as client:
            client.submit(pack(bot_folder(tmp_path, "sigma")))
            wait_until(lambda: status_of(client, "sigma@1.0.0").bot.status == "rejected",
                       what="the arena's failure rejects it", bound_s=30)
            first = status_of(client, "sigma@1.0.0")
            assert first.rejection_cause == "arena"
            assert "vetted again in 30 s (retry 1 of 1)" in first.status_detail
            assert [delay for delay, _ in retries] == [30.0]
            retries[0][1]()  # the retry's time comes
            wait_until(lambda: vetter.calls() == 2
                       and status_of(client, "sigma@1.0.0").bot.status == "rejected",
                       what="the retry is rejected by the arena again", bound_s=30)
            second = status_of(client, "sigma@1.0.0")
            assert second.rejection_cause == "arena"
            assert "1 retries failed too" in second.status_detail
            code, out, _ = run(capsys, "bots", "show", "sigma", *server)
            assert code == 0 and "rejected by the arena's side, not the bot" in out
            assert len(retries) == 1  # bounded: no more automatic tries

            # `bots revet` vets it again (an identical re-upload did nothing before).
            code, out, err = run(capsys, "bots", "revet", "sigma@1.0.0", *server)
            assert code == 0, err
            assert "sigma@1.0.0 is vetted again" in out
            wait_until(lambda: vetter.calls() == 3
                       and status_of(client, "sigma@1.0.0").bot.status == "rejected",
                       what="revetting: the arena fails a third time", bound_s=30)
            assert status_of(client, "sigma@1.0.0").rejection_cause == "arena"
            # An identical re-upload of a version the arena rejected vets it again too.
            again = client.submit(pack(bot_folder(tmp_path / "again", "sigma")))
            assert not again.created
            wait_until(lambda: status_of(client, "sigma@1.0.0").bot.status == "active",
                       what="the re-upload's vetting makes it active", bound_s=30)
            assert vetter.calls() == 4
            assert status_of(client, "sigma@1.0.0").rejection_cause == ""
            again = client.submit(pack(bot_folder(tmp_path / "again2", "sigma")))
            assert status_of(client, "sigma@1.0.0").bot.status == "active"  # nothing to do
            assert vetter.calls() == 4
    finally:
        running.stop(grace=None)


def test_a_rejection_the_author_caused_is_not_retried_and_only_the_owner_may_revet(
        server: RunningServer, vetter: GatedVetter, tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    vetter.verdicts = [Vetting(passed=False, reason="kappa faulted: crash: exit 3")]
    ann_token, bob_token = add_author(server, capsys, "ann"), add_author(server, capsys, "bob")
    with ArenaClient(server.address, ann_token) as ann:
        ann.submit(pack(bot_folder(tmp_path, "kappa")))
        wait_until(lambda: status_of(ann, "kappa@1.0.0").bot.status == "rejected",
                   what="kappa rejected", bound_s=30)
        assert status_of(ann, "kappa@1.0.0").rejection_cause == "author"
    with ArenaClient(server.address, bob_token) as bob, pytest.raises(grpc.RpcError) as info:
        bob.stub.RevetBot(arena_pb2.RevetBotRequest(bot_id="kappa@1.0.0"),
                          metadata=bob.auth)
    assert info.value.code() == grpc.StatusCode.PERMISSION_DENIED
    assert "kappa belongs to author ann" in str(info.value.details())
    assert vetter.calls() == 1
    with ArenaClient(server.address, ann_token) as ann:
        ann.stub.RevetBot(arena_pb2.RevetBotRequest(bot_id="kappa@1.0.0"), metadata=ann.auth)
        wait_until(lambda: status_of(ann, "kappa@1.0.0").bot.status == "active",
                   what="the owner's revet vets it again", bound_s=30)
        with pytest.raises(grpc.RpcError) as info:
            ann.stub.RevetBot(arena_pb2.RevetBotRequest(bot_id="nobody@1.0.0"),
                              metadata=ann.auth)
        assert info.value.code() == grpc.StatusCode.NOT_FOUND
    assert vetter.calls() == 2


def test_the_scheduler_refuses_to_play_files_that_are_not_the_vetted_code(
        tmp_path: Path) -> None:
    running = start_server(tmp_path / "arena.db", port=0, resume=False)  # vets nothing
    try:
        with ArenaClient(running.address, running.token) as client:
            for name in ("tau", "upsilon"):
                client.submit(pack(bot_folder(tmp_path, name)))
            stored = running.storage.get_bot("tau@1.0.0").folder
            with (stored / "random_bot.py").open("a") as code:  # changed after vetting
                code.write("\n# not what was vetted\n")
            client.stub.CreateSeason(arena_pb2.CreateSeasonRequest(
                bots=["tau@1.0.0", "upsilon@1.0.0"], config=arena_pb2.SeasonConfig(
                    sandbox_backend="inprocess", max_hands=2, series_per_pair=2)),
                metadata=client.auth)
            wait_until(lambda: client.stub.GetSeason(arena_pb2.GetSeasonRequest()).season
                       .status == arena_pb2.SEASON_STATUS_FAILED,
                       what="the season stops", bound_s=60)
            season = client.stub.GetSeason(arena_pb2.GetSeasonRequest()).season
            assert season.series_done == 0
            assert "UnvettedCodeError: bot tau@1.0.0's files hash to" in season.error
            assert "refusing to play code that was not vetted" in season.error
    finally:
        running.stop(grace=None)


def test_a_worker_refuses_a_bundle_that_is_not_the_vetted_code(tmp_path: Path) -> None:
    from dataclasses import replace

    from arena.core.limits import TimeLimits
    from arena.core.series import SeriesSpec
    from arena.execution.bundles import BundleError, bundle_of
    from arena.execution.tasks import SeriesTask
    from arena.execution.worker import play_clustered
    from engine.profiles import get_profile

    vetted = bot_folder(tmp_path / "vetted", "phi")
    other = bot_folder(tmp_path / "other", "phi")
    (other / "random_bot.py").write_text((other / "random_bot.py").read_text() + "\n#\n")
    opponent = bot_folder(tmp_path, "chi")
    bots = (replace(BotRef.from_folder(vetted), vetted_hash=content_hash(vetted)),
            replace(BotRef.from_folder(opponent), vetted_hash=content_hash(opponent)))
    spec = SeriesSpec("1-0", 7, get_profile("friendly"), 2, False, bots, TimeLimits())
    task = SeriesTask(spec, (bundle_of(other), bundle_of(opponent)), "inprocess")
    with pytest.raises(BundleError, match="refusing to play code that was not vetted"):
        play_clustered(task)


def test_an_arena_failure_is_reported_without_the_servers_paths(
        server: RunningServer, vetter: GatedVetter, tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    def failing(bot: BotRef, sandbox_name: str, **_: Any) -> Vetting:
        raise OSError(f"cannot open {bot.folder / 'Dockerfile'} under {tmp_path}")

    monkeypatch.setattr(vetting_module, "vet_bot", failing)
    assert server.vetting is not None
    server.vetting._schedule = lambda delay, action: None
    with ArenaClient(server.address, server.token) as client:
        client.submit(pack(bot_folder(tmp_path, "psi")))
        wait_until(lambda: status_of(client, "psi@1.0.0").bot.status == "rejected",
                   what="psi rejected by the arena", bound_s=30)
        version = status_of(client, "psi@1.0.0")
    assert version.rejection_cause == "arena"
    assert version.status_detail.startswith(
        "the arena could not vet it (OSError: cannot open <bot folder>/Dockerfile under "
        "<arena data>)")
    assert str(tmp_path) not in str(version)
