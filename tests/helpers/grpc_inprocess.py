"""The in-process sandbox as it was before bots were called directly: the same SDK
bot object, served over gRPC on a Unix socket inside the test's process (the
reference the direct path must agree with)."""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

import grpc
from hollywood_sdk import Bot
from hollywood_sdk.server import Identity, identity_of, start_server

from arena.core.faults import BotFault
from arena.core.series import BotRef
from arena.sandbox.base import RunningBot, identity_environment, wait_for_socket
from arena.sandbox.inprocess import InProcessBot, InProcessSandbox


class GrpcServedBot(RunningBot):
    """A bot object served over gRPC in this process (a ``RunningBot``)."""

    def __init__(self, server: grpc.Server, work: Path) -> None:
        self.server = server
        self.work = work

    @property
    def target(self) -> str:
        return f"unix:{self.work / 'bot.sock'}"

    def wait_ready(self, timeout: float) -> None:
        wait_for_socket(self.work / "bot.sock", timeout, lambda: None)

    def stderr_tail(self) -> str:
        return ""

    def fault_if_dead(self, wait_s: float = 0.0) -> BotFault | None:
        return None

    def stop(self) -> None:
        self.server.stop(grace=1.0).wait()
        shutil.rmtree(self.work, ignore_errors=True)


class GrpcInProcessSandbox(InProcessSandbox):
    """Loads and makes the bot as the in-process sandbox does, then serves it over gRPC."""

    def start(self, bot: BotRef, *, series_id: str = "",  # type: ignore[override]
              seat: int | None = None, deal: str = "") -> GrpcServedBot:
        made = super().start(bot, series_id=series_id, seat=seat, deal=deal)
        assert isinstance(made, InProcessBot)
        instance: Bot = made.in_process_target.bot  # type: ignore[assignment]
        return serve_over_grpc(instance, identity_of(instance, Path(bot.folder),
                                                     identity_environment(bot)))


def serve_over_grpc(instance: Bot, identity: Identity) -> GrpcServedBot:
    """``instance`` served on a Unix socket in a new temporary directory."""
    work = Path(tempfile.mkdtemp(prefix="hwi-test-"))
    return GrpcServedBot(start_server(instance, f"unix:{work / 'bot.sock'}", identity), work)
