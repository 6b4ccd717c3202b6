"""How a season setting is declared: ``Setting`` (name, kind, default, bounds, help,
command-line flag, proto field), ``ConfigError``, and the typed settings of one
format, ``FormatSettings``.

A format declares the settings only it reads as a frozen dataclass subclassing
``FormatSettings``, one ``format_setting(...)`` field each: the field's name is
the setting's name, its default the one default, the rest its help, bounds and
flag. ``declared_settings`` reads the ``Setting`` of each field back, so the
command-line options, the API conversion and the settings table derive from the
dataclass alone (``arena.core.settings.all_settings``).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import MISSING, dataclass, field, fields, replace
from typing import Any, Final

# A stored setting nested under a group (the time limits) is named in messages
# with the group's title, as the stored form and TimeLimits group them.
_GROUP_TITLES: Final = {"limits": "time limits"}
_SETTING_KEY: Final = "season_setting"


class ConfigError(ValueError):
    """A season setting is invalid; the message names the setting and the problem."""


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
    proto_field: str = ""
    """Field of ``hollywood.arena.v1.SeasonConfig``; its zero value means the
    default. Empty: the setting travels as text in the message's generic
    ``format_settings`` map (every format setting declared after that map)."""
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
    choices: tuple[str, ...] = ()
    """The only values a text setting may take (none: any text)."""

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

    def default_value(self) -> Any:
        """The default (computed, for a default that is a function)."""
        return self.default() if callable(self.default) else self.default

    def check(self, value: Any) -> None:
        """Raise ``ConfigError`` if ``value`` is not a valid value of this setting."""
        if self.kind is int:
            check_int(self.label, value, int(self.low or 0), int(self.high or 0))
        elif self.kind is float:
            self._check_seconds(value)
        elif self.kind is str and not isinstance(value, str):
            raise ConfigError(f"{self.label} must be a string, got {value!r}")
        elif self.kind is dict and not isinstance(value, Mapping):
            raise ConfigError(f"{self.label} must be a table of field -> value, got {value!r}")
        if self.choices and value not in self.choices:
            raise ConfigError(f"{self.label} must be one of {', '.join(self.choices)}, "
                              f"got {value!r}")

    def from_text(self, text: str) -> Any:
        """The value of this setting written as ``text`` (the API's generic carrier).
        Raises ``ConfigError`` naming the setting."""
        if self.kind is str:
            return text
        try:
            return int(text) if self.kind is int else float(text)
        except ValueError:
            raise ConfigError(f"{self.label} must be a number, got {text!r}") from None

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


@dataclass(frozen=True)
class FormatSettings:
    """The settings one format alone reads (none here: a format without settings of
    its own). A subclass is a frozen dataclass of ``format_setting`` fields."""


def format_setting(default: Any, help: str, flag: str, *, kind: type, metavar: str = "N",
                   **declared: Any) -> Any:
    """A field of a ``FormatSettings`` dataclass and its ``Setting`` (named after the
    field): ``declared`` takes the rest of ``Setting``'s fields (``low``, ``high``,
    ``doc``, ``choices``, ``proto_field``, ...)."""
    setting = Setting("", kind, default, help, flag, metavar=metavar, **declared)
    return field(default=default, metadata={_SETTING_KEY: setting})


def declared_settings(settings_class: type[FormatSettings]) -> tuple[Setting, ...]:
    """The ``Setting`` of each field of ``settings_class``, in field order."""
    found = _DECLARED.get(settings_class)
    if found is None:  # a class's fields never change, and a season is read often
        found = _DECLARED[settings_class] = tuple(
            replace(item.metadata[_SETTING_KEY], name=item.name)
            for item in fields(settings_class) if _SETTING_KEY in item.metadata)
    return found


_DECLARED: dict[type[FormatSettings], tuple[Setting, ...]] = {}


def declared_default(setting: Setting) -> Any:
    """A dataclass field whose default is ``setting``'s (computed per instance for a
    default that is a function), so a default is written in one place only."""
    if callable(setting.default):
        return field(default_factory=setting.default)
    return field(default=setting.default) if setting.default is not MISSING else field()


def check_int(name: str, value: object, low: int, high: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ConfigError(f"{name} must be an integer, got {value!r}")
    if not low <= value <= high:
        raise ConfigError(f"{name} must be between {low} and {high}, got {value}")
