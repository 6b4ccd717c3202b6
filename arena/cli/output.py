"""What every command shares for its output: ``CliError`` (a message for the user
and an exit status) and printing API messages as JSON (``--json``)."""

from __future__ import annotations

import json
from typing import Any

from google.protobuf.json_format import MessageToDict
from google.protobuf.message import Message


class CliError(Exception):
    """A user-facing error: message and exit code."""

    def __init__(self, message: str, code: int = 2) -> None:
        super().__init__(message)
        self.code = code


def to_json(message: Message) -> dict[str, Any]:
    return MessageToDict(message, preserving_proto_field_name=True,
                         always_print_fields_with_no_presence=True)


def print_json(data: Any) -> None:
    print(json.dumps(data, indent=2, sort_keys=False))
