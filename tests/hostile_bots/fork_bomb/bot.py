"""At its first decision, forks without end (every child forks too). The pids
limit stops the bomb; the bot never answers (TIMEOUT). It reports on stderr when
fork starts failing."""

import os
import sys
import threading

import hollywood_sdk as hs


class ForkBomb(hs.Bot):
    def decide(self, observation: hs.Observation) -> hs.Action:
        reported = False
        children = 0
        while True:
            try:
                if os.fork() == 0:
                    threading.Event().wait()  # children just hold their pid slot
                children += 1
            except OSError as error:
                if not reported:
                    print(f"fork-bomb: fork failed after {children} children: {error}",
                          file=sys.stderr, flush=True)
                    reported = True


if __name__ == "__main__":
    hs.serve(ForkBomb())
