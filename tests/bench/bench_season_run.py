"""An in-process season as users run it against the bare engine (issue 41; plain
script, `make bench` runs it).

``arena season run --sandbox inprocess --no-http --json`` in a child process, the
whole command as a user types it (its embedded server, storage, verification,
standings, the watched stream, the final table), with two copies of the sample
random bot; then the bare engine playing the very series the season planned (seed,
seats, hand cap, profile read back from its database) with the same policy (a
uniformly random legal action). Hands per CPU-second: the child's CPU (user +
system, all its threads, start-up included) against this process's for the bare
series. The two sides alternate ``--rounds`` times so that the load falls on both;
the ratio is printed beside the target (>= 0.5x) with the load.

The target applies to the whole command as users run it, start-up included. Beside
it, labelled apart, the steady-state ratio: the command's CPU less that of the same
command playing one series of one hand (start-up, the server, one tiny series),
measured in each round too. The child runs without ``PYTHONDONTWRITEBYTECODE``
(set in some developers' shells): an installed arena reads its modules' cached
bytecode, and compiling some 250 modules at every start is not the command's cost.

``python tests/bench/bench_season_run.py [--series N] [--rounds N] [--max-hands N]``.
"""

from __future__ import annotations

import argparse
import os
import random
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from figures import report  # noqa: E402

from arena.storage import Storage  # noqa: E402
from engine.profiles import Profile  # noqa: E402
from engine.series import Series  # noqa: E402

TARGET_RATIO = 0.5


def random_copies(place: Path) -> list[Path]:
    """Two copies of the sample random bot under other names (a season needs two)."""
    folders = []
    for name in ("random-a", "random-b"):
        folder = place / name
        shutil.copytree(ROOT / "sample_bots" / "random", folder,
                        ignore=shutil.ignore_patterns("__pycache__"))
        toml = folder / "bot.toml"
        lines = [f'name = "{name}"' if line.startswith("name = ") else line
                 for line in toml.read_text().splitlines()]
        toml.write_text("\n".join(lines) + "\n")
        folders.append(folder)
    return folders


def season_run(folders: list[Path], db: Path, series: int, max_hands: int,
               seed: int) -> tuple[float, int]:
    """(CPU seconds of the command, hands played) of one ``arena season run``."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    env = {name: value for name, value in os.environ.items()
           if name != "PYTHONDONTWRITEBYTECODE"}
    subprocess.run(
        [sys.executable, "-m", "arena.cli", "season", "run", "--sandbox", "inprocess",
         "--bots", *map(str, folders), "--db", str(db), "--series-per-pair", str(series),
         "--max-hands", str(max_hands), "--seed", str(seed), "--no-http", "--json"],
        check=True, stdout=subprocess.DEVNULL, cwd=ROOT, env=env)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    storage = Storage(db)
    try:
        season = storage.list_seasons()[-1]
        hands = sum(result.hands_played for result in storage.results(season.id))
    finally:
        storage.close()
    return cpu, hands


def bare_series(db: Path) -> tuple[float, int]:
    """(CPU seconds, hands) of the bare engine playing the season's planned series."""
    storage = Storage(db)
    try:
        season = storage.list_seasons()[-1]
        profile = Profile.from_dict(season.profile)
        max_hands = season.config.max_hands
        planned = storage.planned_series(season.id)
    finally:
        storage.close()
    hands = 0
    begun = time.process_time()
    for index, entry in enumerate(planned):
        series = Series(entry.seed, profile, max_hands=max_hands, swap_seats=entry.swap_seats)
        players = (random.Random(index * 2), random.Random(index * 2 + 1))
        while (seat := series.current_player) is not None:
            series.apply(players[seat].choice(series.legal_actions()))
        assert series.result is not None
        hands += series.result.hands_played
    return time.process_time() - begun, hands


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--series", type=int, default=20, help="series per season")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--max-hands", type=int, default=200)
    options = parser.parse_args()
    loads = [os.getloadavg()[0]]
    cpu = {"season run": 0.0, "bare": 0.0}
    hands = dict.fromkeys(cpu, 0)
    start_up = 0.0
    with tempfile.TemporaryDirectory(prefix="bench-season-run-") as scratch:
        place = Path(scratch)
        folders = random_copies(place)
        season_run(folders, place / "warm.db", 1, 1, seed=1)  # the bytecode cached
        for number in range(options.rounds):
            start_up += season_run(folders, place / f"start-{number}.db", 1, 1, seed=3)[0]
            db = place / f"arena-{number}.db"
            used, played = season_run(folders, db, options.series, options.max_hands,
                                      seed=11 + number)
            cpu["season run"] += used
            hands["season run"] += played
            used, played = bare_series(db)
            cpu["bare"] += used
            hands["bare"] += played
            loads.append(os.getloadavg()[0])
    rate = {side: hands[side] / cpu[side] for side in cpu}
    ratio = rate["season run"] / rate["bare"]
    steady = hands["season run"] / (cpu["season run"] - start_up) / rate["bare"]
    load = f"load {min(loads):.1f}-{max(loads):.1f} on {os.cpu_count()} CPUs"
    print(f"arena season run --sandbox inprocess, random v random, {options.rounds} x "
          f"{options.series} series, {options.max_hands}-hand cap ({load}):")
    for side, value in rate.items():
        print(f"  {side:<10} {value:8.1f} hands per CPU-second ({hands[side]} hands in "
              f"{cpu[side]:.1f} CPU-s)")
    verdict = "ok" if ratio >= TARGET_RATIO else "BELOW TARGET"
    print(f"  ratio {ratio:.3f}x, the whole command  (target >= {TARGET_RATIO}x: {verdict})")
    print(f"  ratio {steady:.3f}x, steady state: less the start-up "
          f"({start_up / options.rounds:.2f} CPU-s a command: one series of one hand)")
    report("in-process season as `arena season run` plays it / bare engine, hands per CPU-s",
           ratio, TARGET_RATIO, at_most=False,
           conditions=f"{rate['season run']:.0f} against {rate['bare']:.0f} hands/CPU-s, "
           f"{options.rounds} x {options.series} series, steady state {steady:.3f}x, {load}")


if __name__ == "__main__":
    main()
