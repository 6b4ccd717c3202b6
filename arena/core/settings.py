"""Season configuration: every common season setting declared once, the formats'
own settings gathered from their declarations, and ``SeasonConfig``.

``SETTINGS`` declares each setting every season is played under (name, type,
default, bounds, help text, command-line flag, proto field); each format declares
the settings only it reads as a ``FormatSettings`` dataclass in its own module
(``arena.core.setting``), registered here by the format registry
(``register_format_settings``, called by ``arena.season.formats``).
``all_settings`` is both; everything else is derived from it: ``SeasonConfig``'s
fields and defaults, ``build``/``to_dict``/``from_stored`` here, the proto
conversion (``arena.server.convert``), the command-line options and the settings
tables (``arena.cli.season_options``).

A ``SeasonConfig`` is stored with its season (``to_dict``); storage alone turns the
stored form back into one (``from_stored``, in ``arena.storage.store``), so a
resumed season plays under exactly the configuration it was created with. The
stored form is flat (the time limits grouped as ``limits``) and unchanged since
release 1: a format's settings are top-level keys named as their fields.

The sandbox backend is declared here as a name; which names exist is known only
to ``arena.sandbox.registry`` (a layer above this one), so the layers that see the
registry (server, CLI, the runner factory) check the name against it.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from typing import Any, Final, TypeVar

from arena.core.limits import TimeLimits
from arena.core.setting import (
    ConfigError,
    FormatSettings,
    Setting,
    declared_default,
    declared_settings,
)
from engine.profiles import Profile, ProfileError, get_profile

__all__ = ["ConfigError", "FormatSettings", "SeasonConfig", "Setting", "all_settings"]

DEFAULT_SANDBOX: Final = ""  # the registry's default (arena.sandbox.registry.DEFAULT)
DEFAULT_SERIES_PER_CONTAINER: Final = 25
"""Series a bot container serves before it is replaced (``arena.sandbox.reuse``):
enough that starts are a small share of a season, few enough that a leak in a
long-lived bot is cut off."""
MAX_SEED: Final = 2**63 - 1
OVERRIDE_FIELDS: Final = tuple(item.name for item in fields(Profile) if item.name != "name")
SANDBOX_NAME_PATTERN: Final = re.compile(r"[a-z][a-z0-9_-]{0,31}")
_Settings = TypeVar("_Settings", bound=FormatSettings)


def default_concurrency() -> int:
    """Series played at once by default: one per CPU core available to this process
    (what docs/arena.md and the proto promise; a ``SeasonConfig()`` made in code gets
    the same, since its field takes this declaration's default)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)


_LIMITS = TimeLimits()
SETTINGS: Final[tuple[Setting, ...]] = (
    Setting("profile_name", str, "friendly", "rule profile: friendly or classic (see the rules "
            "text)", "--profile", "profile", metavar="NAME"),
    Setting("profile_overrides", dict, dict, "override a profile field (JSON value), "
            "repeatable, validated by the engine", "--set", "profile_overrides",
            metavar="FIELD=VALUE", default_text="–", dest="overrides",
            doc="override a profile field (JSON value), repeatable, validated by the engine: "
            + ", ".join(f"`{name}`" for name in OVERRIDE_FIELDS)
            + " (not `name`: choose the profile with `--profile`; an overridden profile is "
            "named after its changes, e.g. `friendly[undercut_bonus=20]`)"),
    Setting("series_per_pair", int, 2, "series each pair plays (2 = one duplicate pair)",
            "--series-per-pair", "series_per_pair", metavar="N", low=1, high=1000),
    # A time is named `_s` inside (TimeLimits, the options' destinations); the flags
    # and proto fields keep their `-seconds` spelling: contracts with the outside.
    Setting("startup_s", float, _LIMITS.startup_s, "bot start-up + handshake limit",
            "--startup-seconds", "startup_seconds", metavar="S", default_text="20", low=0,
            high=3600, low_exclusive=True, stored_under="limits", dest="startup_s"),
    Setting("decision_s", float, _LIMITS.decision_s, "per-decision deadline",
            "--decision-seconds", "decision_seconds", metavar="S", default_text="1", low=0,
            high=3600, low_exclusive=True, stored_under="limits", dest="decision_s"),
    Setting("reserve_s", float, _LIMITS.reserve_s, "time bank per series for decisions "
            "over the deadline", "--reserve-seconds", "reserve_seconds", metavar="S",
            default_text="30", low=0, high=3600, stored_under="limits", dest="reserve_s"),
    Setting("sandbox", str, DEFAULT_SANDBOX, "bot isolation: the sandbox backend (see "
            "docs/sandbox.md)",
            "--sandbox", "sandbox_backend", metavar="NAME"),
    Setting("concurrency", int, default_concurrency, "most series played at once", "--concurrency",
            "concurrency", metavar="N", default_text="CPU cores", low=1, high=256),
    Setting("max_hands", int, 200, "hand cap per series (docs/rules.md#hand-cap)", "--max-hands",
            "max_hands", metavar="N", low=1, high=10_000),
    Setting("seed", int, 0, "seed of the series plan, PUBLIC: anyone who knows it can "
            "compute every deal (the default: dealt from a secret the server keeps)", "--seed",
            "seed", metavar="N", default_text="secret", low=0,
            high=MAX_SEED),
    Setting("format", str, "round-robin", "tournament format (see docs/formats.md; its own "
            "settings are the options named after it)", "--format", "format", metavar="NAME"),
    Setting("series_per_container", int, DEFAULT_SERIES_PER_CONTAINER, "series a bot's "
            "container serves, one after another, each begun by a new Handshake, before it is "
            "replaced (1 = a fresh container for every series; docker sandbox)",
            "--series-per-container", "series_per_container", metavar="N", low=1,
            high=10_000, shorthand=("--fresh-container-per-series", 1,
                                    "a fresh container for every series: "
                                    "--series-per-container 1")),
    Setting("deactivate_after", int, 5, "a bot version that loses this many series in a "
            "row by its own fault is deactivated (forfeits the rest, joins no new season)",
            "--deactivate-after", "deactivate_after", metavar="K", low=1, high=10_000),
)
SETTINGS_BY_NAME: Final = {setting.name: setting for setting in SETTINGS}
_FORMAT_SETTINGS: dict[str, type[FormatSettings]] = {}
_ALL_SETTINGS: list[tuple[Setting, ...]] = [SETTINGS]
"""``all_settings``, made again at each registration (a season is read often)."""


def register_format_settings(format_name: str, settings_class: type[FormatSettings]) -> None:
    """Declare the settings format ``format_name`` alone reads (the format registry
    calls this for each format). A setting name is owned once."""
    taken = {setting.name for setting in all_settings()}
    for setting in declared_settings(settings_class):
        if setting.name in taken and _FORMAT_SETTINGS.get(format_name) is not settings_class:
            raise ValueError(f"season setting {setting.name!r} of {format_name} is declared "
                             "twice")
    _FORMAT_SETTINGS[format_name] = settings_class
    _ALL_SETTINGS[0] = SETTINGS + tuple(setting for kind in _FORMAT_SETTINGS.values()
                                        for setting in declared_settings(kind))


def format_settings_classes() -> Mapping[str, type[FormatSettings]]:
    """Each registered format's settings class, by format name."""
    return dict(_FORMAT_SETTINGS)


def all_settings() -> tuple[Setting, ...]:
    """The common settings, then each registered format's own, in registry order."""
    return _ALL_SETTINGS[0]


def setting_named(name: str) -> Setting:
    """The declaration of the setting ``name`` (common or a format's)."""
    for setting in all_settings():
        if setting.name == name:
            return setting
    raise ConfigError(f"unknown season setting: {name}")


def _field(name: str) -> Any:
    return declared_default(SETTINGS_BY_NAME[name])


@dataclass(frozen=True)
class SeasonConfig:
    """Everything a season is played under: one field per common setting (its
    default the declaration's), the time limits grouped as ``limits``, and each
    registered format's typed settings (``settings_for``). Construct with
    ``build`` (validates and fills defaults); the stored form is ``to_dict``."""

    profile_name: str = _field("profile_name")
    profile_overrides: Mapping[str, Any] = _field("profile_overrides")
    series_per_pair: int = _field("series_per_pair")
    limits: TimeLimits = field(default_factory=TimeLimits)
    sandbox: str = _field("sandbox")
    concurrency: int = _field("concurrency")
    max_hands: int = _field("max_hands")
    seed: int = _field("seed")
    format: str = _field("format")
    series_per_container: int = _field("series_per_container")
    deactivate_after: int = _field("deactivate_after")
    format_settings: tuple[FormatSettings, ...] = field(
        default_factory=lambda: tuple(kind() for kind in _FORMAT_SETTINGS.values()))
    """One typed settings object per registered format (at its defaults unless set)."""

    @classmethod
    def build(cls, **values: Any) -> SeasonConfig:
        """A validated configuration from setting values by name (``all_settings``);
        a missing or ``None`` value means the default. Raises ``ConfigError``."""
        declared = all_settings()
        unknown = sorted(set(values) - {setting.name for setting in declared})
        if unknown:
            raise ConfigError(f"unknown season setting(s): {', '.join(unknown)}")
        flat = {setting.name: setting.default_value() if values.get(setting.name) is None
                else values[setting.name] for setting in declared}
        for setting in declared:
            setting.check(flat[setting.name])
        if flat["sandbox"] and not SANDBOX_NAME_PATTERN.fullmatch(flat["sandbox"]):
            raise ConfigError(f"sandbox {flat['sandbox']!r} is not a sandbox name")
        owned = tuple(settings_class(**{setting.name: flat.pop(setting.name)
                                        for setting in declared_settings(settings_class)})
                      for settings_class in _FORMAT_SETTINGS.values())
        grouped: dict[str, Any] = {}
        for setting in SETTINGS:
            if setting.stored_under:
                group = grouped.setdefault(setting.stored_under, {})
                group[setting.name] = flat.pop(setting.name)
        flat["profile_overrides"] = dict(flat["profile_overrides"])
        config = cls(limits=TimeLimits(**grouped["limits"]), format_settings=owned, **flat)
        config.profile()
        return config

    def settings_for(self, settings_class: type[_Settings]) -> _Settings:
        """This season's values of one format's settings (their defaults when the
        format was registered after this configuration was built)."""
        for settings in self.format_settings:
            if type(settings) is settings_class:
                return settings
        return settings_class()

    def values(self) -> dict[str, Any]:
        """Every setting's value by name: ``build(**config.values())`` is ``config``."""
        common = {setting.name: getattr(self.limits if setting.stored_under else self,
                                        setting.name)
                  for setting in SETTINGS}
        for settings in self.format_settings:
            common.update({setting.name: getattr(settings, setting.name)
                           for setting in declared_settings(type(settings))})
        return common

    def with_changes(self, **changes: Any) -> SeasonConfig:
        """A validated copy with some settings (by name) changed."""
        return SeasonConfig.build(**{**self.values(), **changes})

    def profile(self) -> Profile:
        """The rule profile: the named built-in with the overrides applied.
        Raises ``ConfigError`` for an unknown profile or a bad override."""
        try:
            base = get_profile(self.profile_name)
            return base.derive(**dict(self.profile_overrides)) if self.profile_overrides else base
        except ProfileError as error:
            raise ConfigError(f"profile: {error}") from None
        except TypeError as error:  # an override keyword that is not a string
            raise ConfigError(f"profile: {error}") from None

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe stored form, the inverse of ``from_stored``: every common setting,
        every setting of the season's format, and another format's only when it is
        not at its default (a league's, whose divisions play several formats), so
        registering a format changes no other season's stored form."""
        stored: dict[str, Any] = {}
        own_format = _FORMAT_SETTINGS.get(self.format)
        own = {setting.name for setting in declared_settings(own_format)} if own_format else set()
        for name, value in self.values().items():
            setting = SETTINGS_BY_NAME.get(name)
            if setting is None and name not in own and value == setting_named(name).default:
                continue
            group = setting.stored_under if setting is not None else ""
            target = stored.setdefault(group, {}) if group else stored
            target[name] = dict(value) if isinstance(value, Mapping) else value
        return stored

    @classmethod
    def from_stored(cls, data: Mapping[str, Any]) -> SeasonConfig:
        """Rebuild (and re-validate) a stored configuration: storage's one reader of
        the stored form (``arena.storage.store``); a key no registered setting
        declares (another arena's format) is left out."""
        return cls.build(**{
            setting.name: (data.get(setting.stored_under) or {}).get(setting.name)
            if setting.stored_under else data.get(setting.name)
            for setting in all_settings()})


def parse_override(text: str) -> tuple[str, Any]:
    """Parse ``FIELD=VALUE`` (VALUE as JSON, else as a plain string), e.g.
    ``undercut_bonus=20`` or ``winner_deals_next=true``. Raises ``ConfigError``."""
    key, sep, raw = text.partition("=")
    key = key.strip()
    if not sep or not key:
        raise ConfigError(f"profile override {text!r} must look like FIELD=VALUE")
    return key, parse_override_value(key, raw.strip())


def parse_override_value(key: str, raw: str) -> Any:
    """A profile override's value from its JSON text (bare words stay strings).
    Raises ``ConfigError`` for ``name``, which is not an override: the profile is
    chosen by its name, and an overridden one is named after its changes."""
    if key == "name":
        raise ConfigError(
            "profile override 'name' is not allowed: choose the rule profile with "
            "--profile (friendly, classic); the fields you can override are "
            + ", ".join(OVERRIDE_FIELDS))
    try:
        return json.loads(raw)
    except json.JSONDecodeError:
        if not raw:
            raise ConfigError(f"profile override {key!r} has an empty value") from None
        return raw
