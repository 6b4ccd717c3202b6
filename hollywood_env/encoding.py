"""A seat's observation as numbers: what ``engine.Observation`` holds (what that seat may
see, nothing more), seat-relative ("mine" first), each value in [0, 1] except the game
scores (scaled by the game's target, so past 1 once a game is won).

=========  ======  ==========================================================
offset     size    feature
=========  ======  ==========================================================
0          52      my cards
52         52      the face-up discard pile
104        52      the top discard (one-hot; none: all zero)
156        52      the opponent's known cards (taken from the pile, still held)
208        52      the card I just took from the pile (one-hot)
260        52      the card I may not discard now (one-hot)
312        4       the phase (upcard offer, draw, discard, over)
316        1       cards left in the stock / 31
317        1       the opponent's hand size / 11
318        1       I deal this hand
319        1       it is my turn
320        1       hand number / hand cap
321        6       game scores I, II, III: mine, then the opponent's, / game target
327        6       whether each game is opened: mine, then the opponent's
333        6       each game's winner: me, then the opponent (0 and 0 while open)
339        2       hands won: mine, the opponent's, / hand cap
=========  ======  ==========================================================
"""

from __future__ import annotations

from typing import Final

import numpy as np
import numpy.typing as npt

from engine import Hand, Observation, Phase, Series

FEATURE_COUNT: Final = 341
PHASES: Final = (Phase.UPCARD_OFFER, Phase.DRAW, Phase.DISCARD, Phase.OVER)
MAX_STOCK: Final = 31
SCORE_CEILING: Final = 4.0
"""The observation space's upper bound for a scaled game score (a score of four times
the target is beyond any real series)."""


def encode_observation(observation: Observation) -> npt.NDArray[np.float32]:
    """The 341 numbers of ``observation`` (see the module's table)."""
    out = np.zeros(FEATURE_COUNT, dtype=np.float32)
    for card in observation.hand:
        out[card.index] = 1.0
    for card in observation.discard_pile:
        out[52 + card.index] = 1.0
    if observation.discard_pile:
        out[104 + observation.discard_pile[-1].index] = 1.0
    for card in observation.opponent_known_cards:
        out[156 + card.index] = 1.0
    if observation.taken_card is not None:
        out[208 + observation.taken_card.index] = 1.0
    if observation.banned_discard is not None:
        out[260 + observation.banned_discard.index] = 1.0
    out[312 + PHASES.index(observation.phase)] = 1.0
    me, them = observation.seat, 1 - observation.seat
    out[316] = observation.stock_size / MAX_STOCK
    out[317] = observation.opponent_hand_size / 11
    out[318] = float(observation.dealer == me)
    out[319] = float(observation.current_player == me)
    cap = observation.max_hands
    out[320] = observation.hand_number / cap
    target = observation.profile.game_target
    for offset, seat in ((0, me), (3, them)):
        for game in range(3):
            out[321 + offset + game] = min(observation.scores[seat][game] / target,
                                           SCORE_CEILING)
            out[327 + offset + game] = float(observation.opened[seat][game])
            out[333 + offset + game] = float(observation.game_winners[game] == seat)
    out[339] = observation.hands_won[me] / cap
    out[340] = observation.hands_won[them] / cap
    return out


def encode_seat(series: Series, seat: int) -> npt.NDArray[np.float32]:
    """``encode_observation(series.observation(seat))``, read straight from the hand
    and the score sheet: the environments' own path (``SeatEncoder``), since building
    the engine's whole ``Observation`` at every step was most of a step's time. It
    reads what that observation holds and nothing more; a test compares the two at
    every step of whole series."""
    return SeatEncoder()(series, seat)


class SeatEncoder:
    """``encode_seat`` that keeps each seat's last features and changes only what moved.

    Every feature but two is 0 or 1: the six card blocks, the phase, "I deal" and "my
    turn" (offsets 0-315, 318, 319) are one 320-bit number, of which a step changes
    only a few bits from the seat's previous call; those, and the two fractions
    (offsets 316, 317) when they differ, are written into the kept array, then a copy
    is returned. The score-sheet features (offsets 320-340) change only when a hand
    ends or a new one starts: the kept array is rebuilt whole then (and for another
    series)."""

    def __init__(self) -> None:
        self._kept: dict[int, _KeptFeatures] = {}

    def __call__(self, series: Series, seat: int) -> npt.NDArray[np.float32]:
        hand = series.hand
        mine, _ = hand.masks(seat)
        theirs, their_known = hand.masks(1 - seat)
        top = hand.top_discard
        own_turn = hand.current_player == seat
        taken = hand.taken_card if own_turn else None
        banned = hand.banned_discard if own_turn else None
        bits = (mine | hand.pile_mask << 52 | (top.bit if top is not None else 0) << 104
                | their_known << 156 | (taken.bit if taken is not None else 0) << 208
                | (banned.bit if banned is not None else 0) << 260
                | _PHASE_BITS[PHASES.index(hand.phase)]
                | (hand.dealer == seat) << _DEALER_OFFSET | own_turn << _TURN_OFFSET)
        stock = hand.stock_size / MAX_STOCK
        their_size = theirs.bit_count() / 11
        kept = self._kept.get(seat)
        if (kept is None or kept.series is not series or kept.hand is not hand
                or kept.over != hand.is_over):
            out: npt.NDArray[np.float32] = np.concatenate((
                np.unpackbits(np.frombuffer(bits.to_bytes(40, "little"), np.uint8),
                              bitorder="little"),
                _sheet_features(series, seat)), dtype=np.float32)
            out[_STOCK_OFFSET] = stock
            out[_SIZE_OFFSET] = their_size
            self._kept[seat] = _KeptFeatures(series, hand, hand.is_over, bits, stock,
                                             their_size, out)
            return out.copy()
        out = kept.features
        cells = kept.cells
        changed = bits ^ kept.bits
        ones = changed & bits
        zeros = changed ^ ones
        while ones:
            lowest = ones & -ones
            cells[lowest.bit_length() - 1] = 1.0
            ones ^= lowest
        while zeros:
            lowest = zeros & -zeros
            cells[lowest.bit_length() - 1] = 0.0
            zeros ^= lowest
        kept.bits = bits
        if stock != kept.stock:
            cells[_STOCK_OFFSET] = kept.stock = stock
        if their_size != kept.their_size:
            cells[_SIZE_OFFSET] = kept.their_size = their_size
        return out.copy()


_PHASE_BITS: Final = tuple(1 << (312 + index) for index in range(len(PHASES)))
_STOCK_OFFSET: Final = 316
_SIZE_OFFSET: Final = 317
_DEALER_OFFSET: Final = 318
_TURN_OFFSET: Final = 319


class _KeptFeatures:
    """A seat's last features (``features``, written in place) and what they were
    computed from."""

    __slots__ = ("bits", "cells", "features", "hand", "over", "series", "stock", "their_size")

    def __init__(self, series: Series, hand: Hand, over: bool, bits: int, stock: float,
                 their_size: float, features: npt.NDArray[np.float32]) -> None:
        self.series = series
        self.hand = hand
        self.over = over
        self.bits = bits
        self.stock = stock
        self.their_size = their_size
        self.features = features
        self.cells = features.data.cast("B").cast("f")
        """The same memory: writing one number through it is quicker than numpy's."""


def _sheet_features(series: Series, seat: int) -> npt.NDArray[np.float32]:
    """Offsets 320-340 of the table."""
    them = 1 - seat
    cap = series.max_hands
    sheet = series.sheet
    target = series.profile.game_target
    winners = [sheet.game_winner(game) for game in range(3)]
    scores = [min(score / target, SCORE_CEILING)
              for player in (seat, them) for score in sheet.scores(player)]
    opened = [float(flag) for player in (seat, them) for flag in sheet.opened(player)]
    won = [float(winner == player) for player in (seat, them) for winner in winners]
    return np.array([series.hand.hand_number / cap, *scores, *opened, *won,
                     sheet.hands_won(seat) / cap, sheet.hands_won(them) / cap],
                    dtype=np.float32)
