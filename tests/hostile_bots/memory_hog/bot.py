"""At its first decision, allocates memory (and touches it) until the kernel's
out-of-memory killer stops it (OUT_OF_MEMORY)."""

import sys

import hollywood_sdk as hs

CHUNK = 8 * 1024 * 1024


class MemoryHog(hs.Bot):
    def decide(self, observation: hs.Observation) -> hs.Action:
        hoard = []
        while True:
            hoard.append(bytearray(b"x" * CHUNK))
            if len(hoard) % 8 == 0:
                print(f"memory-hog: holding {len(hoard) * 8} MiB", file=sys.stderr, flush=True)


if __name__ == "__main__":
    hs.serve(MemoryHog())
