"""A season's stored configuration is read in one place (issue 37): storage builds
the typed ``SeasonConfig`` from the stored form (``SeasonConfig.from_stored`` in
``arena/storage/``), and every other module reads the typed object it is given
(``season.config.format``, ``config.settings_for(...)``). This scan fails on code
of the arena outside ``arena/storage/`` (and ``arena/core/settings.py``, which
defines the reader) that parses a stored configuration again: calling
``from_stored`` or the old ``SeasonConfig.from_dict``, reading the
``config_json`` column, or indexing a configuration as a dict
(``season.config["format"]``, ``config.get("seed")``)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Final

from tests.helpers.arena_helpers import REPO_ROOT

READERS: Final = ("arena/storage/", "arena/core/settings.py")
PARSING: Final = re.compile(
    r"\bfrom_stored\(|SeasonConfig\.from_dict\(|\bconfig_json\b"
    r"|\bconfig\[\s*[\"']|\bconfig\.get\(")


def stored_config_parsing(repo_root: Path) -> list[str]:
    """``path:line: text`` of every line of the arena outside the readers that
    parses a stored season configuration."""
    found = []
    for path in sorted((repo_root / "arena").rglob("*.py")):
        relative = path.relative_to(repo_root).as_posix()
        if relative.startswith(READERS):
            continue
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if PARSING.search(line):
                found.append(f"{relative}:{number}: {line.strip()}")
    return found


def test_only_storage_parses_a_stored_season_config() -> None:
    assert stored_config_parsing(REPO_ROOT) == []


def test_the_scan_finds_a_planted_parse(tmp_path: Path) -> None:
    planted = tmp_path / "arena" / "web" / "planted.py"
    planted.parent.mkdir(parents=True)
    planted.write_text(
        "def rounds(season):\n"
        "    return SeasonConfig.from_dict(season.config).seed\n"
        "def name(season):\n"
        "    return season.config['format']\n"
        "def seed(stored):\n"
        "    return SeasonConfig.from_stored(stored).seed\n", encoding="utf-8")
    allowed = tmp_path / "arena" / "storage" / "store.py"
    allowed.parent.mkdir(parents=True)
    allowed.write_text("config = SeasonConfig.from_stored(json.loads(row['config_json']))\n",
                       encoding="utf-8")
    assert [line.split(":", 2)[1] for line in stored_config_parsing(tmp_path)] == [
        "2", "4", "6"]
