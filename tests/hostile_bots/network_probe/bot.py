"""Tries to open network connections at start-up and prints one
``PROBE network ...`` line per attempt on stderr, then forfeits at its first
decision (an illegal discard) so the arena records that stderr with the fault."""

import socket
import sys

import hollywood_sdk as hs

TARGETS = [("1.1.1.1", 53), ("8.8.8.8", 443), ("172.17.0.1", 2375), ("pypi.org", 443)]


def probe() -> None:
    for host, port in TARGETS:
        try:
            with socket.create_connection((host, port), timeout=2):
                print(f"PROBE network {host}:{port} REACHED", file=sys.stderr)
        except OSError as error:
            print(f"PROBE network {host}:{port} blocked: {error}", file=sys.stderr)
    with open("/proc/net/dev") as devices:
        names = sorted(line.split(":")[0].strip() for line in devices if ":" in line)
    print(f"PROBE network interfaces: {' '.join(names)}", file=sys.stderr, flush=True)


def not_in_hand(observation: hs.Observation) -> hs.Action:
    """A discard of a card the bot does not hold: always illegal (ILLEGAL_ACTION),
    which makes the arena record the fault together with this bot's stderr."""
    card = next(c for c in hs.FULL_DECK if c not in observation.hand)
    return hs.Action.discard(card)


class NetworkProbe(hs.Bot):
    def decide(self, observation: hs.Observation) -> hs.Action:
        return not_in_hand(observation)


if __name__ == "__main__":
    probe()
    hs.serve(NetworkProbe())
