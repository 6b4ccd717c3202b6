"""Before binding its socket, writes up to 8 MiB into its socket directory (a host
directory in older arenas: the bot stored data on the arena's disk). It prints
``PROBE socket-dir wrote N bytes (...)`` on stderr, then serves and forfeits at its
first decision (an illegal discard) so the arena records that stderr."""

import contextlib
import os
import sys

import hollywood_sdk as hs

SOCKET_DIR = os.path.dirname(os.environ["HOLLYWOOD_BOT_SOCKET"])
WANTED = 8 * 1024 * 1024


def fill() -> None:
    written = 0
    outcome = "all of it"
    chunk = b"x" * 65536
    try:
        with open(os.path.join(SOCKET_DIR, "filler.bin"), "wb") as file:
            while written < WANTED:
                written += file.write(chunk)
                file.flush()
    except OSError as error:
        outcome = f"stopped: {error.strerror}"
    with contextlib.suppress(OSError):  # what the file holds (a short write counted more)
        written = os.path.getsize(os.path.join(SOCKET_DIR, "filler.bin"))
    print(f"PROBE socket-dir wrote {written} bytes ({outcome})", file=sys.stderr, flush=True)


class Filler(hs.Bot):
    def decide(self, observation: hs.Observation) -> hs.Action:
        card = next(c for c in hs.FULL_DECK if c not in observation.hand)
        return hs.Action.discard(card)


if __name__ == "__main__":
    fill()
    hs.serve(Filler())
