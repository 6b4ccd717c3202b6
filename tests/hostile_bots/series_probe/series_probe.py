"""A probe for bot containers reused across series
(tests/arena/sandbox/test_container_reuse_docker.py).

It keeps what docs/bot-guide.md allows between series, a count of the Handshakes its
process answered (like a cache, nothing about an opponent), and per series what it
saw of the play (the cards discarded, those the opponent exposed at a hand's end),
which it forgets when a series starts. It prints one line to stderr at each series start and
at the first decision of each series, for the tests to read:

    series-probe: start series_id=S series_number=N handshakes=H forgot=F
    series-probe: first-decision series_id=S remembered=R

``forgot`` is how many cards the last series left in that memory (more than 0 after
a series with a decision: the memory was real), ``remembered`` what is left of it at
the new series' first decision (0: it was reset). Plays the first legal action.
"""

import sys

import hollywood_sdk as hs


class SeriesProbe(hs.Bot):
    def __init__(self) -> None:
        self.handshakes = 0  # kept across series: allowed
        self.opponent_cards: set[str] = set()  # about one opponent: reset per series
        self.series_id = ""
        self.decided = False
        self.reports: list[str] = []

    def on_series_start(self, start: hs.SeriesStart) -> None:
        self.handshakes += 1
        self.report(f"start series_id={start.series_id} series_number={start.series_number} "
                    f"handshakes={self.handshakes} forgot={len(self.opponent_cards)}")
        self.opponent_cards = set()
        self.series_id = start.series_id
        self.decided = False

    def decide(self, observation: hs.Observation) -> hs.Action:
        if not self.decided:
            self.decided = True
            self.report(f"first-decision series_id={observation.series_id} "
                        f"remembered={len(self.opponent_cards)}")
        self.opponent_cards.update(str(card) for card in observation.discard_pile)
        return observation.legal_actions[0]

    def on_hand_end(self, result: hs.HandResult) -> None:
        for seat, hand in enumerate(result.hands):
            if seat != result.seat:
                self.opponent_cards.update(str(card) for card in hand.cards)

    def report(self, line: str) -> None:
        self.reports.append(line)
        print(f"series-probe: {line}", file=sys.stderr, flush=True)


if __name__ == "__main__":
    hs.serve(SeriesProbe())
