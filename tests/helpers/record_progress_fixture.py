"""Record a real season's timing into ``tests/fixtures/progress/NAME.json`` for
``tests/arena/season/test_progress_recorded.py``.

It plays the season of ``RECIPES[NAME]`` (copies of the Python sample bots,
renamed, with the ``inprocess`` sandbox) through ``arena season run``, then keeps
what the progress computation reads of each stored result (when it finished, how
long it played, its round) and what the format expects of the season. Run from
the repository root: ``.venv/bin/python tests/helpers/record_progress_fixture.py
swiss-league`` (a few minutes; its pace follows the machine's load, which is part
of what it records). With ``--from-db DB`` it only extracts the latest season
already played into ``DB``.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import sqlite3
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "progress"
LEAGUE = (*(("greedy", suffix) for suffix in "abcdef"),
          *(("shark", suffix) for suffix in "abcde"), ("random", "a"))
RECIPES: dict[str, tuple[tuple[tuple[str, str], ...], tuple[str, ...]]] = {
    # 12 bots, 5 Swiss rounds of 6 pairs x 12 series: 360 series.
    "swiss-league": (LEAGUE, ("--format", "swiss", "--rounds", "5", "--series-per-pair",
                              "12", "--seed", "13")),
    # The same 12 bots, every pair 6 times: 396 series.
    "round-robin-league": (LEAGUE, ("--series-per-pair", "6", "--seed", "14")),
}


def bot_copies(folder: Path, bots: tuple[tuple[str, str], ...]) -> list[Path]:
    copies = []
    for bot, suffix in bots:
        copy = folder / f"{bot}-{suffix}"
        shutil.copytree(ROOT / "sample_bots" / bot, copy)
        manifest = copy / "bot.toml"
        manifest.write_text(re.sub(rf'^name = "{bot}"', f'name = "{bot}-{suffix}"',
                                   manifest.read_text(), flags=re.MULTILINE))
        copies.append(copy)
    return copies


def play(db: Path, folder: Path, name: str) -> None:
    bots, options = RECIPES[name]
    subprocess.run([sys.executable, "-m", "arena.cli", "season", "run", "--db", str(db),
                    "--bots", *map(str, bot_copies(folder, bots)), *options,
                    "--sandbox", "inprocess", "--no-http", "--name", name],
                   cwd=ROOT, check=True, stdout=subprocess.DEVNULL)


def extract(db: Path) -> dict[str, Any]:
    sys.path.insert(0, str(ROOT))
    from arena.season.formats import format_for
    from arena.storage import Storage

    connection = sqlite3.connect(db)
    season_id, created_at = connection.execute(
        "SELECT id, created_at FROM seasons ORDER BY id DESC LIMIT 1").fetchone()
    storage = Storage(db)
    try:
        config = storage.get_season(season_id).config  # built by storage, typed
    finally:
        storage.close()
    bots = connection.execute("SELECT COUNT(*) FROM season_bots WHERE season_id=?",
                              (season_id,)).fetchone()[0]
    planned = connection.execute("SELECT COUNT(*) FROM planned_series WHERE season_id=?",
                                 (season_id,)).fetchone()[0]
    rows = connection.execute(
        "SELECT r.finished_at, r.wall_seconds, p.round FROM series_results r "
        "JOIN planned_series p ON p.id = r.series_id WHERE r.season_id=? ORDER BY r.stored_seq",
        (season_id,)).fetchall()
    season_format = format_for(config.format, config)
    first_round = connection.execute(
        "SELECT COUNT(*) FROM planned_series WHERE season_id=? AND round=1",
        (season_id,)).fetchone()[0]
    return {
        "about": "recorded by tests/helpers/record_progress_fixture.py",
        "format": config.format, "bots": bots, "created_at": created_at,
        "planned_at_start": first_round, "planned_at_end": planned,
        "expected": season_format.expected_count(bots, first_round),
        "results": [{"finished_at": finished, "wall_seconds": round(wall, 4), "round": number}
                    for finished, wall, number in rows],
    }


def fixture_text(recorded: dict[str, Any]) -> str:
    """JSON with one result a line."""
    head = {key: value for key, value in recorded.items() if key != "results"}
    lines = ",\n".join(json.dumps(result) for result in recorded["results"])
    return json.dumps(head, indent=1)[:-2] + ',\n "results": [\n' + lines + "\n ]\n}\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("name", choices=sorted(RECIPES))
    parser.add_argument("--from-db", type=Path)
    arguments = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        db = arguments.from_db
        if db is None:
            db = Path(folder) / "arena.db"
            play(db, Path(folder), arguments.name)
        recorded = extract(db)
    FIXTURES.mkdir(parents=True, exist_ok=True)
    out = FIXTURES / f"{arguments.name}.json"
    out.write_text(fixture_text(recorded))
    print(f"{out}: {len(recorded['results'])} results")


if __name__ == "__main__":
    main()
