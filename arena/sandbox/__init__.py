"""Sandboxes: where a bot's code runs while it plays a series.

A ``Sandbox`` starts a bot (``BotRef``) and hands back a ``RunningBot``: the gRPC
target to call it on, its stderr tail, its own verdict on why it died, and ``stop``.
The backends, by name in ``arena.sandbox.registry``: ``docker`` (arena.sandbox.docker)
is the default; ``process`` (arena.sandbox.process) is a much weaker fallback for
machines without Docker; ``inprocess`` (arena.sandbox.inprocess) serves Python SDK
bot classes inside the arena (no isolation; trusted bots, tests, quick trials).
"""

from arena.sandbox.base import RunningBot, SandboxError

__all__ = ["RunningBot", "SandboxError"]
