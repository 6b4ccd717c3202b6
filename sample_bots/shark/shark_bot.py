"""The `shark` sample bot: a stronger player than `greedy`.

* Card memory. Every card that was ever face up is in the discard pile, in its own
  hand, or among the opponent's known cards, so the "unseen" cards (stock plus the
  opponent's hidden cards) follow from one observation. Across decisions it also
  remembers which cards the opponent threw away or left on the pile: evidence of
  what the opponent does not collect.
* Discards: each legal discard is scored by the expected deadwood after the next
  draw (a one-card look-ahead over the unseen cards, exact for every card), plus a
  penalty for how likely the card completes a meld in the opponent's hand (its
  known pick-ups count for certain; cards it rejected make the pattern unlikely).
* Draws: takes the face-up card when the deadwood it gives for certain beats the
  expected deadwood of a stock draw.
* Knocks: gin always. With a few points of deadwood (5 or less) and a stock of 10
  or more it plays on: gin pays a 25 bonus with no layoffs, and an opponent who
  knocks into such a hand is undercut (another 25). Otherwise it knocks while its
  deadwood is within an allowance that shrinks as the stock runs down (10 with a
  full stock, 4 near the end), as the opponent's hand keeps improving and an
  undercut grows likelier.

It uses only the protocol and the Python SDK; the meld search is its own, on bit
masks, because it runs a few thousand times per decision.
"""

from __future__ import annotations

import sys
import traceback
from dataclasses import dataclass, field

import hollywood_sdk as hs
from hollywood_sdk import ActionKind, Card

_DECK: tuple[Card, ...] = hs.FULL_DECK  # FULL_DECK[i].index == i
_INDEX: dict[Card, int] = {card: i for i, card in enumerate(_DECK)}
_VALUE: tuple[int, ...] = tuple(card.value for card in _DECK)
_SUIT_BITS = 0x1FFF


def _suit_value_table() -> tuple[int, ...]:
    values = [min(rank, 10) for rank in range(1, 14)]
    return tuple(
        sum(values[rank] for rank in range(13) if bits >> rank & 1) for bits in range(1 << 13)
    )


def _suit_runs_table() -> tuple[tuple[int, ...], ...]:
    """For each 13-bit rank pattern of one suit, every run (3+ consecutive) in it."""
    table: list[tuple[int, ...]] = []
    for bits in range(1 << 13):
        runs: list[int] = []
        for start in range(11):
            end = start
            while end < 13 and bits >> end & 1:
                end += 1
                if end - start >= 3:
                    runs.append(((1 << end) - 1) ^ ((1 << start) - 1))
        table.append(tuple(runs))
    return tuple(table)


_SUIT_VALUE = _suit_value_table()
_SUIT_RUNS = _suit_runs_table()
_RANK_MASK = tuple(sum(1 << (suit * 13 + rank) for suit in range(4)) for rank in range(13))


def _mask_value(mask: int) -> int:
    return (
        _SUIT_VALUE[mask & _SUIT_BITS]
        + _SUIT_VALUE[mask >> 13 & _SUIT_BITS]
        + _SUIT_VALUE[mask >> 26 & _SUIT_BITS]
        + _SUIT_VALUE[mask >> 39 & _SUIT_BITS]
    )


def _melds(mask: int) -> list[int]:
    """Every set and run within ``mask``, as card masks."""
    melds: list[int] = []
    for suit in range(4):
        shift = suit * 13
        for run in _SUIT_RUNS[mask >> shift & _SUIT_BITS]:
            melds.append(run << shift)
    for rank_mask in _RANK_MASK:
        same = mask & rank_mask
        count = same.bit_count()
        if count >= 3:
            melds.append(same)
            if count == 4:
                rest = same
                while rest:
                    low = rest & -rest
                    melds.append(same ^ low)
                    rest ^= low
    return melds


_DEADWOOD_CACHE: dict[int, int] = {}
_CACHE_LIMIT = 400_000


def deadwood(mask: int) -> int:
    """Least deadwood of the cards in ``mask`` (any size up to 11)."""
    cached = _DEADWOOD_CACHE.get(mask)
    if cached is not None:
        return cached
    total = _mask_value(mask)
    melds = _melds(mask)
    if melds:
        scored = [(meld, _mask_value(meld)) for meld in melds]
        union = 0
        for meld in melds:
            union |= meld
        memo: dict[int, int] = {}

        def covered(remaining: int) -> int:
            """Most value that disjoint melds can cover within ``remaining``."""
            if remaining == 0:
                return 0
            known = memo.get(remaining)
            if known is not None:
                return known
            low = remaining & -remaining
            best = covered(remaining ^ low)  # the lowest card stays deadwood...
            for meld, value in scored:  # ...or joins one meld that still fits
                if meld & low and meld & remaining == meld:
                    score = value + covered(remaining & ~meld)
                    if score > best:
                        best = score
            memo[remaining] = best
            return best

        total -= covered(union)
    if len(_DEADWOOD_CACHE) > _CACHE_LIMIT:  # bounded memory over a long series
        _DEADWOOD_CACHE.clear()
    _DEADWOOD_CACHE[mask] = total
    return total


def _bits(mask: int) -> list[int]:
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


def _connects(card: int, mask: int) -> bool:
    """True when ``card`` forms a meld with two or more cards of ``mask``."""
    rank, suit = card % 13, card // 13
    if (mask & _RANK_MASK[rank] & ~(1 << card)).bit_count() >= 2:
        return True
    row = mask >> (suit * 13) & _SUIT_BITS
    below = rank >= 1 and row >> (rank - 1) & 1
    above = rank <= 11 and row >> (rank + 1) & 1
    return bool(
        (below and above)
        or (below and rank >= 2 and row >> (rank - 2) & 1)
        or (above and rank <= 10 and row >> (rank + 2) & 1)
    )


def _meld_partners(card: int) -> list[tuple[int, int]]:
    """The pairs of other cards that make a three-card meld with ``card``."""
    rank, suit = card % 13, card // 13
    same_rank = [s * 13 + rank for s in range(4) if s != suit]
    pairs = [(same_rank[0], same_rank[1]), (same_rank[0], same_rank[2]),
             (same_rank[1], same_rank[2])]
    base = suit * 13
    for low, high in ((rank - 2, rank - 1), (rank - 1, rank + 1), (rank + 1, rank + 2)):
        if low >= 0 and high <= 12:
            pairs.append((base + low, base + high))
    return pairs


def _is_meld3(a: int, b: int, c: int) -> bool:
    if a % 13 == b % 13 == c % 13:
        return True
    if a // 13 == b // 13 == c // 13:
        ranks = sorted((a % 13, b % 13, c % 13))
        return ranks[2] - ranks[0] == 2 and ranks[1] - ranks[0] == 1
    return False


def expected_after_draw(hand: int, unseen: list[int]) -> float:
    """Expected least deadwood of the 10-card ``hand`` after drawing one of ``unseen``
    (uniformly) and making the best discard; the current deadwood when nothing is unseen.

    A drawn card that melds with nothing can only replace a deadwood card, so for it
    the answer is ``min(current, best nine-card deadwood + its value)``: the nine-card
    deadwoods are shared by all such cards, and only connecting cards need a search.
    """
    current = deadwood(hand)
    if not unseen:
        return float(current)
    cards = _bits(hand)
    best_nine = min(deadwood(hand ^ (1 << card)) for card in cards)
    total = 0
    for drawn in unseen:
        if _connects(drawn, hand):
            grown = hand | 1 << drawn
            result = current
            for card in cards:
                value = deadwood(grown ^ (1 << card))
                if value < result:
                    result = value
        else:
            result = min(current, best_nine + _VALUE[drawn])
        total += result
    return total / len(unseen)


@dataclass(frozen=True)
class Tuning:
    """The strategy's knobs (defaults measured against `greedy`, see README.md)."""

    danger_weight: float = 6.0
    """Points of expected deadwood a certain opponent meld is worth avoiding."""
    rejected_factor: float = 0.3
    """How much less likely a meld pattern is once the opponent rejected a card that
    would have completed it too."""
    take_margin: float = 0.0
    """Take the face-up card when its certain deadwood beats the stock's expected one
    by more than this."""
    knock_early: int = 10
    """Knock allowance while the stock is full; it falls to ``knock_late``."""
    knock_late: int = 4
    knock_fall_start: int = 26
    """Stock size at which the allowance starts to fall..."""
    knock_fall_end: int = 8
    """...and at which it reaches ``knock_late``."""
    gin_hunt_deadwood: int = 5
    """Play on for gin with this much deadwood or less (0: never)..."""
    gin_hunt_stock: int = 10
    """...while at least this many cards are in the stock."""


@dataclass
class _HandMemory:
    """What the bot remembers within one hand."""

    key: tuple[str, int]
    mine: set[int] = field(default_factory=set)
    """Cards this bot discarded."""
    rejected: set[int] = field(default_factory=set)
    """Cards the opponent discarded or declined to take."""
    pile_after_me: tuple[int, ...] | None = None
    """The discard pile as this bot left it at its last decision."""


class SharkBot(hs.Bot):
    def __init__(self, tuning: Tuning | None = None) -> None:
        self.tuning = tuning or Tuning()  # kept between series: not about an opponent
        self._memory = _HandMemory(("", 0))

    def on_series_start(self, start: hs.SeriesStart) -> None:
        """A new series (the arena may reuse this process): forget the last opponent."""
        self._memory = _HandMemory(("", 0))

    # ------------------------------------------------------------------ decisions

    def decide(self, observation: hs.Observation) -> hs.Action:
        try:
            action = self._decide(observation)
        except Exception as error:  # a strategy bug must not forfeit the series: say so, play on
            traceback.print_exc(file=sys.stderr)
            # A debug note: shown to this bot's owner alone, beside the move
            # (docs/bot-guide.md, "Debug notes").
            self.debug(f"fallback after {type(error).__name__}: first legal action")
            action = observation.legal_actions[0]
        if action not in observation.legal_actions:
            print(f"shark: {action} is not legal here; playing the first legal action",
                  file=sys.stderr)
            action = observation.legal_actions[0]
        return action

    def _decide(self, observation: hs.Observation) -> hs.Action:
        pile = tuple(_INDEX[card] for card in observation.discard_pile)
        self._remember_opponent(observation, pile)
        if observation.phase is hs.Phase.DISCARD:
            action = self._discard_or_knock(observation)
            if action.card is not None and action.kind is ActionKind.DISCARD:
                self._memory.mine.add(_INDEX[action.card])
                self._memory.pile_after_me = (*pile, _INDEX[action.card])
        else:
            action = self._draw(observation)
            if action.kind is ActionKind.DRAW_DISCARD:
                self._memory.pile_after_me = pile[:-1]
            else:
                self._memory.pile_after_me = pile
        return action

    def _remember_opponent(self, observation: hs.Observation, pile: tuple[int, ...]) -> None:
        key = (observation.series_id, observation.hand_number)
        memory = self._memory
        if memory.key != key:
            memory = self._memory = _HandMemory(key)
            dealer = observation.dealer == observation.seat
            if observation.phase is hs.Phase.UPCARD_OFFER and dealer:
                memory.rejected.update(pile[-1:])  # the non-dealer passed the upcard
        if observation.phase is hs.Phase.DISCARD:
            return  # nothing happened since this bot's draw
        before = memory.pile_after_me
        if before is None:
            # First decision of the hand after the opponent's turn (it took the
            # upcard and discarded): what lies there and is not mine is its discard.
            memory.rejected.update(card for card in pile if card not in memory.mine)
        elif pile[: len(before)] == before:
            memory.rejected.update(before[-1:])  # left on the pile: declined
            memory.rejected.update(pile[len(before):])
        else:
            memory.rejected.update(pile[max(0, len(before) - 1):])

    def _draw(self, observation: hs.Observation) -> hs.Action:
        top = observation.top_discard
        fallback = hs.Action.pass_() if observation.can(ActionKind.PASS) else (
            hs.Action.draw_stock())
        if top is None or not observation.can(ActionKind.DRAW_DISCARD):
            return fallback
        hand = _mask_of(observation.hand)
        taken = _INDEX[top]
        grown = hand | 1 << taken
        allowed = [c for c in _bits(grown)
                   if not (observation.profile.no_discard_of_taken_card and c == taken)]
        take = min(deadwood(grown ^ (1 << card)) for card in allowed)
        unseen = self._unseen(observation, hand)
        stock = expected_after_draw(hand, unseen)
        if take < deadwood(hand) and take + self.tuning.take_margin < stock:
            return hs.Action.draw_discard()
        return fallback

    def _discard_or_knock(self, observation: hs.Observation) -> hs.Action:
        hand = _mask_of(observation.hand)
        knocks = observation.actions_of(ActionKind.KNOCK)
        if knocks:
            best = min(knocks, key=lambda a: (deadwood(hand ^ 1 << _INDEX[_card(a)]),
                                              -_card(a).value))
            if self._should_knock(observation, hand ^ 1 << _INDEX[_card(best)]):
                return best
        return hs.Action.discard(self._best_discard(observation, hand))

    def _should_knock(self, observation: hs.Observation, kept: int) -> bool:
        """Whether to knock keeping the 10 cards ``kept`` (legal: deadwood <= limit)."""
        left = deadwood(kept)
        if left == 0:
            return True
        tuning = self.tuning
        stock = observation.stock_size
        if left <= tuning.gin_hunt_deadwood and stock >= tuning.gin_hunt_stock:
            return False
        return left <= self._knock_allowance(stock)

    def _knock_allowance(self, stock: int) -> float:
        tuning = self.tuning
        if stock >= tuning.knock_fall_start:
            return tuning.knock_early
        if stock <= tuning.knock_fall_end:
            return tuning.knock_late
        span = tuning.knock_fall_start - tuning.knock_fall_end
        share = (tuning.knock_fall_start - stock) / span
        return tuning.knock_early - share * (tuning.knock_early - tuning.knock_late)

    def _best_discard(self, observation: hs.Observation, hand: int) -> Card:
        unseen = self._unseen(observation, hand)
        danger = self._danger_model(observation, hand, unseen)
        scored = []
        for card in observation.discardable:
            index = _INDEX[card]
            kept = hand ^ 1 << index
            score = expected_after_draw(kept, unseen) + danger(index)
            scored.append((score, -card.value, index, card))
        return min(scored)[3]

    # ------------------------------------------------------------------ knowledge

    def _unseen(self, observation: hs.Observation, hand: int) -> list[int]:
        seen = hand | _mask_of(observation.discard_pile) | _mask_of(
            observation.opponent_known_cards)
        return [i for i in range(52) if not seen >> i & 1]

    def _danger_model(
        self, observation: hs.Observation, hand: int, unseen: list[int]
    ) -> _Danger:
        known = _mask_of(observation.opponent_known_cards)
        hidden = max(0, observation.opponent_hand_size - known.bit_count())
        chance = hidden / len(unseen) if unseen else 0.0
        unseen_mask = _mask_of_indices(unseen)
        return _Danger(known, unseen_mask, chance, frozenset(self._memory.rejected),
                       self.tuning.danger_weight, self.tuning.rejected_factor)


class _Danger:
    """The expected cost of handing one card to the opponent: the chance that it
    completes a three-card meld with cards the opponent holds, times a weight."""

    def __init__(self, known: int, unseen: int, chance: float, rejected: frozenset[int],
                 weight: float, rejected_factor: float) -> None:
        self.known, self.unseen, self.chance = known, unseen, chance
        self.rejected, self.weight, self.rejected_factor = rejected, weight, rejected_factor

    def holds(self, card: int) -> float:
        if self.known >> card & 1:
            return 1.0
        return self.chance if self.unseen >> card & 1 else 0.0

    def __call__(self, card: int) -> float:
        if self.weight == 0:
            return 0.0
        miss = 1.0
        for first, second in _meld_partners(card):
            chance = self.holds(first) * self.holds(second)
            if chance == 0:
                continue
            if chance < 1 and any(_is_meld3(first, second, other) for other in self.rejected
                                  if other not in (first, second, card)):
                chance *= self.rejected_factor
            miss *= 1 - chance
        return self.weight * (1 - miss)


def _card(action: hs.Action) -> Card:
    assert action.card is not None
    return action.card


def _mask_of(cards: tuple[Card, ...] | list[Card]) -> int:
    mask = 0
    for card in cards:
        mask |= 1 << _INDEX[card]
    return mask


def _mask_of_indices(indices: list[int]) -> int:
    mask = 0
    for index in indices:
        mask |= 1 << index
    return mask


if __name__ == "__main__":
    hs.serve(SharkBot())
