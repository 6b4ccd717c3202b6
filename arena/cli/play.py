"""``arena play A B``: a local check for bot authors, in any language.

Two bots, each a bot folder, a registered bot (``name`` or ``name@version`` of the
``--db`` database) or ``tcp:HOST:PORT`` (a bot its author started by hand, e.g. under
a debugger: the arena only connects to it, see ``arena.sandbox.tcp``), play
``--series N`` series on this machine in the chosen sandbox. Every hand is printed
as it is played (how it ended; the deal and every move too with ``--show``), in the
words of ``arena series show`` (``arena.server.story``), then each series' final
score sheet and the tally. Nothing is stored: no server, no database writes.
Exit status 0 when no bot faulted, 1 otherwise.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from rich.console import Console

from arena.cli.local import is_folder
from arena.cli.output import CliError
from arena.cli.season_options import add_setting_options, setting_values
from arena.core import arguments
from arena.core.defaults import DEFAULT_DB
from arena.core.limits import TimeLimits
from arena.core.manifest import ManifestError
from arena.core.series import BotRef, SeriesOutcome, SeriesSpec
from arena.core.settings import SETTINGS_BY_NAME, ConfigError, SeasonConfig
from arena.sandbox.tcp import TCP_PREFIX, AddressError, TcpAddress, hand_started_ref
from arena.server.story import hand_lines, sheet_line
from engine.actions import Action
from engine.profiles import Profile
from engine.series import Series

PLAY_SETTINGS: Final = ("sandbox", "seed", "profile_name", "max_hands", "startup_s",
                        "decision_s", "reserve_s", "series_per_container")
"""The season settings ``arena play`` takes, as options derived from their declarations."""
PLAY_DEFAULTS: Final = {"seed": 1}
_DEBUGGER = "; raise the time limits to step through a bot in a debugger"
PLAY_HELPS: Final = {
    "sandbox": "how bots other than tcp: ones run",
    "seed": "the first series' deal seed (each duplicate pair has the next)",
    **{name: SETTINGS_BY_NAME[name].help + _DEBUGGER
       for name in ("startup_s", "decision_s", "reserve_s")},
}


@dataclass(frozen=True)
class Player:
    """One side of ``arena play``: the bot, and its address if started by hand."""

    reference: str
    bot: BotRef
    address: TcpAddress | None = None


def resolve_player(reference: str, db: Path) -> Player:
    """``reference`` as a bot: ``tcp:HOST:PORT``, a folder, else a registered bot."""
    try:
        if reference.startswith(TCP_PREFIX):
            address = TcpAddress.parse(reference)
            return Player(reference, hand_started_ref(address), address)
        if is_folder(reference):
            return Player(reference, BotRef.from_folder(reference))
    except (AddressError, ManifestError) as error:
        raise CliError(str(error)) from None
    return Player(reference, _registered(reference, db))


def _registered(reference: str, db: Path) -> BotRef:
    from arena.storage import NotFoundError, Storage

    if not db.is_file():
        raise CliError(f"{reference!r} is not a bot folder or tcp:HOST:PORT, and there is no "
                       f"database at {db} to find a registered bot in (--db)")
    storage = Storage(db)
    try:
        record = storage.resolve_bot(reference)
    except NotFoundError as error:
        raise CliError(str(error)) from None
    finally:
        storage.close()
    try:
        return BotRef.from_folder(record.folder)
    except ManifestError as error:
        raise CliError(f"registered bot {record.id}: {error}") from None


def seat_names(players: Sequence[Player]) -> tuple[str, str]:
    """How the hands name the two bots (told apart when both have one name)."""
    first, second = (player.bot.name for player in players)
    if first == second:
        return f"{first} (A)", f"{second} (B)"
    return first, second


class HandPrinter:
    """Prints each hand of one series as soon as it ends, from the engine events the
    match loop reports: a mirror ``Series`` replays the actions (the engine is
    deterministic), so the hand's record is the one ``arena series show`` tells."""

    def __init__(self, spec: SeriesSpec, names: Sequence[str], console: Console,
                 *, show_play: bool) -> None:
        self.mirror = Series(spec.seed, spec.profile, max_hands=spec.max_hands,
                             swap_seats=spec.swap_seats)
        self.names = names
        self.console = console
        self.show_play = show_play

    def __call__(self, event: dict[str, Any]) -> None:
        if event.get("type") == "action":
            self.mirror.apply(Action.from_dict(event["action"]))
        elif event.get("type") == "hand_end":
            record = self.mirror.history()[event["hand"] - 1]
            self.console.rule(f"hand {event['hand']}", style="dim")
            for line in hand_lines(record, self.names, with_play=self.show_play):
                self.console.print(line, markup=False, highlight=False, soft_wrap=True)
        elif event.get("type") == "fault":
            seat = event.get("seat")
            who = self.names[seat] if seat in (0, 1) else "a bot"
            where = (f" (hand {event['hand_number']}, decision {event.get('decision_number')})"
                     if event.get("hand_number") else " (at start-up)")
            self.console.print(f"FAULT{where}: {who}: {event.get('kind')}: "
                               f"{event.get('message')}", markup=False, highlight=False,
                               style="red", soft_wrap=True)


def outcome_lines(outcome: SeriesOutcome, mirror: Series, names: Sequence[str]) -> list[str]:
    """A series' final score sheet and result."""
    winner = "drawn" if outcome.winner is None else f"won by {names[outcome.winner]}"
    lines = [f"series {outcome.series_id}: {winner} (games {outcome.games_won[0]}-"
             f"{outcome.games_won[1]}, points {outcome.points[0]}-{outcome.points[1]}, "
             f"{outcome.hands_played} hands{', hand cap reached' if outcome.capped else ''})",
             sheet_line(mirror.sheet.to_dict(), names).replace("sheet after", "final sheet", 1)]
    if outcome.fault is not None:
        fault = outcome.fault
        who = names[fault.seat] if fault.seat in (0, 1) else "a bot"
        lines.append(f"forfeit: {who}: {fault.kind}: {fault.full_message}")
        if fault.stderr_tail:
            lines.append(f"its stderr ended with:\n{fault.stderr_tail.rstrip()}")
    return lines


def series_specs(players: Sequence[Player], count: int, seed: int, profile: Profile,
                 max_hands: int, limits: TimeLimits) -> list[SeriesSpec]:
    """``count`` series in duplicate pairs: the second of a pair deals the same cards
    with the hands swapped (``swap_seats``), so luck evens out."""
    bots = (players[0].bot, players[1].bot)
    return [SeriesSpec(f"play-{number + 1}", seed + number // 2, profile, max_hands,
                       number % 2 == 1, bots, limits) for number in range(count)]


def cmd_play(args: argparse.Namespace, console: Console) -> int:
    from arena.core.faults import ArenaOverload
    from arena.match.runner import run_series
    from arena.sandbox import registry
    from arena.sandbox.base import SandboxError
    from arena.sandbox.tcp import WithHandStartedBots

    players = [resolve_player(reference, args.db) for reference in (args.bot_a, args.bot_b)]
    try:
        config = SeasonConfig.build(**setting_values(args, PLAY_SETTINGS))  # its checks
        profile = config.profile()
        backend = registry.backend(config.sandbox)
        for player in players:
            if player.address is None:
                backend.check_bot(player.bot.manifest)
    except (ConfigError, ManifestError, ValueError) as error:
        raise CliError(str(error)) from None
    names = seat_names(players)
    specs = series_specs(players, args.series, config.seed, profile, config.max_hands,
                         config.limits)
    shown = [name if name == player.reference else f"{name} ({player.reference})"
             for name, player in zip(names, players, strict=True)]
    console.print(f"arena play: {shown[0]} vs {shown[1]}; {len(specs)} series, "
                  f"profile {profile.name}, "
                  f"at most {config.max_hands} hands each, seed {config.seed}, "
                  f"sandbox {config.sandbox}", markup=False, highlight=False, soft_wrap=True)
    addresses = {player.bot: player.address for player in players if player.address}
    try:
        inner = None if all(player.address for player in players) else registry.create(
            config.sandbox, series_per_container=config.series_per_container)
        sandbox = WithHandStartedBots(inner, addresses)
    except Exception as error:  # e.g. Docker is not there
        raise CliError(f"cannot use the {config.sandbox} sandbox: {error}", code=1) from None
    wins = [0, 0]
    faults = 0
    try:
        for spec in specs:
            console.rule(f"series {spec.series_id}: seed {spec.seed}"
                         f"{', hands swapped' if spec.swap_seats else ''}")
            printer = HandPrinter(spec, names, console, show_play=args.show)
            try:
                outcome = run_series(spec, sandbox, printer)
            except SandboxError as error:
                raise CliError(f"the {config.sandbox} sandbox failed: {error}", code=1) from None
            except ArenaOverload as overload:
                raise CliError(f"series {spec.series_id} voided: the machine did not run a "
                               f"bot (arena overload; no bot charged): {overload}; play it "
                               "again when the machine has room", code=1) from None
            for line in outcome_lines(outcome, printer.mirror, names):
                console.print(line, markup=False, highlight=False, soft_wrap=True)
            if outcome.winner is not None:
                wins[outcome.winner] += 1
            faults += outcome.fault is not None
    finally:
        sandbox.close()
    draws = len(specs) - sum(wins)
    console.rule("result")
    console.print(f"{names[0]} won {wins[0]}, {names[1]} won {wins[1]}, drawn {draws} "
                  f"of {len(specs)} series; {faults} forfeited by a fault",
                  markup=False, highlight=False, soft_wrap=True)
    return 1 if faults else 0


def add_play_command(commands: Any) -> None:
    """``arena play``: its arguments, wired to ``cmd_play``."""
    play = commands.add_parser(
        "play", help="two bots (folders, registered names or tcp:HOST:PORT) play series "
        "on this machine, every hand printed as it is played (nothing is stored)")
    for name, text in (("bot_a", "the first bot"), ("bot_b", "its opponent")):
        play.add_argument(name, metavar=name[-1].upper(), help=f"{text}: a bot folder, a "
                          "registered bot (name or name@version in --db), or tcp:HOST:PORT "
                          "(a bot you started yourself with HOLLYWOOD_BOT_ADDRESS=HOST:PORT)")
    play.add_argument("--series", type=arguments.positive_int, default=1, metavar="N",
                      help="series to play, in duplicate pairs (default 1)")
    play.add_argument("--show", action="store_true",
                      help="print each hand's deal and every move too, not only how it ended")
    add_setting_options(play, PLAY_SETTINGS, defaults=PLAY_DEFAULTS, helps=PLAY_HELPS)
    play.add_argument("--db", type=Path, default=DEFAULT_DB,
                      help="database holding registered bots (.arena/arena.db)")
    play.set_defaults(handler=cmd_play)
