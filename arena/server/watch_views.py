"""A watched view's standings as a chain of updates, each built and encoded once for
every stream of the view, as whole standings and as a delta from the previous one.

A view is what a ``WatchSeason`` stream asked to see: the whole table, its top
rows, some bots' rows, with or without the likelihoods of superiority. Every
stream of a view is handed the same ``ViewUpdate`` (its standings after a feed tick,
``arena.season.live_feed``), so the bytes sent are encoded once per change per
view, however many streams send them: a stream whose previous standings are the
update's base sends the delta, any other (one that just joined, or fell behind)
the whole.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass
from typing import TypeVar

from google.protobuf.message import Message
from hollywood.arena.v1 import arena_pb2

View = tuple[int, int, tuple[str, ...], bool, bool]
"""(season id, top rows, bots' rows, with LOS, as deltas): what a stream shows and
how (a view of deltas builds them, one of whole standings does not)."""

Item = TypeVar("Item", bound=Message)


def encode(message: Message) -> bytes:
    """A message as sent on the wire: the one place a watch message is serialized."""
    return message.SerializeToString()


@dataclass(frozen=True)
class ViewUpdate:
    """The standings of one view after one change, as sent."""

    number: int
    """Its place in the view's chain (1, 2, ...): a delta applies to number - 1."""
    tick: int
    """The feed tick it was built for."""
    state: tuple[Hashable, ...]
    """What it was built from: (sequence, status, series done, series total)."""
    message: arena_pb2.WatchSeasonResponse
    whole: bytes
    delta: bytes | None
    """As a ``standings_delta`` from the previous update (None: the first, or a row
    has gone)."""
    built_at: float = 0.0

    def data(self, held: int) -> bytes:
        """What a stream that last sent update ``held`` sends: the delta when that is
        the previous update (and the view has deltas)."""
        if self.delta is not None and held == self.number - 1:
            return self.delta
        return self.whole


def next_update(previous: ViewUpdate | None, tick: int, state: tuple[Hashable, ...],
                message: arena_pb2.WatchSeasonResponse, *, deltas: bool,
                built_at: float) -> ViewUpdate:
    """The update after ``previous`` holding ``message`` (standings); with ``deltas``
    also as a delta from ``previous``."""
    delta = None
    if deltas and previous is not None:
        changed = standings_delta(previous.message.standings, message.standings)
        if changed is not None:
            delta = encode(arena_pb2.WatchSeasonResponse(
                status=message.status, series_done=message.series_done,
                series_total=message.series_total,
                standings_delta=arena_pb2.StandingsDelta(
                    base_sequence=previous.message.standings.sequence, standings=changed)))
    return ViewUpdate(1 if previous is None else previous.number + 1, tick, state, message,
                      encode(message), delta, built_at)


def standings_delta(before: arena_pb2.Standings, after: arena_pb2.Standings
                    ) -> arena_pb2.Standings | None:
    """``after`` without the rows, crosstable cells and LOS cells equal in ``before``;
    None when ``after`` lacks a row of ``before`` (a delta adds and changes only)."""
    after_bots = {row.bot_id for row in after.rows}
    if any(row.bot_id not in after_bots for row in before.rows):
        return None
    delta = arena_pb2.Standings()
    # Copied without the three lists (each may hold n² entries), then each list's
    # changed entries.
    for field, value in after.ListFields():
        if field.name not in ("rows", "crosstable", "los"):
            if field.is_repeated:
                getattr(delta, field.name).extend(value)
            elif field.message_type is not None:
                getattr(delta, field.name).CopyFrom(value)
            else:
                setattr(delta, field.name, value)
    delta.rows.extend(_changed(before.rows, after.rows, _bot))
    delta.crosstable.extend(_changed(before.crosstable, after.crosstable, _pair))
    delta.los.extend(_changed(before.los, after.los, _pair))
    return delta


def _bot(item: arena_pb2.StandingRow) -> Hashable:
    return item.bot_id


def _pair(item: arena_pb2.CrosstableCell | arena_pb2.LosCell) -> Hashable:
    return (item.bot_id, item.opponent_id)


def _changed(before: Sequence[Item], after: Sequence[Item],
             key: Callable[[Item], Hashable]) -> list[Item]:
    if len(before) == len(after):
        # Mostly the same entries in the same order (a stored series changes two
        # crosstable cells of 9,900): compared in place, no key built. An entry whose
        # place holds another key differs, so it is sent too: never one too few.
        return [item for old, item in zip(before, after, strict=True) if old != item]
    old = {key(item): item for item in before}
    return [item for item in after if old.get(key(item)) != item]
