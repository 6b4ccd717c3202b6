"""Answers the handshake with protocol version 99 (PROTOCOL_MISMATCH at start-up)."""

import hollywood_sdk as hs
import hollywood_sdk.server


class WrongProtocol(hs.Bot):
    def decide(self, observation: hs.Observation) -> hs.Action:
        return observation.legal_actions[0]


if __name__ == "__main__":
    hollywood_sdk.server.PROTOCOL_VERSION = 99  # what the handshake reply states
    hs.serve(WrongProtocol())
