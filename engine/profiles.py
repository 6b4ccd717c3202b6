"""Rule profiles: every rule that differs between rule sets, as data (docs/rules.md#profiles).

``FRIENDLY`` is the default profile and ``CLASSIC`` the widely published rule page.
A profile never changes; :meth:`Profile.derive` returns a validated modified copy,
e.g. ``FRIENDLY.derive(undercut_bonus=20)``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields, replace
from typing import Any, Final

__all__ = ["CLASSIC", "FRIENDLY", "PROFILES", "Profile", "ProfileError", "get_profile"]

MAX_KNOCK_LIMIT: Final = 10
"""No rule set lets a player knock with more than 10 deadwood."""
MAX_BONUS: Final = 1000
MAX_GAME_TARGET: Final = 100_000
MAX_DEAD_HAND_STOCK: Final = 30
"""The stock holds 31 cards after the deal; a dead-hand threshold of 31 would end every hand."""
MAX_NAME_LENGTH: Final = 64


class ProfileError(ValueError):
    """A profile field is unknown or has a bad value; the message names it."""


@dataclass(frozen=True)
class Profile:
    """One rule profile. Every field is validated on construction."""

    name: str
    knock_limit: int = 10
    """Most deadwood a knocker may keep (docs/rules.md#knocking-and-gin)."""
    gin_bonus: int = 25
    undercut_bonus: int = 25
    game_target: int = 100
    """Score that finishes one of the three Hollywood games (docs/rules.md#the-score-sheet)."""
    ban_discarding_taken_card: bool = True
    """A card just taken from the discard pile may not be discarded in the same turn."""
    dead_hand_redeal_same_dealer: bool = False
    """After a dead hand the same dealer deals again (else the deal passes as usual)."""
    winner_deals_next: bool = False
    """The winner of a hand deals the next one (else the deal alternates)."""
    knock_discard_face_down: bool = True
    """The knocker's discard is placed face down (not visible to the opponent)."""
    dead_hand_stock_size: int = 2
    """A hand is dead when, after a non-knock discard, this many stock cards remain."""

    def __post_init__(self) -> None:
        _check_name(self.name)
        _check_int("knock_limit", self.knock_limit, 0, MAX_KNOCK_LIMIT)
        _check_int("gin_bonus", self.gin_bonus, 0, MAX_BONUS)
        _check_int("undercut_bonus", self.undercut_bonus, 0, MAX_BONUS)
        _check_int("game_target", self.game_target, 1, MAX_GAME_TARGET)
        _check_int("dead_hand_stock_size", self.dead_hand_stock_size, 0, MAX_DEAD_HAND_STOCK)
        for flag in ("ban_discarding_taken_card", "dead_hand_redeal_same_dealer",
                     "winner_deals_next", "knock_discard_face_down"):
            value = getattr(self, flag)
            if not isinstance(value, bool):
                raise ProfileError(f"profile field {flag} must be true or false, got {value!r}")

    def derive(self, **overrides: Any) -> Profile:
        """A validated copy with ``overrides`` applied.

        Unless ``name`` is overridden, the new name records the changes, e.g.
        ``friendly[undercut_bonus=20]``. Raises :class:`ProfileError` for an unknown
        field or a bad value.
        """
        known = _field_names()
        unknown = sorted(set(overrides) - set(known))
        if unknown:
            raise ProfileError(
                f"unknown profile field(s): {', '.join(unknown)} (known: {', '.join(known)})")
        if "name" not in overrides and overrides:
            changes = ",".join(f"{key}={_render(overrides[key])}" for key in sorted(overrides))
            overrides["name"] = f"{self.name}[{changes}]"
        return replace(self, **overrides)

    def to_dict(self) -> dict[str, Any]:
        """All fields as a JSON-safe dict (inverse of :meth:`from_dict`)."""
        return {name: getattr(self, name) for name in _field_names()}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Profile:
        """Build a profile from a dict holding every field (as :meth:`to_dict` writes).

        Raises :class:`ProfileError` for a non-mapping, missing or unknown fields,
        or bad values.
        """
        if not isinstance(data, Mapping):
            raise ProfileError(f"a profile must be a mapping of fields, got {type(data).__name__}")
        known = _field_names()
        unknown = sorted(str(key) for key in data if key not in known)
        if unknown:
            raise ProfileError(f"unknown profile field(s): {', '.join(unknown)}")
        missing = [name for name in known if name not in data]
        if missing:
            raise ProfileError(f"missing profile field(s): {', '.join(missing)}")
        return cls(**{name: data[name] for name in known})


def _render(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _field_names() -> tuple[str, ...]:
    return tuple(field.name for field in fields(Profile))


def _check_name(name: object) -> None:
    if not isinstance(name, str) or not name.strip():
        raise ProfileError(f"profile name must be a non-empty string, got {name!r}")
    if len(name) > MAX_NAME_LENGTH or not name.isprintable():
        raise ProfileError(
            f"profile name must be printable and at most {MAX_NAME_LENGTH} characters: {name!r}")


def _check_int(field: str, value: object, low: int, high: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ProfileError(f"profile field {field} must be an integer, got {value!r}")
    if not low <= value <= high:
        raise ProfileError(f"profile field {field} must be between {low} and {high}, got {value}")


FRIENDLY: Final = Profile(name="friendly")
"""The default profile: undercut bonus 25, no discarding a card just taken, the deal
alternates after every hand, face-down knock discard."""

CLASSIC: Final = Profile(
    name="classic",
    undercut_bonus=10,
    ban_discarding_taken_card=False,
    dead_hand_redeal_same_dealer=True,
    winner_deals_next=True,
    knock_discard_face_down=False,
)
"""The widely published Hollywood Gin rules."""

PROFILES: Final[Mapping[str, Profile]] = {FRIENDLY.name: FRIENDLY, CLASSIC.name: CLASSIC}


def get_profile(name: str) -> Profile:
    """The built-in profile called ``name`` (case-insensitive); :class:`ProfileError` if none."""
    if not isinstance(name, str):
        raise ProfileError(f"profile name must be a string, got {name!r}")
    profile = PROFILES.get(name.strip().lower())
    if profile is None:
        raise ProfileError(f"unknown profile {name!r} (known: {', '.join(PROFILES)})")
    return profile
