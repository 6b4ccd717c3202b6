"""Conversions between the arena's records and ``hollywood.arena.v1`` messages."""

from __future__ import annotations

import functools
import json
from collections.abc import Mapping
from dataclasses import asdict
from typing import Any, Final

from hollywood.arena.v1 import arena_pb2

from arena.core.faults import BotFault
from arena.core.settings import (
    DEFAULT_SANDBOX,
    ConfigError,
    SeasonConfig,
    all_settings,
    parse_override_value,
    setting_named,
)
from arena.core.status import SeasonStatus
from arena.sandbox import registry as sandbox_registry
from arena.season.formats import format_summary
from arena.season.standings import HeadToHead, Standings
from arena.storage import BotRecord, GateRecord, PlannedSeries, SeasonRecord, SeriesRecord

CROSSTABLE_CELLS_KEPT: Final = 1 << 17
"""Encoded crosstable cells kept (more than a 256-bot table's 65,280)."""
STATUS_TO_PROTO: Final = {
    status: arena_pb2.SeasonStatus.Value(f"SEASON_STATUS_{status.name}") for status in SeasonStatus
}


def bot_message(bot: BotRecord) -> arena_pb2.Bot:
    return arena_pb2.Bot(
        id=bot.id, name=bot.name, version=bot.version, language=bot.language,
        author=bot.author, description=bot.description, content_hash=bot.content_hash,
        registered_at=bot.registered_at,  # never ``folder``: a path of the server's
    )


def gate_message(gate: GateRecord, admitted: bool) -> arena_pb2.LadderGate:
    return arena_pb2.LadderGate(
        ladder_id=gate.ladder_id, predecessor=gate.predecessor, match_id=gate.match_id,
        **asdict(gate.verdict), admitted_by=gate.admitted_by, admitted=admitted)


def config_from_message(message: arena_pb2.SeasonConfig) -> SeasonConfig:
    """A validated ``SeasonConfig`` from a request (zero values = defaults), its
    sandbox a registered backend. Raises ``ConfigError`` naming the bad field."""
    values: dict[str, Any] = {}
    for setting in all_settings():
        if not setting.proto_field:
            continue  # a format's setting without a field of its own: format_settings
        raw = getattr(message, setting.proto_field)
        if setting.kind is dict:
            values[setting.name] = {key: parse_override_value(key, value)
                                    for key, value in raw.items()}
        elif raw:  # proto3: the zero value means "not set", i.e. the default
            values[setting.name] = raw
    for name, text in message.format_settings.items():
        setting = setting_named(name)
        if setting.proto_field:
            raise ConfigError(f"format_settings: {name} is sent in its own field, "
                              f"{setting.proto_field}")
        values[name] = setting.from_text(text)
    # Stored with the backend's own name, so that a season keeps its backend
    # whatever the registry's default becomes.
    values["sandbox"] = sandbox_registry.backend(values.get("sandbox", DEFAULT_SANDBOX)).name
    return SeasonConfig.build(**values)


def config_message(config: SeasonConfig) -> arena_pb2.SeasonConfig:
    message = arena_pb2.SeasonConfig()
    for name, value in config.values().items():
        setting = setting_named(name)
        if setting.kind is dict:
            getattr(message, setting.proto_field).update(
                {key: json.dumps(item) for key, item in value.items()})
        elif setting.proto_field:
            setattr(message, setting.proto_field, value)
        elif value != setting.default:  # as a field's zero value: the default is not sent
            message.format_settings[name] = repr(value) if setting.kind is float else str(value)
    return message


def season_message(season: SeasonRecord) -> arena_pb2.Season:
    return arena_pb2.Season(
        id=season.id, name=season.name,
        config=config_message(season.config),
        profile_json=json.dumps(season.profile.to_dict(), sort_keys=True),
        bot_ids=list(season.bot_ids), status=STATUS_TO_PROTO[season.status],
        series_total=season.series_total, series_done=season.series_done,
        series_voided=season.series_voided,
        created_at=season.created_at, updated_at=season.updated_at, error=season.error,
        outcomes_refused=season.outcomes_refused,
        format_summary=format_summary(season.config),
    )


class CrosstableRows:
    """Each bot's crosstable row as encoded, kept while its map is the one encoded:
    a published table shares the maps of the bots a stored series did not change
    (``StandingsState.table``; a shared map is never changed), so a season's next
    table encodes two rows, not every cell (a 100-bot table's 9,900 cells took most
    of its message on every live update)."""

    def __init__(self) -> None:
        self._rows: dict[str, tuple[Mapping[str, HeadToHead], bytes]] = {}

    def encoded(self, bot: str, opponents: Mapping[str, HeadToHead]) -> bytes:
        kept = self._rows.get(bot)
        if kept is not None and kept[0] is opponents:
            return kept[1]
        data = b"".join(
            _crosstable_cell(bot, opponent, cell.won, cell.lost, cell.drawn, cell.forfeited)
            for opponent, cell in opponents.items())
        self._rows[bot] = (opponents, data)  # the map kept alive: its id is not reused
        return data


def standings_message(
    season: SeasonRecord, standings: Standings, rows_kept: CrosstableRows | None = None
) -> arena_pb2.Standings:
    """``rows_kept``: the season's encoded crosstable rows, reused where unchanged."""
    # Every column of the row type by its name (``StandingRow.values``): a new
    # column needs no line here.
    rows = [arena_pb2.StandingRow(**row.values()) for row in standings.rows]
    # The crosstable (n² cells; one stored series changes two) parsed from each
    # cell's kept bytes.
    kept = rows_kept or CrosstableRows()
    message = arena_pb2.Standings.FromString(b"".join(
        kept.encoded(bot, opponents) for bot, opponents in standings.crosstable.items()))
    message.rows.extend(rows)
    message.season_id = season.id
    message.series_done = season.series_done
    message.series_total = season.series_total
    message.status = STATUS_TO_PROTO[season.status]
    return message


@functools.lru_cache(maxsize=CROSSTABLE_CELLS_KEPT)
def _crosstable_cell(bot: str, opponent: str, won: int, lost: int, drawn: int,
                     forfeited: int) -> bytes:
    """One crosstable cell as encoded in a ``Standings`` (the bytes of a message
    holding that cell alone: a message's repeated field is the concatenation)."""
    return arena_pb2.Standings(crosstable=[arena_pb2.CrosstableCell(
        bot_id=bot, opponent_id=opponent, won=won, lost=lost, drawn=drawn,
        forfeited=forfeited)]).SerializeToString()


def fault_message(fault: BotFault) -> arena_pb2.Fault:
    message = arena_pb2.Fault(
        kind=str(fault.kind), message=fault.message, seat=fault.seat or 0,
        hand_number=fault.hand_number or 0, decision_number=fault.decision_number or 0,
    )
    if fault.other_seat_fault is not None:
        message.other_seat_fault.CopyFrom(fault_message(fault.other_seat_fault))
    return message


def series_message(
    planned: PlannedSeries, result: SeriesRecord | None, *, revealed: bool
) -> arena_pb2.SeriesSummary:
    """``revealed``: whether its seed may be shown (``arena.storage.deal_keys``);
    until then only its commitment is."""
    message = arena_pb2.SeriesSummary(
        series_id=planned.series_id, season_id=planned.season_id, index=planned.index,
        swap_seats=planned.swap_seats, seat0_bot=planned.seat0_bot,
        seat1_bot=planned.seat1_bot, played=result is not None, winner=-1,
        seed_commitment=planned.seed_commitment, seed_revealed=revealed,
    )
    if revealed:
        message.seed, message.seed_nonce = planned.seed, planned.seed_nonce
    if result is None:
        return message
    message.winner = -1 if result.winner is None else result.winner
    message.games_won.extend(result.games_won)
    message.hands_won.extend(result.hands_won)
    message.points.extend(result.points)
    message.hands_played = result.hands_played
    message.capped = result.capped
    message.wall_seconds = result.wall_seconds
    message.think_seconds.extend(result.think_seconds)
    message.stored_seq = result.stored_seq
    if result.fault is not None:
        message.fault.CopyFrom(fault_message(result.fault))
    return message
