"""A cheat that keeps what docs/bot-guide.md forbids: every hand its process was
dealt, in every series, by hand number. The two series of a duplicate pair deal
the same cards with the seats swapped: a process that plays both halves is dealt
in the second half what its opponent held in the first, and its opponent holds
what it remembers. At its first decision of each hand it names, as its guess of
the opponent's 10 dealt cards, a remembered hand of that number disjoint from its
own (the two hands of one deal never share a card), and prints one line to
stderr for the tests:

    deal-memory: hand series_id=S hand=N seat=K handshakes=H predicted=CARDS|none

``handshakes`` counts the series its process served (1: a fresh process).
Plays the first legal action.
"""

import sys

import hollywood_sdk as hs


class DealMemory(hs.Bot):
    def __init__(self) -> None:
        self.dealt: dict[int, list[frozenset[str]]] = {}  # kept across series: cheating
        self.handshakes = 0
        self.series_id = ""
        self.hands_begun: set[int] = set()
        self.reports: list[str] = []

    def on_series_start(self, start: hs.SeriesStart) -> None:
        self.handshakes += 1
        self.series_id = start.series_id
        self.hands_begun = set()

    def decide(self, observation: hs.Observation) -> hs.Action:
        number = observation.hand_number
        if number not in self.hands_begun:  # its first decision: it holds what it was dealt
            self.hands_begun.add(number)
            mine = frozenset(str(card) for card in observation.hand)
            guesses = [hand for hand in self.dealt.get(number, []) if not hand & mine]
            predicted = " ".join(sorted(guesses[-1])) if guesses else "none"
            self.report(f"hand series_id={self.series_id} hand={number} "
                        f"seat={observation.seat} handshakes={self.handshakes} "
                        f"predicted={predicted}")
            self.dealt.setdefault(number, []).append(mine)
        return observation.legal_actions[0]

    def report(self, line: str) -> None:
        self.reports.append(line)
        print(f"deal-memory: {line}", file=sys.stderr, flush=True)


if __name__ == "__main__":
    hs.serve(DealMemory())
