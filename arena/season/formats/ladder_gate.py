"""The ladder's gate (``--gate sprt``): a new version of a member proves itself
before it counts. It first plays an SPRT match (``arena.season.formats.sprt_match``,
the pentanomial GSPRT) against its predecessor, the version of its name on the
ladder; the ladder's rule (``--gate-rule``) or its owner decides whether it then
replaces the predecessor. A version whose name was never on the ladder joins
directly.

This module is what the gate is as a format: its settings, the configuration
and first pair of a gate match, its verdict from the match's results, and the
rule. ``arena.season.ladder_gating`` opens, plays and decides the matches as the
ladder plans its rounds.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final, Self

from arena.core.setting import declared_settings
from arena.core.settings import ConfigError, SeasonConfig
from arena.season.formats.base import Pairing, derive_round_seed
from arena.season.formats.ladder_settings import LadderSettings
from arena.season.formats.sprt_match import SprtMatch
from arena.storage import GateRecord, GateVerdict, SeriesRecord

NO_GATE: Final = "none"
SPRT_GATE: Final = "sprt"
ACCEPTED_REPLACES: Final = "accepted-replaces"
"""Rule: an accepted version replaces its predecessor; a rejected or inconclusive
one stays off (unless its owner admits it)."""
OWNER_DECIDES: Final = "owner-decides"
"""Rule: a gated version joins only when its owner (or the admin) admits it."""
RULES: Final = (ACCEPTED_REPLACES, OWNER_DECIDES)
ACCEPTED: Final = "accepted"
REJECTED: Final = "rejected"
INCONCLUSIVE: Final = "inconclusive"


class LadderGate:
    """A ladder's gate (see the module docstring): ``match`` tests the new version
    (A) against its predecessor (B); ``rule`` says what its verdict does."""

    def __init__(self, match: SprtMatch, rule: str) -> None:
        self.match = match
        self.rule = rule

    @classmethod
    def from_config(cls, config: SeasonConfig) -> Self | None:
        """The gate of a ladder played under ``config`` (None without one); raises
        ``ConfigError`` for a gate, rule or test it cannot use."""
        own = config.settings_for(LadderSettings)
        if own.ladder_gate not in (NO_GATE, SPRT_GATE):
            raise ConfigError(f"ladder_gate must be {NO_GATE} or {SPRT_GATE}, "
                              f"got {own.ladder_gate!r}")
        if own.ladder_gate_rule not in RULES:
            raise ConfigError(f"ladder_gate_rule must be one of {', '.join(RULES)}, "
                              f"got {own.ladder_gate_rule!r}")
        try:
            match = SprtMatch.from_spec(own.ladder_gate_sprt, own.ladder_gate_max_pairs)
        except ConfigError as error:
            # The test's message names the match's own setting: name the gate's.
            raise ConfigError("ladder_gate_sprt: " + str(error).removeprefix("sprt: ")) from None
        if own.ladder_gate == NO_GATE:
            return None
        return cls(match, own.ladder_gate_rule)

    def summary(self) -> str:
        return (f"gate {SPRT_GATE} {self.match.spec.text()}, at most "
                f"{self.match.max_pairs} pairs, {self.rule}")

    def match_config(self, ladder: SeasonConfig, bot_id: str) -> SeasonConfig:
        """The configuration of ``bot_id``'s gate match on a ladder played under
        ``ladder``: the ladder's rules, limits and sandbox, the gate's test, a seed
        of its own derived from the ladder's (none for a ladder without one: the
        match is dealt from a secret deal key of its own)."""
        own = {setting.name: setting.default for setting in declared_settings(LadderSettings)}
        return ladder.with_changes(
            **own, format=SPRT_GATE, sprt=self.match.spec.text(),
            max_pairs=self.match.max_pairs,
            seed=(derive_round_seed(ladder.seed, f"gate:{bot_id}") or 1) if ladder.seed else 0)

    def first_pair(self, bot_id: str, predecessor: str, seed: int) -> list[Pairing]:
        """The first duplicate pair of the match (the rest are planned as it plays)."""
        return self.match.first_round([bot_id, predecessor], seed)

    def verdict(self, bot_ids: Sequence[str],
                results_by_round: Sequence[Sequence[SeriesRecord]]) -> GateVerdict:
        """The verdict of a match that has stopped: accepted (the test accepted H1:
        A is stronger by elo1 or more), rejected (H0) or inconclusive."""
        state = self.match.state(bot_ids, results_by_round)
        status = {"H1": ACCEPTED, "H0": REJECTED}.get(state.decision, INCONCLUSIVE)
        estimate = state.estimate
        elo, low, high = ((estimate.elo, estimate.elo_low, estimate.elo_high)
                          if estimate is not None else (0.0, 0.0, 0.0))
        return GateVerdict(status, state.pairs, elo, low, high, state.llr)

    def admits(self, gate: GateRecord) -> bool:
        """Whether ``gate``'s version joins the ladder: its owner admitted it, or
        the rule is accepted-replaces and its match accepted it."""
        return bool(gate.admitted_by) or (self.rule == ACCEPTED_REPLACES
                                          and gate.verdict.status == ACCEPTED)
