"""Rule profiles as data (docs/rules.md#profiles): built-ins, derivation, validation,
round trips."""

from __future__ import annotations

import json
from typing import Any

import pytest

from engine.profiles import CLASSIC, FRIENDLY, Profile, ProfileError, get_profile


def test_friendly_values() -> None:
    assert FRIENDLY.to_dict() == {
        "name": "friendly", "knock_limit": 10, "gin_bonus": 25, "undercut_bonus": 25,
        "game_target": 100, "ban_discarding_taken_card": True,
        "dead_hand_redeal_same_dealer": False, "winner_deals_next": False,
        "knock_discard_face_down": True, "dead_hand_stock_size": 2,
    }


def test_classic_values() -> None:
    assert CLASSIC.to_dict() == {
        "name": "classic", "knock_limit": 10, "gin_bonus": 25, "undercut_bonus": 10,
        "game_target": 100, "ban_discarding_taken_card": False,
        "dead_hand_redeal_same_dealer": True, "winner_deals_next": True,
        "knock_discard_face_down": False, "dead_hand_stock_size": 2,
    }


def test_get_profile_by_name() -> None:
    assert get_profile("classic") is CLASSIC
    assert get_profile("Friendly ") is FRIENDLY
    with pytest.raises(ProfileError, match="unknown profile 'oklahoma'"):
        get_profile("oklahoma")


def test_derive_overrides_a_field_and_records_it_in_the_name() -> None:
    derived = FRIENDLY.derive(undercut_bonus=20)
    assert derived.undercut_bonus == 20
    assert derived.gin_bonus == FRIENDLY.gin_bonus
    assert derived.name == "friendly[undercut_bonus=20]"
    assert FRIENDLY.undercut_bonus == 25  # the original never changes
    assert CLASSIC.derive(name="house", winner_deals_next=False).name == "house"


def test_derive_without_changes_is_equal() -> None:
    assert FRIENDLY.derive() == FRIENDLY


def test_profile_is_immutable() -> None:
    with pytest.raises(AttributeError):
        FRIENDLY.gin_bonus = 30  # type: ignore[misc]


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        ({"undercut_bonsu": 20}, "unknown profile field.*undercut_bonsu"),
        ({"undercut_bonus": -1}, "undercut_bonus must be between 0 and 1000, got -1"),
        ({"gin_bonus": -5}, "gin_bonus must be between 0 and 1000"),
        ({"knock_limit": 11}, "knock_limit must be between 0 and 10, got 11"),
        ({"knock_limit": -1}, "knock_limit must be between 0 and 10"),
        ({"game_target": 0}, "game_target must be between 1 and 100000, got 0"),
        ({"game_target": -100}, "game_target must be between 1"),
        ({"dead_hand_stock_size": 31}, "dead_hand_stock_size must be between 0 and 30"),
        ({"gin_bonus": "25"}, "gin_bonus must be an integer, got '25'"),
        ({"gin_bonus": 2.5}, "gin_bonus must be an integer"),
        ({"knock_limit": True}, "knock_limit must be an integer, got True"),
        ({"winner_deals_next": 1}, "winner_deals_next must be true or false, got 1"),
        ({"name": ""}, "name must be a non-empty string"),
        ({"name": "x" * 65}, "at most 64 characters"),
    ],
)
def test_bad_overrides_are_rejected_with_a_specific_message(
        overrides: dict[str, Any], message: str) -> None:
    with pytest.raises(ProfileError, match=message):
        FRIENDLY.derive(**overrides)


def test_profile_error_is_a_value_error() -> None:
    assert issubclass(ProfileError, ValueError)


@pytest.mark.parametrize("profile", [FRIENDLY, CLASSIC, FRIENDLY.derive(undercut_bonus=20)])
def test_dict_round_trip_through_json(profile: Profile) -> None:
    assert Profile.from_dict(json.loads(json.dumps(profile.to_dict()))) == profile


def test_from_dict_rejects_missing_unknown_and_bad_fields() -> None:
    data = FRIENDLY.to_dict()
    del data["gin_bonus"]
    with pytest.raises(ProfileError, match=r"missing profile field.*gin_bonus"):
        Profile.from_dict(data)
    with pytest.raises(ProfileError, match=r"unknown profile field.*colour"):
        Profile.from_dict({**FRIENDLY.to_dict(), "colour": "red"})
    with pytest.raises(ProfileError, match="knock_limit must be between"):
        Profile.from_dict({**FRIENDLY.to_dict(), "knock_limit": 99})
    with pytest.raises(ProfileError, match="must be a mapping"):
        Profile.from_dict(["friendly"])  # type: ignore[arg-type]


# -- exact messages and boundaries (mutation testing) ------------------------------

ALL_FIELDS = ("name, knock_limit, gin_bonus, undercut_bonus, game_target, "
              "ban_discarding_taken_card, dead_hand_redeal_same_dealer, winner_deals_next, "
              "knock_discard_face_down, dead_hand_stock_size")


def test_derive_names_unknown_fields_and_the_known_ones() -> None:
    with pytest.raises(ProfileError) as caught:
        FRIENDLY.derive(zz=1, aa=2)
    assert str(caught.value) == f"unknown profile field(s): aa, zz (known: {ALL_FIELDS})"


def test_derived_names_list_the_changes_sorted_with_flags_as_true_false() -> None:
    assert FRIENDLY.derive(undercut_bonus=20, knock_limit=8).name == (
        "friendly[knock_limit=8,undercut_bonus=20]")
    assert FRIENDLY.derive(winner_deals_next=True, knock_discard_face_down=False).name == (
        "friendly[knock_discard_face_down=false,winner_deals_next=true]")


def test_from_dict_messages_in_full() -> None:
    with pytest.raises(ProfileError, match=r"^a profile must be a mapping of fields, got list$"):
        Profile.from_dict([])  # type: ignore[arg-type]
    data = FRIENDLY.to_dict()
    with pytest.raises(ProfileError, match=r"^unknown profile field\(s\): a, b$"):
        Profile.from_dict({**data, "b": 1, "a": 2})
    del data["undercut_bonus"], data["gin_bonus"]
    with pytest.raises(ProfileError,
                       match=r"^missing profile field\(s\): gin_bonus, undercut_bonus$"):
        Profile.from_dict(data)


def test_name_and_number_bounds_are_inclusive() -> None:
    assert Profile(name="n" * 64).name == "n" * 64
    with pytest.raises(ProfileError, match="at most 64 characters"):
        Profile(name="n" * 65)
    assert Profile(name="low", knock_limit=0, game_target=1, gin_bonus=0).knock_limit == 0
    with pytest.raises(ProfileError, match=r"^profile field game_target must be between 1 and"):
        Profile(name="low", game_target=0)


def test_get_profile_messages_in_full() -> None:
    with pytest.raises(ProfileError, match=r"^profile name must be a string, got 3$"):
        get_profile(3)  # type: ignore[arg-type]
    with pytest.raises(ProfileError, match=r"^unknown profile 'x' \(known: friendly, classic\)$"):
        get_profile("x")
