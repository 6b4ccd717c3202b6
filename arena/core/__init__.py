"""The ground floor: the arena's vocabulary, imported by every other layer.

Season settings (``settings``), bot faults (``faults``), time limits (``limits``),
bot manifests (``manifest``), a series' specification and outcome (``series``),
season status (``status``), the constants that clients and the server share
(``defaults``), the standings' ordering rule in words (``ordering``) and the
parsers of command-line numbers and ids (``arguments``). Nothing here does I/O
beyond reading a bot folder, and nothing imports another layer of the arena.
"""
