"""The season settings on the command line: the options of ``season create``,
``season run`` and ``demo`` (``add_season_options``) and the ``SeasonConfig``
message they make (``season_config_message``)."""

from __future__ import annotations

import argparse
import json

from hollywood.arena.v1 import arena_pb2

from arena.cli.output import CliError
from arena.core import arguments
from arena.core.settings import ConfigError, parse_override
from arena.server.convert import SANDBOX_TO_PROTO


def add_season_options(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("season settings")
    group.add_argument("--profile", default="", help="rule profile: friendly (default), classic")
    group.add_argument("--set", dest="overrides", action="append", default=[],
                       metavar="FIELD=VALUE",
                       help="override a profile field, e.g. --set undercut_bonus=20 (repeatable)")
    group.add_argument("--series-per-pair", type=arguments.positive_int, default=None,
                       help="series each pair plays (default 2 = one duplicate pair)")
    group.add_argument("--startup-seconds", type=arguments.seconds, default=None,
                       help="bot start-up + handshake limit (default 20)")
    group.add_argument("--decision-seconds", type=arguments.seconds, default=None,
                       help="per-decision deadline (default 1)")
    group.add_argument("--reserve-seconds", type=float, default=None,
                       help="time bank per series for decisions over the deadline (default 30)")
    group.add_argument("--sandbox", choices=sorted(SANDBOX_TO_PROTO), default=None,
                       help="bot isolation (default docker)")
    group.add_argument("--concurrency", type=arguments.positive_int, default=None,
                       help="series played at once (default: number of CPU cores)")
    group.add_argument("--max-hands", type=arguments.positive_int, default=None,
                       help="hand cap per series (default 200)")
    group.add_argument("--seed", type=arguments.seed, default=None,
                       help="seed of the series plan (default random)")
    group.add_argument("--name", default="", help="season display name")


def season_config_message(args: argparse.Namespace) -> arena_pb2.SeasonConfig:
    overrides: dict[str, str] = {}
    for text in args.overrides:
        try:
            key, value = parse_override(text)
        except ConfigError as error:
            raise CliError(str(error)) from None
        overrides[key] = json.dumps(value)
    config = arena_pb2.SeasonConfig(
        profile=args.profile, profile_overrides=overrides,
        series_per_pair=args.series_per_pair or 0,
        startup_seconds=args.startup_seconds or 0.0,
        decision_seconds=args.decision_seconds or 0.0,
        sandbox=SANDBOX_TO_PROTO[args.sandbox] if args.sandbox
        else arena_pb2.SANDBOX_KIND_UNSPECIFIED,
        concurrency=args.concurrency or 0, max_hands=args.max_hands or 0,
        seed=args.seed or 0,
    )
    if args.reserve_seconds is not None:
        if args.reserve_seconds < 0:
            raise CliError("--reserve-seconds must be at least 0")
        # 0 in the message means "default"; a tiny positive reserve stands for "none".
        config.reserve_seconds = args.reserve_seconds or 1e-9
    return config
