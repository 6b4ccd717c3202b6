"""Serves on another socket in its directory and puts a symbolic link to it where
the arena expects its socket: a link could as well lead the arena to any socket of
the host. The arena must refuse to connect (STARTUP) rather than follow it."""

import os
import threading
import time

import hollywood_sdk as hs

EXPECTED = os.environ["HOLLYWOOD_BOT_SOCKET"]
REAL = os.path.join(os.path.dirname(EXPECTED), "real.sock")


class Plays(hs.Bot):
    def decide(self, observation: hs.Observation) -> hs.Action:
        return observation.legal_actions[0]


def plant_link() -> None:
    while not os.path.exists(REAL):
        time.sleep(0.01)
    os.symlink("real.sock", EXPECTED)


if __name__ == "__main__":
    threading.Thread(target=plant_link, daemon=True).start()
    hs.serve(Plays(), target=f"unix:{REAL}")
