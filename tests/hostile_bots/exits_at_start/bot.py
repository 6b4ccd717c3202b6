"""Exits with code 3 before it ever binds its socket (CRASH at start-up)."""

import sys

print("exits-at-start: giving up before binding", file=sys.stderr)
sys.exit(3)
