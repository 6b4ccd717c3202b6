"""The gate of an open-ended format (the ladder's ``--gate sprt``) as the runner
plans its rounds: which new versions wait off the ladder, their matches opened,
played and decided.

Before each round (``arena.season.open_rounds``), for every name that has been
on the ladder, its *predecessor* is its member in the latest round that had one;
an active version of that name registered after it is held off the ladder until
its gate admits it (``LadderGate.admits``: the match accepted it under the rule
accepted-replaces, or its owner admitted it: ``arena ladder admit``). The newest
held version of a name gets a gate match against the predecessor: opened once
(stored with its season in one transaction, ``arena.storage.ladder_gates``), then
started by ``start_match`` (the season manager's ``start``: the match is a season
of its own, played by the same executors as any, the local pool or the cluster;
without a manager the runner plays it in place) at every round until it stops.
A match that finished or failed is decided from its results as soon as it
stops (``settle_match``, called by the season manager, or at the ladder's next
round); a cancelled one is resumed. A version whose name was never on the ladder joins directly.

One gate match per name (issue 43): once a newer version of a name has its gate,
an older version's match that is still unfinished is stopped (``stop_match``: the
manager's ``cancel``) and its gate decided ``superseded`` with the figures it had,
so uploading versions in a row never leaves several matches playing for one name.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace

from arena.core.settings import SeasonConfig
from arena.core.status import SeasonStatus
from arena.season.formats import LadderGate, OpenEnded, format_for, new_deal_key
from arena.storage import (
    GATE_PENDING,
    GATE_SUPERSEDED,
    GateMatch,
    GateRecord,
    Storage,
    decide_gate,
    gate_of_match,
    gates_of_ladder,
    open_gate,
)

StartMatch = Callable[[int], None]
"""Starts (or resumes) the season of a gate match; a no-op if it is playing."""
StopMatch = Callable[[int], None]
"""Stops the season of a superseded gate match: no new series start, those in flight
finish and are stored."""

_PLAYABLE = (SeasonStatus.CREATED, SeasonStatus.RUNNING, SeasonStatus.CANCELLED)


def predecessors(history: Sequence[Sequence[str]]) -> dict[str, str]:
    """Each name's member in the latest round that had one (its newest there)."""
    found: dict[str, str] = {}
    for members in history:
        for bot_id in members:
            found[bot_id.partition("@")[0]] = bot_id
    return found


def held_off(storage: Storage, ladder_id: int, config: SeasonConfig, gate: LadderGate,
             candidates: Sequence[str], history: Sequence[Sequence[str]],
             matches: GateMatches) -> set[str]:
    """The versions of ``candidates`` (in registration order) that wait off the
    ladder for their gate; opens, starts, stops and decides the gate matches on the
    way."""
    before = predecessors(history)
    order = {bot.id: index for index, bot in enumerate(storage.list_bots())}
    newer = [bot_id for bot_id in candidates
             if (old := before.get(bot_id.partition("@")[0])) is not None
             and order.get(bot_id, -1) > order.get(old, -1)]
    gates = {g.bot_id: g for g in gates_of_ladder(storage, ladder_id)}
    newest = {bot_id.partition("@")[0]: bot_id for bot_id in newer}  # the last wins
    for bot_id in newest.values():
        if bot_id not in gates:
            gates[bot_id] = _open(storage, ladder_id, config, gate, bot_id,
                                  before[bot_id.partition("@")[0]])
    for old_gate in superseded(gates.values(), order):
        gates[old_gate.bot_id] = _supersede(storage, gate, old_gate, matches.stop)
    for bot_id in newer:
        found = gates.get(bot_id)
        if found is not None and found.verdict.status == GATE_PENDING:
            gates[bot_id] = _play(storage, gate, found, matches.start)
    return {bot_id for bot_id in newer
            if bot_id not in gates or not gate.admits(gates[bot_id])}


@dataclass(frozen=True)
class GateMatches:
    """How the ladder's runner starts and stops the seasons of its gate matches."""

    start: StartMatch
    stop: StopMatch


def superseded(gates: Iterable[GateRecord], order: Mapping[str, int]) -> list[GateRecord]:
    """The pending gates of ``gates`` (one ladder's) whose name has a gate of a newer
    version (by registration ``order``)."""
    kept = list(gates)
    newest: dict[str, GateRecord] = {}
    for found in kept:
        name = found.bot_id.partition("@")[0]
        held = newest.get(name)
        if held is None or order.get(found.bot_id, -1) > order.get(held.bot_id, -1):
            newest[name] = found
    return [found for found in kept if found.verdict.status == GATE_PENDING
            and newest[found.bot_id.partition("@")[0]] is not found]


def _supersede(storage: Storage, gate: LadderGate, found: GateRecord,
               stop_match: StopMatch) -> GateRecord:
    """Stop the unfinished match of a superseded gate and decide it ``superseded``
    with its figures so far; a match that has stopped already keeps its verdict."""
    decided = _decide(storage, gate, found)
    if decided.verdict.status != GATE_PENDING:
        return decided
    match = storage.get_season(found.match_id)
    if match.status in (SeasonStatus.CREATED, SeasonStatus.RUNNING):
        stop_match(found.match_id)
        # Stored at once too: a server stopped before the match's runner winds down
        # must not resume it as one left RUNNING.
        storage.set_season_status(found.match_id, SeasonStatus.CANCELLED)
    figures = gate.verdict(match.bot_ids, storage.results_by_round(found.match_id))
    decide_gate(storage, found.ladder_id, found.bot_id, replace(figures, status=GATE_SUPERSEDED))
    return next(g for g in gates_of_ladder(storage, found.ladder_id) if g.bot_id == found.bot_id)


def _open(storage: Storage, ladder_id: int, config: SeasonConfig, gate: LadderGate,
          bot_id: str, predecessor: str) -> GateRecord:
    match = gate.match_config(config, bot_id)
    deal_key = None if match.seed else new_deal_key()
    first = gate.first_pair(bot_id, predecessor, deal_key or match.seed)
    return open_gate(storage, ladder_id, bot_id, predecessor, GateMatch(
        name=f"gate {bot_id} vs {predecessor} (ladder {ladder_id})", config=match.to_dict(),
        profile=match.profile(), plan=[p.as_row() for p in first],
        deal_key=deal_key))


def _play(storage: Storage, gate: LadderGate, found: GateRecord,
          start_match: StartMatch) -> GateRecord:
    """Start the match of a pending gate if it can play; decide it once it stopped."""
    if storage.get_season(found.match_id).status in _PLAYABLE:
        start_match(found.match_id)
    return _decide(storage, gate, found)  # a match played in place has ended now


def _decide(storage: Storage, gate: LadderGate, found: GateRecord) -> GateRecord:
    """Store the verdict of a pending gate whose match has stopped; the gate as it is."""
    match = storage.get_season(found.match_id)
    if found.verdict.status != GATE_PENDING or match.status in _PLAYABLE:
        return found
    verdict = gate.verdict(match.bot_ids, storage.results_by_round(found.match_id))
    decide_gate(storage, found.ladder_id, found.bot_id, verdict)
    return next(g for g in gates_of_ladder(storage, found.ladder_id) if g.bot_id == found.bot_id)


def settle_match(storage: Storage, season_id: int) -> None:
    """Decide the gate whose match is the season ``season_id`` if it has stopped (the
    season manager calls it as any season's run ends, so a verdict does not wait for
    the ladder's next round); nothing for any other season."""
    found = gate_of_match(storage, season_id)
    if found is None:
        return
    gate = _gate_of(storage, found.ladder_id)
    if gate is not None:
        _decide(storage, gate, found)


def _gate_of(storage: Storage, ladder_id: int) -> LadderGate | None:
    config = storage.get_season(ladder_id).config
    ladder = format_for(config.format, config)
    return ladder.gate if isinstance(ladder, OpenEnded) else None


def admitted(storage: Storage, gate: GateRecord) -> bool:
    """Whether ``gate``'s version is admitted to its ladder (by the ladder's rule or
    by hand); False for a ladder that has no gate now."""
    ladder_gate = _gate_of(storage, gate.ladder_id)
    return ladder_gate is not None and ladder_gate.admits(gate)
