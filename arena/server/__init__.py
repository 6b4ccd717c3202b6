"""The arena's gRPC server (``hollywood.arena.v1.ArenaService``): the service, its
token check and request decoding, conversion between records and messages, and
``start_server`` that wires storage, seasons and executors together.

Kept free of imports so that importing a submodule loads only what it needs.
"""
