"""The SPRT match format (``arena match A B --sprt ...``): two bots play duplicate
pairs, one pair per stored round, until the sequential probability ratio test
(``arena.season.statistics.pentanomial``) accepts H0 or H1, or ``max_pairs``
pairs are played. The first bot of the season is A, whose Elo is tested."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Self

from arena.core.setting import FormatSettings, format_setting
from arena.core.settings import ConfigError, SeasonConfig
from arena.season.formats.base import (
    Format,
    FormatStandings,
    Pairing,
    Resolve,
    SeasonView,
    Section,
    derive_round_seed,
    meeting,
)
from arena.season.statistics.pentanomial import (
    SprtSpec,
    SprtSpecError,
    SprtState,
    pair_index,
    sprt_state,
)
from arena.storage import SeriesRecord


def pentanomial_counts(bot_a: str, results_by_round: Sequence[Sequence[SeriesRecord]]
                       ) -> list[int]:
    """Pairs scoring 0, 1/4, 1/2, 3/4, 1 for ``bot_a``: one per complete stored
    round (a round still being played is not counted)."""
    counts = [0] * 5
    for results in results_by_round:
        if len(results) != 2:
            continue
        scores = [result.scores[result.bots.index(bot_a)] for result in results]
        counts[pair_index(scores[0], scores[1])] += 1
    return counts


@dataclass(frozen=True)
class SprtSettings(FormatSettings):
    """The SPRT match's own settings."""

    sprt: str = format_setting(
        "elo0=0,elo1=10,alpha=0.05,beta=0.05", "sprt: the test's hypotheses and error rates",
        "--sprt", kind=str, proto_field="sprt", metavar="SPEC",
        doc="sprt: `elo0=E0,elo1=E1,alpha=A,beta=B`: H0 Elo <= E0 against H1 Elo >= E1 "
        "(logistic Elo), false-positive rate alpha, false-negative rate beta")
    max_pairs: int = format_setting(
        1000, "sprt: duplicate pairs played at most before the match stops undecided",
        "--max-pairs", kind=int, proto_field="max_pairs", low=1, high=100_000)


class SprtMatch(Format):
    """See the module docstring."""

    settings_class = SprtSettings
    reads_plan = True  # a pair is a stored round

    def __init__(self, spec: SprtSpec, max_pairs: int) -> None:
        self.spec = spec
        self.max_pairs = max_pairs

    @classmethod
    def from_spec(cls, spec_text: str, max_pairs: int) -> Self:
        try:
            return cls(SprtSpec.parse(spec_text), max_pairs)
        except SprtSpecError as error:
            raise ConfigError(str(error)) from None

    @classmethod
    def from_config(cls, config: SeasonConfig) -> Self:
        own = config.settings_for(SprtSettings)
        return cls.from_spec(own.sprt, own.max_pairs)

    @classmethod
    def admit(cls, config: SeasonConfig, bot_ids: list[str], resolve: Resolve
              ) -> tuple[SeasonConfig, list[str]]:
        """The test is stored in its full form."""
        return config.with_changes(sprt=cls.from_config(config).spec.text()), bot_ids

    @classmethod
    def summary(cls, config: SeasonConfig) -> str:
        own = config.settings_for(SprtSettings)
        return f"({own.sprt}, at most {own.max_pairs} pairs)"

    def standings(self, season: SeasonView) -> FormatStandings:
        """The state of the test."""
        bots = season.bot_ids
        state = self.state(bots, season.results_by_round)
        return FormatStandings(
            sections=[Section("", lines=self.lines(state, bots[0], bots[1]))],
            api={"sprt": self.api(state, bots[0], bots[1])})

    def api(self, state: SprtState, bot_a: str, bot_b: str) -> dict[str, object]:
        """The state of the test as the API's ``SprtStatus``."""
        status: dict[str, object] = {
            "spec": state.spec.text(), "pentanomial": list(state.counts), "llr": state.llr,
            "decision": state.decision, "lower_bound": state.spec.lower_bound,
            "upper_bound": state.spec.upper_bound, "max_pairs": self.max_pairs,
            "bot_a": bot_a, "bot_b": bot_b}
        if state.estimate is not None:
            status.update(elo=state.estimate.elo, elo_low=state.estimate.elo_low,
                          elo_high=state.estimate.elo_high, los=state.estimate.los)
        return status

    def lines(self, state: SprtState, bot_a: str, bot_b: str) -> tuple[str, ...]:
        """Pair counts, LLR with its bounds, Elo with its 95 % interval and LOS."""
        counts = " ".join(str(count) for count in state.counts)
        decision = {"H1": "accepted H1 (A is stronger by elo1 or more)",
                    "H0": "accepted H0 (A is not stronger by elo1)"}.get(
                        state.decision, "undecided")
        spec, estimate = state.spec, state.estimate
        elo, low, high, los = ((estimate.elo, estimate.elo_low, estimate.elo_high, estimate.los)
                               if estimate is not None else (0.0, 0.0, 0.0, 0.0))
        return (
            f"SPRT {bot_a} (A) vs {bot_b} (B), {spec.text()}: {decision}",
            f"pairs {sum(state.counts)}/{self.max_pairs}  pentanomial [0 ¼ ½ ¾ 1] = [{counts}]",
            f"LLR {state.llr:.3f}  bounds [{spec.lower_bound:.3f}, {spec.upper_bound:.3f}]",
            f"Elo of A over B {elo:+.1f} [{low:+.1f}, {high:+.1f}] (95 %)  LOS {100 * los:.1f} %")

    def state(self, bot_ids: Sequence[str],
              results_by_round: Sequence[Sequence[SeriesRecord]]) -> SprtState:
        return sprt_state(self.spec, pentanomial_counts(bot_ids[0], results_by_round))

    def first_round(self, bot_ids: Sequence[str], seed: int) -> list[Pairing]:
        self._check(len(bot_ids))
        if bot_ids[0] == bot_ids[1]:
            raise ValueError("a match needs two distinct bots")
        return self._pair(bot_ids, seed, 0)

    def next_round(
        self, bot_ids: Sequence[str], seed: int,
        results_by_round: Sequence[Sequence[SeriesRecord]],
    ) -> list[Pairing] | None:
        state = self.state(bot_ids, results_by_round)
        if state.decision or len(results_by_round) >= self.max_pairs:
            return None
        return self._pair(bot_ids, seed, len(results_by_round))

    def planned_count(self, bot_count: int) -> int | None:
        self._check(bot_count)
        return None  # the test decides when to stop

    @staticmethod
    def _check(bot_count: int) -> None:
        if bot_count != 2:
            raise ConfigError(f"an sprt match is between exactly two bots, got {bot_count}")

    @staticmethod
    def _pair(bot_ids: Sequence[str], seed: int, number: int) -> list[Pairing]:
        return meeting(bot_ids[0], bot_ids[1], 2, derive_round_seed(seed, f"sprt:{number}"))
