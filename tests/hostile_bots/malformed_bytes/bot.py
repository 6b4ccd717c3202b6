"""Serves the bot protocol by hand (raw gRPC generic handler): a proper Handshake,
then a Decide reply of bytes that are no protobuf message at all (MALFORMED)."""

import os
import threading
from concurrent import futures

import grpc
from hollywood.bot.v1 import bot_pb2

GARBAGE = b"\xff\xfe\xfd not a protobuf \x00\x01"


def handshake(request: bot_pb2.HandshakeRequest, context: grpc.ServicerContext) -> bytes:
    return bot_pb2.HandshakeResponse(
        name="malformed-bytes", version="1.0.0", protocol_version=request.protocol_version
    ).SerializeToString()


def decide(request: bytes, context: grpc.ServicerContext) -> bytes:
    return GARBAGE


def acknowledge(request: bytes, context: grpc.ServicerContext) -> bytes:
    return b""


def raw(handler):  # bytes in, bytes out: no (de)serialisation by grpc
    return grpc.unary_unary_rpc_method_handler(
        handler, request_deserializer=None, response_serializer=None
    )


def main() -> None:
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=2))
    handlers = {
        "Handshake": grpc.unary_unary_rpc_method_handler(
            handshake,
            request_deserializer=bot_pb2.HandshakeRequest.FromString,
            response_serializer=None,
        ),
        "Decide": raw(decide),
        "HandEnded": raw(acknowledge),
        "SeriesEnded": raw(acknowledge),
    }
    server.add_generic_rpc_handlers(
        (grpc.method_handlers_generic_handler("hollywood.bot.v1.BotService", handlers),)
    )
    server.add_insecure_port("unix:" + os.environ["HOLLYWOOD_BOT_SOCKET"])
    server.start()
    threading.Event().wait()


if __name__ == "__main__":
    main()
