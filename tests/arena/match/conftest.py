"""Fixtures of the match tests (tests/arena/match/*)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest


@pytest.fixture
def socket_dir() -> Iterator[str]:
    """A short temporary folder for a bot's Unix socket (socket paths are limited to
    about 100 bytes, so under /tmp)."""
    import tempfile

    with tempfile.TemporaryDirectory(prefix="hgs-", dir="/tmp") as tmp:
        yield tmp
