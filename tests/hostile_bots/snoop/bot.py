"""Searches the whole file system for the other bot's code, the arena's code and
any database (at start, where there is time for it); at its first decision, with
the series under way, lists the socket directory and the processes it can see. It
prints ``PROBE snoop ...`` lines on stderr, then forfeits at that decision (an
illegal discard) so the arena records that stderr with the fault."""

import os
import sys

import hollywood_sdk as hs

WANTED_NAMES = {"greedy_bot.py", "random_bot.py", "shark_bot.py", "bot.js", "botclient.py",
                "RULES.md", "pyproject.toml"}
WANTED_SUFFIXES = (".sqlite3", ".sqlite", ".db")
SKIP = ("/proc", "/sys", "/dev")


def search_files() -> None:
    found = []
    for root, dirs, files in os.walk("/"):
        if root.startswith(SKIP):
            dirs[:] = []
            continue
        for name in files:
            if name in WANTED_NAMES or name.endswith(WANTED_SUFFIXES):
                found.append(os.path.join(root, name))
    print(f"PROBE snoop found: {sorted(found)}", file=sys.stderr, flush=True)


def look_around() -> None:
    print(f"PROBE snoop socket dir: {sorted(os.listdir('/run/hollywood'))}", file=sys.stderr)
    pids = sorted(int(entry) for entry in os.listdir("/proc") if entry.isdigit())
    commands = []
    for pid in pids:
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as file:
                commands.append(file.read().replace(b"\0", b" ").decode().strip())
        except OSError:
            pass
    print(f"PROBE snoop processes: {commands}", file=sys.stderr, flush=True)


def not_in_hand(observation: hs.Observation) -> hs.Action:
    """A discard of a card the bot does not hold: always illegal (ILLEGAL_ACTION),
    which makes the arena record the fault together with this bot's stderr."""
    card = next(c for c in hs.FULL_DECK if c not in observation.hand)
    return hs.Action.discard(card)


class Snoop(hs.Bot):
    def decide(self, observation: hs.Observation) -> hs.Action:
        look_around()
        return not_in_hand(observation)


if __name__ == "__main__":
    search_files()
    hs.serve(Snoop())
