"""The rules page (``/rules``): docs/rules.md rendered to HTML.

The Markdown is rendered by markdown-it-py in CommonMark mode with raw HTML turned
off, so anything in the file that looks like a tag is shown as text, and its link
check refuses ``javascript:`` and similar URLs. Headings get the ids GitHub gives
them, so ``docs/rules.md#hand-cap`` cited in the code is also ``/rules#hand-cap``.
"""

from __future__ import annotations

import logging
import re
from functools import lru_cache
from pathlib import Path
from typing import Final

from markdown_it import MarkdownIt
from markdown_it.rules_core import StateCore
from markupsafe import Markup

log = logging.getLogger(__name__)

RULES_DOC: Final = Path(__file__).resolve().parent / "rules.md"
"""A symbolic link to the repository's docs/rules.md, which a built package holds as a
file (package data in pyproject.toml), so an installed arena serves the page too."""
MAX_RULES_BYTES: Final = 1 << 20

__all__ = ["RULES_DOC", "RulesMissingError", "heading_slug", "render_markdown", "rules_html"]


class RulesMissingError(LookupError):
    """docs/rules.md is not beside this copy of the arena (an install without the docs)."""


def heading_slug(text: str) -> str:
    """The anchor GitHub gives a heading: lower case, punctuation dropped, spaces to '-'."""
    return re.sub(r"[^\w\- ]", "", text.lower()).replace(" ", "-")


def _heading_ids(state: StateCore) -> None:
    seen: dict[str, int] = {}
    tokens = state.tokens
    for index, token in enumerate(tokens[:-1]):
        if token.type != "heading_open":
            continue
        inline = tokens[index + 1]
        text = "".join(child.content for child in inline.children or [])
        slug = heading_slug(text)
        count = seen.get(slug, 0)
        seen[slug] = count + 1
        token.attrSet("id", slug if count == 0 else f"{slug}-{count}")


def _parser() -> MarkdownIt:
    parser = MarkdownIt("commonmark", {"html": False}).enable("table")
    parser.core.ruler.push("heading_ids", _heading_ids)
    return parser


_PARSER: Final = _parser()


def render_markdown(text: str) -> Markup:
    """``text`` (Markdown) as safe HTML: raw HTML escaped, unsafe link schemes dropped."""
    return Markup(_PARSER.render(text))  # safe: html is off, markdown-it escapes it


def rules_html(path: Path = RULES_DOC) -> Markup:
    """The rules page's body; :class:`RulesMissingError` when the file is absent."""
    try:
        stat = path.stat()
    except OSError as error:
        # The path stays in the server's log: visitors never see a server path.
        log.warning("the rules page is missing: %s", path)
        raise RulesMissingError(
            "the rules page is not installed with this arena; "
            "read docs/rules.md in the project's repository") from error
    return _rendered(path, stat.st_mtime_ns, stat.st_size)


@lru_cache(maxsize=2)
def _rendered(path: Path, mtime_ns: int, size: int) -> Markup:
    """Rendered once per version of the file (the key holds its time and size)."""
    with path.open("rb") as file:
        data = file.read(MAX_RULES_BYTES + 1)
    if len(data) > MAX_RULES_BYTES:
        raise RulesMissingError(f"{path} is over {MAX_RULES_BYTES} bytes; not rendered")
    return render_markdown(data.decode("utf-8", errors="replace"))
