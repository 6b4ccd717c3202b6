"""The process sandbox: a much weaker fallback for machines without Docker.

Each bot runs as a plain child process of the arena, in its own session and process
group, from its manifest's ``run.command`` in its folder, with ``resource`` limits
(address space, CPU seconds, processes, open files). It is NOT isolated: the bot
runs as the arena's user and can read whatever that user can read, reach the
network, and (as root, which ignores RLIMIT_NPROC) fork without bound. Use it only
for bots you trust, e.g. while developing one.
"""

from __future__ import annotations

import contextlib
import logging
import os
import shutil
import signal
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import IO, TYPE_CHECKING

from arena.core.faults import BotFault, FaultKind
from arena.sandbox.base import (
    RunningBot,
    Sandbox,
    SandboxError,
    identity_environment,
    pid_alive,
    wait_for_socket,
)
from arena.sandbox.config import DEFAULT_CONFIG, SandboxConfig
from arena.sandbox.schedstat import SchedSource, process_tree_source

if TYPE_CHECKING:
    from arena.core.series import BotRef

log = logging.getLogger(__name__)

REPO_ROOT = Path(__file__).resolve().parents[2]
PYTHON_PATHS = (
    REPO_ROOT / "proto" / "gen" / "python",
    REPO_ROOT / "sample_bots" / "sdk" / "python",
)
PROTO_DIR = REPO_ROOT / "proto"
"""Where bots find ``hollywood/bot/v1/bot.proto`` (``HOLLYWOOD_PROTO_DIR``): the
process sandbox's counterpart of ``.hollywood/proto`` in an image build context."""
NODE_PATHS = (REPO_ROOT / "sample_bots" / "js-greedy" / "node_modules",)
"""``@grpc/grpc-js`` and ``@grpc/proto-loader`` as ``make setup`` installs them on the
host: the counterpart of the base image's ``NODE_PATH``. A registered bot runs from
a copy of its folder without its ``node_modules`` (see ``arena.core.manifest``)."""
WEAKER_WARNING = (
    "process sandbox: bots run as plain processes with resource limits only - no file "
    "system, network or user isolation. Use it only for trusted bots."
)
_POLL_S = 0.005


class ProcessSandbox(Sandbox):
    """Runs each bot as a resource-limited child process group (weaker; see module)."""

    name = "process"
    description = "plain processes with resource limits (WEAKER: no isolation)"

    def __init__(self, config: SandboxConfig = DEFAULT_CONFIG, *,
                 remove_leftovers: bool = True) -> None:
        self.config = config
        log.warning(WEAKER_WARNING)
        if remove_leftovers:
            killed = remove_leftovers_of_dead_arenas(config.socket_dir_root)
            if killed:
                log.warning("killed %d bot process(es) left over by a crashed arena", killed)

    def prepare(self, bot: BotRef) -> None:
        """Nothing to build: the bot runs from its folder."""

    def start(
        self, bot: BotRef, *, series_id: str = "", seat: int | None = None, deal: str = ""
    ) -> ProcessBot:
        """A new process (a bot process never plays two series)."""
        root = self.config.socket_dir_root
        work = Path(tempfile.mkdtemp(prefix=f"hwp-{os.getpid()}-", dir=root))
        socket_path = work / "bot.sock"
        stderr_path = work / "stderr.log"
        command = list(bot.manifest.run_command)
        if command[0] in ("python", "python3"):
            command[0] = sys.executable  # the arena's interpreter has grpcio and protobuf
        python_path = [str(path) for path in PYTHON_PATHS]
        if os.environ.get("PYTHONPATH"):
            python_path.append(os.environ["PYTHONPATH"])
        node_path = [str(path) for path in NODE_PATHS if path.is_dir()]
        if os.environ.get("NODE_PATH"):
            node_path.append(os.environ["NODE_PATH"])
        environment = {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "HOME": str(work),
            "LANG": "C.UTF-8",
            "PYTHONPATH": os.pathsep.join(python_path),
            "PYTHONUNBUFFERED": "1",
            "PYTHONDONTWRITEBYTECODE": "1",
            "NODE_PATH": os.pathsep.join(node_path),
            "HOLLYWOOD_PROTO_DIR": str(PROTO_DIR),
            "HOLLYWOOD_BOT_SOCKET": str(socket_path),
            **identity_environment(bot),
        }
        program = _program(command[0], Path(bot.folder), environment["PATH"])
        if program is None:
            shutil.rmtree(work, ignore_errors=True)
            where = ("in the bot folder" if "/" in command[0] and not command[0].startswith("/")
                     else "on the PATH" if "/" not in command[0] else "")
            raise BotFault(FaultKind.STARTUP, f"cannot run {command}: {command[0]} is not an "
                           f"executable file {where}".rstrip())
        stderr_file = stderr_path.open("wb")
        try:
            process = subprocess.Popen(
                [*_launcher(self.config), program, *command[1:]], cwd=bot.folder,
                env=environment, stdin=subprocess.DEVNULL, stdout=stderr_file,
                stderr=stderr_file, start_new_session=True,
            )
        except OSError as error:
            stderr_file.close()
            shutil.rmtree(work, ignore_errors=True)
            raise BotFault(FaultKind.STARTUP, f"cannot run {command}: {error}") from None
        return ProcessBot(process, work, socket_path, stderr_file, self.config)


def _program(name: str, folder: Path, search_path: str) -> str | None:
    """The executable ``run.command[0]`` names: a path with a slash is relative to the
    bot folder (like ``bin/my-bot`` of a compiled bot; the container's working
    directory is the bot folder too), a bare name is looked up on the PATH."""
    if "/" not in name:
        return shutil.which(name, path=search_path)
    # Links are not resolved: a venv's python finds its venv through its own path.
    program = os.path.abspath(folder / name)
    return program if os.path.isfile(program) and os.access(program, os.X_OK) else None


def _launcher(config: SandboxConfig) -> list[str]:
    """The limits are set by a launcher that then execs the bot (see
    ``arena.sandbox.limited_exec`` for why not a ``preexec_fn``)."""
    return [sys.executable, "-m", "arena.sandbox.limited_exec",
            "--as", str(config.address_space_bytes), "--cpu", str(config.cpu_seconds),
            "--nproc", str(config.max_processes), "--nofile", str(config.max_open_files), "--"]


class ProcessBot(RunningBot):
    """A bot running as a process group; see ``arena.sandbox.RunningBot``."""

    def __init__(self, process: subprocess.Popen[bytes], work: Path, socket_path: Path,
                 stderr_file: IO[bytes], config: SandboxConfig) -> None:
        self.process = process
        self.work = work
        self.socket_path = socket_path
        self._stderr_file = stderr_file
        self._config = config
        self._stopped = False
        self._final_tail: str | None = None

    @property
    def target(self) -> str:
        return f"unix:{self.socket_path}"

    def wait_ready(self, timeout: float) -> None:
        wait_for_socket(self.socket_path, timeout, self.fault_if_dead, poll_s=_POLL_S)

    def sched_source(self) -> SchedSource:
        # The launcher execs the bot: the child's pid is the bot's, its tree the bot's.
        return process_tree_source(self.process.pid)

    def stderr_tail(self) -> str:
        if self._final_tail is not None:
            return self._final_tail
        limit = self._config.stderr_tail_bytes
        try:
            with (self.work / "stderr.log").open("rb") as file:
                file.seek(max(0, file.seek(0, os.SEEK_END) - limit))
                return file.read().decode("utf-8", errors="replace")
        except OSError:
            return ""

    def stderr_mark(self) -> int:
        """The size of the bot's stderr so far (``RunningBot.stderr_mark``)."""
        try:
            return (self.work / "stderr.log").stat().st_size
        except OSError:
            return 0

    def series_stderr(self, mark: object, limit: int) -> tuple[bytes, int]:
        """The end (``limit`` bytes) of what the bot wrote after byte ``mark``, and how
        much it wrote since then (``RunningBot.series_stderr``)."""
        start = mark if isinstance(mark, int) else 0
        try:
            with (self.work / "stderr.log").open("rb") as file:
                end = file.seek(0, os.SEEK_END)
                total = max(0, end - start)
                file.seek(end - min(total, limit))
                return file.read(min(total, limit)), total
        except OSError:
            return b"", 0

    def fault_if_dead(self, wait_s: float = 0.0) -> BotFault | None:
        """As for every sandbox, plus: a bot whose stderr shows a ``MemoryError`` hit
        its address-space limit (OUT_OF_MEMORY) even if the process lingers on."""
        try:
            code = self.process.wait(timeout=wait_s) if wait_s > 0 else self.process.poll()
        except subprocess.TimeoutExpired:
            code = None
        if "MemoryError" in self.stderr_tail():
            return BotFault(FaultKind.OUT_OF_MEMORY, "ran out of its address-space limit "
                            f"({self._config.address_space_bytes // (1024 * 1024)} MiB)")
        if code is None:
            return None
        if code == -signal.SIGXCPU:
            return BotFault(FaultKind.CRASH,
                            f"killed for using more than {self._config.cpu_seconds} CPU seconds")
        if code < 0:
            return BotFault(FaultKind.CRASH, f"the bot was killed by signal {-code}")
        return BotFault(FaultKind.CRASH, f"the bot exited with code {code}")

    def stop(self) -> None:
        if self._stopped:
            return
        self._stopped = True
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.process.pid, signal.SIGKILL)
        try:
            self.process.wait(timeout=5)
        except subprocess.TimeoutExpired as error:
            raise SandboxError(f"bot process {self.process.pid} survived SIGKILL") from error
        finally:
            self._final_tail = None
            self._final_tail = self.stderr_tail()
            self._stderr_file.close()
            shutil.rmtree(self.work, ignore_errors=True)


def remove_leftovers_of_dead_arenas(socket_dir_root: str = "/tmp") -> int:
    """Kill the process groups of bots whose arena died (found by the work directory
    named in their ``HOLLYWOOD_BOT_SOCKET``) and remove those directories. Returns
    how many bot processes were killed."""
    prefix = f"{socket_dir_root.rstrip('/')}/hwp-"
    dead_dirs = set()
    with contextlib.suppress(OSError):
        for entry in Path(socket_dir_root).glob("hwp-*-*"):
            owner = entry.name.split("-")[1]
            if owner.isdigit() and not pid_alive(int(owner)):
                dead_dirs.add(str(entry))
    if not dead_dirs:
        return 0
    killed = 0
    for environ in Path("/proc").glob("[0-9]*/environ"):
        try:
            variables = environ.read_bytes().split(b"\0")
        except OSError:
            continue
        for variable in variables:
            if variable.startswith(b"HOLLYWOOD_BOT_SOCKET=" + prefix.encode()):
                socket = variable.split(b"=", 1)[1].decode(errors="replace")
                if str(Path(socket).parent) in dead_dirs:
                    with contextlib.suppress(ProcessLookupError, PermissionError):
                        os.killpg(int(environ.parent.name), signal.SIGKILL)
                        killed += 1
                break
    for directory in dead_dirs:
        shutil.rmtree(directory, ignore_errors=True)
    return killed
