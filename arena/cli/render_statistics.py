"""The season statistics on the terminal: the Elo column and tied marks of the
standings table, the likelihood-of-superiority matrix (``standings --los``), the
knockout bracket, the SPRT state of a match, and throughput with time left."""

from __future__ import annotations

from hollywood.arena.v1 import arena_pb2
from rich.console import RenderableType
from rich.table import Table
from rich.text import Text

TIED_NOTE = ("Elo = Bradley-Terry over all series with its 95 % interval; "
             "'tied' = not significantly ahead of the next row (95 %).")


def elo_cell(row: arena_pb2.StandingRow) -> str:
    elo, low, high = (round(value) for value in (row.bt_elo, row.bt_elo_low, row.bt_elo_high))
    return f"{elo:+d} [{low:+d},{high:+d}]"  # whole numbers: no "-0"


def tied_cell(row: arena_pb2.StandingRow) -> str:
    return "tied" if row.tied_with_next else ""


def los_table(standings: arena_pb2.Standings) -> Table:
    """Likelihood of superiority: row bot stronger than column bot, in %."""
    bots = [row.bot_id for row in standings.rows]
    values = {(cell.bot_id, cell.opponent_id): cell.los for cell in standings.los}
    table = Table(title="Likelihood of superiority (row stronger than column, %)")
    table.add_column("")
    for bot in bots:
        table.add_column(bot, justify="right")
    for bot in bots:
        table.add_row(bot, *("·" if bot == other else f"{100 * values.get((bot, other), 0.5):.1f}"
                             for other in bots))
    return table


def bracket_table(standings: arena_pb2.Standings) -> Table:
    """The knockout bracket, tie by tie."""
    table = Table(title="Bracket" + (f" — champion {standings.champion}"
                                     if standings.champion else ""))
    for header in ("Round", "Higher seed", "Lower seed", "Score", "Pairs", "Through"):
        table.add_column(header)
    for tie in standings.bracket:
        through = f"{tie.winner} ({tie.decided_by})" if tie.winner else "…"
        table.add_row(str(tie.bracket_round), f"({tie.high_seed}) {tie.high}",
                      f"({tie.low_seed}) {tie.low}" if tie.low else "bye",
                      f"{tie.high_score:g}-{tie.low_score:g}" if tie.low else "",
                      str(tie.pairs), through)
    return table


def sprt_text(standings: arena_pb2.Standings) -> Text:
    """Pair counts, LLR with its bounds, Elo with its 95 % interval and LOS."""
    sprt = standings.sprt
    counts = " ".join(str(count) for count in sprt.pentanomial)
    decision = {"H1": "accepted H1 (A is stronger by elo1 or more)",
                "H0": "accepted H0 (A is not stronger by elo1)"}.get(
                    sprt.decision, "undecided")
    pairs = sum(sprt.pentanomial)
    return Text(
        f"SPRT {sprt.bot_a} (A) vs {sprt.bot_b} (B), {sprt.spec}: {decision}\n"
        f"pairs {pairs}/{sprt.max_pairs}  pentanomial [0 ¼ ½ ¾ 1] = [{counts}]\n"
        f"LLR {sprt.llr:.3f}  bounds [{sprt.lower_bound:.3f}, {sprt.upper_bound:.3f}]\n"
        f"Elo of A over B {sprt.elo:+.1f} [{sprt.elo_low:+.1f}, {sprt.elo_high:+.1f}] "
        f"(95 %)  LOS {100 * sprt.los:.1f} %")


def statistics_parts(standings: arena_pb2.Standings) -> list[RenderableType]:
    """The format's own parts under the standings table (bracket, SPRT)."""
    parts: list[RenderableType] = [Text(throughput_text(standings), style="dim")]
    if standings.bracket:
        parts.append(bracket_table(standings))
    if standings.HasField("sprt"):
        parts.append(sprt_text(standings))
    return parts


def throughput_text(standings: arena_pb2.Standings) -> str:
    """``12.5 series/min, about 3 min 20 s left`` (no time left when unknown)."""
    text = f"{standings.series_per_minute:.1f} series/min"
    if standings.series_expected:
        text += f", {standings.series_done}/{standings.series_expected} series expected"
    seconds_left = standings.seconds_left
    if seconds_left < 0:
        return text
    minutes, seconds = divmod(round(seconds_left), 60)
    hours, minutes = divmod(minutes, 60)
    left = (f"{hours} h {minutes} min" if hours else
            f"{minutes} min {seconds} s" if minutes else f"{seconds} s")
    return f"{text}, about {left} left"
