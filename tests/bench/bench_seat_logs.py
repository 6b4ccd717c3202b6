"""How much the seat logs of a series take in the database at the default limits
(plain script; `make bench` runs it; no Docker).

Plays a season of the greedy sample against a copy of itself (``arena season run``,
process sandbox, seed 1, whole series, default time and log limits) into a fresh
database, then reads ``seat_logs``: bytes stored per series (both seats, compressed as
stored), the same decoded to compact JSON, and the hands and decisions per series.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from figures import report  # noqa: E402

from arena.storage.logs import decode_document  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--series", type=int, default=10)
    parser.add_argument("--seed", type=int, default=1, help="the season's deal seed")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as temp:
        root = Path(temp)
        twin = root / "greedy2"
        shutil.copytree(ROOT / "sample_bots" / "greedy", twin)
        toml = (twin / "bot.toml").read_text()
        (twin / "bot.toml").write_text(toml.replace('name = "greedy"', 'name = "greedy2"'))
        database = root / "arena.db"
        subprocess.run([sys.executable, "-m", "arena.cli", "season", "run", "--bots",
                        str(ROOT / "sample_bots" / "greedy"), str(twin), "--db", str(database),
                        "--sandbox", "process", "--series-per-pair", str(args.series),
                        "--concurrency", "1", "--seed", str(args.seed), "--no-http"],
                       cwd=ROOT, check=True, stdout=subprocess.DEVNULL)
        with sqlite3.connect(database) as db:
            stored: dict[str, int] = {}
            plain: dict[str, int] = {}
            decisions: dict[str, int] = {}
            for series_id, codec, data in db.execute(
                    "SELECT series_id, codec, data FROM seat_logs"):
                document = decode_document(codec, data)
                stored[series_id] = stored.get(series_id, 0) + len(data)
                plain[series_id] = plain.get(series_id, 0) + len(
                    json.dumps(document, separators=(",", ":")))
                decisions[series_id] = (decisions.get(series_id, 0)
                                        + len(document.get("decisions", [])))
            hands = [row[0] for row in db.execute("SELECT hands_played FROM series_results")]
    sizes = sorted(stored.values())
    print(f"seat logs of {len(sizes)} series of greedy vs greedy (process sandbox): "
          f"{min(sizes)}-{max(sizes)} bytes stored per series, mean "
          f"{statistics.mean(sizes):.0f}; as plain JSON mean "
          f"{statistics.mean(plain.values()):.0f}; hands {min(hands)}-{max(hands)}, "
          f"decisions per series mean {statistics.mean(decisions.values()):.0f}")
    report("seat logs stored per series (greedy vs greedy)", statistics.mean(sizes),
           unit="bytes")


if __name__ == "__main__":
    main()
