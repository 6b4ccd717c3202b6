"""At its first decision (when the arena has closed the socket directory) tries to
write files outside /tmp and to execute a file written to /tmp, prints one
``PROBE write ...`` line per attempt on stderr, then forfeits with an illegal
discard so the arena records that stderr with the fault."""

import os
import sys

import hollywood_sdk as hs

PLACES = ["/", "/bot", "/etc", "/usr", "/opt/hollywood/python", "/var", "/root",
          "/run/hollywood", "/tmp"]


def probe() -> None:
    for place in PLACES:
        path = os.path.join(place, "hostile-was-here")
        try:
            with open(path, "w") as file:
                file.write("x")
            print(f"PROBE write {place} WRITTEN", file=sys.stderr)
        except OSError as error:
            print(f"PROBE write {place} refused: {error}", file=sys.stderr)
    script = "/tmp/hostile-script"
    try:
        with open(script, "w") as file:
            file.write("#!/bin/sh\necho ran\n")
        os.chmod(script, 0o755)
        os.execv(script, [script])  # only returns by raising
    except OSError as error:
        print(f"PROBE exec /tmp refused: {error}", file=sys.stderr, flush=True)


def not_in_hand(observation: hs.Observation) -> hs.Action:
    """A discard of a card the bot does not hold: always illegal (ILLEGAL_ACTION),
    which makes the arena record the fault together with this bot's stderr."""
    card = next(c for c in hs.FULL_DECK if c not in observation.hand)
    return hs.Action.discard(card)


class WriteOutsideTmp(hs.Bot):
    def decide(self, observation: hs.Observation) -> hs.Action:
        probe()
        return not_in_hand(observation)


if __name__ == "__main__":
    hs.serve(WriteOutsideTmp())
