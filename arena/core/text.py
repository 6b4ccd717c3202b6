"""Text from outside the arena (bots, their authors, operators, clients) is data.

``neutralise`` makes such text safe to store and show: control characters, bidi
overrides and isolates, other invisible format characters and lone surrogates are
replaced by visible escapes (``\\x1b``, ``\\u202e``), so nothing a bot or a client
wrote can move a terminal's cursor, reorder what a reader sees or break UTF-8
encoding. ``bounded`` caps its size. ``first_forbidden`` says why a strict field
(a name, an id) is refused. Rendering as ``rich`` markup is the renderer's job:
it must escape (``rich.markup.escape``) whatever it got from here.
"""

from __future__ import annotations

import difflib
import unicodedata
from collections.abc import Iterable
from typing import Final

# Unicode categories never shown as themselves: controls, format characters (bidi
# marks, zero-width joiners, BOM), surrogates, private use, unassigned, and the
# line/paragraph separators that some terminals treat as newlines.
_HIDDEN_CATEGORIES: Final = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"})
_KEPT_IN_MULTILINE: Final = frozenset({"\n", "\t"})

QUOTE_CHARS: Final = 100
"""How much of a refused value an error message quotes."""


def _is_hidden(char: str) -> bool:
    return unicodedata.category(char) in _HIDDEN_CATEGORIES


def _escape(char: str) -> str:
    code = ord(char)
    if code < 0x100:
        return f"\\x{code:02x}"
    if code < 0x10000:
        return f"\\u{code:04x}"
    return f"\\U{code:08x}"


def neutralise(text: str, *, multiline: bool = False) -> str:
    """``text`` with every hidden character (see the module) replaced by its escape;
    with ``multiline``, newlines and tabs are kept."""
    if text.isascii() and text.isprintable():
        return text
    return "".join(
        char if (multiline and char in _KEPT_IN_MULTILINE) or not _is_hidden(char)
        else _escape(char)
        for char in text)


def bounded(text: str, limit: int, *, keep: str = "head") -> str:
    """``text`` cut to about ``limit`` characters with a note of how much was cut;
    ``keep="tail"`` keeps the end (for stderr tails)."""
    if len(text) <= limit:
        return text
    cut = len(text) - limit
    if keep == "tail":
        return f"[... {cut} characters cut] " + text[-limit:]
    return text[:limit] + f" [... {cut} characters cut]"


def safe_text(text: str, limit: int, *, multiline: bool = False, keep: str = "head") -> str:
    """``text`` neutralised and bounded: the form every stored free text takes."""
    return bounded(neutralise(text, multiline=multiline), limit, keep=keep)


def quote(value: object, limit: int = QUOTE_CHARS) -> str:
    """``value`` as an error message may quote it: neutralised, at most ``limit``
    characters of it, in quotes when it is text."""
    if isinstance(value, str):
        return '"' + bounded(neutralise(value), limit) + '"'
    return bounded(neutralise(str(value)), limit)


def first_forbidden(text: str, *, multiline: bool = False) -> str | None:
    """A description of the first hidden character in ``text`` (e.g. ``"NUL (\\x00)
    at position 3"``), or ``None`` if it has none."""
    for position, char in enumerate(text):
        if (multiline and char in _KEPT_IN_MULTILINE) or not _is_hidden(char):
            continue
        name = "NUL" if char == "\x00" else unicodedata.name(char, "a control character")
        return f"{name} ({_escape(char)}) at position {position}"
    return None


def unknown_name(kind: str, name: str, known: Iterable[str], listing: str) -> str:
    """``unknown bot 'gredy'; did you mean 'greedy'? (see `arena bots list`)``: the
    message for a name that is not there, naming the closest known one when one is
    close (a typo), and the command that lists them."""
    close = difflib.get_close_matches(name, list(known), n=1, cutoff=0.6)
    hint = f"; did you mean {close[0]!r}?" if close else ""
    return f"unknown {kind} {bounded(name, QUOTE_CHARS)!r}{hint} (see `{listing}`)"
