"""Local ports for the servers and bots a test starts as processes of their own."""

from __future__ import annotations

import socket


def free_port() -> int:
    """A port nothing listens on now (the process the test starts binds it next)."""
    with socket.socket() as probe:
        probe.bind(("localhost", 0))
        return int(probe.getsockname()[1])


def accepts(port: int) -> bool:
    """Something listens on ``port`` of localhost."""
    try:
        with socket.create_connection(("localhost", port), timeout=1.0):
            return True
    except OSError:
        return False
