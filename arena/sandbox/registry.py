"""The sandbox backends by name: the one list that season validation, the command
line's ``--sandbox`` choices, the proto conversion and the server's runner all read.

Adding a backend is one module (a subclass of ``arena.sandbox.base.Sandbox`` whose
bots subclass ``RunningBot``) plus one ``register`` line below, which declares what
the backend can do (``Capabilities``). Code outside ``arena.sandbox`` asks those
capabilities and never names a backend (checked by a test); the default backend is
``DEFAULT`` here (a season's empty ``sandbox`` means it). A backend's module is
imported only when a season uses it, so naming the backends (e.g. for ``--help``)
loads no Docker SDK.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Final

from arena.core.manifest import BotManifest, ManifestError
from arena.core.settings import ConfigError
from arena.sandbox.base import Sandbox


class UnknownSandboxError(ConfigError):
    """A season names a sandbox backend that is not registered."""


@dataclass(frozen=True)
class Capabilities:
    """What a backend does that must be known before it is used: each field is a
    question the registry (``create``, ``check_bot``) or a caller outside
    ``arena.sandbox`` asks, rather than comparing the backend's name."""

    builds_images: bool = False
    """Bots run from an image built from their folder: vetting has a build stage
    (``arena.execution.vetting``) and ``arena demo`` builds the samples' images."""
    reuses_bots: bool = False
    """The factory takes ``series_per_container`` (a bot serves that many series)."""
    needs_sdk_class: bool = False
    """Bots must name their SDK bot class in ``bot.toml`` (``[run] sdk_class``)."""


@dataclass(frozen=True)
class Backend:
    """A registered sandbox backend."""

    name: str
    summary: str
    """One line for ``--help`` and the docs."""
    factory: str
    """``module:attribute`` of a callable taking no arguments that returns the
    ``Sandbox`` (usually the class)."""
    capabilities: Capabilities = Capabilities()

    def create(self, series_per_container: int | None = None) -> Sandbox:
        """A new sandbox of this backend (imports its module on first use); a backend
        that reuses bots keeps each for ``series_per_container`` series (its default
        when None), the others start a bot per series whatever it says."""
        module_name, _, attribute = self.factory.partition(":")
        make: Callable[..., Sandbox] = getattr(importlib.import_module(module_name), attribute)
        if self.capabilities.reuses_bots and series_per_container is not None:
            return make(series_per_container=series_per_container)
        return make()

    def check_bot(self, manifest: BotManifest) -> None:
        """Raise ``ManifestError`` if a bot with ``manifest`` cannot run in this backend."""
        if self.capabilities.needs_sdk_class and not manifest.sdk_class:
            raise ManifestError(
                f"bot {manifest.name}@{manifest.version} cannot run in the {self.name} sandbox: "
                "its bot.toml names no SDK bot class (add [run] sdk_class = "
                '"module:Class", e.g. "greedy_bot:GreedyBot")')


_BACKENDS: dict[str, Backend] = {}


def register(backend: Backend) -> None:
    """Make ``backend`` available by its name (replacing one of the same name)."""
    _BACKENDS[backend.name] = backend


def unregister(name: str) -> None:
    """Remove a backend (tests that registered a fake one)."""
    _BACKENDS.pop(name, None)


def names() -> tuple[str, ...]:
    """The registered backend names, sorted."""
    return tuple(sorted(_BACKENDS))


def default_name() -> str:
    """The backend a season or a worker uses when none is named."""
    return DEFAULT


def backend(name: str) -> Backend:
    """The backend called ``name`` (empty: the default one); raises
    ``UnknownSandboxError`` listing the known ones."""
    try:
        return _BACKENDS[name or DEFAULT]
    except KeyError:
        raise UnknownSandboxError(
            f"sandbox must be one of {', '.join(names())}, got {name!r}") from None


def create(name: str, *, series_per_container: int | None = None) -> Sandbox:
    """A new sandbox of the backend called ``name`` (``UnknownSandboxError`` if none);
    see ``Backend.create`` for ``series_per_container``."""
    return backend(name).create(series_per_container)


DEFAULT: Final = "docker"

register(Backend("docker", "hardened Docker containers (the default), each reused for a "
                 "bot version's next series", "arena.sandbox.reuse:docker_sandbox",
                 Capabilities(builds_images=True, reuses_bots=True)))
register(Backend("process", "resource-limited local processes (weaker: trusted bots only)",
                 "arena.sandbox.process:ProcessSandbox"))
register(Backend("inprocess", "Python SDK bots called directly inside the arena's process "
                 "(no isolation: trusted bots only)", "arena.sandbox.inprocess:InProcessSandbox",
                 Capabilities(needs_sdk_class=True)))
