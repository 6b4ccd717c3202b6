"""The in-process sandbox: Python SDK bots called inside the arena's own process.

A bot runs here when its ``bot.toml`` names its SDK bot class (``[run] sdk_class =
"greedy_bot:GreedyBot"``). ``prepare`` loads that module from the bot's folder
under a module name unique to the bot version's content (two versions of one bot
never share a module); ``start`` makes a fresh instance. Nothing is served: the
running bot hands the instance to the match (``InProcessBot.in_process_target``),
which calls it directly, without gRPC or serialisation (``arena.match.direct``),
with the same handshake, observations, deadlines and faults as over gRPC; only
the transport, the container and the process are missing.

It is NOT a sandbox in the security sense: the bot's code runs with the arena's
rights, in its memory, and a bot that never returns keeps a thread busy until the
arena stops. Use it for trusted bots, tests, local play and big simulated
seasons, where it saves the start-up of a process or container per series and
the transport of every decision.
"""

from __future__ import annotations

import contextlib
import importlib.util
import shutil
import sys
import threading
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any

from arena.core.faults import BotFault, FaultKind
from arena.core.manifest import ManifestError, content_hash, sdk_module_path
from arena.sandbox.base import (
    InProcessTarget,
    RunningBot,
    Sandbox,
    SandboxError,
    identity_environment,
    pid_alive,
)
from arena.sandbox.config import DEFAULT_CONFIG, SandboxConfig

if TYPE_CHECKING:
    from arena.core.series import BotRef

MODULE_PREFIX = "hollywood_inprocess_bot"
WORK_PREFIX = "hwi-"
"""The socket directories earlier arenas made when they served in-process bots over
gRPC; those left by a dead arena are still removed."""


def _sdk() -> Any:
    """The Python SDK's serving module (the bot base class, identities), imported on
    first use (the arena's environment provides it, as ``make setup`` puts
    ``sample_bots/sdk/python`` on the venv's path)."""
    try:
        import hollywood_sdk.server
    except ImportError as error:
        raise SandboxError(f"the inprocess sandbox needs the Python SDK (hollywood_sdk) "
                           f"importable in the arena: {error}") from error
    return hollywood_sdk.server


def load_bot_class(bot: BotRef) -> type:
    """The SDK bot class named by ``bot``'s manifest, loaded from its folder.
    Raises ``ManifestError`` if the manifest names none, the module is missing, fails
    to import, or has no such ``hollywood_sdk.Bot`` subclass."""
    sdk_class = bot.manifest.sdk_class
    label = f"bot {bot.name}@{bot.version}"
    if not sdk_class:
        raise ManifestError(f"{label}: bot.toml names no SDK bot class ([run] sdk_class), "
                            "which the inprocess sandbox needs")
    path = sdk_module_path(bot.folder, sdk_class)
    module_name, _, class_name = sdk_class.partition(":")
    if path is None:
        raise ManifestError(f"{label}: run.sdk_class {sdk_class!r}: no module {module_name} "
                            f"in {bot.folder}")
    module = _load_module(bot, path, label)
    found = getattr(module, class_name, None)
    bot_base = _sdk().Bot
    if not (isinstance(found, type) and issubclass(found, bot_base)):
        raise ManifestError(f"{label}: run.sdk_class {sdk_class!r}: {module_name} has no "
                            f"class {class_name} deriving from hollywood_sdk.Bot")
    return found


_modules: dict[str, ModuleType] = {}
_modules_lock = threading.Lock()


def _load_module(bot: BotRef, path: Path, label: str) -> ModuleType:
    try:
        fingerprint = content_hash(bot.folder)[:16]
    except OSError as error:
        raise ManifestError(f"{label}: cannot read the bot folder: {error}") from None
    unique = f"{MODULE_PREFIX}_{bot.name.replace('-', '_')}_{fingerprint}"
    with _modules_lock:
        cached = _modules.get(unique)
        if cached is not None:
            return cached
        is_package = path.name == "__init__.py"
        spec = importlib.util.spec_from_file_location(
            unique, path, submodule_search_locations=[str(path.parent)] if is_package else None)
        if spec is None or spec.loader is None:
            raise ManifestError(f"{label}: cannot load {path}")
        module = importlib.util.module_from_spec(spec)
        # Registered before it runs: dataclasses and relative imports look it up.
        sys.modules[unique] = module
        try:
            spec.loader.exec_module(module)
        except Exception as error:  # the bot's own module failed to import
            del sys.modules[unique]
            raise ManifestError(f"{label}: importing {path.name} failed: "
                                f"{type(error).__name__}: {error}") from None
        _modules[unique] = module
        return module


class InProcessSandbox(Sandbox):
    """Runs SDK bot classes inside the arena (no isolation; see the module)."""

    name = "inprocess"
    description = "Python SDK bots called directly inside the arena's process (NO isolation)"

    def __init__(self, config: SandboxConfig = DEFAULT_CONFIG) -> None:
        self.config = config
        remove_leftovers_of_dead_arenas(config.socket_dir_root)

    def prepare(self, bot: BotRef) -> None:
        """Load the bot's class (a failure is the bot's STARTUP fault)."""
        try:
            load_bot_class(bot)
        except ManifestError as error:
            raise BotFault(FaultKind.STARTUP, str(error)) from None

    def start(
        self, bot: BotRef, *, series_id: str = "", seat: int | None = None, deal: str = ""
    ) -> InProcessBot:
        """A new instance of the bot's class (an instance never plays two series
        unless a ``ReusePool`` keeps it, which never deals it the same cards twice).
        Its module is loaded once per version, so module and class state outlive the
        instance: this sandbox hides nothing from its bots (see the module)."""
        sdk = _sdk()
        try:
            bot_class = load_bot_class(bot)
        except ManifestError as error:
            raise BotFault(FaultKind.STARTUP, str(error)) from None
        try:
            instance = bot_class()
        except Exception as error:  # the bot's constructor failed
            raise BotFault(FaultKind.STARTUP, f"{bot_class.__name__}() failed: "
                           f"{type(error).__name__}: {error}") from None
        identity = sdk.identity_of(instance, Path(bot.folder), identity_environment(bot))
        return InProcessBot(InProcessTarget(instance, identity.name, identity.version,
                                            identity.author))


class InProcessBot(RunningBot):
    """A bot object in the arena, called directly by the match (``in_process_target``:
    ``arena.match.direct``); see ``arena.sandbox.RunningBot``."""

    def __init__(self, direct: InProcessTarget) -> None:
        self._direct = direct

    @property
    def in_process_target(self) -> InProcessTarget:
        return self._direct

    @property
    def target(self) -> str:
        """No address: nothing is served (what a log line names the bot by)."""
        return f"in-process:{self._direct.name}@{self._direct.version}"

    def wait_ready(self, timeout: float) -> None:
        """Ready at once: the object exists."""

    def stderr_tail(self) -> str:
        # The bot writes to the arena's own stderr, shared by every bot in process:
        # nothing of it is this bot's alone. Its errors reach the arena as the fault's
        # message (the exception's type and text).
        return ""

    def fault_if_dead(self, wait_s: float = 0.0) -> BotFault | None:
        """Never: an object in the arena does not die behind the arena's back (a call
        that fails or never returns is the match's fault to report)."""
        return None

    def stop(self) -> None:
        """Nothing to remove: the connection's worker thread ends when it is closed."""


def remove_leftovers_of_dead_arenas(socket_dir_root: str = "/tmp") -> int:
    """Remove the socket directories of arenas that died without stopping their
    in-process bots (named after the arena's pid; made by arenas before the direct
    calls). Returns how many were removed."""
    removed = 0
    with contextlib.suppress(OSError):
        for entry in Path(socket_dir_root).glob(f"{WORK_PREFIX}*-*"):
            owner = entry.name.removeprefix(WORK_PREFIX).split("-")[0]
            if owner.isdigit() and not pid_alive(int(owner)):
                shutil.rmtree(entry, ignore_errors=True)
                removed += 1
    return removed
