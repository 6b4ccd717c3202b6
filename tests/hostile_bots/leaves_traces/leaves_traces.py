"""A cheat that tries to carry memory past its own process: at its first decision
of each hand it writes what it was dealt to a file in ``/tmp`` and one in
``/dev/shm`` (the writable places of its container), and once per process it
starts a background process of its own session, which would outlive it and keeps
those cards in its command line. Before leaving its own traces it reports what it finds of
earlier ones, one line to stderr for the tests:

    leaves-traces: hand series_id=S hand=N handshakes=H pid=P tmp=F,.. shm=F,.. keepers=K

``handshakes`` counts the series its process served (1: a fresh process), ``tmp``
and ``shm`` the trace files found, ``keepers`` the background processes found (its
own included once started). Plays the first legal action.
"""

import contextlib
import os
import subprocess
import sys
from pathlib import Path

import hollywood_sdk as hs

PLACES = {"tmp": Path("/tmp"), "shm": Path("/dev/shm")}
KEEPER = "leaves-traces-keeper"


def keepers() -> int:
    found = 0
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            with contextlib.suppress(OSError):  # it ended meanwhile
                found += KEEPER in (entry / "cmdline").read_bytes().decode(errors="replace")
    return found


class LeavesTraces(hs.Bot):
    def __init__(self) -> None:
        self.handshakes = 0
        self.series_id = ""
        self.hands_begun: set[int] = set()
        self.keeper: subprocess.Popen[bytes] | None = None

    def on_series_start(self, start: hs.SeriesStart) -> None:
        self.handshakes += 1
        self.series_id = start.series_id
        self.hands_begun = set()

    def decide(self, observation: hs.Observation) -> hs.Action:
        number = observation.hand_number
        if number not in self.hands_begun:
            self.hands_begun.add(number)
            found = {name: ",".join(sorted(path.name for path in place.glob("trace-*")))
                     for name, place in PLACES.items()}
            print(f"leaves-traces: hand series_id={self.series_id} hand={number} "
                  f"handshakes={self.handshakes} pid={os.getpid()} tmp={found['tmp']} "
                  f"shm={found['shm']} keepers={keepers()}", file=sys.stderr, flush=True)
            cards = " ".join(str(card) for card in observation.hand)
            for place in PLACES.values():
                (place / f"trace-{self.series_id}-{number}").write_text(cards)
            if self.keeper is None:  # its own session, as a daemon would: it outlives the bot
                self.keeper = subprocess.Popen(
                    [sys.executable, "-c", "import time\nwhile True: time.sleep(60)", KEEPER,
                     cards], start_new_session=True)
        return observation.legal_actions[0]


if __name__ == "__main__":
    hs.serve(LeavesTraces())
