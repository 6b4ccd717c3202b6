"""Season configuration: every season setting declared once, and ``SeasonConfig``.

``SETTINGS`` declares each setting a season is played under (name, type, default,
bounds, help text, command-line flag, proto field). Everything else is derived
from it: ``SeasonConfig.build``/``to_dict``/``from_dict`` here, the
proto conversion (``arena.server.convert``), the command-line options
(``arena.cli.season_options``) and the settings table of docs/arena.md (checked
by a test). To add a setting: one ``Setting`` here, one field in ``SeasonConfig``
and one in the proto's ``SeasonConfig`` message.

A ``SeasonConfig`` is stored with its season (``to_dict``/``from_dict``), so a
resumed season plays under exactly the configuration it was created with.

The sandbox backend is declared here as a name; which names exist is known only
to ``arena.sandbox.registry`` (a layer above this one), so the layers that see the
registry (server, CLI, the runner factory) check the name against it.
"""

from __future__ import annotations

import json
import math
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from typing import Any, Final

from arena.core.limits import TimeLimits
from engine.profiles import Profile, ProfileError, get_profile

DEFAULT_SANDBOX: Final = ""  # the registry's default (arena.sandbox.registry.DEFAULT)
DEFAULT_SERIES_PER_CONTAINER: Final = 25
"""Series a bot container serves before it is replaced (``arena.sandbox.reuse``):
enough that starts are a small share of a season, few enough that a leak in a
long-lived bot is cut off."""
MAX_SEED: Final = 2**63 - 1
OVERRIDE_FIELDS: Final = tuple(item.name for item in fields(Profile) if item.name != "name")
SANDBOX_NAME_PATTERN: Final = re.compile(r"[a-z][a-z0-9_-]{0,31}")
# A stored setting nested under a group (the time limits) is named in messages
# with the group's title, as the stored form and TimeLimits group them.
_GROUP_TITLES: Final = {"limits": "time limits"}


class ConfigError(ValueError):
    """A season setting is invalid; the message names the setting and the problem."""


def default_concurrency() -> int:
    """Series played at once by default: one per CPU core available to this process."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)


@dataclass(frozen=True)
class Setting:
    """One season setting; ``low``/``high`` bound numbers."""

    name: str
    """Keyword of ``SeasonConfig.build`` and key of the stored form."""
    kind: type
    """``int``, ``float``, ``str`` or ``dict`` (the profile overrides)."""
    default: Any
    """The value, or a function computing it when the season is built."""
    help: str
    """What it means, for ``--help`` and the docs table."""
    flag: str
    proto_field: str
    """Field of ``hollywood.arena.v1.SeasonConfig``; its zero value means the default."""
    metavar: str = ""
    default_text: str = ""
    low: float | None = None
    high: float | None = None
    low_exclusive: bool = False
    """The value must be more than ``low`` (not equal to it)."""
    stored_under: str = ""
    """Group of the stored form it is nested in (``limits``), if any."""
    dest: str = ""
    """Command-line destination, when it is not the flag's name."""
    doc: str = ""
    """Longer text for the docs table, when ``help`` is not enough."""
    shorthand: tuple[str, Any, str] | tuple[()] = ()
    """A second flag that sets one value: (flag, value, help)."""

    @property
    def label(self) -> str:
        """How messages name the setting."""
        group = _GROUP_TITLES.get(self.stored_under)
        return f"{group}: {self.name}" if group else self.name

    @property
    def shown_default(self) -> str:
        return self.default_text or str(self.default)

    @property
    def option_dest(self) -> str:
        return self.dest or self.flag.removeprefix("--").replace("-", "_")

    def check(self, value: Any) -> None:
        """Raise ``ConfigError`` if ``value`` is not a valid value of this setting."""
        if self.kind is int:
            _check_int(self.label, value, int(self.low or 0), int(self.high or 0))
        elif self.kind is float:
            self._check_seconds(value)
        elif self.kind is str and not isinstance(value, str):
            raise ConfigError(f"{self.label} must be a string, got {value!r}")
        elif self.kind is dict and not isinstance(value, Mapping):
            raise ConfigError(f"{self.label} must be a table of field -> value, got {value!r}")

    def _check_seconds(self, value: Any) -> None:
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise ConfigError(f"{self.label} must be a number of seconds, got {value!r}")
        if not math.isfinite(value):
            raise ConfigError(f"{self.label} must be a finite number of seconds")
        if self.low is not None and self.low_exclusive and not value > self.low:
            raise ConfigError(f"{self.label} must be more than {self.low:g} s, got {value:g}")
        if self.low is not None and value < self.low:
            raise ConfigError(f"{self.label} must be at least {self.low:g} s, got {value:g}")
        if self.high is not None and value > self.high:
            raise ConfigError(f"{self.label} must be at most {self.high:g} s, got {value:g}")


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
    Setting("startup_s", float, _LIMITS.startup_s, "bot start-up + handshake limit",
            "--startup-seconds", "startup_seconds", metavar="S", default_text="20", low=0,
            high=3600, low_exclusive=True, stored_under="limits"),
    Setting("decision_s", float, _LIMITS.decision_s, "per-decision deadline",
            "--decision-seconds", "decision_seconds", metavar="S", default_text="1", low=0,
            high=3600, low_exclusive=True, stored_under="limits"),
    Setting("reserve_s", float, _LIMITS.reserve_s, "time bank per series for decisions "
            "over the deadline", "--reserve-seconds", "reserve_seconds", metavar="S",
            default_text="30", low=0, high=3600, stored_under="limits"),
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
    Setting("format", str, "round-robin", "tournament format: round-robin, gauntlet, swiss, "
            "knockout, sprt, king-of-the-hill or ladder (see docs/formats.md)", "--format",
            "format",
            metavar="NAME",
            doc="tournament format (see docs/formats.md): `round-robin` every pair meets; "
            "`gauntlet` the challenger meets every other bot; `swiss` rounds pair nearest "
            "scores; `knockout` a seeded cup; `sprt` a two-bot match stopped by a "
            "sequential test (what `arena match` runs); `king-of-the-hill` each bot in turn "
            "challenges the holder; `ladder` never ends: series among the active bots, "
            "round after round"),
    Setting("challenger", str, "", "gauntlet: the bot that meets every other bot "
            "(name@version or name; added to the bots if not listed)", "--challenger",
            "challenger", metavar="BOT", default_text="–"),
    Setting("rounds", int, 0, "swiss: rounds to play (0 = ceil(log2(bots)))", "--rounds",
            "rounds", metavar="N", low=0, high=1000),
    Setting("tiebreak_pairs", int, 3, "knockout: further duplicate pairs a drawn tie plays "
            "before the higher seed goes through", "--tiebreak-pairs", "tiebreak_pairs",
            metavar="N", low=0, high=100),
    Setting("sprt", str, "elo0=0,elo1=10,alpha=0.05,beta=0.05", "sprt: the test's "
            "hypotheses and error rates", "--sprt", "sprt", metavar="SPEC",
            doc="sprt: `elo0=E0,elo1=E1,alpha=A,beta=B`: H0 Elo <= E0 against H1 Elo >= E1 "
            "(logistic Elo), false-positive rate alpha, false-negative rate beta"),
    Setting("max_pairs", int, 1000, "sprt: duplicate pairs played at most before the match "
            "stops undecided", "--max-pairs", "max_pairs", metavar="N", low=1, high=100_000),
    Setting("ladder_rounds", int, 0, "ladder: rounds to play before it stops (0 = no end: it "
            "plays until stopped)", "--ladder-rounds", "ladder_rounds", metavar="N", low=0,
            high=10_000_000),
    Setting("ladder_meetings", int, 0, "ladder: meetings per round (0 = a quarter of the "
            "members, at least one)", "--ladder-meetings", "ladder_meetings", metavar="N",
            low=0, high=1000),
    Setting("ladder_window", int, 1000, "ladder: latest series the windowed Bradley-Terry "
            "rating is fitted on", "--ladder-window", "ladder_window", metavar="W", low=2,
            high=1_000_000),
    Setting("ladder_gate", str, "none", "ladder: what a new version of a member plays before "
            "it joins: none (it replaces its predecessor at once) or sprt (a match against "
            "its predecessor first)", "--gate", "ladder_gate", metavar="GATE",
            doc="ladder: what a new version of a member plays before it joins: `none` (it "
            "replaces its predecessor at the next round) or `sprt` (first a match against "
            "its predecessor, a sequential test with `--gate-sprt` and `--gate-max-pairs`; "
            "`--gate-rule` says what its verdict does)"),
    Setting("ladder_gate_sprt", str, "elo0=0,elo1=20,alpha=0.05,beta=0.05", "ladder gate: the "
            "test of the new version against its predecessor", "--gate-sprt",
            "ladder_gate_sprt", metavar="SPEC",
            doc="ladder gate: the test of the new version (A) against its predecessor (B), "
            "as `--sprt`: `elo0=E0,elo1=E1,alpha=A,beta=B`"),
    Setting("ladder_gate_max_pairs", int, 200, "ladder gate: duplicate pairs the match plays "
            "at most before it ends inconclusive", "--gate-max-pairs", "ladder_gate_max_pairs",
            metavar="N", low=1, high=100_000),
    Setting("ladder_gate_rule", str, "accepted-replaces", "ladder gate: what the verdict "
            "does: accepted-replaces (accepted: the new version replaces its predecessor; "
            "rejected or inconclusive: it stays off) or owner-decides (it joins only when "
            "its owner admits it: arena ladder admit)", "--gate-rule", "ladder_gate_rule",
            metavar="RULE"),
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


@dataclass(frozen=True)
class SeasonConfig:
    """Everything a season is played under (one field per ``SETTINGS`` entry, the
    time limits grouped as ``limits``). Construct with ``SeasonConfig.build``
    (validates and fills defaults); the stored form is ``to_dict``."""

    profile_name: str = "friendly"
    profile_overrides: Mapping[str, Any] = field(default_factory=dict)
    series_per_pair: int = 2
    limits: TimeLimits = field(default_factory=TimeLimits)
    sandbox: str = DEFAULT_SANDBOX
    concurrency: int = 1
    max_hands: int = 200
    seed: int = 0
    format: str = "round-robin"
    challenger: str = ""
    rounds: int = 0
    tiebreak_pairs: int = 3
    sprt: str = "elo0=0,elo1=10,alpha=0.05,beta=0.05"
    max_pairs: int = 1000
    ladder_rounds: int = 0
    ladder_meetings: int = 0
    ladder_window: int = 1000
    ladder_gate: str = "none"
    ladder_gate_sprt: str = "elo0=0,elo1=20,alpha=0.05,beta=0.05"
    ladder_gate_max_pairs: int = 200
    ladder_gate_rule: str = "accepted-replaces"
    series_per_container: int = DEFAULT_SERIES_PER_CONTAINER
    deactivate_after: int = 5

    @classmethod
    def build(cls, **values: Any) -> SeasonConfig:
        """A validated configuration from setting values by name (``SETTINGS``);
        a missing or ``None`` value means the default. Raises ``ConfigError``."""
        unknown = sorted(set(values) - set(SETTINGS_BY_NAME))
        if unknown:
            raise ConfigError(f"unknown season setting(s): {', '.join(unknown)}")
        flat = {setting.name: _default(setting) if values.get(setting.name) is None
                else values[setting.name] for setting in SETTINGS}
        for setting in SETTINGS:
            setting.check(flat[setting.name])
        if flat["sandbox"] and not SANDBOX_NAME_PATTERN.fullmatch(flat["sandbox"]):
            raise ConfigError(f"sandbox {flat['sandbox']!r} is not a sandbox name")
        grouped: dict[str, Any] = {}
        for setting in SETTINGS:
            if setting.stored_under:
                group = grouped.setdefault(setting.stored_under, {})
                group[setting.name] = flat.pop(setting.name)
        flat["profile_overrides"] = dict(flat["profile_overrides"])
        config = cls(limits=TimeLimits(**grouped["limits"]), **flat)
        config.profile()
        return config

    def values(self) -> dict[str, Any]:
        """Every setting's value by name: ``build(**config.values())`` is ``config``."""
        return {setting.name: getattr(self.limits if setting.stored_under else self,
                                      setting.name)
                for setting in SETTINGS}

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
        """JSON-safe form, the inverse of ``from_dict``."""
        stored: dict[str, Any] = {}
        for name, value in self.values().items():
            group = SETTINGS_BY_NAME[name].stored_under
            target = stored.setdefault(group, {}) if group else stored
            target[name] = dict(value) if isinstance(value, Mapping) else value
        return stored

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> SeasonConfig:
        """Rebuild (and re-validate) a stored configuration."""
        return cls.build(**{
            setting.name: (data.get(setting.stored_under) or {}).get(setting.name)
            if setting.stored_under else data.get(setting.name)
            for setting in SETTINGS})


def _default(setting: Setting) -> Any:
    return setting.default() if callable(setting.default) else setting.default


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


def _check_int(name: str, value: object, low: int, high: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ConfigError(f"{name} must be an integer, got {value!r}")
    if not low <= value <= high:
        raise ConfigError(f"{name} must be between {low} and {high}, got {value}")
