"""Sends the nastiest text it can: a handshake identity with bidi overrides and
terminal escapes, stderr full of escape sequences and rich markup, and a Decide
that fails with an error text of about 3 KB (CRASH, stored neutralised and
bounded)."""

import sys

import hollywood_sdk as hs

NASTY = "[/][bold red]x \x1b[2J\x1b]0;owned\x07 \u202eevil\u202c \u2066iso\u2069 \x00"


class NastyText(hs.Bot):
    name = "nasty\u202etext"
    version = "1.0.0\x1b[31m"
    author = NASTY

    def decide(self, observation: hs.Observation) -> hs.Action:
        print("NASTY stderr " + NASTY, file=sys.stderr, flush=True)
        raise RuntimeError(NASTY * 40)


if __name__ == "__main__":
    hs.serve(NastyText())
