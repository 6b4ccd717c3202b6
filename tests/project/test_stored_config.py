"""A season's stored configuration is read in one place (issue 37): storage builds
the typed ``SeasonConfig`` from the stored form (``SeasonConfig.from_stored`` in
``arena/storage/``), and every other module reads the typed object it is given
(``season.config.format``, ``config.settings_for(...)``). This scan fails on code
of the arena outside ``arena/storage/`` (and ``arena/core/settings.py``, which
defines the reader) that parses a stored configuration again: calling
``from_stored`` or the old ``SeasonConfig.from_dict``, reading the
``config_json`` column, or indexing a configuration as a dict
(``season.config["format"]``, ``config.get("seed")``). The same holds for a season's
rule profile: storage builds the typed ``Profile`` (``season_profile``), and no module
outside it rebuilds one from a season's profile (``Profile.from_dict(season.profile)``),
reads the ``profile_json`` column of a row, or indexes a profile as a dict. And a
season's plan is read through the season (``season.plan``, built by storage with
it), never by the season's id from storage (``storage.pending_series(season_id)``)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Final

from tests.helpers.arena_helpers import REPO_ROOT

READERS: Final = ("arena/storage/", "arena/core/settings.py")
PARSING: Final = re.compile(
    r"\bfrom_stored\(|SeasonConfig\.from_dict\(|\bconfig_json\b"
    r"|\bconfig\[\s*[\"']|\bconfig\.get\("
    r"|\bfrom_dict\(\s*[\w.]*\bprofile\s*\)|\[\s*[\"']profile_json[\"']\s*\]"
    r"|\.profile\[\s*[\"']|\.profile\.get\(")


def lines_matching(repo_root: Path, pattern: re.Pattern[str],
                   allowed: tuple[str, ...]) -> list[str]:
    """``path:line: text`` of every line of the arena, outside the ``allowed``
    paths, that ``pattern`` finds."""
    found = []
    for path in sorted((repo_root / "arena").rglob("*.py")):
        relative = path.relative_to(repo_root).as_posix()
        if relative.startswith(allowed):
            continue
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if pattern.search(line):
                found.append(f"{relative}:{number}: {line.strip()}")
    return found


def stored_config_parsing(repo_root: Path) -> list[str]:
    """The lines of the arena outside the readers that parse a stored season
    configuration or profile."""
    return lines_matching(repo_root, PARSING, READERS)


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
        "    return SeasonConfig.from_stored(stored).seed\n"
        "def profile(season):\n"
        "    return Profile.from_dict(season.profile)\n"
        "def rules(row):\n"
        "    return json.loads(row['profile_json'])\n"
        "def target(season):\n"
        "    return season.profile['game_target']\n"
        "def bonus(season):\n"
        "    return season.profile.get('gin_bonus')\n"
        "def replayed(start):\n"
        "    return Profile.from_dict(start['profile'])\n"
        "def told(message):\n"
        "    return json.dumps(message.profile_json)\n", encoding="utf-8")
    allowed = tmp_path / "arena" / "storage" / "store.py"
    allowed.parent.mkdir(parents=True)
    allowed.write_text("config = SeasonConfig.from_stored(json.loads(row['config_json']))\n"
                       "profile = season_profile(row['profile_json'])\n", encoding="utf-8")
    # An event log's profile (``start['profile']``) and the protocol's field are no
    # season's stored profile: lines 16 and 18 are left alone.
    assert [line.split(":", 2)[1] for line in stored_config_parsing(tmp_path)] == [
        "2", "4", "6", "8", "10", "12", "14"]


PLAN_READS: Final = re.compile(r"\bstorage\.(planned_series|pending_series|series_page)\(")


def plan_reads(repo_root: Path) -> list[str]:
    """The lines of the arena outside storage that read a season's plan from
    storage by the season's id rather than through the season (``season.plan``,
    built by storage with the season)."""
    return lines_matching(repo_root, PLAN_READS, ("arena/storage/",))


def test_a_seasons_plan_is_read_through_the_season() -> None:
    assert plan_reads(REPO_ROOT) == []


def test_the_scan_finds_a_planted_plan_read(tmp_path: Path) -> None:
    planted = tmp_path / "arena" / "season" / "planted.py"
    planted.parent.mkdir(parents=True)
    planted.write_text(
        "def first(self, season_id):\n"
        "    return self.storage.pending_series(season_id)[0]\n"
        "def every(storage, season):\n"
        "    return storage.planned_series(season.id)\n"
        "def page(self, season):\n"
        "    return season.plan.page(0, 10)\n"
        "def shown(self, series_id):\n"
        "    return views.series_page(self.storage, series_id)\n", encoding="utf-8")
    assert [line.split(":", 2)[1] for line in plan_reads(tmp_path)] == ["2", "4"]
