"""Replies to its first Decide with a legal action padded to 10 MB by an unknown
protobuf field (OVERSIZED: the arena accepts 64 KiB)."""

import os
import threading
from concurrent import futures

import grpc
from hollywood.bot.v1 import bot_pb2, bot_pb2_grpc

TEN_MB = 10 * 1024 * 1024


def varint(value: int) -> bytes:
    out = bytearray()
    while True:
        byte = value & 0x7F
        value >>= 7
        out.append(byte | (0x80 if value else 0))
        if not value:
            return bytes(out)


class HugeReply(bot_pb2_grpc.BotServiceServicer):
    def Handshake(self, request, context):
        return bot_pb2.HandshakeResponse(
            name="huge-reply", version="1.0.0", protocol_version=request.protocol_version
        )

    def Decide(self, request, context):
        reply = bot_pb2.DecideResponse(action=request.legal_actions[0])
        padding = b"\x00" * TEN_MB
        field_99 = varint(99 << 3 | 2) + varint(len(padding)) + padding
        reply.MergeFromString(field_99)  # kept as an unknown field, sent back whole
        return reply

    def HandEnded(self, request, context):
        return bot_pb2.HandEndedResponse()

    def SeriesEnded(self, request, context):
        return bot_pb2.SeriesEndedResponse()


def main() -> None:
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=2))
    bot_pb2_grpc.add_BotServiceServicer_to_server(HugeReply(), server)
    server.add_insecure_port("unix:" + os.environ["HOLLYWOOD_BOT_SOCKET"])
    server.start()
    threading.Event().wait()


if __name__ == "__main__":
    main()
