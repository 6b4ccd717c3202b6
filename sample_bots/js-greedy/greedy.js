'use strict';
// The greedy policy, the same as sample_bots/greedy (Python):
//  * takes the upcard / top discard when that lowers its deadwood (after its best
//    discard), otherwise passes the offer or draws from the stock;
//  * discards the card that leaves the least deadwood (ties: the highest-value card,
//    which costs most if it stays);
//  * knocks as soon as it may, with the discard that leaves the least deadwood.
//
// It works on the DecideRequest exactly as @grpc/proto-loader decodes it with
// keepCase, enums as strings and defaults on (see bot.js).

const { bestDiscards, minDeadwood, parseCard, valueOf } = require('./gin');

const DRAW_STOCK = 'ACTION_KIND_DRAW_STOCK';
const DRAW_DISCARD = 'ACTION_KIND_DRAW_DISCARD';
const PASS = 'ACTION_KIND_PASS';
const DISCARD = 'ACTION_KIND_DISCARD';
const KNOCK = 'ACTION_KIND_KNOCK';

/** Choose one entry of request.legal_actions (returned as a fresh {kind, card}). */
function decide(request) {
  const observation = request.observation || {};
  const legal = request.legal_actions || [];
  if (legal.length === 0) throw new Error('the request has no legal actions');
  const hand = (observation.hand || []).map(parseCard);
  const chosen = observation.phase === 'PHASE_DISCARD'
    ? discardAction(hand, legal)
    : drawAction(hand, observation, request.profile || {}, legal);
  return { kind: chosen.kind, card: chosen.card || '' };
}

function drawAction(hand, observation, profile, legal) {
  const pile = observation.discard_pile || [];
  const takeable = legal.find((action) => action.kind === DRAW_DISCARD);
  if (takeable && pile.length > 0) {
    const top = parseCard(pile[pile.length - 1]);
    if (deadwoodWith(hand, top, profile) < minDeadwood(hand)) return takeable;
  }
  return legal.find((action) => action.kind === PASS)
    || legal.find((action) => action.kind === DRAW_STOCK)
    || legal[0];
}

/** Least deadwood after taking `card` and making the best discard the profile allows. */
function deadwoodWith(hand, card, profile) {
  const eleven = [...hand, card];
  const allowed = profile.no_discard_of_taken_card ? hand : eleven;
  return bestDiscards(eleven, allowed).deadwood;
}

function discardAction(hand, legal) {
  const knocks = legal.filter((action) => action.kind === KNOCK);
  if (knocks.length > 0) {
    // Least deadwood left; on a tie, throw away the higher card. First in legal order wins.
    let best = null;
    let bestKey = null;
    for (const action of knocks) {
      const card = parseCard(action.card);
      const key = [minDeadwood(hand.filter((c) => c !== card)), -valueOf(card)];
      if (bestKey === null || key[0] < bestKey[0] || (key[0] === bestKey[0] && key[1] < bestKey[1])) {
        best = action;
        bestKey = key;
      }
    }
    return best;
  }
  const discards = legal.filter((action) => action.kind === DISCARD);
  if (discards.length === 0) return legal[0];
  const allowed = discards.map((action) => parseCard(action.card));
  const { cards } = bestDiscards(hand, allowed);
  // Among equally good discards the highest value goes (then the highest index).
  const card = cards.reduce((a, b) => (valueOf(b) > valueOf(a) || (valueOf(b) === valueOf(a) && b > a) ? b : a));
  return discards.find((action) => parseCard(action.card) === card);
}

module.exports = { decide, deadwoodWith, DRAW_STOCK, DRAW_DISCARD, PASS, DISCARD, KNOCK };
