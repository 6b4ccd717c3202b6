"""The ``small-process`` backend: the process sandbox with half its memory (a bot
that needs more than 128 MiB is stopped, OUT_OF_MEMORY). Everything else, and
every hook, is the process sandbox's."""

from __future__ import annotations

from dataclasses import replace

from arena.sandbox.config import DEFAULT_CONFIG, MIB
from arena.sandbox.process import ProcessSandbox

SMALL_MEMORY_BYTES = 128 * MIB


class SmallProcessSandbox(ProcessSandbox):
    """Resource-limited local processes with 128 MiB each (trusted bots only)."""

    name = "small-process"
    description = "plain processes with 128 MiB each (WEAKER: no isolation)"

    def __init__(self) -> None:
        super().__init__(replace(DEFAULT_CONFIG, memory_bytes=SMALL_MEMORY_BYTES))
