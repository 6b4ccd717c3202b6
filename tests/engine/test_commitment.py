"""Deal-seed commitments (engine.commitment): the commitment is SHA-256 over the
domain, the nonce and the seed, written out here by hand; a revealed seed and nonce
open it only if both are right; a played series' log re-deals from its seed."""

from __future__ import annotations

import hashlib
from typing import Any

import pytest

from engine import FRIENDLY, Series
from engine.commitment import (
    CommitmentError,
    check_commitment,
    check_revealed_deal,
    new_nonce,
    new_nonces,
    seed_commitment,
)

NONCE = "00112233445566778899aabbccddeeff"


def by_hand(seed: int, nonce: str) -> str:
    message = (b"hollywood-gin/deal-seed-commitment/v1\x00" + bytes.fromhex(nonce) + b"\x00"
               + str(seed).encode())
    return hashlib.sha256(message).hexdigest()


def played_log(seed: int) -> list[dict[str, Any]]:
    """A series played out by always taking the first legal action."""
    series = Series(seed, FRIENDLY, max_hands=3)
    while series.result is None:
        series.apply(series.legal_actions()[0])
    return series.log


def test_the_commitment_is_the_hash_of_the_domain_the_nonce_and_the_seed() -> None:
    assert seed_commitment(12345, NONCE) == by_hand(12345, NONCE)
    assert seed_commitment(-7, NONCE) == by_hand(-7, NONCE)
    assert seed_commitment(12345, NONCE) != seed_commitment(12346, NONCE)
    other = "ff" * 16
    assert seed_commitment(12345, NONCE) != seed_commitment(12345, other)


def test_nonces_are_fresh_128_bit_hex() -> None:
    nonces = {new_nonce() for _ in range(50)}
    assert len(nonces) == 50
    assert all(len(n) == 32 and n == n.lower() and int(n, 16) >= 0 for n in nonces)


def test_nonces_drawn_together_are_as_many_fresh_ones() -> None:
    nonces = new_nonces(1000)
    assert len(nonces) == 1000 and len(set(nonces)) == 1000
    assert all(len(n) == 32 and set(n) <= set("0123456789abcdef") for n in nonces)
    assert seed_commitment(5, nonces[-1]) != seed_commitment(5, nonces[0])  # each one usable
    assert new_nonces(0) == []


@pytest.mark.parametrize("nonce", ["", "00", NONCE.upper(), NONCE + "00", "zz" * 16])
def test_a_malformed_nonce_is_refused(nonce: str) -> None:
    with pytest.raises(ValueError, match="nonce"):
        seed_commitment(1, nonce)
    with pytest.raises(CommitmentError):
        check_commitment(by_hand(1, NONCE), 1, nonce)


def test_only_the_committed_seed_and_nonce_open_the_commitment() -> None:
    commitment = by_hand(99, NONCE)
    check_commitment(commitment, 99, NONCE)
    check_commitment(commitment.upper(), 99, NONCE)
    with pytest.raises(CommitmentError, match="does not open"):
        check_commitment(commitment, 98, NONCE)
    with pytest.raises(CommitmentError, match="does not open"):
        check_commitment(commitment, 99, "11" * 16)


def test_a_played_series_re_deals_from_its_revealed_seed() -> None:
    log = played_log(4242)
    replayed = check_revealed_deal(log, by_hand(4242, NONCE), 4242, NONCE)
    assert len(replayed.hands) == sum(1 for e in log if e["type"] == "hand_start")


def test_a_log_of_another_deal_is_refused() -> None:
    log = played_log(4242)
    with pytest.raises(CommitmentError, match="played on seed 4242, not the revealed 4243"):
        check_revealed_deal(log, by_hand(4243, NONCE), 4243, NONCE)
    # A log whose start names the revealed seed but whose play is another deal's:
    forged = [{**log[0], "seed": 4243}, *log[1:]]
    with pytest.raises(CommitmentError, match="does not re-deal"):
        check_revealed_deal(forged, by_hand(4243, NONCE), 4243, NONCE)
    with pytest.raises(CommitmentError, match="does not open"):
        check_revealed_deal(log, by_hand(4242, NONCE), 4242, "22" * 16)
