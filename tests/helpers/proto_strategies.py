"""Hypothesis strategies for any protobuf message, generated from its descriptor:
extreme integers, empty, huge, NUL, control and bidi strings, unknown enum numbers,
non-finite floats, long repeated fields and maps. Used by the fuzz suites of both
protocols (tests/test_fuzz_*.py). ``FUZZ_EXAMPLES`` (environment
``HOLLYWOOD_FUZZ_EXAMPLES``; ``make fuzz`` raises it) bounds each property."""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

from google.protobuf.descriptor import Descriptor, FieldDescriptor
from google.protobuf.message import Message
from hypothesis import strategies as st

FUZZ_EXAMPLES = int(os.environ.get("HOLLYWOOD_FUZZ_EXAMPLES", "30"))

_INT_RANGES: dict[int, tuple[int, int]] = {
    FieldDescriptor.TYPE_INT32: (-(2**31), 2**31 - 1),
    FieldDescriptor.TYPE_SINT32: (-(2**31), 2**31 - 1),
    FieldDescriptor.TYPE_SFIXED32: (-(2**31), 2**31 - 1),
    FieldDescriptor.TYPE_INT64: (-(2**63), 2**63 - 1),
    FieldDescriptor.TYPE_SINT64: (-(2**63), 2**63 - 1),
    FieldDescriptor.TYPE_SFIXED64: (-(2**63), 2**63 - 1),
    FieldDescriptor.TYPE_UINT32: (0, 2**32 - 1),
    FieldDescriptor.TYPE_FIXED32: (0, 2**32 - 1),
    FieldDescriptor.TYPE_UINT64: (0, 2**64 - 1),
    FieldDescriptor.TYPE_FIXED64: (0, 2**64 - 1),
}

NASTY_STRINGS = (
    "", " ", "\x00", "a\x00b", "\x1b[2J\x1b[31mred", "\u202eevil\u202c", "\u2066x\u2069",
    "[/]", "[bold]x[/bold]", "[link=http://x]y", "\r\n", "\u200b", "\ufeff", "%s%n",
    "../../etc/passwd", "名前", "😀" * 3, "\u0085", "\u2028",
)


def _integers(low: int, high: int) -> st.SearchStrategy[int]:
    edges = sorted({low, high, 0 if low <= 0 <= high else low, 1 if high >= 1 else high,
                    min(high, 2**31), min(high, 2**63 - 1), min(high, 2**63)})
    return st.one_of(st.sampled_from([edge for edge in edges if low <= edge <= high]),
                     st.integers(low, high))


def text_values(known: Sequence[str] = ()) -> st.SearchStrategy[str]:
    """Short and huge strings, hidden characters, markup, and ``known`` good values."""
    plain = st.text(st.characters(exclude_categories=["Cs"]), max_size=30)
    huge = st.tuples(st.sampled_from(["x", "\x00", "\u202e", "[/]"]),
                     st.integers(150, 300_000)).map(lambda pair: pair[0] * pair[1])
    options = [plain, st.sampled_from(NASTY_STRINGS), huge]
    if known:
        options.append(st.sampled_from(list(known)))
    return st.one_of(*options)


def _scalar(field: FieldDescriptor, known_texts: Sequence[str]) -> st.SearchStrategy[Any]:
    kind = field.type
    if kind in _INT_RANGES:
        return _integers(*_INT_RANGES[kind])
    if kind in (FieldDescriptor.TYPE_DOUBLE, FieldDescriptor.TYPE_FLOAT):
        width = 32 if kind == FieldDescriptor.TYPE_FLOAT else 64
        return st.floats(width=width, allow_nan=True, allow_infinity=True)
    if kind == FieldDescriptor.TYPE_BOOL:
        return st.booleans()
    if kind == FieldDescriptor.TYPE_ENUM:
        known = [value.number for value in field.enum_type.values]
        return st.one_of(st.sampled_from(known), _integers(-(2**31), 2**31 - 1))
    if kind == FieldDescriptor.TYPE_STRING:
        return text_values(known_texts)
    if kind == FieldDescriptor.TYPE_BYTES:
        return st.binary(max_size=64)
    raise AssertionError(f"no strategy for field type {kind} of {field.full_name}")


def messages(
    descriptor: Descriptor, message_class: type[Message], *,
    known_texts: Sequence[str] = (), depth: int = 3,
) -> st.SearchStrategy[Message]:
    """Messages of ``message_class`` (whose descriptor is ``descriptor``) with any
    subset of fields set to generated values."""
    fields: dict[str, st.SearchStrategy[Any]] = {}
    for field in descriptor.fields:
        sub = field.message_type
        if sub is not None and sub.GetOptions().map_entry:
            key = _scalar(sub.fields_by_name["key"], known_texts)
            value_field = sub.fields_by_name["value"]
            if value_field.message_type is not None:
                continue
            # Many entries, keyed by numbers or by texts as the map's keys are.
            numeric = sub.fields_by_name["key"].type != FieldDescriptor.TYPE_STRING
            fields[field.name] = st.dictionaries(key, _scalar(value_field, known_texts),
                                                 max_size=5) | st.builds(
                lambda n, numeric=numeric: {i if numeric else f"k{i}": "1" for i in range(n)},
                st.integers(60, 3000))
            continue
        small: st.SearchStrategy[Any]
        if sub is not None:
            if depth <= 0:
                continue
            sub_class = _message_class(message_class, sub)
            element: st.SearchStrategy[Any] = messages(
                sub, sub_class, known_texts=known_texts, depth=depth - 1)
            small = st.builds(sub_class)
        else:
            element = _scalar(field, known_texts)
            small = (st.text(max_size=8) if field.type == FieldDescriptor.TYPE_STRING
                     else element)
        if field.is_repeated:  # a few of anything, or very many small ones
            fields[field.name] = st.one_of(
                st.lists(element, max_size=4),
                st.tuples(small, st.integers(60, 5000)).map(lambda p: [p[0]] * p[1]))
        else:
            fields[field.name] = element
    return st.fixed_dictionaries({}, optional=fields).map(
        lambda values: _build(message_class, values))


def _message_class(parent: type[Message], descriptor: Descriptor) -> type[Message]:
    module = __import__(parent.__module__, fromlist=["_"])
    found = getattr(module, descriptor.name, None)
    assert isinstance(found, type), descriptor.full_name
    return found


def _build(message_class: type[Message], values: dict[str, Any]) -> Message:
    message = message_class()
    for name, value in values.items():
        target = getattr(message, name)
        if isinstance(value, Message):
            target.CopyFrom(value)
        elif isinstance(value, dict):
            target.update(value)
        elif isinstance(value, list):
            target.extend(value)
        else:
            setattr(message, name, value)
    return message
