"""Hollywood Gin Arena: the platform around the rules engine (see docs/design.md).

Layers, from the ground up; a package imports only from the layers below it
(checked by import-linter, ``tests/project/test_layers.py``):

* ``arena.core``: the vocabulary (settings, faults, limits, manifests, series
  specs and outcomes, season status, shared constants); imports only ``engine``
  and the generated stubs.
* ``arena.storage`` and ``arena.sandbox``: the database; where a bot's code runs.
* ``arena.match``: one series between two bots (protocol, bot client, match loop).
* ``arena.execution``: where series are played (a local thread pool, a cluster).
* ``arena.season``: formats, the season runner, standings, live events.
* ``arena.web``: the website (the server starts it).
* ``arena.server``: the gRPC API over all of it.
* ``arena.cli``: the ``arena`` command line, mostly a client of the API.
"""
