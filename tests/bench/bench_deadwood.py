"""Benchmark: min deadwood (10 cards) and best discards (11 cards) against OpenSpiel's
C++ gin rummy utilities on the same hands, per hand class, in one run.

Every call gets a fresh random hand (generated before timing starts), so no cache
of repeated hands can help. Uniform hands are 10 or 11 cards drawn from the whole
deck; meld-rich hands are drawn from 4-7 consecutive ranks in 2-4 suits, the hands
where set-versus-run choices make deadwood hard.

The anchor is ``open-spiel`` from PyPI, installed by ``make bench-venv`` into the
benchmark's own environment (``.bench-venv/``, git-ignored; never the project's
``.venv``): ``tests/bench/openspiel_deadwood.py`` runs there and times
``GinRummyUtils.min_deadwood`` on the same hands (card numbers, which its binding
converts to a C++ vector, as the engine's public functions check their ``Card``
lists). Chunks of 100 hands (well under a scheduler time slice) interleave the
engine and OpenSpiel (A, B, A, B, ...) so that both see the same machine, with the
garbage collector off on both sides; the ratio printed is the median of the
per-chunk ratios (engine time / OpenSpiel time), with the load average and the
host's steal share over the run. OpenSpiel's 11-card call returns a number; the
engine's ``best_discards`` also lists every best discard. Targets (issue 29):
ratio <= 1.0 on uniform hands, <= 0.75 on meld-rich ones.

Run: ``.venv/bin/python tests/bench/bench_deadwood.py [hands] [rounds]`` (or
``make bench``). Without ``.bench-venv`` the engine rows are printed alone.
"""

from __future__ import annotations

import gc
import json
import os
import random
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from figures import report

from engine.cards import ALL_CARDS, Card, cards_to_mask
from engine.deadwood_search import best_discards_mask, min_deadwood_mask
from engine.melds import best_discards, deadwood_after_each_discard, min_deadwood
from engine.settle import settle

HANDS = 20_000
ROUNDS = 5
CHUNK = 100
SEED = 20261130
REPO = Path(__file__).resolve().parents[2]
ANCHOR_PYTHON = REPO / ".bench-venv" / "bin" / "python"
ANCHOR_SCRIPT = Path(__file__).with_name("openspiel_deadwood.py")
RATIO_TARGETS = {"uniform": 1.0, "meld-rich": 0.75}
"""Engine time / OpenSpiel time, per hand class (issue 29)."""
MICROSECOND_TARGETS = {
    ("min_deadwood", "meld-rich"): 10.0,
    ("best_discards", "meld-rich"): 60.0,
}
KINDS = ("uniform", "meld-rich")


def uniform_hand(rng: random.Random, size: int) -> list[Card]:
    return rng.sample(ALL_CARDS, size)


def meld_rich_hand(rng: random.Random, size: int) -> list[Card]:
    while True:
        rank_count = rng.randint(4, 7)
        low = rng.randint(1, 14 - rank_count)
        suits = rng.sample(range(4), rng.randint(2, 4))
        pool = [card for card in ALL_CARDS
                if low <= card.rank < low + rank_count and card.suit in suits]
        if len(pool) >= size:
            return rng.sample(pool, size)


def knock_deal(rng: random.Random) -> tuple[list[Card], list[Card]]:
    """A meld-rich knocker hand with deadwood <= 10 and a defender holding cards near
    it (so layoffs are likely)."""
    while True:
        knocker = meld_rich_hand(rng, 10)
        if min_deadwood(knocker) <= 10:
            break
    near = [card for card in ALL_CARDS if card not in knocker
            and any(abs(card.rank - own.rank) <= 2 for own in knocker)]
    rest = [card for card in ALL_CARDS if card not in knocker]
    return knocker, rng.sample(near if len(near) >= 10 else rest, 10)


def nanoseconds(function: Callable[[Any], object], inputs: Sequence[Any]) -> int:
    """Time of ``function`` over ``inputs``, with the garbage collector off (as
    ``timeit`` does, and the anchor's script too): a collection walks every hand
    this benchmark keeps, a cost of the benchmark, not of the call timed."""
    gc.disable()
    try:
        start = time.perf_counter_ns()
        for item in inputs:
            function(item)
        return time.perf_counter_ns() - start
    finally:
        gc.enable()


def microseconds_per_call(function: Callable[[Any], object], inputs: Sequence[Any]) -> float:
    return nanoseconds(function, inputs) / len(inputs) / 1000


def cpu_times() -> list[int]:
    """The machine's total CPU times from /proc/stat (user, nice, system, idle, iowait,
    irq, softirq, steal), in clock ticks."""
    with open("/proc/stat") as stat:
        return [int(field) for field in stat.readline().split()[1:9]]


def anchor_available() -> bool:
    """Whether ``.bench-venv`` exists and imports OpenSpiel."""
    if not ANCHOR_PYTHON.exists():
        return False
    check = subprocess.run([str(ANCHOR_PYTHON), "-c", "import pyspiel"], capture_output=True,
                           check=False)
    return check.returncode == 0


class Anchor:
    """OpenSpiel in its own process and environment, timing chunks of the same hands
    on request (``openspiel_deadwood.py``)."""

    def __init__(self, samples: dict[str, list[list[int]]]) -> None:
        self.process = subprocess.Popen(
            [str(ANCHOR_PYTHON), str(ANCHOR_SCRIPT)], stdin=subprocess.PIPE,
            stdout=subprocess.PIPE, text=True)
        assert self.process.stdin is not None and self.process.stdout is not None
        self.requests = self.process.stdin
        self.answers = self.process.stdout
        self.requests.write(json.dumps(samples) + "\n")

    def nanoseconds(self, label: str, start: int, stop: int) -> int:
        self.requests.write(f"{label} {start} {stop}\n")
        self.requests.flush()
        answer = self.answers.readline()
        if not answer:
            raise RuntimeError(f"the OpenSpiel anchor stopped (exit {self.process.wait()})")
        return int(answer)

    def close(self) -> None:
        self.requests.close()
        self.process.wait()


Sample = tuple[str, str, int, Callable[[list[Card]], object], Callable[[int], object]]
SAMPLES: tuple[Sample, ...] = (
    ("min_deadwood", "uniform", 10, min_deadwood, min_deadwood_mask),
    ("min_deadwood", "meld-rich", 10, min_deadwood, min_deadwood_mask),
    ("best_discards", "uniform", 11, best_discards, best_discards_mask),
    ("best_discards", "meld-rich", 11, best_discards, best_discards_mask),
)


def median_ratio(mine: list[int], theirs: list[int]) -> float:
    return statistics.median(a / b for a, b in zip(mine, theirs, strict=True))


def main() -> None:
    hands = int(sys.argv[1]) if len(sys.argv) > 1 else HANDS
    rounds = int(sys.argv[2]) if len(sys.argv) > 2 else ROUNDS
    rng = random.Random(SEED)
    makers = {"uniform": uniform_hand, "meld-rich": meld_rich_hand}
    hand_sets = {(name, kind): [makers[kind](rng, size) for _ in range(hands)]
                 for name, kind, size, _, _ in SAMPLES}
    mask_sets = {key: [cards_to_mask(hand) for hand in sample]
                 for key, sample in hand_sets.items()}
    anchor = Anchor({f"{name}/{kind}": [[card.index for card in hand] for hand in sample]
                     for (name, kind), sample in hand_sets.items()}) if anchor_available() \
        else None
    # Per chunk of CHUNK hands: engine (checked), engine (mask), OpenSpiel, back to back.
    engine: dict[tuple[str, str], list[int]] = {key: [] for key in hand_sets}
    masked: dict[tuple[str, str], list[int]] = {key: [] for key in hand_sets}
    theirs: dict[tuple[str, str], list[int]] = {key: [] for key in hand_sets}
    before = cpu_times()
    loads = [os.getloadavg()[0]]
    for _ in range(rounds):
        for name, kind, _, function, mask_function in SAMPLES:
            for start in range(0, hands, CHUNK):
                stop = min(start + CHUNK, hands)
                engine[name, kind].append(nanoseconds(function, hand_sets[name, kind][start:stop]))
                masked[name, kind].append(
                    nanoseconds(mask_function, mask_sets[name, kind][start:stop]))
                if anchor is not None:
                    theirs[name, kind].append(anchor.nanoseconds(f"{name}/{kind}", start, stop))
        loads.append(os.getloadavg()[0])
    if anchor is not None:
        anchor.close()
    spent = [b - a for a, b in zip(before, cpu_times(), strict=True)]
    steal = spent[7] / max(1, sum(spent))

    def per_call(times: list[int]) -> float:
        return statistics.median(times) / CHUNK / 1000

    figures: list[tuple[str, float, float | None, str, str]] = []
    print(f"{'function':<14} {'hands':<10} {'engine us':>9} {'mask us':>8} {'OpenSpiel us':>12}"
          f" {'engine/OS':>9} {'mask/OS':>7} {'target':>7}")
    for name, kind in hand_sets:
        own = per_call(engine[name, kind])
        line = f"{name:<14} {kind:<10} {own:>9.2f} {per_call(masked[name, kind]):>8.2f}"
        if anchor is not None:
            ratio = median_ratio(engine[name, kind], theirs[name, kind])
            mask_ratio = median_ratio(masked[name, kind], theirs[name, kind])
            target = RATIO_TARGETS[kind]
            line += (f" {per_call(theirs[name, kind]):>12.2f} {ratio:>8.2f}x {mask_ratio:>6.2f}x"
                     f" {'<=':>3}{target:.2f}x {'ok' if ratio <= target else 'MISSED'}")
            figures.append((f"{name} {kind} / OpenSpiel C++", ratio, target, "x",
                            f"{own:.2f} us against {per_call(theirs[name, kind]):.2f} us"))
        else:
            limit = MICROSECOND_TARGETS.get((name, kind))
            line += f" {'-':>12} {'-':>9} {'-':>7}" + (
                "" if limit is None else f" {limit:>5.0f}us {'ok' if own <= limit else 'MISSED'}")
            figures.append((f"{name} {kind} (no anchor)", own, limit, "us", ""))
        print(line)
    if anchor is None:
        print("(no OpenSpiel anchor: `make bench-venv` installs open-spiel into .bench-venv/)")
    print(f"({hands} fresh hands per row, {rounds} rounds of {CHUNK}-hand chunks interleaved "
          "engine/mask/OpenSpiel, medians over chunks; engine = the public call with its "
          f"checks, mask = the engine's own unchecked path; load average {min(loads):.1f}-"
          f"{max(loads):.1f} on {os.cpu_count()} cores, steal {steal:.0%}; pure Python "
          f"{sys.version.split()[0]})")
    for figure, measured, target, unit, conditions in figures:
        report(figure, measured, target, unit=unit, conditions=conditions)

    for name, function in (("deadwood_after_each_discard", deadwood_after_each_discard),):
        for kind in KINDS:
            sample = [makers[kind](rng, 11) for _ in range(hands)]
            print(f"{name:<28} 11 {kind:<10} {microseconds_per_call(function, sample):>8.2f} us")
    deals = [knock_deal(rng) for _ in range(max(hands // 10, 100))]
    start = time.perf_counter_ns()
    for knocker, defender in deals:
        settle(knocker, defender)
    micros = (time.perf_counter_ns() - start) / len(deals) / 1000
    print(f"{'settle':<28} 10 {'knock':<10} {micros:>8.2f} us")


if __name__ == "__main__":
    main()
