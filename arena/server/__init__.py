"""The arena's gRPC server (``hollywood.arena.v1.ArenaService``), one job per module:

* ``app``: ``start_server`` wires storage, the admin token, seasons and the runner
  factory (a season's sandbox backend from ``arena.sandbox.registry``);
* ``service``: ``ArenaService``, the RPCs over the database;
* ``validation``: the checks of CreateSeason and of a client's bot folders, without the change;
* ``tokens``: the admin token file; ``interceptors``: undecodable requests;
* ``convert``: records <-> messages; ``story``: a series hand by hand.

Kept free of imports so that importing a submodule loads only what it needs.
"""
