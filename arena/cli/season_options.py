"""The season settings on the command line, derived from their declarations
(``arena.core.settings.all_settings``: the common ones, then each format's own
``FormatSettings``): ``add_season_options`` adds one option per setting
(``add_setting_options`` some of them, with defaults, for ``arena play``),
``season_config_message`` turns the parsed options into the request's
``SeasonConfig`` message, ``settings_table`` renders the common settings' table
of docs/arena.md (a test keeps the two equal) and ``format_settings_table`` the
formats' own, generated whenever it is read (``arena season settings``), never
kept in a document, so a new format setting needs no doc edit. The ``--sandbox``
choices are the registered backends (``arena.sandbox.registry``), the
``--format`` choices the registered formats (``arena.season.formats.FORMATS``).
"""

from __future__ import annotations

import argparse
import json
import math
from collections.abc import Callable, Mapping, Sequence

from hollywood.arena.v1 import arena_pb2

from arena.core.setting import declared_settings
from arena.core.settings import (
    SETTINGS,
    Setting,
    all_settings,
    format_settings_classes,
    parse_override,
    setting_named,
)
from arena.sandbox import registry as sandbox_registry
from arena.season.formats import FORMATS

# Settings whose valid values are a list known above arena.core.
_CHOICES: dict[str, Callable[[], tuple[str, ...]]] = {
    "sandbox": sandbox_registry.names, "format": lambda: tuple(FORMATS)}
# Settings whose default is known above arena.core (it declares an empty marker).
_DEFAULTS: dict[str, Callable[[], str]] = {"sandbox": sandbox_registry.default_name}
# 0 in a request message means "the default"; a setting whose bounds allow 0 (the
# reserve) is sent as this tiny positive value to mean "none".
_WIRE_ZERO = 1e-9


def add_season_options(parser: argparse.ArgumentParser) -> None:
    """The ``season settings`` option group (one option per setting) and ``--name``.
    An option not given is ``None``: the server's default."""
    group = parser.add_argument_group("season settings")
    for setting in SETTINGS:
        _add_setting_option(group, setting, None, setting.help, _shown_default(setting))
    group.add_argument("--name", default="", help="season display name")
    for format_name, settings_class in format_settings_classes().items():
        own = declared_settings(settings_class)
        if own:
            group = parser.add_argument_group(f"settings of the {format_name} format")
            for setting in own:
                _add_setting_option(group, setting, None, setting.help, setting.shown_default)


def add_setting_options(parser: argparse.ArgumentParser, names: Sequence[str], *,
                        defaults: Mapping[str, object] | None = None,
                        helps: Mapping[str, str] | None = None) -> None:
    """Options for the settings ``names`` only, for a command that plays without a
    server (``arena play``): each option has its declared default (or ``defaults``'),
    since there is no server to fill it in; ``helps`` rephrase a setting's help where
    the command uses it differently. The values parse and are bounded as declared."""
    for name in names:
        setting = setting_named(name)
        declared = _DEFAULTS[name]() if name in _DEFAULTS else setting.default
        default = (defaults or {}).get(name, declared)
        _add_setting_option(parser, setting, default, (helps or {}).get(name, setting.help),
                            f"{default:g}" if isinstance(default, float) else str(default))


def setting_values(args: argparse.Namespace, names: Sequence[str]) -> dict[str, object]:
    """The parsed options of the settings ``names``, by setting name (for
    ``SeasonConfig.build``)."""
    return {name: getattr(args, setting_named(name).option_dest) for name in names}


def _add_setting_option(parser: argparse.ArgumentParser | argparse._ArgumentGroup,
                        setting: Setting, default: object, text: str, shown: str) -> None:
    described = f"{text} (default {shown})"
    if setting.kind is dict:
        parser.add_argument(setting.flag, dest=setting.option_dest, action="append",
                            default=[], metavar=setting.metavar, help=text)
    elif setting.name in _CHOICES:
        parser.add_argument(setting.flag, dest=setting.option_dest, default=default,
                            choices=_CHOICES[setting.name](), help=described)
    else:
        parser.add_argument(setting.flag, dest=setting.option_dest, default=default,
                            type=_value_parser(setting), metavar=setting.metavar,
                            help=described)
    if setting.shorthand:
        flag, value, shorthand_help = setting.shorthand
        parser.add_argument(flag, dest=setting.option_dest, action="store_const",
                            const=value, help=shorthand_help)


def season_config_message(args: argparse.Namespace) -> arena_pb2.SeasonConfig:
    """The request's settings from parsed options (an option not given stays at zero,
    meaning the server's default). Raises ``ConfigError`` for a bad ``--set``."""
    message = arena_pb2.SeasonConfig()
    for setting in all_settings():
        value = getattr(args, setting.option_dest)
        if setting.kind is dict:
            overrides = dict(parse_override(text) for text in value)
            message.profile_overrides.update(
                {key: json.dumps(item) for key, item in overrides.items()})
        elif value is not None and value != "":
            if setting.kind is float and value == 0:
                value = _WIRE_ZERO
            if setting.proto_field:
                setattr(message, setting.proto_field, value)
            else:  # a format setting without a field of its own: the generic carrier
                message.format_settings[setting.name] = str(value)
    return message


def settings_table() -> str:
    """The common settings' table of docs/arena.md, in Markdown."""
    rows = ["| option | default | meaning |", "|---|---|---|"]
    for setting in SETTINGS:
        meaning = setting.doc or setting.help
        argument = setting.metavar
        if setting.name == "sandbox":  # the backends are listed by --help, not here:
            # adding one is its module and its registry line, no docs table to redo
            meaning += (": a backend registered in `arena/sandbox/registry.py` "
                        "(`--help` lists them)")
        rows.append(_row(setting, argument, meaning))
    return "\n".join(rows) + "\n"


def format_settings_table() -> str:
    """Each format's own settings, a Markdown table per format (one that has none
    is named as such), generated from their declarations when it is read."""
    parts = []
    for format_name, settings_class in format_settings_classes().items():
        own = declared_settings(settings_class)
        parts.append(f"### {format_name}\n")
        if not own:
            parts.append("No settings of its own.\n")
            continue
        rows = ["| option | default | meaning |", "|---|---|---|"]
        rows += [_row(setting, setting.metavar, setting.doc or setting.help) for setting in own]
        parts.append("\n".join(rows) + "\n")
    return "\n".join(parts)


def _row(setting: Setting, argument: str, meaning: str) -> str:
    if setting.shorthand:
        meaning += f"; `{setting.shorthand[0]}` is `{setting.flag} {setting.shorthand[1]}`"
    return f"| `{setting.flag} {argument}` | {_shown_default(setting)} | {meaning} |"


def _shown_default(setting: Setting) -> str:
    return _DEFAULTS[setting.name]() if setting.name in _DEFAULTS else setting.shown_default


def _value_parser(setting: Setting) -> Callable[[str], object]:
    """An argparse ``type`` for ``setting``: a number checked against its bounds."""
    if setting.kind is str:
        return str

    def shown(bound: float) -> str:
        return str(int(bound)) if setting.kind is int else f"{bound:g}"

    def parse(text: str) -> object:
        try:
            value: float = int(text) if setting.kind is int else float(text)
        except ValueError:
            what = "whole number" if setting.kind is int else "number of seconds"
            raise argparse.ArgumentTypeError(f"{text!r} is not a {what}") from None
        if not math.isfinite(value):
            raise argparse.ArgumentTypeError(f"must be a finite number, got {text}")
        low, high = setting.low, setting.high
        if low is not None and setting.low_exclusive and not value > low:
            raise argparse.ArgumentTypeError(f"must be more than {shown(low)}, got {text}")
        if low is not None and value < low:
            raise argparse.ArgumentTypeError(f"must be at least {shown(low)}, got {text}")
        if high is not None and value > high:
            raise argparse.ArgumentTypeError(f"must be at most {shown(high)}, got {text}")
        return value

    return parse
