"""Hangs at start: never binds its socket (a STARTUP fault of this bot alone)."""

import sys
import threading

print("hangs-at-start: not binding, ever", file=sys.stderr)
threading.Event().wait()
