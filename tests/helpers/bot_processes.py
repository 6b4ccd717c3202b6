"""Start sample bots as local processes from their manifests (for tests and benchmarks).

Bots are found by their ``bot.toml``; each runs its ``[run] command`` in its own
folder with ``HOLLYWOOD_BOT_SOCKET`` set, exactly as the arena's process sandbox
would, but without any confinement.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import tomllib
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
SAMPLE_BOTS = REPO / "sample_bots"


@dataclass(frozen=True)
class LocalBot:
    name: str
    folder: Path
    command: tuple[str, ...]
    language: str

    def runnable(self) -> bool:
        """False when the command's program is not installed (e.g. no node) or, for
        a path relative to the bot folder, not built."""
        if "/" in self.command[0]:
            return os.access(self.folder / self.command[0], os.X_OK)
        return shutil.which(self.command[0]) is not None


def discover_bots() -> list[LocalBot]:
    """Every folder of ``sample_bots/`` with a ``bot.toml`` declaring ``run.command``."""
    bots = []
    for manifest in sorted(SAMPLE_BOTS.glob("*/bot.toml")):
        data = tomllib.loads(manifest.read_text())
        command = data.get("run", {}).get("command")
        if command:
            bots.append(LocalBot(str(data["name"]), manifest.parent, tuple(command),
                                 str(data.get("language", ""))))
    return bots


@dataclass
class RunningLocalBot:
    bot: LocalBot
    process: subprocess.Popen[bytes]
    target: str
    stderr_path: Path

    def stderr(self) -> str:
        return self.stderr_path.read_text(errors="replace")


@contextmanager
def run_bot(bot: LocalBot, extra_env: dict[str, str] | None = None) -> Iterator[RunningLocalBot]:
    """Run ``bot`` on a Unix socket in a short temporary path; kill it on exit."""
    # The venv's python3 comes first: it has grpcio and the generated packages.
    path = os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")])
    with tempfile.TemporaryDirectory(prefix="hgb-", dir="/tmp") as tmp:
        socket_path = Path(tmp) / "bot.sock"
        stderr_path = Path(tmp) / "stderr.txt"
        env = {**os.environ, "PATH": path, "HOLLYWOOD_BOT_SOCKET": str(socket_path),
               **(extra_env or {})}
        with stderr_path.open("wb") as stderr:
            process = subprocess.Popen(list(bot.command), cwd=bot.folder, env=env,
                                       stdout=subprocess.DEVNULL, stderr=stderr)
        try:
            yield RunningLocalBot(bot, process, f"unix:{socket_path}", stderr_path)
        finally:
            process.kill()
            process.wait()


def serve_bot_servicer(servicer: Any, socket_dir: str) -> tuple[Any, str]:
    """Serve a ``BotService`` servicer (a scripted in-process bot) on a Unix socket in
    ``socket_dir``; returns the started gRPC server and its target."""
    from concurrent import futures

    import grpc
    from hollywood.bot.v1 import bot_pb2_grpc

    target = f"unix:{socket_dir}/bot.sock"
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=4))
    bot_pb2_grpc.add_BotServiceServicer_to_server(servicer, server)
    server.add_insecure_port(target)
    server.start()
    return server, target
