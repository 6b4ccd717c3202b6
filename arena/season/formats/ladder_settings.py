"""The ladder's own settings (``arena.season.formats.ladder``), its gate's
(``arena.season.formats.ladder_gate``) among them: a module of their own, since
both modules read them."""

from __future__ import annotations

from dataclasses import dataclass

from arena.core.setting import FormatSettings, format_setting


@dataclass(frozen=True)
class LadderSettings(FormatSettings):
    """What only a ladder reads."""

    ladder_rounds: int = format_setting(
        0, "ladder: rounds to play before it stops (0 = no end: it plays until stopped)",
        "--ladder-rounds", kind=int, proto_field="ladder_rounds", low=0, high=10_000_000)
    ladder_meetings: int = format_setting(
        0, "ladder: meetings per round (0 = a quarter of the members, at least one)",
        "--ladder-meetings", kind=int, proto_field="ladder_meetings", low=0, high=1000)
    ladder_window: int = format_setting(
        1000, "ladder: latest series the windowed Bradley-Terry rating is fitted on",
        "--ladder-window", kind=int, proto_field="ladder_window", metavar="W", low=2,
        high=1_000_000)
    ladder_gate: str = format_setting(
        "none", "ladder: what a new version of a member plays before it joins: none (it "
        "replaces its predecessor at once) or sprt (a match against its predecessor first)",
        "--gate", kind=str, proto_field="ladder_gate", metavar="GATE",
        doc="ladder: what a new version of a member plays before it joins: `none` (it "
        "replaces its predecessor at the next round) or `sprt` (first a match against "
        "its predecessor, a sequential test with `--gate-sprt` and `--gate-max-pairs`; "
        "`--gate-rule` says what its verdict does)")
    ladder_gate_sprt: str = format_setting(
        "elo0=0,elo1=20,alpha=0.05,beta=0.05", "ladder gate: the test of the new version "
        "against its predecessor", "--gate-sprt", kind=str, proto_field="ladder_gate_sprt",
        metavar="SPEC",
        doc="ladder gate: the test of the new version (A) against its predecessor (B), "
        "as `--sprt`: `elo0=E0,elo1=E1,alpha=A,beta=B`")
    ladder_gate_max_pairs: int = format_setting(
        200, "ladder gate: duplicate pairs the match plays at most before it ends "
        "inconclusive", "--gate-max-pairs", kind=int, proto_field="ladder_gate_max_pairs",
        low=1, high=100_000)
    ladder_gate_rule: str = format_setting(
        "accepted-replaces", "ladder gate: what the verdict does: accepted-replaces "
        "(accepted: the new version replaces its predecessor; rejected or inconclusive: it "
        "stays off) or owner-decides (it joins only when its owner admits it: arena ladder "
        "admit)", "--gate-rule", kind=str, proto_field="ladder_gate_rule", metavar="RULE")
