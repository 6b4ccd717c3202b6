"""One series between two bots: the ``hollywood.bot.v1`` conversion (``protocol``),
the gRPC caller of one bot (``botclient``), the match loop with its clocks
(``loop``) and the runner that starts both bots in a sandbox and plays them
(``runner``). Knows nothing of seasons, storage, the server or the CLI.
"""
