"""The format-name check (issue 27): a tournament format owns everything about
itself, so no code of the arena outside ``arena/season/formats/`` names a format
(as a string literal such as ``"swiss"``) or its class (``Swiss``). Adding a
format is then one module and one line in ``FORMATS``.

The names come from the registry itself, so a new format is checked too. A few
lines name a format for a reason other than branching on it; each is listed with
that reason."""

from __future__ import annotations

import io
import re
import tokenize
from pathlib import Path

from arena.season.formats import FORMATS
from tests.helpers.arena_helpers import REPO_ROOT

SUFFIXES = (".py", ".html", ".js")

ALLOWED = {
    # The default of the format setting: arena.core sits below the formats.
    ("arena/core/settings.py", 'Setting("format", str, "round-robin",'),
    # A proto field that shares the SPRT format's name: the SPRT format's own
    # setting (the test's specification), not the format.
    ("arena/server/doors.py", '"sprt": SETTING_TEXT,'),
    # The API's typed SPRT state that the website's match page reads.
    ("arena/web/sprt_page.py", 'API_FIELD: Final = "sprt"'),
}


def named_formats(path: Path) -> list[int]:
    """Lines of ``path`` naming a registered format (a string that is exactly its
    name) or using its class (a name in the code; prose in docstrings and
    comments is free)."""
    text = path.read_text(encoding="utf-8")
    if path.suffix != ".py":
        names = "|".join(re.escape(name) for name in FORMATS)
        return [number for number, line in enumerate(text.splitlines(), 1)
                if re.search(rf"""["'](?:{names})["']""", line)]
    classes = {cls.__name__ for cls in FORMATS.values()}
    lines = []
    for token in tokenize.generate_tokens(io.StringIO(text).readline):
        if (token.type == tokenize.NAME and token.string in classes) or (
                token.type == tokenize.STRING and token.string[:1] in "'\""
                and token.string.strip("'\"") in FORMATS):
            lines.append(token.start[0])
    return lines


def format_name_uses(repo_root: Path) -> list[str]:
    """``path:line: text`` of every line of ``repo_root``'s arena (outside the
    formats package) that names a registered format or its class."""
    formats_package = repo_root / "arena" / "season" / "formats"
    found = []
    for path in sorted((repo_root / "arena").rglob("*")):
        if path.suffix not in SUFFIXES or path.is_relative_to(formats_package):
            continue
        relative = path.relative_to(repo_root).as_posix()
        lines = path.read_text(encoding="utf-8").splitlines()
        for number in sorted(set(named_formats(path))):
            line = lines[number - 1]
            if not any(relative == allowed_path and text in line
                       for allowed_path, text in ALLOWED):
                found.append(f"{relative}:{number}: {line.strip()}")
    return found


def test_no_format_is_named_outside_the_formats_package() -> None:
    assert format_name_uses(REPO_ROOT) == []


def test_the_check_finds_a_planted_branch(tmp_path: Path) -> None:
    # The check itself can fail: a branch on a format's name or class is found.
    planted = tmp_path / "arena" / "server" / "planted.py"
    planted.parent.mkdir(parents=True)
    planted.write_text('if name == "knockout":\n    pass\nok = 1\nisinstance(f, Swiss)\n',
                       encoding="utf-8")
    formats_module = tmp_path / "arena" / "season" / "formats" / "mine.py"
    formats_module.parent.mkdir(parents=True)
    formats_module.write_text('NAME = "knockout"\n', encoding="utf-8")
    allowed = tmp_path / "arena" / "core" / "settings.py"
    allowed.parent.mkdir(parents=True)
    allowed.write_text('X = Setting("format", str, "round-robin", "tournament format")\n',
                       encoding="utf-8")
    assert format_name_uses(tmp_path) == [
        'arena/server/planted.py:1: if name == "knockout":',
        "arena/server/planted.py:4: isinstance(f, Swiss)"]
