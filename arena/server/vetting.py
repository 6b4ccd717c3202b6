"""The server's vetting worker: every uploaded version is built and validated in
the background (``arena.execution.vetting.vet_bot``) after its upload returns, and
ends ``active`` or ``rejected`` (with the reason, its cause, the build log tail and
the validation log kept).

* **The code that plays is the code that was vetted.** Vetting fixes the version's
  content hash when it starts and writes nothing once the version holds other code
  (``arena.storage.vetting_records``): a replace during vetting cancels that vetting
  (its result is dropped, its validation cut short) and the new code is vetted on
  its own. An ``active`` version records the hash it was vetted with.
* **Fair between authors.** ``slots`` versions at once (2 by default), round robin
  by author, one version of an author at a time (``FairQueue``); a validation plays
  a whole series within the vetting time budget
  (``arena.match.validation.VETTING_BUDGET_S``), so no version holds a slot for long.
* **The arena's failures are not the author's.** A rejection caused by the arena
  (its reference bot faulted, Docker failed) is marked so and vetted again after
  ``retry_delays_s`` (each try in turn, through the injectable ``schedule``), and at
  the next server start; ``revet`` vets a version again on demand.

Versions a stopped server left ``received``, ``building`` or ``validating`` are
vetted again when the next one starts.
"""

from __future__ import annotations

import logging
import random
import threading
from collections.abc import Callable, Sequence
from typing import Final

from arena.core.manifest import ManifestError, content_hash
from arena.core.series import BotRef
from arena.core.status import VersionStatus
from arena.execution.vetting import LineSink, StageSink, Vetting, vet_bot
from arena.sandbox import registry as sandbox_registry
from arena.server.vetting_queue import FairQueue
from arena.storage import (
    ARENA_FAILED,
    AUTHOR_FAILED,
    CodeChangedError,
    CodeToVet,
    Storage,
    VettingVerdict,
    code_to_vet,
    mark_for_revetting,
    newest_active,
    record_verdict,
    rejected_by_arena,
    rejection_cause,
    set_stage,
    unfinished,
)

log = logging.getLogger(__name__)

DEFAULT_VETTING_SLOTS: Final = 2
"""Versions vetted at once: one author's endless build never holds up another."""
DEFAULT_RETRY_DELAYS_S: Final = (30.0, 120.0, 600.0)
"""Waits before each automatic retry of a version the arena rejected."""

Vetter = Callable[[BotRef, StageSink, LineSink], Vetting]
"""Vets one version: (bot, stage sink, line sink) -> ``Vetting``."""
Schedule = Callable[[float, Callable[[], None]], None]
"""Runs a callable after a delay in seconds (a timer by default; tests drive it)."""


class _Cancelled(Exception):
    """The version's code was replaced (or the server stops) while it was vetted."""


class VettingWorker:
    """Vets versions in the sandbox backend ``sandbox_name`` (or with ``vetter``)."""

    def __init__(self, storage: Storage, sandbox_name: str, *,
                 build_timeout_s: float | None = None, slots: int = DEFAULT_VETTING_SLOTS,
                 vetter: Vetter | None = None,
                 retry_delays_s: Sequence[float] = DEFAULT_RETRY_DELAYS_S,
                 schedule: Schedule | None = None) -> None:
        self.storage = storage
        self.sandbox_name = sandbox_name
        self.build_timeout_s = build_timeout_s
        self.vetter: Vetter = vetter or self._vet_in_sandbox
        self.retry_delays_s = tuple(retry_delays_s)
        self._schedule: Schedule = schedule or self._timer
        self._timers: list[threading.Timer] = []
        self._queue = FairQueue(slots)
        self._changed = threading.Condition()
        self._cancelled: set[str] = set()
        self._arena_tries: dict[str, int] = {}
        self._stopping = threading.Event()
        self._threads = [threading.Thread(target=self._serve, name=f"arena-vetting-{n}",
                                          daemon=True) for n in range(slots)]
        for thread in self._threads:
            thread.start()

    # -- what the server asks

    def resume(self) -> list[str]:
        """Queue the versions a stopped server left unvetted, and those the arena
        rejected (vetted again once per start); returns their ids."""
        for bot_id in rejected_by_arena(self.storage):
            mark_for_revetting(self.storage, bot_id, "the arena, at its restart")
        waiting = unfinished(self.storage)
        for bot_id in waiting:
            self.submit(bot_id)
        return waiting

    def queue_lengths(self) -> tuple[int, int]:
        """Versions waiting to be vetted, and being vetted."""
        with self._changed:
            return len(self._queue.waiting()), len(self._queue.running())

    def submit(self, bot_id: str) -> bool:
        """Queue ``bot_id`` (False if it waits already). A version being vetted is
        queued again: its code was replaced, so that vetting is cancelled."""
        author = code_to_vet(self.storage, bot_id).owner
        with self._changed:
            if bot_id in self._queue.running().values():
                self._cancelled.add(bot_id)
            queued = self._queue.add(author, bot_id)
            self._changed.notify_all()
        return queued

    def uploaded(self, bot_id: str, *, created: bool) -> None:
        """After an upload of ``bot_id``: vet new code; an identical re-upload of a
        version the arena rejected vets it again (the author's natural retry)."""
        if created:
            self.submit(bot_id)
        elif rejection_cause(self.storage, bot_id) == ARENA_FAILED:
            self.revet(bot_id, "an identical re-upload")

    def revet(self, bot_id: str, asked_by: str) -> None:
        """Vet ``bot_id`` again (``LifecycleError`` while it is vetted or deactivated)."""
        mark_for_revetting(self.storage, bot_id, asked_by)
        with self._changed:
            self._arena_tries.pop(bot_id, None)
        self.submit(bot_id)

    def busy(self) -> dict[str, str]:
        """Bot id being vetted, by author."""
        with self._changed:
            return self._queue.running()

    def stop(self) -> None:
        """Stop vetting (a version being vetted is left in its stage: the next
        server vets it again)."""
        self._stopping.set()
        with self._changed:
            self._changed.notify_all()
            timers, self._timers = self._timers, []
        for timer in timers:
            timer.cancel()

    # -- the worker threads

    def _serve(self) -> None:
        while True:
            with self._changed:
                job = self._queue.take()
                while job is None and not self._stopping.is_set():
                    self._changed.wait()
                    job = self._queue.take()
                if self._stopping.is_set():
                    return
            assert job is not None
            author, bot_id = job
            try:
                self._vet(bot_id)
            except Exception:  # e.g. a locked database: this thread serves on
                log.exception("vetting %s failed", bot_id)
            finally:
                with self._changed:
                    self._queue.done(author)
                    self._cancelled.discard(bot_id)
                    self._changed.notify_all()

    def _vet(self, bot_id: str) -> None:
        code = code_to_vet(self.storage, bot_id)

        def checked(stage: VersionStatus | None = None) -> None:
            if bot_id in self._cancelled or self._stopping.is_set():
                raise _Cancelled
            if stage is not None and not set_stage(self.storage, code, VersionStatus(stage)):
                raise _Cancelled

        try:
            if content_hash(code.folder) != code.content_hash:
                raise RuntimeError("the arena's copy of its files does not match its hash")
            bot = BotRef.from_folder(code.folder)
            vetting = self.vetter(bot, checked, lambda _line: checked())
            checked()
            verdict = self._verdict(code, vetting)
        except _Cancelled:
            log.info("vetting %s cancelled: %s", bot_id, "the server stops"
                     if self._stopping.is_set() else "its code was replaced")
            return
        except Exception as error:  # the arena's side (e.g. Docker is down): say so
            if self._stopping.is_set():  # cut short by the stop: the next server vets it
                log.info("vetting %s stopped with the server", bot_id)
                return
            log.exception("vetting %s failed on the arena's side", bot_id)
            verdict = self._arena_verdict(
                code, f"the arena could not vet it ({type(error).__name__}: "
                f"{self._public(code, str(error))})")
        try:
            record_verdict(self.storage, code, verdict)
        except CodeChangedError as error:
            log.info("%s", error)
            return
        log.info("bot %s %s%s", bot_id, verdict.status,
                 f": {verdict.detail}" if verdict.status is VersionStatus.REJECTED else "")

    def _verdict(self, code: CodeToVet, vetting: Vetting) -> VettingVerdict:
        logs = {"image_id": vetting.image_id,
                "build_log": self._public(code, vetting.build_log),
                "validation_log": self._public(code, vetting.validation_log)}
        if vetting.passed:
            with self._changed:
                self._arena_tries.pop(code.bot_id, None)
            return VettingVerdict(VersionStatus.ACTIVE, "built and validated", **logs)
        reason = self._public(code, vetting.reason)
        if vetting.arena_caused:
            return self._arena_verdict(code, reason, **logs)
        with self._changed:
            self._arena_tries.pop(code.bot_id, None)
        return VettingVerdict(VersionStatus.REJECTED, reason, AUTHOR_FAILED, **logs)

    def _arena_verdict(self, code: CodeToVet, reason: str, **logs: str) -> VettingVerdict:
        """A rejection the arena caused, with its automatic retry scheduled (bounded)."""
        with self._changed:
            tries = self._arena_tries.get(code.bot_id, 0)
            retry = tries < len(self.retry_delays_s)
            if retry:
                self._arena_tries[code.bot_id] = tries + 1
        if retry:
            delay = self.retry_delays_s[tries]
            self._schedule(delay, lambda: self._retry(code))
            then = (f"not your bot's fault: vetted again in {delay:g} s "
                    f"(retry {tries + 1} of {len(self.retry_delays_s)})")
        else:
            then = (f"not your bot's fault, but {tries} retries failed too: ask the "
                    "arena's admin, then `arena bots revet` it")
        return VettingVerdict(VersionStatus.REJECTED, f"{reason}; {then}", ARENA_FAILED, **logs)

    def _retry(self, code: CodeToVet) -> None:
        if self._stopping.is_set() or rejection_cause(self.storage, code.bot_id) != ARENA_FAILED:
            return
        if code_to_vet(self.storage, code.bot_id).content_hash != code.content_hash:
            return  # replaced since: the new code has its own vetting
        mark_for_revetting(self.storage, code.bot_id, "the arena (automatic retry)")
        self.submit(code.bot_id)

    def _vet_in_sandbox(self, bot: BotRef, on_stage: StageSink, on_line: LineSink
                        ) -> Vetting:
        return vet_bot(bot, self.sandbox_name, build_timeout_s=self.build_timeout_s,
                       on_stage=on_stage, on_line=on_line, opponent=self.draw_opponent(bot))

    def draw_opponent(self, bot: BotRef) -> BotRef | None:
        """An opponent drawn as play draws them: one of the arena's active versions
        of another bot that runs in this sandbox, at random (None when there is
        none: the sample ``random`` bot plays)."""
        backend = sandbox_registry.backend(self.sandbox_name)
        candidates = [bot_id for bot_id in newest_active(self.storage)
                      if bot_id.partition("@")[0] != bot.name]
        random.SystemRandom().shuffle(candidates)
        for bot_id in candidates:
            try:
                opponent = BotRef.from_folder(self.storage.get_bot(bot_id).folder)
                backend.check_bot(opponent.manifest)
            except ManifestError:
                continue
            return opponent
        return None

    def _timer(self, delay_s: float, action: Callable[[], None]) -> None:
        timer = threading.Timer(delay_s, action)
        timer.daemon = True
        with self._changed:
            if self._stopping.is_set():
                return
            self._timers = [t for t in self._timers if t.is_alive()]
            self._timers.append(timer)
        timer.start()

    def _public(self, code: CodeToVet, text: str) -> str:
        """``text`` without the server's paths (an author sees its own files' names)."""
        for path, shown in ((str(code.folder), "<bot folder>"),
                            (str(self.storage.bots_dir), "<arena bots>"),
                            (str(self.storage.path.parent), "<arena data>")):
            text = text.replace(path, shown)
        return text
