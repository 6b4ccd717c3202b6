"""``arena authors add | list | revoke`` (the admin's) and ``arena login`` (anyone's:
checks a token with its server, stores it in the user's credentials file and makes
that server the default)."""

from __future__ import annotations

import argparse
from typing import Final

import grpc
from hollywood.arena.v1 import arena_pb2
from rich.console import Console
from rich.table import Table

from arena.cli.client import connect, default_server
from arena.cli.credentials import (
    credentials_path,
    find_credentials,
    store_credentials,
    store_default_server,
)
from arena.cli.listing import every_author
from arena.cli.output import CliError, print_json, to_json
from arena.cli.render import shown
from arena.core.text import neutralise

CHECK_TIMEOUT_S: Final = 30.0


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
        authors = every_author(client, args.limit)
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
    whose = "not checked (--no-check)" if args.no_check else check_token(args, server)
    path = credentials_path()
    store_credentials(path, server, token)
    store_default_server(server)
    console.print(f"stored the token for {server} in {path} (mode 0600); {whose}",
                  soft_wrap=True, markup=False)
    console.print(f"{server} is now the default server of commands without --server",
                  soft_wrap=True, markup=False)
    return 0


def check_token(args: argparse.Namespace, server: str) -> str:
    """Whose the token is, as the server says (``WhoAmI``); ``CliError`` if the server
    refuses it or cannot be reached: then nothing is stored."""
    with connect(args) as client:
        try:
            reply = client.stub.WhoAmI(arena_pb2.WhoAmIRequest(), metadata=client.auth,
                                       timeout=CHECK_TIMEOUT_S)
        except grpc.RpcError as error:
            code = error.code() if hasattr(error, "code") else None
            details = neutralise(error.details() or "") if hasattr(error, "details") else ""
            if code == grpc.StatusCode.UNIMPLEMENTED:  # a server older than WhoAmI
                return "not checked (this server cannot say whose a token is)"
            if code == grpc.StatusCode.UNAUTHENTICATED:
                raise CliError(f"the server at {server} refused the token: {details}; nothing "
                               "stored", code=2) from None
            name = code.name if code is not None else "ERROR"
            raise CliError(f"cannot check the token with the arena server at {server} "
                           f"({details} ({name})); nothing stored (--no-check stores it "
                           "without asking the server)", code=1) from None
    return "the server says it is the admin's" if reply.admin else (
        f"the server says it is author {neutralise(reply.author)}'s")
