"""Hangs in Handshake: binds its socket and accepts the connection, then never answers
the Handshake (a STARTUP fault of this bot alone, at its limit)."""

import os
import sys
import threading
from concurrent import futures

import grpc
from hollywood.bot.v1 import bot_pb2_grpc


class HangsInHandshake(bot_pb2_grpc.BotServiceServicer):
    def Handshake(self, request, context):
        print("hangs-in-handshake: answering never", file=sys.stderr, flush=True)
        threading.Event().wait()


server = grpc.server(futures.ThreadPoolExecutor(max_workers=2))
bot_pb2_grpc.add_BotServiceServicer_to_server(HangsInHandshake(), server)
server.add_insecure_port("unix:" + os.environ["HOLLYWOOD_BOT_SOCKET"])
server.start()
server.wait_for_termination()
