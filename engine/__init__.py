"""Hollywood Gin rules engine: pure Python, standard library only.

The public API (see ``docs/engine.md``): cards and their text notation, melds and
deadwood, knock settlement, rule profiles, the Hollywood score sheet, and the game
being played (``Action``, ``Hand``, ``Series``, ``Observation``, the event log).
"""

from engine.actions import (
    Action,
    ActionKind,
    ActionParseError,
    IllegalActionError,
    Melds,
)
from engine.cards import (
    ALL_CARDS,
    Card,
    CardParseError,
    DuplicateCardError,
    Suit,
    cards_to_mask,
    format_cards,
    mask_to_cards,
    parse_cards,
)
from engine.dealing import Deal, deal_hand, first_dealer
from engine.hand import Hand, Move
from engine.hand_result import HandKind, HandResult
from engine.melds import (
    Arrangement,
    InvalidMeldsError,
    best_arrangement,
    best_discards,
    deadwood_after_each_discard,
    deadwood_of,
    is_run,
    is_set,
    is_valid_meld,
    min_deadwood,
    validate_arrangement,
)
from engine.observation import Observation, SeatView, observe
from engine.phase import Phase
from engine.profiles import CLASSIC, FRIENDLY, PROFILES, Profile, ProfileError, get_profile
from engine.scoresheet import CapAward, ScoreSheet, ScoreSheetError
from engine.series import (
    DEFAULT_MAX_HANDS,
    Event,
    ReplayError,
    Series,
    SeriesResult,
    history_from_log,
)
from engine.settle import Layoff, SettleError, Settlement, settle

__all__ = [
    "ALL_CARDS",
    "CLASSIC",
    "DEFAULT_MAX_HANDS",
    "FRIENDLY",
    "PROFILES",
    "Action",
    "ActionKind",
    "ActionParseError",
    "Arrangement",
    "CapAward",
    "Card",
    "CardParseError",
    "Deal",
    "DuplicateCardError",
    "Event",
    "Hand",
    "HandKind",
    "HandResult",
    "IllegalActionError",
    "InvalidMeldsError",
    "Layoff",
    "Melds",
    "Move",
    "Observation",
    "Phase",
    "Profile",
    "ProfileError",
    "ReplayError",
    "ScoreSheet",
    "ScoreSheetError",
    "SeatView",
    "Series",
    "SeriesResult",
    "SettleError",
    "Settlement",
    "Suit",
    "best_arrangement",
    "best_discards",
    "cards_to_mask",
    "deadwood_after_each_discard",
    "deadwood_of",
    "deal_hand",
    "first_dealer",
    "format_cards",
    "get_profile",
    "history_from_log",
    "is_run",
    "is_set",
    "is_valid_meld",
    "mask_to_cards",
    "min_deadwood",
    "observe",
    "parse_cards",
    "settle",
    "validate_arrangement",
]
