"""A watch stream sends every series event, and the latest standings at most once
per interval and only once it has caught up with the events (clock injected)."""

from __future__ import annotations

from typing import Any

from arena.season.events import EventHub, SeasonEvent
from arena.server.watch import WatchStream


class Messages:
    """Stands in for the shared messages: names what would be sent."""

    def __init__(self) -> None:
        self.sequence = 0

    def standings(self, season_id: int, top: int, bots: tuple[str, ...], *,
                  fresh: bool = False) -> Any:
        return ("standings", self.sequence, fresh)

    def started(self, season_id: int, series_id: str) -> Any:
        return ("started", series_id)

    def finished(self, season_id: int, series_id: str) -> Any:
        self.sequence += 1
        return ("finished", series_id)


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_standings_come_at_most_once_per_interval_and_the_last_one_always() -> None:
    hub, clock, messages = EventHub(), Clock(), Messages()
    stream = WatchStream(messages, 1, 20, [], interval=0.25, clock=clock)  # type: ignore[arg-type]
    with hub.subscribe(1) as subscription:
        sent = stream.follow(subscription, lambda: True, lambda: False)
        assert next(sent) == ("standings", 0, True)
        clock.now += 1.0
        for series in ("1-0", "1-1"):
            hub.publish(SeasonEvent("series_started", 1, series_id=series))
            hub.publish(SeasonEvent("series_finished", 1, series_id=series))
        # Behind with events: no standings until they are all sent.
        assert [next(sent) for _ in range(4)] == [
            ("started", "1-0"), ("finished", "1-0"), ("started", "1-1"), ("finished", "1-1")]
        assert next(sent) == ("standings", 2, False)
        hub.publish(SeasonEvent("series_finished", 1, series_id="1-2"))
        assert next(sent) == ("finished", "1-2")
        # Within the interval: held back; the stream waits out the rest of it.
        hub.publish(SeasonEvent("series_started", 1, series_id="1-3"))
        assert next(sent) == ("started", "1-3")
        clock.now += 0.25
        assert next(sent) == ("standings", 3, False)
        hub.publish(SeasonEvent("series_finished", 1, series_id="1-3"))
        hub.publish(SeasonEvent("status", 1, status="finished"))
        assert next(sent) == ("finished", "1-3")
        assert next(sent) == ("standings", 4, True)  # the final standings, then the end
        assert next(sent, None) is None
