"""Times on the pages: every stored time is UTC (RFC 3339, ``...Z``); a page shows
it as ``<time datetime="...">`` whose text ``static/time.js`` turns into the
reader's local time, the UTC time staying in the tooltip (and in the text when
scripts are off)."""

from __future__ import annotations

from datetime import UTC, datetime

from markupsafe import Markup


def when(text: str | None) -> Markup:
    """``<time>`` for a stored UTC time; a dash for none. A value that is not a
    time is shown as it is (escaped), never as a ``datetime``."""
    if not text:
        return Markup("–")
    try:
        moment = datetime.fromisoformat(str(text).replace("Z", "+00:00")).astimezone(UTC)
    except ValueError:
        return Markup("{0}").format(text)
    iso = moment.strftime("%Y-%m-%dT%H:%M:%SZ")
    shown = moment.strftime("%Y-%m-%d %H:%M:%S UTC")
    return Markup('<time datetime="{0}" title="{1}">{1}</time>').format(iso, shown)
