"""The server's vetting worker: every uploaded version is built and validated in
the background (``arena.execution.vetting.vet_bot``) after its upload returns, one
at a time, and ends ``active`` or ``rejected`` (with the reason, the build log tail
and the validation log kept). Versions a stopped server left ``received``,
``building`` or ``validating`` are vetted again when the next one starts.
"""

from __future__ import annotations

import logging
import threading
from concurrent.futures import Future, ThreadPoolExecutor

from arena.core.series import BotRef
from arena.execution.vetting import vet_bot
from arena.storage import Storage
from arena.storage.lifecycle import (
    ACTIVE,
    REJECTED,
    record_build,
    record_validation,
    set_status,
    unfinished,
)

log = logging.getLogger(__name__)


class VettingWorker:
    """Vets versions in the sandbox backend ``sandbox_name``, one at a time."""

    def __init__(self, storage: Storage, sandbox_name: str, *,
                 build_timeout_s: float | None = None) -> None:
        self.storage = storage
        self.sandbox_name = sandbox_name
        self.build_timeout_s = build_timeout_s
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="arena-vetting")
        self._lock = threading.Lock()
        self._queued: set[str] = set()
        self._stopping = threading.Event()

    def resume(self) -> list[str]:
        """Queue the versions a stopped server left unvetted; returns their ids."""
        waiting = unfinished(self.storage)
        for bot_id in waiting:
            self.submit(bot_id)
        return waiting

    def submit(self, bot_id: str) -> Future[None] | None:
        """Queue ``bot_id`` (None if it is queued already)."""
        with self._lock:
            if bot_id in self._queued:
                return None
            self._queued.add(bot_id)
        return self._pool.submit(self._vet, bot_id)

    def stop(self) -> None:
        """Stop vetting (a version being vetted is left in its stage: the next
        server vets it again)."""
        self._stopping.set()
        self._pool.shutdown(wait=False, cancel_futures=True)

    def _vet(self, bot_id: str) -> None:
        try:
            bot = BotRef.from_folder(self.storage.get_bot(bot_id).folder)
            vetting = vet_bot(
                bot, self.sandbox_name, build_timeout_s=self.build_timeout_s,
                on_stage=lambda stage: set_status(self.storage, bot_id, stage))
            record_build(self.storage, bot_id, vetting.image_id, vetting.build_log)
            record_validation(self.storage, bot_id, vetting.validation_log)
            if vetting.passed:
                set_status(self.storage, bot_id, ACTIVE, "built and validated")
            else:
                set_status(self.storage, bot_id, REJECTED, vetting.reason)
            log.info("bot %s %s%s", bot_id, ACTIVE if vetting.passed else REJECTED,
                     "" if vetting.passed else f": {vetting.reason}")
        except Exception as error:  # the arena's side (e.g. Docker is down): say so
            if self._stopping.is_set():  # cut short by the stop: the next server vets it
                log.info("vetting %s stopped with the server", bot_id)
                return
            log.exception("vetting %s failed on the arena's side", bot_id)
            set_status(self.storage, bot_id, REJECTED,
                       f"the arena could not vet it ({type(error).__name__}: {error}); "
                       "ask the arena's admin, then submit again")
        finally:
            with self._lock:
                self._queued.discard(bot_id)
