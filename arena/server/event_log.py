"""The operator's log: one line per season event (created, started, resumed,
finished, cancelled, failed) and per fault, on the ``arena.events`` logger.

``configure_event_log`` sends that logger to stderr as text or as JSON lines (one
object per line, keys in a fixed order: ``time``, ``level``, ``event``, then the
event's own fields in the order ``EVENT_FIELDS`` gives). Bot-supplied text (a
fault's reason) is neutralised (``arena.core.text``) and cut to ``MAX_REASON_CHARS``.
``LoggingHub`` and ``LoggingSeasonManager`` log what the season layer does, so the
season layer itself knows nothing of the log."""

from __future__ import annotations

import json
import logging
import sys
import time
from typing import Any, Final, TextIO

from arena.core.faults import BotFault
from arena.core.status import SeasonStatus
from arena.core.text import bounded, neutralise
from arena.season.events import EventHub, SeasonEvent
from arena.season.manager import SeasonManager
from arena.storage import NotFoundError, SeasonRecord, Storage

EVENT_LOGGER: Final = "arena.events"
LOG_FORMATS: Final = ("text", "json")
MAX_REASON_CHARS: Final = 300
EVENT_FIELDS: Final = ("season", "name", "bots", "series_total", "series_done", "status",
                       "series", "bot", "seat", "kind", "reason", "error")
"""The order of an event's fields in a JSON line (those it has)."""

events_log = logging.getLogger(EVENT_LOGGER)
_HANDLER_MARK: Final = "_arena_event_log"


class JsonLineFormatter(logging.Formatter):
    """One JSON object per record: time, level, event, then the event's fields."""

    def format(self, record: logging.LogRecord) -> str:
        fields: dict[str, Any] = getattr(record, "fields", {})
        line: dict[str, Any] = {
            "time": _utc(record.created), "level": record.levelname.lower(),
            "event": getattr(record, "event", "message"),
        }
        line.update((key, fields[key]) for key in EVENT_FIELDS if key in fields)
        if "event" not in record.__dict__:
            line["message"] = record.getMessage()
        return json.dumps(line, ensure_ascii=True)


class TextLineFormatter(logging.Formatter):
    """``<time> <level> <message>``, e.g. ``2026-12-01T04:44:44Z INFO season 3 finished``."""

    def format(self, record: logging.LogRecord) -> str:
        return f"{_utc(record.created)} {record.levelname} {record.getMessage()}"


def _utc(created: float) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(created))


class _StderrHandler(logging.Handler):
    """Writes to whatever ``sys.stderr`` is when a line is logged (a live view may
    redirect it; a test captures it)."""

    def emit(self, record: logging.LogRecord) -> None:
        try:
            sys.stderr.write(self.format(record) + "\n")
            sys.stderr.flush()
        except Exception:
            self.handleError(record)


def configure_event_log(log_format: str = "text", stream: TextIO | None = None) -> None:
    """Send the event log to ``stream`` (default: the current stderr) as ``text`` or
    ``json`` lines, replacing what an earlier call set up."""
    if log_format not in LOG_FORMATS:
        raise ValueError(f"unknown log format {log_format!r} (known: {', '.join(LOG_FORMATS)})")
    for previous in list(events_log.handlers):
        if getattr(previous, _HANDLER_MARK, False):
            events_log.removeHandler(previous)
    handler: logging.Handler = (
        _StderrHandler() if stream is None else logging.StreamHandler(stream))
    setattr(handler, _HANDLER_MARK, True)
    handler.setFormatter(JsonLineFormatter() if log_format == "json" else TextLineFormatter())
    events_log.addHandler(handler)
    events_log.setLevel(logging.INFO)
    events_log.propagate = False


def log_event(event: str, text: str, level: int = logging.INFO, **fields: Any) -> None:
    """One line: ``text`` for people, ``event`` and ``fields`` for programs."""
    events_log.log(level, text, extra={"event": event, "fields": fields})


def season_created(season: SeasonRecord) -> None:
    log_event("season_created",
              f"season {season.id} created: {neutralise(season.name)!r}, "
              f"{len(season.bot_ids)} bots, {season.series_total} series",
              season=season.id, name=neutralise(season.name), bots=list(season.bot_ids),
              series_total=season.series_total)


class LoggingSeasonManager(SeasonManager):
    """The season manager, logging each season it starts or resumes."""

    _resuming: frozenset[int] = frozenset()

    def starting(self, season_id: int) -> None:
        event = "resumed" if season_id in self._resuming else "started"
        season = self.storage.get_season(season_id)
        log_event(f"season_{event}",
                  f"season {season_id} {event}: {season.series_done}/"
                  f"{season.series_total} series played",
                  season=season_id, series_done=season.series_done,
                  series_total=season.series_total)

    def resume_interrupted(self) -> list[int]:
        self._resuming = frozenset(self.storage.seasons_with_status(SeasonStatus.RUNNING))
        try:
            return super().resume_interrupted()
        finally:
            self._resuming = frozenset()


class LoggingHub(EventHub):
    """The event hub, logging each season's end and each fault as it is published."""

    def __init__(self, storage: Storage) -> None:
        super().__init__()
        self.storage = storage

    def publish(self, event: SeasonEvent) -> None:
        try:
            self._log(event)
        except Exception:  # the log never stops a season
            logging.getLogger(__name__).exception("logging %s failed", event)
        super().publish(event)

    def _log(self, event: SeasonEvent) -> None:
        if event.kind == "status" and SeasonStatus(event.status).is_terminal:
            season = self.storage.get_season(event.season_id)
            status = str(event.status)
            level = logging.ERROR if status == SeasonStatus.FAILED else logging.INFO
            error = neutralise(bounded(season.error, MAX_REASON_CHARS))
            log_event(f"season_{status}",
                      f"season {season.id} {status}: {season.series_done}/"
                      f"{season.series_total} series played" + (f": {error}" if error else ""),
                      level, season=season.id, status=status,
                      series_done=season.series_done, series_total=season.series_total,
                      **({"error": error} if error else {}))
        elif event.kind == "series_finished" and event.forfeit:
            try:
                result = event.result or self.storage.get_result(event.series_id)
            except NotFoundError:
                return
            if result is None or result.fault is None:
                return
            for seat, fault in enumerate(result.seat_faults):
                if fault is not None:
                    self._log_fault(event.season_id, event.series_id, result.bots[seat],
                                    seat, fault)

    @staticmethod
    def _log_fault(season_id: int, series_id: str, bot: str, seat: int,
                   fault: BotFault) -> None:
        kind = neutralise(str(fault.kind))
        reason = neutralise(bounded(fault.message, MAX_REASON_CHARS))
        log_event("fault", f"fault in series {series_id}: {neutralise(bot)} (seat {seat}) "
                  f"forfeited, {kind}: {reason}", logging.WARNING, season=season_id,
                  series=series_id, bot=neutralise(bot), seat=seat, kind=kind, reason=reason)
