"""Season configuration: what a season is played under, validated, with defaults.

A ``SeasonConfig`` is stored with its season (``to_dict``/``from_dict``), so a
resumed season plays under exactly the configuration it was created with.
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field, fields
from typing import Any, Final

from arena.core.limits import TimeLimits
from engine.profiles import Profile, ProfileError, get_profile

SANDBOX_KINDS: Final = ("docker", "process")
DEFAULT_SERIES_PER_PAIR: Final = 2
MAX_SERIES_PER_PAIR: Final = 1000
DEFAULT_MAX_HANDS: Final = 200
MAX_MAX_HANDS: Final = 10_000
MAX_CONCURRENCY: Final = 256
MAX_SEED: Final = 2**63 - 1
MAX_LIMIT_SECONDS: Final = 3600.0
OVERRIDE_FIELDS: Final = tuple(item.name for item in fields(Profile) if item.name != "name")


class ConfigError(ValueError):
    """A season setting is invalid; the message names the setting and the problem."""


def default_concurrency() -> int:
    """Series played at once by default: one per CPU core available to this process."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)


@dataclass(frozen=True)
class SeasonConfig:
    """Everything a season is played under. Construct with ``SeasonConfig.build``
    (validates and fills defaults); the stored form is ``to_dict``."""

    profile_name: str = "friendly"
    profile_overrides: Mapping[str, Any] = field(default_factory=dict)
    series_per_pair: int = DEFAULT_SERIES_PER_PAIR
    limits: TimeLimits = field(default_factory=TimeLimits)
    sandbox: str = "docker"
    concurrency: int = 1
    max_hands: int = DEFAULT_MAX_HANDS
    seed: int = 0

    @classmethod
    def build(
        cls,
        *,
        profile_name: str = "friendly",
        profile_overrides: Mapping[str, Any] | None = None,
        series_per_pair: int = DEFAULT_SERIES_PER_PAIR,
        startup_s: float | None = None,
        decision_s: float | None = None,
        reserve_s: float | None = None,
        sandbox: str = "docker",
        concurrency: int | None = None,
        max_hands: int = DEFAULT_MAX_HANDS,
        seed: int = 0,
    ) -> SeasonConfig:
        """A validated configuration; ``None`` means the default. Raises ``ConfigError``."""
        defaults = TimeLimits()
        try:
            limits = TimeLimits(
                startup_s=defaults.startup_s if startup_s is None else startup_s,
                decision_s=defaults.decision_s if decision_s is None else decision_s,
                reserve_s=defaults.reserve_s if reserve_s is None else reserve_s,
            )
        except ValueError as error:
            raise ConfigError(f"time limits: {error}") from None
        config = cls(
            profile_name=profile_name,
            profile_overrides=dict(profile_overrides or {}),
            series_per_pair=series_per_pair,
            limits=limits,
            sandbox=sandbox,
            concurrency=default_concurrency() if concurrency is None else concurrency,
            max_hands=max_hands,
            seed=seed,
        )
        config.validate()
        return config

    def validate(self) -> None:
        """Raise ``ConfigError`` naming the first bad setting."""
        _check_int("series_per_pair", self.series_per_pair, 1, MAX_SERIES_PER_PAIR)
        _check_int("max_hands", self.max_hands, 1, MAX_MAX_HANDS)
        _check_int("concurrency", self.concurrency, 1, MAX_CONCURRENCY)
        _check_int("seed", self.seed, 0, MAX_SEED)
        if self.sandbox not in SANDBOX_KINDS:
            raise ConfigError(
                f"sandbox must be one of {', '.join(SANDBOX_KINDS)}, got {self.sandbox!r}"
            )
        for name in ("startup_s", "decision_s", "reserve_s"):
            if not math.isfinite(getattr(self.limits, name)):
                raise ConfigError(f"time limit {name} must be a finite number of seconds")
            if getattr(self.limits, name) > MAX_LIMIT_SECONDS:
                raise ConfigError(f"time limit {name} must be at most {MAX_LIMIT_SECONDS:g} s")
        self.profile()

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
        return {
            "profile_name": self.profile_name,
            "profile_overrides": dict(self.profile_overrides),
            "series_per_pair": self.series_per_pair,
            "limits": asdict(self.limits),
            "sandbox": self.sandbox,
            "concurrency": self.concurrency,
            "max_hands": self.max_hands,
            "seed": self.seed,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> SeasonConfig:
        """Rebuild (and re-validate) a stored configuration."""
        limits = data.get("limits", {})
        return cls.build(
            profile_name=data.get("profile_name", "friendly"),
            profile_overrides=data.get("profile_overrides", {}),
            series_per_pair=data.get("series_per_pair", DEFAULT_SERIES_PER_PAIR),
            startup_s=limits.get("startup_s"),
            decision_s=limits.get("decision_s"),
            reserve_s=limits.get("reserve_s"),
            sandbox=data.get("sandbox", "docker"),
            concurrency=data.get("concurrency"),
            max_hands=data.get("max_hands", DEFAULT_MAX_HANDS),
            seed=data.get("seed", 0),
        )


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
