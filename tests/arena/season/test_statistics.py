"""The pentanomial SPRT (LLR against the formula computed here; decisions and
error rates on seeded synthetic matches) and the Bradley-Terry rating (recovers
a known order, calls equal bots tied)."""

from __future__ import annotations

import math
import random
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import threadpoolctl

from arena.season.statistics.bradley_terry import PairResult, fit
from arena.season.statistics.pentanomial import (
    SprtSpec,
    SprtSpecError,
    estimate,
    llr,
    pair_index,
    sprt_state,
)

SCORES = (0.0, 0.25, 0.5, 0.75, 1.0)


def reference_llr(counts: list[int], elo0: float, elo1: float) -> float:
    """fishtest's generalized LLR written out: zero counts -> 1e-3; under each
    hypothesis p_i = f_i / (1 + lam (a_i - s)) with lam the root (bisection) of
    sum f_i (a_i - s) / (1 + lam (a_i - s)) = 0; LLR = N sum f_i ln(p1_i / p0_i)."""
    regular = [c if c > 0 else 1e-3 for c in counts]
    total = sum(regular)
    freq = [c / total for c in regular]

    def constrained(elo: float) -> list[float]:
        s = 1 / (1 + 10 ** (-elo / 400))
        d = [a - s for a in SCORES]
        lo, hi = -1 / max(d) + 1e-13, -1 / min(d) - 1e-13
        for _ in range(300):
            lam = (lo + hi) / 2
            if sum(f * x / (1 + lam * x) for f, x in zip(freq, d, strict=True)) > 0:
                lo = lam
            else:
                hi = lam
        lam = (lo + hi) / 2
        return [f / (1 + lam * x) for f, x in zip(freq, d, strict=True)]

    p0, p1 = constrained(elo0), constrained(elo1)
    return total * sum(f * math.log(b / a) for f, a, b in zip(freq, p0, p1, strict=True))


@pytest.mark.parametrize("counts", [
    [10, 40, 100, 45, 12], [0, 3, 10, 4, 0], [1, 0, 0, 0, 9], [30, 20, 10, 5, 1], [0, 0, 1, 0, 0],
])
@pytest.mark.parametrize(("elo0", "elo1"), [(0, 10), (-5, 5), (0, 50)])
def test_llr_matches_the_formula(counts: list[int], elo0: float, elo1: float) -> None:
    assert llr(counts, elo0, elo1) == pytest.approx(reference_llr(counts, elo0, elo1),
                                                     rel=1e-7, abs=1e-9)


def test_bounds_and_spec_parsing() -> None:
    spec = SprtSpec.parse("elo0=0,elo1=10,alpha=0.05,beta=0.05")
    assert spec.lower_bound == pytest.approx(-2.9444389791664403)
    assert spec.upper_bound == pytest.approx(2.9444389791664403)
    assert SprtSpec.parse("elo1=5, beta=0.1") == SprtSpec(0, 5, 0.05, 0.1)
    for text, message in [("elo0=10,elo1=0", "must be less than"), ("alpha=0.7", "alpha"),
                          ("elo2=3", "not one of"), ("elo1=x", "must be a number")]:
        with pytest.raises(SprtSpecError, match=message):
            SprtSpec.parse(text)


def test_pair_index_and_estimate() -> None:
    assert [pair_index(0, 0), pair_index(0.5, 0), pair_index(1, 0), pair_index(1, 0.5),
            pair_index(1, 1)] == [0, 1, 2, 3, 4]
    assert estimate([0, 0, 0, 0, 0]) is None
    even = estimate([5, 0, 0, 0, 5])
    assert even is not None and even.elo == pytest.approx(0, abs=1e-6)
    assert even.los == pytest.approx(0.5, abs=1e-6)
    three_quarters = estimate([0, 0, 0, 20, 0])  # -400 log10(1/0.75 - 1) = 190.85
    assert three_quarters is not None and three_quarters.elo == pytest.approx(190.85, abs=0.2)
    assert three_quarters.los > 0.999


def simulate(spec: SprtSpec, elo: float, rng: random.Random, max_pairs: int = 5000
             ) -> tuple[str, int]:
    """One synthetic match: A wins each series with the logistic probability of
    ``elo`` (a tenth of series drawn); the decision and the pairs it took."""
    p_win = 1 / (1 + 10 ** (-elo / 400))
    counts = [0] * 5
    for pairs in range(1, max_pairs + 1):
        scores = []
        for _ in range(2):
            roll = rng.random()
            scores.append(0.5 if roll < 0.1 else 1.0 if rng.random() < p_win else 0.0)
        counts[pair_index(scores[0], scores[1])] += 1
        decision = sprt_state(spec, counts).decision
        if decision:
            return decision, pairs
    return "", max_pairs


def test_a_clearly_stronger_bot_is_accepted_as_h1() -> None:
    rng = random.Random(1)
    spec = SprtSpec(0, 10, 0.05, 0.05)
    assert [simulate(spec, 200, rng)[0] for _ in range(10)] == ["H1"] * 10


def test_error_rates_over_seeded_simulations() -> None:
    spec = SprtSpec(0, 40, 0.05, 0.05)
    rng = random.Random(11)
    runs = 200
    at_h0 = [simulate(spec, 0, rng)[0] for _ in range(runs)]
    at_h1 = [simulate(spec, 40, rng)[0] for _ in range(runs)]
    # Nominal 5 % each (600 runs measured 4.3 % and 6.7 %); 200 runs give a standard
    # error of 1.5 %, so 12 % is far outside noise (a broken LLR gave 30 %).
    assert at_h0.count("H1") / runs <= 0.12
    assert at_h1.count("H0") / runs <= 0.12
    assert at_h0.count("H0") / runs >= 0.85  # equal bots: H0 in most runs


def bt_results(true_elo: dict[str, float], series: int, seed: int) -> list[PairResult]:
    rng = random.Random(seed)
    bots = list(true_elo)
    results = []
    for i, a in enumerate(bots):
        for b in bots[i + 1:]:
            p = 1 / (1 + 10 ** ((true_elo[b] - true_elo[a]) / 400))
            for _ in range(series):
                roll = rng.random()
                results.append(PairResult(a, b, 0.5 if roll < 0.05 else
                                          1.0 if rng.random() < p else 0.0))
    return results


def test_bradley_terry_recovers_the_order_and_calls_equal_bots_tied() -> None:
    truth = {"w": -300.0, "x": -100.0, "y1": 100.0, "y2": 100.0, "z": 300.0}
    rating = fit(list(truth), bt_results(truth, 200, 3))
    elo = dict(zip(rating.bot_ids, rating.elo, strict=True))
    assert elo["z"] > max(elo["y1"], elo["y2"]) > min(elo["y1"], elo["y2"]) > elo["x"] > elo["w"]
    assert rating.significantly_ahead("z", "y1") and rating.significantly_ahead("y2", "x")
    assert not rating.significantly_ahead("y1", "y2")
    assert not rating.significantly_ahead("y2", "y1")
    assert elo["z"] - elo["w"] == pytest.approx(600, abs=60)
    low, high = rating.interval("z")
    assert low < elo["z"] < high
    assert rating.los("z", "w") > 0.999 and rating.los("w", "z") < 0.001


def test_bradley_terry_two_bots_by_hand() -> None:
    """a beats b 3 times of 4. With one virtual draw each against a reference at 0,
    symmetry gives theta_b = -theta_a, and theta solves 3.5 = 4 s(2t) + s(t)."""
    def sigmoid(x: float) -> float:
        return 1 / (1 + math.exp(-x))

    lo, hi = 0.0, 5.0
    for _ in range(200):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if 4 * sigmoid(2 * mid) + sigmoid(mid) < 3.5 else (lo, mid)
    expected = 2 * lo * 400 / math.log(10)
    rating = fit(["a", "b"], [PairResult("a", "b", 1.0)] * 3 + [PairResult("b", "a", 1.0)])
    assert rating.elo[0] - rating.elo[1] == pytest.approx(expected, rel=1e-6)
    assert rating.elo[0] == pytest.approx(-rating.elo[1])
    drawn = fit(["a", "b"], [PairResult("a", "b", 0.5)])
    assert drawn.elo == (0.0, 0.0) and drawn.los("a", "b") == pytest.approx(0.5)


def two_bot_elo_apart(won: int, played: int) -> float:
    """The Elo difference of a pair where one bot won ``won`` of ``played`` series,
    worked by hand: θb = -θa = -t by symmetry, and the prior's half win makes
    won + 0.5 = played s(2t) + s(t), solved here by bisection."""
    def sigmoid(x: float) -> float:
        return 1 / (1 + math.exp(-x))

    lo, hi = 0.0, 10.0
    for _ in range(200):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if played * sigmoid(2 * mid) + sigmoid(mid) < won + 0.5 else (lo, mid)
    return 2 * lo * 400 / math.log(10)


@pytest.mark.parametrize(("won", "played", "shown"), [(3, 4, 164.8), (30, 40, 187.8)])
def test_the_prior_shrinks_small_samples_by_the_amounts_the_docs_state(
        won: int, played: int, shown: float) -> None:
    """docs/formats.md (standings with error bars): 3 of 4 puts two bots 164.8 Elo
    apart, 30 of 40 187.8, where the plain maximum-likelihood estimate is
    400 log10 3 = 190.8 for both."""
    rating = fit(["a", "b"], [PairResult("a", "b", 1.0)] * won
                 + [PairResult("b", "a", 1.0)] * (played - won))
    assert rating.elo[0] - rating.elo[1] == pytest.approx(two_bot_elo_apart(won, played),
                                                          rel=1e-6)
    assert round(rating.elo[0] - rating.elo[1], 1) == shown
    assert round(400 * math.log10(won / (played - won)), 1) == 190.8
    text = (Path(__file__).resolve().parents[3] / "docs" / "formats.md").read_text()
    assert f"**{shown}**" in text or f"are {shown} and 190.8" in text
    assert "is **190.8**" in text


def test_draws_are_fitted_as_draws() -> None:
    """Davidson's model by hand: two bots 7-7 with 6 draws stay equal (θ = 0), and
    the draw factor solves d = n ν / (2 + ν): ν = 2 d / (n - d) = 12 / 14. With no
    decisive series at all, the data say nothing about the strengths."""
    rating = fit(["a", "b"], [PairResult("a", "b", 1.0)] * 7 + [PairResult("a", "b", 0.0)] * 7
                 + [PairResult("b", "a", 0.5)] * 6)
    assert rating.elo == pytest.approx((0.0, 0.0), abs=1e-9)
    assert rating.draw_factor == pytest.approx(12 / 14, rel=1e-9)
    decisive = fit(["a", "b"], [PairResult("a", "b", 1.0)] * 7 + [PairResult("a", "b", 0.0)] * 7)
    assert decisive.draw_factor == 0.0
    # Between equal bots a draw says nothing about which is stronger: the information
    # on θa - θb at x = 0 is n / (2 (2 + ν)) = (decisive series) / 4, so the 6 draws
    # leave the error of the 14 decisive series alone. Half a win each counted them
    # as 6 more coin flips: the error of 20 decisive series, narrower.
    twenty = fit(["a", "b"], [PairResult("a", "b", 1.0)] * 10 + [PairResult("a", "b", 0.0)] * 10)
    assert rating.elo_error == pytest.approx(decisive.elo_error, rel=1e-9)
    assert twenty.elo_error[0] < rating.elo_error[0]
    drawn = fit(["a", "b"], [PairResult("a", "b", 0.5)] * 5)
    prior_only = fit(["a", "b"], [])
    assert drawn.elo_error == pytest.approx(prior_only.elo_error)


def blas_threads() -> set[int]:
    return {info["num_threads"] for info in threadpoolctl.threadpool_info()
            if info["user_api"] == "blas"}


def test_the_fit_solves_on_one_blas_thread_and_gives_the_rest_back(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A bots x bots solve is far too small to share: BLAS threads spinning for cores
    the arena's threads hold made it 150 times slower. The fit caps BLAS at one
    thread while it runs, whatever the process had, and restores that after."""
    solve = np.linalg.solve
    during: list[set[int]] = []

    def recording_solve(matrix: Any, vector: Any) -> Any:
        during.append(blas_threads())
        return solve(matrix, vector)

    monkeypatch.setattr(np.linalg, "solve", recording_solve)
    with threadpoolctl.threadpool_limits(limits=2, user_api="blas"):
        assert blas_threads() == {2}
        fit(["a", "b", "c"], [PairResult("a", "b", 1.0), PairResult("b", "c", 0.5)])
        assert blas_threads() == {2}
    assert during and all(threads == {1} for threads in during)
