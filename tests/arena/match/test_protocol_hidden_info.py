"""Hidden information on the wire: a DecideRequest carries nothing a player at the
table could not see (docs/rules.md#hidden-information). Two deals that differ only
in the opponent's unseen cards and the stock's order must give byte-identical
requests."""

from __future__ import annotations

from hollywood.bot.v1 import bot_pb2

from arena.match import protocol
from engine import Action, Deal, Hand, deal_hand
from engine.observation import observe
from engine.profiles import FRIENDLY
from engine.scoresheet import ScoreSheet

PROFILE = protocol.profile_to_proto(FRIENDLY, max_hands=200)


def twin_deals() -> tuple[Deal, Deal]:
    """Deal A, and deal B with half the opponent's (seat 1's) cards exchanged for
    stock cards and the stock reordered. Seat 1's first card is in both hands."""
    deal = deal_hand(11, 1)
    opponent, stock = list(deal.hands[1]), list(deal.stock)
    other_opponent = opponent[:5] + stock[:5]
    other_stock = list(reversed(stock[5:] + opponent[5:]))
    twin = Deal((deal.hands[0], tuple(other_opponent)), deal.upcard, tuple(other_stock))
    assert sorted(twin.hands[1]) != sorted(deal.hands[1]) and twin.stock != deal.stock
    return deal, twin


def request_bytes(hand: Hand, seat: int, decision_number: int) -> bytes:
    request = protocol.decide_request(
        observe(hand, seat, ScoreSheet()), hand.legal_actions(), PROFILE,
        series_id="s", decision_number=decision_number, decision_s=1.0, reserve_s=30.0,
    )
    return request.SerializeToString(deterministic=True)


def test_decide_requests_do_not_depend_on_hidden_cards() -> None:
    first, second = twin_deals()
    hands = [Hand(first, dealer=0), Hand(second, dealer=0)]
    # Seat 1 (non-dealer) passes the upcard; seat 0 decides on the offer.
    for hand in hands:
        hand.apply(Action.pass_())
    assert request_bytes(hands[0], 0, 2) == request_bytes(hands[1], 0, 2)
    # Seat 0 passes; seat 1 draws from the stock (different cards in the two
    # deals) and discards the card both versions hold; seat 0 decides again.
    common = first.hands[1][0]
    for hand in hands:
        hand.apply(Action.pass_())
        hand.apply(Action.draw_stock())
        hand.apply(Action.discard(common))
    assert hands[0].current_player == 0
    one, two = request_bytes(hands[0], 0, 5), request_bytes(hands[1], 0, 5)
    assert one == two
    decoded = bot_pb2.DecideRequest.FromString(one)
    assert decoded.observation.discard_pile[-1] == str(common)
    assert decoded.observation.stock_size == 30


def test_the_opponents_requests_do_differ() -> None:
    """Control: the same comparison from the opponent's seat sees its own cards."""
    first, second = twin_deals()
    hands = [Hand(first, dealer=0), Hand(second, dealer=0)]
    assert request_bytes(hands[0], 1, 1) != request_bytes(hands[1], 1, 1)
