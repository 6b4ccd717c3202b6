"""``arena authors add | list | revoke`` (the admin's) and ``arena login`` (anyone's:
stores a token for a server in the user's credentials file)."""

from __future__ import annotations

import argparse

from hollywood.arena.v1 import arena_pb2
from rich.console import Console
from rich.table import Table

from arena.cli.client import connect, default_server
from arena.cli.credentials import credentials_path, find_credentials, store_credentials
from arena.cli.output import CliError, print_json, to_json
from arena.cli.render import shown


def cmd_authors_add(args: argparse.Namespace, console: Console) -> int:
    with connect(args) as client:
        response = client.stub.AddAuthor(arena_pb2.AddAuthorRequest(name=args.name),
                                         metadata=client.auth)
    if args.json:
        print_json(to_json(response))
        return 0
    name = shown(response.author).name
    console.print(f"author {name} added. Its token (shown this once, only a hash is kept):",
                  soft_wrap=True)
    console.print(response.token, markup=False, highlight=False, soft_wrap=True)
    console.print(f"give it to {name}, who stores it with `arena login --server "
                  f"{client.target} --token-file FILE`", soft_wrap=True)
    return 0


def cmd_authors_list(args: argparse.Namespace, console: Console) -> int:
    with connect(args) as client:
        authors = client.stub.ListAuthors(arena_pb2.ListAuthorsRequest(),
                                          metadata=client.auth).authors
    if args.json:
        print_json([to_json(author) for author in authors])
        return 0
    table = Table(title="Authors")
    for header in ("name", "created", "state", "bot names"):
        table.add_column(header)
    for author in map(shown, authors):
        state = f"revoked {author.revoked_at}" if author.revoked_at else "active"
        table.add_row(author.name, author.created_at, state, str(author.bot_names))
    console.print(table)
    return 0


def cmd_authors_revoke(args: argparse.Namespace, console: Console) -> int:
    with connect(args) as client:
        author = client.stub.RevokeAuthor(arena_pb2.RevokeAuthorRequest(name=args.name),
                                          metadata=client.auth).author
    if args.json:
        print_json(to_json(author))
    else:
        console.print(f"author {shown(author).name}: token revoked at "
                      f"{author.revoked_at} (refused from the next call on)", soft_wrap=True)
    return 0


def cmd_login(args: argparse.Namespace, console: Console) -> int:
    server = args.server or default_server()
    if not args.token and args.token_file is None:
        raise CliError("arena login needs the token: --token-file FILE (or --token TOKEN)")
    token = find_credentials(server, args.token, args.token_file).token
    assert token is not None  # --token or a readable, non-empty --token-file
    path = credentials_path()
    store_credentials(path, server, token)
    console.print(f"stored the token for {server} in {path} (mode 0600)", soft_wrap=True)
    return 0
