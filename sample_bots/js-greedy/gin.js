'use strict';
// Cards, melds and deadwood for Hollywood Gin (docs/rules.md#melds, docs/rules.md#layoffs), from scratch: a bot in
// another language gets nothing from the arena but the protocol, so it brings its own.
//
// A card is the protocol's two-character string ("As", "Td", "7c"). Internally a card
// is an index 0..51, clubs first: suit * 13 + rank - 1 (rank 1 = ace, always low).

const RANKS = 'A23456789TJQK';
const SUITS = 'cdhs';

/** Parse "As" / "Td" (also "10d", any letter case) into an index 0..51. */
function parseCard(text) {
  const token = String(text).trim();
  let rankText = token.slice(0, -1).toUpperCase();
  const suitText = token.slice(-1).toLowerCase();
  if (rankText === '10') rankText = 'T';
  const rank = RANKS.indexOf(rankText) + 1;
  const suit = SUITS.indexOf(suitText);
  if (rankText.length !== 1 || rank === 0 || suitText.length !== 1 || suit < 0) {
    throw new Error(`not a card: ${JSON.stringify(text)}`);
  }
  return suit * 13 + rank - 1;
}

function cardText(index) {
  return RANKS[index % 13] + SUITS[Math.floor(index / 13)];
}

function rankOf(index) {
  return (index % 13) + 1;
}

function suitOf(index) {
  return Math.floor(index / 13);
}

/** Deadwood value: ace 1, two to ten face value, J Q K 10. */
function valueOf(index) {
  return Math.min(rankOf(index), 10);
}

/**
 * Minimum-deadwood search over the subsets of one hand (at most 11 cards, so a subset
 * is an 11-bit mask). Memoised on the subset: the eleven 10-card subsets of an
 * 11-card hand share most of their work, which is what a discard choice needs.
 */
class DeadwoodSolver {
  constructor(cards) {
    this.cards = [...new Set(cards)].sort((a, b) => a - b);
    if (this.cards.length > 11) throw new Error('a hand has at most 11 cards');
    this.values = this.cards.map(valueOf);
    this.melds = possibleMelds(this.cards);
    this.memo = new Map();
  }

  /** The mask of the whole hand, without `card` (an index) when given. */
  maskWithout(card) {
    const full = (1 << this.cards.length) - 1;
    if (card === undefined || card === null) return full;
    const position = this.cards.indexOf(card);
    if (position < 0) throw new Error(`${cardText(card)} is not in the hand`);
    return full & ~(1 << position);
  }

  /** Least deadwood of the cards in `mask`. */
  search(mask) {
    if (mask === 0) return 0;
    const known = this.memo.get(mask);
    if (known !== undefined) return known;
    const first = 31 - Math.clz32(mask & -mask);
    // Either the lowest remaining card is deadwood...
    let best = this.values[first] + this.search(mask & ~(1 << first));
    // ...or it belongs to one meld that fits in what remains.
    for (const meld of this.melds) {
      if ((meld >> first) & 1 && (meld & mask) === meld) {
        const rest = this.search(mask & ~meld);
        if (rest < best) best = rest;
      }
    }
    this.memo.set(mask, best);
    return best;
  }
}

/** Every set (3 or 4 of a rank) and run (3+ in a row of one suit), as masks over `cards`. */
function possibleMelds(cards) {
  const position = new Map(cards.map((card, i) => [card, i]));
  const melds = [];
  for (let rank = 1; rank <= 13; rank += 1) {
    const same = [];
    for (let suit = 0; suit < 4; suit += 1) {
      const at = position.get(suit * 13 + rank - 1);
      if (at !== undefined) same.push(at);
    }
    if (same.length === 3) melds.push(maskOf(same));
    if (same.length === 4) {
      melds.push(maskOf(same));
      // Its four sets of three too: the fourth card may be better used in a run.
      for (let leftOut = 0; leftOut < 4; leftOut += 1) {
        melds.push(maskOf(same.filter((_, i) => i !== leftOut)));
      }
    }
  }
  for (let suit = 0; suit < 4; suit += 1) {
    for (let start = 1; start <= 11; start += 1) {
      const run = [];
      for (let rank = start; rank <= 13; rank += 1) {
        const at = position.get(suit * 13 + rank - 1);
        if (at === undefined) break;
        run.push(at);
        if (run.length >= 3) melds.push(maskOf(run));
      }
    }
  }
  return melds;
}

function maskOf(positions) {
  return positions.reduce((mask, at) => mask | (1 << at), 0);
}

/** The smallest deadwood total of `cards` (indices) under any arrangement. */
function minDeadwood(cards) {
  const solver = new DeadwoodSolver(cards);
  return solver.search(solver.maskWithout());
}

/**
 * For an 11-card hand: the least deadwood reachable by discarding one of `allowed`
 * (default: any card), and every such card, sorted by index.
 */
function bestDiscards(cards, allowed) {
  const solver = new DeadwoodSolver(cards);
  const inHand = new Set(solver.cards);
  const candidates = [...new Set(allowed === undefined ? solver.cards : allowed)]
    .filter((card) => inHand.has(card))
    .sort((a, b) => a - b);
  if (candidates.length === 0) throw new Error('no card may be discarded');
  const results = candidates.map((card) => solver.search(solver.maskWithout(card)));
  const best = Math.min(...results);
  return { deadwood: best, cards: candidates.filter((_, i) => results[i] === best) };
}

module.exports = {
  RANKS,
  SUITS,
  DeadwoodSolver,
  bestDiscards,
  cardText,
  minDeadwood,
  parseCard,
  possibleMelds,
  rankOf,
  suitOf,
  valueOf,
};
