"""Bounds on how deeply a TOML document (a ``bot.toml``) nests its values.

Python's TOML parser recurses once per level of nesting: a small manifest of a few
thousand ``[`` exhausts the interpreter's stack (``RecursionError``). These helpers
name the key whose value nests too deeply, from the parsed data when it parses and
from the text when it does not, so an author gets an error naming the key.
"""

from __future__ import annotations

from typing import Any, Final

MAX_NESTING: Final = 4
"""Levels of tables and arrays a ``bot.toml`` value may reach (``[run] command`` is 2)."""


def too_deep(key: str) -> str:
    """The message for ``key``'s value nested beyond ``MAX_NESTING`` (a long key cut)."""
    shown = key if len(key) <= 80 else key[:80] + "..."
    return (f"the value of {shown} is nested too deeply (at most {MAX_NESTING} levels of "
            "tables and arrays)")


def nested_beyond(data: dict[str, Any], levels: int) -> str | None:
    """The dotted key of the first value of ``data`` nested deeper than ``levels``
    (``data`` itself is level 0), or None. Iterative: a value's depth is the attack."""
    stack: list[tuple[str, object, int]] = [(key, value, 1) for key, value in data.items()]
    while stack:
        key, value, depth = stack.pop()
        if isinstance(value, dict | list):
            if depth > levels:
                return key
            items = value.items() if isinstance(value, dict) else enumerate(value)
            stack.extend((f"{key}.{inner}" if isinstance(value, dict) else key, inner_value,
                          depth + 1) for inner, inner_value in items)
    return None


def deeply_nested_key(text: str) -> str:
    """The key whose value opens more than ``MAX_NESTING`` arrays or inline tables in
    the TOML ``text`` (``[table].key``), found without parsing it (the parser gave up
    on it); "a value" if none is found."""
    table, i, depth, key = "", 0, 0, ""
    while i < len(text):
        if depth == 0 and (i == 0 or text[i - 1] == "\n"):  # a line outside any value
            end = text.find("\n", i)
            line = text[i:] if end < 0 else text[i:end]
            stripped = line.strip()
            if stripped.startswith("["):
                table = stripped.strip("[] \t")
            elif "=" in line and not stripped.startswith("#"):
                key = line.split("=", 1)[0].strip()
                i += line.index("=") + 1
                continue
            i = len(text) if end < 0 else end + 1
            continue
        char = text[i]
        if char in "\"'":
            quote = char * 3 if text.startswith(char * 3, i) else char
            i = _string_end(text, i + len(quote), quote)
            continue
        if char == "#":
            end = text.find("\n", i)
            i = len(text) if end < 0 else end
            continue
        if char in "[{":
            depth += 1
            if depth > MAX_NESTING:
                return f"{table}.{key}" if table else key or "a value"
        elif char in "]}":
            depth = max(depth - 1, 0)
        i += 1
    return "a value"


def _string_end(text: str, i: int, quote: str) -> int:
    while i < len(text):
        if text[i] == "\\" and quote[0] == '"':
            i += 2
        elif text.startswith(quote, i):
            return i + len(quote)
        else:
            i += 1
    return i
