"""What every command shares for its output: ``CliError`` (a message for the user
and an exit status) and printing API messages as JSON (``--json``).

JSON output is for programs: numbers are JSON numbers (protobuf's own JSON mapping
writes 64-bit integers as strings, which ``to_json`` undoes) and the keys of a
message come in the order its fields are declared, every time."""

from __future__ import annotations

import json
from typing import Any, Final

from google.protobuf.descriptor import FieldDescriptor
from google.protobuf.json_format import MessageToDict
from google.protobuf.message import Message

INT64_TYPES: Final = frozenset({
    FieldDescriptor.TYPE_INT64, FieldDescriptor.TYPE_UINT64, FieldDescriptor.TYPE_SINT64,
    FieldDescriptor.TYPE_FIXED64, FieldDescriptor.TYPE_SFIXED64,
})


class CliError(Exception):
    """A user-facing error: message and exit code."""

    def __init__(self, message: str, code: int = 2) -> None:
        super().__init__(message)
        self.code = code


def to_json(message: Message) -> dict[str, Any]:
    """``message`` as JSON data: every field (defaults included) under its proto name,
    in declaration order, 64-bit integers as numbers."""
    data = MessageToDict(message, preserving_proto_field_name=True,
                         always_print_fields_with_no_presence=True)
    return _ordered(message.DESCRIPTOR, data)


def _ordered(descriptor: Any, data: dict[str, Any]) -> dict[str, Any]:
    ordered: dict[str, Any] = {}
    for field in descriptor.fields:
        if field.name in data:
            ordered[field.name] = _value(field, data[field.name])
    for key, value in data.items():  # nothing else is expected; kept rather than lost
        ordered.setdefault(key, value)
    return ordered


def _value(field: FieldDescriptor, value: Any) -> Any:
    sub = field.message_type
    if sub is not None and sub.GetOptions().map_entry:
        value_field = sub.fields_by_name["value"]
        return {key: _single(value_field, item) for key, item in sorted(value.items())}
    if field.is_repeated:
        return [_single(field, item) for item in value]
    return _single(field, value)


def _single(field: FieldDescriptor, value: Any) -> Any:
    if field.message_type is not None and isinstance(value, dict):
        if field.message_type.full_name.startswith("google.protobuf."):
            return value  # well-known types have their own JSON forms
        return _ordered(field.message_type, value)
    if field.type in INT64_TYPES and isinstance(value, str):
        return int(value)
    return value


def print_json(data: Any) -> None:
    print(json.dumps(data, indent=2, sort_keys=False))
