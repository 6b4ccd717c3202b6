"""Ladder benchmark (plain script; `make bench` runs it; no Docker, no bots).

A 30-bot ladder played by the real season runner (``SeasonRunner``, local
executor, storage, the ladder's matchmaking), each series answered at once by a
simulated result: every bot has a hidden Elo (spread evenly over -300..+300);
seat 0 wins with the logistic probability of the Elo difference, a tenth of the
series drawn, seeded by the series' deal seed. Mid-way (``--arrive``), a few new
versions arrive: each replaces a member and is stronger than any bot.

Prints:

1. series per bot over time: at checkpoints, the fewest / median / most series
   of the bots present from the start, and the largest debt any member had (the
   fairness rule's bound is 2 meetings);
2. the newcomers: series each played in its first 10 rounds on the ladder,
   against the members' median over the same rounds, the round its rating
   stopped being provisional (sigma <= 4 and 10 series), and its rank by mu at
   the end (the newcomers are the strongest: ranks 1 to 3 are right);
3. how fast ratings settle: the Spearman rank correlation of the OpenSkill mu
   and of the windowed Bradley-Terry Elo with the hidden Elo at each checkpoint;
4. the cost of planning one round from nothing (debts, every result rated,
   matchmaking) at the end, and the whole run's wall time per series.

With ``--in-process`` the series are played, not simulated: real series of real
bots in the ``inprocess`` sandbox (``--max-hands`` hands at most). Bot ``i`` of N
plays the greedy sample bot's move with probability i/(N-1) and a random legal move
otherwise (its "hidden Elo" is that probability on the same -300..+300 scale, for
the rank correlations); the newcomers are copies of the shark sample bot.

Options: --bots N (30), --rounds N (150), --arrive R (60), --newcomers N (3),
--meetings N (0 = a quarter of the members), --window W (1000), --seed N (7),
--in-process, --max-hands N (12).
"""

from __future__ import annotations

import argparse
import hashlib
import statistics
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from arena.core.manifest import content_hash, iter_bot_files  # noqa: E402
from arena.core.series import SeriesOutcome, SeriesSpec  # noqa: E402
from arena.core.settings import SeasonConfig  # noqa: E402
from arena.execution import LocalExecutor  # noqa: E402
from arena.match.runner import run_series  # noqa: E402
from arena.sandbox import registry as sandbox_registry  # noqa: E402
from arena.season.formats import LADDER_FORMAT, format_for  # noqa: E402
from arena.season.formats.ladder import PROVISIONAL_SERIES, PROVISIONAL_SIGMA  # noqa: E402
from arena.season.runner import SeasonRunner  # noqa: E402
from arena.season.standings import StandingsState, compute_standings  # noqa: E402
from arena.season.statistics.bradley_terry import PairResult, fit  # noqa: E402
from arena.storage import SeriesRecord, Storage  # noqa: E402
from arena.storage.ladder_rounds import members_by_round  # noqa: E402
from tests.helpers.arena_helpers import (  # noqa: E402
    made_up_outcome,
    make_bot_folder,
    register_folder,
)
from tests.helpers.gate_helpers import SAMPLE_BOTS, sample_as  # noqa: E402


def register(storage: Storage, root: Path, name: str, version: str = "1.0.0") -> str:
    folder = make_bot_folder(root, name, version)
    record, _ = storage.register_bot(
        name=name, version=version, language="python", author="", description="",
        content_hash=content_hash(folder), source_folder=folder,
        files=list(iter_bot_files(folder)))
    return record.id


MIXED_BOT = """

class MixedBot(GreedyBot):
    \"\"\"The greedy move with probability GREEDY, else a random legal one.\"\"\"

    def __init__(self) -> None:
        self._random = random.Random(SEED)

    def decide(self, observation: hs.Observation) -> hs.Action:
        if self._random.random() < GREEDY:
            return super().decide(observation)
        return self._random.choice(observation.legal_actions)
"""


def mixed_bot(root: Path, name: str, greedy: float, seed: int) -> Path:
    """A bot folder whose SDK class plays greedy with probability ``greedy``."""
    folder = root / f"{name}-1.0.0"
    folder.mkdir(parents=True)
    source = (SAMPLE_BOTS / "greedy" / "greedy_bot.py").read_text()
    (folder / "mixed_bot.py").write_text(
        f"{source}\nimport random\n\nGREEDY = {greedy!r}\nSEED = {seed}\n{MIXED_BOT}")
    (folder / "bot.toml").write_text(
        f'name = "{name}"\nversion = "1.0.0"\nlanguage = "python"\n'
        '[run]\ncommand = ["python3", "-m", "mixed_bot"]\nsdk_class = "mixed_bot:MixedBot"\n')
    (folder / "Dockerfile").write_text("FROM python:3.11-slim\n")
    return folder




def unit(seed: int, label: str) -> float:
    digest = hashlib.sha256(f"{seed}:{label}".encode()).digest()
    return int.from_bytes(digest[:8], "big") / 2**64


def spearman(xs: list[float], ys: list[float]) -> float:
    def ranks(values: list[float]) -> list[float]:
        order = sorted(range(len(values)), key=values.__getitem__)
        result = [0.0] * len(values)
        for rank, index in enumerate(order):
            result[index] = float(rank)
        return result
    rx, ry = ranks(xs), ranks(ys)
    mx, my = statistics.fmean(rx), statistics.fmean(ry)
    cov = sum((a - mx) * (b - my) for a, b in zip(rx, ry, strict=True))
    var = (sum((a - mx) ** 2 for a in rx) * sum((b - my) ** 2 for b in ry)) ** 0.5
    return cov / var if var else 0.0


class Simulation:
    """The ladder's runner: a simulated result per series; the newcomers
    registered while round ``arrive`` is played."""

    def __init__(self, storage: Storage, root: Path, elo: dict[str, float], arrive: int,
                 newcomers: int, in_process: bool = False) -> None:
        self.storage, self.root, self.elo = storage, root, elo
        self.arrive, self.newcomers = arrive, newcomers
        self.arrived = False
        self.sandbox = sandbox_registry.create("inprocess") if in_process else None

    def __call__(self, spec: SeriesSpec) -> SeriesOutcome:
        if not self.arrived and self.storage.get_planned(spec.series_id).round >= self.arrive:
            self.arrived = True
            for index in range(self.newcomers):
                name = f"bot{index:02d}"
                if self.sandbox is None:
                    bot_id = register(self.storage, self.root, name, "2.0.0")
                else:
                    shark = sample_as(self.root, "shark", name, "2.0.0")
                    bot_id = register_folder(self.storage, shark)
                self.elo[bot_id] = 400.0 + 50 * index
        if self.sandbox is not None:
            return run_series(spec, self.sandbox)
        first, second = (bot.name + "@" + bot.version for bot in spec.bots)
        draw = unit(spec.seed, f"{spec.series_id}:draw") < 0.1
        expected = 1 / (1 + 10 ** (-(self.elo[first] - self.elo[second]) / 400))
        winner = None if draw else (0 if unit(spec.seed, spec.series_id) < expected else 1)
        return made_up_outcome(spec.series_id, winner=winner)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bots", type=int, default=30)
    parser.add_argument("--rounds", type=int, default=150)
    parser.add_argument("--arrive", type=int, default=60)
    parser.add_argument("--newcomers", type=int, default=3)
    parser.add_argument("--meetings", type=int, default=0)
    parser.add_argument("--window", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--in-process", action="store_true",
                        help="play real series of in-process bots instead of simulating them")
    parser.add_argument("--max-hands", type=int, default=12)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as temporary:
        root = Path(temporary)
        storage = Storage(root / "ladder.db")
        if args.in_process:
            ids = [register_folder(storage, mixed_bot(root / "bots", f"bot{i:02d}",
                                                      i / (args.bots - 1), args.seed + i))
                   for i in range(args.bots)]
        else:
            ids = [register(storage, root / "bots", f"bot{i:02d}") for i in range(args.bots)]
        elo = {bot: -300 + 600 * i / (args.bots - 1) for i, bot in enumerate(ids)}
        config = SeasonConfig.build(format=LADDER_FORMAT,
                                    sandbox="inprocess" if args.in_process else "process",
                                    concurrency=1, max_hands=args.max_hands,
                                    seed=args.seed, ladder_rounds=args.rounds,
                                    ladder_meetings=args.meetings,
                                    ladder_window=args.window)
        season_id = storage.create_season(name="bench", config=config.to_dict(),
                                          profile=config.profile(), bot_ids=ids,
                                          plan=[]).id
        simulation = Simulation(storage, root / "bots", elo, args.arrive, args.newcomers,
                                args.in_process)
        started = time.perf_counter()
        with LocalExecutor(simulation, 1) as executor:
            # Played series are verified as a server verifies them; simulated ones
            # have no log to replay.
            runner = (SeasonRunner(storage, season_id, executor) if args.in_process else
                      SeasonRunner(storage, season_id, executor, verify=lambda *_, **__: None))
            status = runner.run()
        wall = time.perf_counter() - started
        report(storage, season_id, config, elo, ids, args, status, wall)


def report(storage: Storage, season_id: int, config: SeasonConfig, elo: dict[str, float],
           ids: list[str], args: argparse.Namespace, status: str, wall: float) -> None:
    history = members_by_round(storage, season_id)
    planned = storage.planned_series(season_id)
    by_round: dict[int, list[tuple[str, str]]] = {}
    for series in planned:
        by_round.setdefault(series.round, []).append(series.bots)
    results = sorted(storage.results(season_id), key=lambda r: r.stored_seq)
    round_of = {series.series_id: series.round for series in planned}
    spp = config.series_per_pair
    print(f"ladder of {args.bots} bots, {len(history)} rounds ({status}), "
          f"{len(results)} series, {len(history[-1])} members at the end; "
          f"{wall:.1f} s wall, {1000 * wall / max(1, len(results)):.2f} ms per series")

    print("\n1. series per bot over time (bots present from the start; max debt of any member)")
    played: Counter[str] = Counter()
    debt: dict[str, float] = {}
    worst = 0.0
    checkpoints = sorted({10, 25, 50, args.arrive, args.arrive + 10, args.arrive + 30,
                          len(history)} & set(range(1, len(history) + 1)))
    for number, members in enumerate(history, start=1):
        debt = {bot: debt.get(bot, 0.0) for bot in members}
        pairs = by_round.get(number, [])
        for bot in members:
            debt[bot] += (len(pairs) / spp * 2) / len(members)
        for pair in pairs:
            for bot in pair:
                played[bot] += 1
                debt[bot] -= 1 / spp
        worst = max(worst, max(debt.values()))
        if number in checkpoints:
            present = [played[bot] for bot in ids if all(bot in m for m in history[:number])]
            print(f"   round {number:>4}: series per bot min {min(present)}, median "
                  f"{statistics.median(present):g}, max {max(present)}; "
                  f"max debt so far {worst:.2f} meetings")

    print(f"\n2. newcomers (arrived during round {args.arrive})")
    newcomers = [bot for bot in history[-1] if bot not in ids]
    final = {row.bot_id: row.rating_mu for row in compute_standings(
        list(dict.fromkeys([*ids, *newcomers])), results).rows}
    by_mu = sorted(history[-1], key=lambda member: -final[member])
    for bot in newcomers:
        joined = next(n for n, members in enumerate(history, start=1) if bot in members)
        first = range(joined, min(joined + 10, len(history) + 1))
        own = sum(1 for n in first for pair in by_round.get(n, []) if bot in pair)
        others = [sum(1 for n in first for pair in by_round.get(n, []) if other in pair)
                  for other in history[joined - 1] if other not in newcomers]
        settled = settle_round(bot, results, round_of)
        print(f"   {bot}: joined at round {joined}; {own} series in its first {len(first)} "
              f"rounds (members' median {statistics.median(others):g}); not provisional "
              f"from round {settled if settled else 'never'}; at the end rank "
              f"{by_mu.index(bot) + 1} of {len(by_mu)} by mu (hidden Elo: "
              f"{elo[bot]:+.0f}, above every original bot)")

    print("\n3. ratings against the hidden Elo (Spearman rank correlation, members then)")
    for number in checkpoints:
        members = history[number - 1]
        upto = [r for r in results if round_of[r.series_id] <= number]
        table = {row.bot_id: row for row in compute_standings(
            list(dict.fromkeys([*ids, *(b for r in upto for b in r.bots)])), upto).rows}
        window = upto[-args.window:]
        fitted = fit(sorted({b for r in window for b in r.bots}),
                     (PairResult(r.seat0_bot, r.seat1_bot, r.scores[0]) for r in window))
        rated = [bot for bot in members if bot in fitted.bot_ids]
        truth = [elo[bot] for bot in members]
        mu = [table[bot].rating_mu for bot in members]
        windowed = spearman([fitted.elo[fitted.index(bot)] for bot in rated],
                            [elo[bot] for bot in rated])
        provisional = sum(1 for bot in members
                          if table[bot].series_played < PROVISIONAL_SERIES
                          or table[bot].rating_sigma > PROVISIONAL_SIGMA)
        print(f"   round {number:>4}: OpenSkill mu {spearman(mu, truth):.3f}, windowed "
              f"Bradley-Terry (last {args.window}) {windowed:.3f}; provisional "
              f"{provisional}/{len(members)}")

    print("\n4. cost of planning one round at the end")
    ladder = format_for(LADDER_FORMAT, config.with_changes(ladder_rounds=0))  # no end
    by_plan_round = storage.results_by_round(season_id)
    started = time.perf_counter()
    repeats = 5
    for _ in range(repeats):
        ladder.next_round(history[-1], config.seed, by_plan_round)
    print(f"   {1000 * (time.perf_counter() - started) / repeats:.1f} ms with "
          f"{len(results)} results stored (a new format object: every result rated)")


def settle_round(bot: str, results: list[SeriesRecord], round_of: dict[str, int]) -> int | None:
    """The round of the series after which ``bot``'s rating stopped being provisional."""
    state = StandingsState(list(dict.fromkeys(b for r in results for b in r.bots)))
    for result in results:
        state.apply(result)
        if bot in result.bots:
            row = state.table().row(bot)
            if (row.series_played >= PROVISIONAL_SERIES
                    and row.rating_sigma <= PROVISIONAL_SIGMA):
                return round_of[result.series_id]
    return None


if __name__ == "__main__":
    main()
