"""Versions stored as an upload stores them (``received``, owned by an author), and
a vetter that blocks each version until the test releases it: what the vetting
fairness tests and bench share."""

from __future__ import annotations

import shutil
import tempfile
import threading
from collections.abc import Callable
from pathlib import Path

from arena.core.manifest import BotManifest, content_hash
from arena.core.series import BotRef
from arena.execution.vetting import Vetting
from arena.storage import Storage, Submission, store_submission
from tests.helpers.arena_helpers import REPO_ROOT

RANDOM_BOT = REPO_ROOT / "sample_bots" / "random"


def store_version(storage: Storage, root: Path, author: str, name: str, version: str) -> str:
    """Store ``name@version`` (the random bot's code, renamed) for ``author`` as an
    upload to a vetting server is stored; returns its id."""
    folder = root / f"{name}-{version}"
    shutil.copytree(RANDOM_BOT, folder)
    toml = (folder / "bot.toml").read_text().replace('name = "random"', f'name = "{name}"')
    (folder / "bot.toml").write_text(toml.replace('version = "1.0.0"',
                                                  f'version = "{version}"'))
    archive = Path(tempfile.mkstemp(dir=root, suffix=".tar.gz")[1])
    submission = Submission(BotManifest.load(folder), content_hash(folder), folder, archive,
                            ".tar.gz")
    record, created, _ = store_submission(storage, submission, submitter=author,
                                          replace=False, status="received")
    assert created
    return record.id


class BlockingVetter:
    """Vets nothing: each version blocks until ``release(bot_id)``, then passes.
    Records the order versions start in and the most of one author's versions that
    ever ran at once."""

    def __init__(self, owner_of: Callable[[str], str]) -> None:
        self.owner_of = owner_of
        self.lock = threading.Lock()
        self.started: list[str] = []
        self.running: dict[str, int] = {}
        self.most_at_once: dict[str, int] = {}
        self.gates: dict[str, threading.Event] = {}

    def gate(self, bot_id: str) -> threading.Event:
        with self.lock:
            return self.gates.setdefault(bot_id, threading.Event())

    def release(self, bot_id: str) -> None:
        self.gate(bot_id).set()

    def release_all(self) -> None:
        with self.lock:
            gates = list(self.gates.values())
        for gate in gates:
            gate.set()

    def __call__(self, bot: BotRef, on_stage: Callable[[str], None],
                 on_line: Callable[[str], None]) -> Vetting:
        bot_id = f"{bot.name}@{bot.version}"
        author = self.owner_of(bot_id)
        gate = self.gate(bot_id)
        with self.lock:
            self.started.append(bot_id)
            self.running[author] = self.running.get(author, 0) + 1
            self.most_at_once[author] = max(self.most_at_once.get(author, 0),
                                            self.running[author])
        try:
            on_stage("building")
            assert gate.wait(timeout=120), f"the test never released {bot_id}"
        finally:
            with self.lock:
                self.running[author] -= 1
        return Vetting(passed=True, validation_log="blocking vetter: released")

    def has_started(self, bot_id: str) -> bool:
        with self.lock:
            return bot_id in self.started
