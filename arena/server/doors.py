"""Every ``hollywood.arena.v1`` request is checked at the door, before any work.

One table, ``RULES``, says for every field of every request message (nested
messages included) what a valid value is: ids in SQLite's integer range, strings
within a length and free of control, bidi and other hidden characters, repeated
and map fields bounded. Enum fields must hold a known number and floating-point
fields a finite one, whatever the table says. To give a new field a rule, add an
entry to its message's table (tests/arena/server/test_doors.py checks that every field has one).

``refusal(request)`` returns the first violation as a message that names the field
(``config.profile_overrides["x"]``, ``bots[3]``) and quotes at most
``arena.core.text.QUOTE_CHARS`` characters of the value, neutralised. The
interceptor (``arena.server.interceptors``) applies it to every call.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Final

from google.protobuf.descriptor import Descriptor, FieldDescriptor
from google.protobuf.message import Message
from hollywood.arena.v1 import arena_pb2

from arena.core.text import first_forbidden, quote
from arena.core.token_binding import MAX_ADDRESS_BYTES, MAX_CHALLENGE_BYTES

ARENA_PACKAGE: Final = arena_pb2.DESCRIPTOR.package
MAX_ID: Final = 2**63 - 1
"""The largest id SQLite stores (a signed 64-bit integer)."""


@dataclass(frozen=True)
class Id:
    """A numeric id or seed: 0 (meaning "none" or "the latest") up to ``MAX_ID``."""

    maximum: int = MAX_ID


@dataclass(frozen=True)
class Text:
    """A string of at most ``max_chars`` characters with no hidden characters
    (``multiline`` allows newlines and tabs)."""

    max_chars: int
    multiline: bool = False


@dataclass(frozen=True)
class Scalar:
    """A number or flag checked only by its type (finite if floating point); its
    range is the business of the code that reads it (e.g. a season setting's bounds)."""


@dataclass(frozen=True)
class Items:
    """A repeated field of at most ``max_items`` items, each valid under ``item``."""

    max_items: int
    item: Rule


@dataclass(frozen=True)
class Entries:
    """A map field of at most ``max_entries`` entries with valid keys and values."""

    max_entries: int
    key: Rule
    value: Rule


@dataclass(frozen=True)
class Nested:
    """A message field, checked by its own message's table."""


@dataclass(frozen=True)
class Blob:
    """A bytes field of at most ``max_bytes`` bytes (its content is the business of
    the code that reads it)."""

    max_bytes: int


Rule = Id | Text | Scalar | Items | Entries | Nested | Blob

NAME: Final = Text(200)
BOT_REFERENCE: Final = Text(120)
SETTING_TEXT: Final = Text(100)
PAGE_TOKEN: Final = Text(200)
MAX_BOT_REFERENCES: Final = 10_000
"""Bots one request may name; the server's own season limit (``--max-season-bots``)
is checked after the door."""

RULES: Final[dict[str, dict[str, Rule]]] = {
    "hollywood.arena.v1.ListBotsRequest": {"page_size": Scalar(), "page_token": PAGE_TOKEN},
    "hollywood.arena.v1.CreateSeasonRequest": {
        "bots": Items(MAX_BOT_REFERENCES, BOT_REFERENCE),
        "config": Nested(),
        "name": NAME,
        "hold": Scalar(),
        "all_active": Scalar(),
    },
    "hollywood.arena.v1.SeasonConfig": {
        "profile": SETTING_TEXT,
        "profile_overrides": Entries(64, SETTING_TEXT, Text(1000)),
        "series_per_pair": Scalar(),
        "startup_seconds": Scalar(),
        "decision_seconds": Scalar(),
        "reserve_seconds": Scalar(),
        "concurrency": Scalar(),
        "max_hands": Scalar(),
        "seed": Id(),
        "sandbox_backend": SETTING_TEXT,
        "format": SETTING_TEXT,
        "challenger": BOT_REFERENCE,
        "rounds": Scalar(),
        "tiebreak_pairs": Scalar(),
        "sprt": SETTING_TEXT,
        "max_pairs": Scalar(),
        "ladder_rounds": Scalar(),
        "ladder_meetings": Scalar(),
        "ladder_window": Scalar(),
        "ladder_gate": SETTING_TEXT,
        "ladder_gate_sprt": SETTING_TEXT,
        "ladder_gate_max_pairs": Scalar(),
        "ladder_gate_rule": SETTING_TEXT,
        "deactivate_after": Scalar(),
        "series_per_container": Scalar(),
        "format_settings": Entries(64, SETTING_TEXT, Text(1000)),
    },
    "hollywood.arena.v1.StartSeasonRequest": {"season_id": Id()},
    "hollywood.arena.v1.CancelSeasonRequest": {"season_id": Id()},
    "hollywood.arena.v1.GetSeasonRequest": {"season_id": Id()},
    "hollywood.arena.v1.ListSeasonsRequest": {"page_size": Scalar(), "page_token": PAGE_TOKEN},
    "hollywood.arena.v1.GetStandingsRequest": {
        "season_id": Id(),
        "page_size": Scalar(),
        "page_token": PAGE_TOKEN,
        "bot_ids": Items(MAX_BOT_REFERENCES, BOT_REFERENCE),
        "recompute": Scalar(),
        "include_los": Scalar(),
    },
    "hollywood.arena.v1.WatchSeasonRequest": {
        "season_id": Id(),
        "top": Scalar(),
        "bot_ids": Items(MAX_BOT_REFERENCES, BOT_REFERENCE),
        "batch_series_events": Scalar(),
        "include_los": Scalar(),
        "standings_deltas": Scalar(),
    },
    "hollywood.arena.v1.ListSeriesRequest": {
        "season_id": Id(),
        "page_size": Scalar(),
        "page_token": PAGE_TOKEN,
    },
    "hollywood.arena.v1.GetSeriesRequest": {"series_id": Text(64)},
    "hollywood.arena.v1.GetSeriesLogsRequest": {"series_id": Text(64), "seat": Scalar()},
    "hollywood.arena.v1.SubmitBotRequest": {"header": Nested(), "chunk": Blob(1024 * 1024)},
    "hollywood.arena.v1.SubmitBotHeader": {"compression": Text(16), "replace": Scalar()},
    "hollywood.arena.v1.AddAuthorRequest": {"name": Text(32)},
    "hollywood.arena.v1.ListAuthorsRequest": {"page_size": Scalar(), "page_token": PAGE_TOKEN},
    "hollywood.arena.v1.RevokeAuthorRequest": {"name": Text(32)},
    "hollywood.arena.v1.GetBotRequest": {
        "name": BOT_REFERENCE, "page_size": Scalar(), "page_token": PAGE_TOKEN},
    "hollywood.arena.v1.ReactivateBotRequest": {"bot_id": BOT_REFERENCE},
    "hollywood.arena.v1.ProveAdminTokenRequest": {"challenge": Blob(MAX_CHALLENGE_BYTES),
                                                  "address": Text(MAX_ADDRESS_BYTES)},
    "hollywood.arena.v1.RevetBotRequest": {"bot_id": BOT_REFERENCE},
    "hollywood.arena.v1.WhoAmIRequest": {},
    "hollywood.arena.v1.KeepOnLadderRequest": {"bot_id": BOT_REFERENCE, "keep": Scalar()},
    "hollywood.arena.v1.AdmitToLadderRequest": {"bot_id": BOT_REFERENCE, "admit": Scalar()},
    "hollywood.arena.v1.CreateLeagueRequest": {
        "name": NAME,
        "bots": Items(MAX_BOT_REFERENCES, BOT_REFERENCE),
        "all_active": Scalar(),
        "config": Nested(),
        "divisions": Scalar(),
        "promote": Scalar(),
        "relegate": Scalar(),
        "rounds": Scalar(),
        "division_formats": Entries(64, Scalar(), SETTING_TEXT),
    },
    "hollywood.arena.v1.GetLeagueRequest": {
        "league_id": Id(), "page_size": Scalar(), "page_token": PAGE_TOKEN},
    "hollywood.arena.v1.ListLeaguesRequest": {"page_size": Scalar(), "page_token": PAGE_TOKEN},
    "hollywood.arena.v1.NextLeagueRoundRequest": {"league_id": Id()},
    "hollywood.arena.v1.CancelLeagueRequest": {"league_id": Id()},
    "hollywood.arena.v1.CreateChallengeRequest": {
        "challenger": BOT_REFERENCE, "opponent": BOT_REFERENCE, "series": Scalar()},
    "hollywood.arena.v1.ListChallengesRequest": {
        "bot": BOT_REFERENCE,
        "page_size": Scalar(),
        "page_token": PAGE_TOKEN,
    },
}

# A field with no entry in RULES still gets the strictest reading of its type.
_FALLBACK_TEXT: Final = Text(200)
_FALLBACK_ITEMS: Final = 100


def request_types() -> Iterator[Descriptor]:
    """The request message of every ``ArenaService`` method."""
    service = arena_pb2.DESCRIPTOR.services_by_name["ArenaService"]
    for method in service.methods:
        yield method.input_type


def refusal(request: Message) -> str | None:
    """Why ``request`` is refused at the door, or ``None`` if it may pass. Messages
    of other packages (gRPC health checking, reflection) pass: their own servicers
    check them."""
    if not request.DESCRIPTOR.full_name.startswith(ARENA_PACKAGE + "."):
        return None
    return next(_violations(request, ""), None)


def _violations(message: Message, prefix: str) -> Iterator[str]:
    table = RULES.get(message.DESCRIPTOR.full_name, {})
    fields: list[FieldDescriptor] = list(message.DESCRIPTOR.fields)  # type: ignore[arg-type]
    for field in fields:
        rule = table.get(field.name)
        path = prefix + field.name
        value = getattr(message, field.name)
        if field.message_type is not None and field.message_type.GetOptions().map_entry:
            entry: Descriptor = field.message_type
            yield from _map_violations(path, value, rule, entry)
        elif field.is_repeated:
            limit = rule.max_items if isinstance(rule, Items) else _FALLBACK_ITEMS
            item_rule = rule.item if isinstance(rule, Items) else None
            if len(value) > limit:
                yield f"{path}: {len(value)} items, at most {limit} allowed"
                continue
            for index, item in enumerate(value):
                yield from _value_violations(f"{path}[{index}]", item, item_rule, field)
        elif field.message_type is None or message.HasField(field.name):
            yield from _value_violations(path, value, rule, field)


def _map_violations(
    path: str, mapping: object, rule: Rule | None, entry: Descriptor
) -> Iterator[str]:
    assert isinstance(rule, Entries | None)
    items = dict(mapping)  # type: ignore[call-overload]
    limit = rule.max_entries if rule is not None else _FALLBACK_ITEMS
    if len(items) > limit:
        yield f"{path}: {len(items)} entries, at most {limit} allowed"
        return
    key_field: FieldDescriptor = entry.fields_by_name["key"]
    value_field: FieldDescriptor = entry.fields_by_name["value"]
    for key, value in sorted(items.items()):
        yield from _value_violations(f"{path} key {quote(key)}", key,
                                     rule.key if rule else None, key_field)
        yield from _value_violations(f"{path}[{quote(key)}]", value,
                                     rule.value if rule else None, value_field)


def _value_violations(
    path: str, value: object, rule: Rule | None, field: FieldDescriptor
) -> Iterator[str]:
    if isinstance(value, Message):
        yield from _violations(value, path + ".")
        return
    if field.enum_type is not None:
        if value not in field.enum_type.values_by_number:
            known = ", ".join(v.name for v in field.enum_type.values)
            yield f"{path}: {quote(value)} is not a known {field.enum_type.name} ({known})"
        return
    if isinstance(value, float):
        if not math.isfinite(value):
            yield f"{path}: {quote(value)} is not a finite number"
        return
    if isinstance(value, bool):
        return
    if isinstance(value, bytes):
        limit = rule.max_bytes if isinstance(rule, Blob) else 0
        if len(value) > limit:
            yield f"{path}: {len(value)} bytes, at most {limit} allowed"
        return
    if isinstance(value, int):
        if isinstance(rule, Scalar):
            return
        maximum = rule.maximum if isinstance(rule, Id) else MAX_ID
        if not 0 <= value <= maximum:
            yield f"{path}: {quote(value)} is out of range (0 to {maximum})"
        return
    if isinstance(value, str):
        text_rule = rule if isinstance(rule, Text) else _FALLBACK_TEXT
        if len(value) > text_rule.max_chars:
            yield (f"{path}: {len(value)} characters, at most {text_rule.max_chars} "
                   f"allowed ({quote(value)})")
            return
        problem = first_forbidden(value, multiline=text_rule.multiline)
        if problem is not None:
            yield f"{path}: contains {problem}, which is not allowed ({quote(value)})"
