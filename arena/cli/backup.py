"""``arena backup --to FILE`` and ``arena restore FILE``: the arena's data, safely copied
while it plays and put back elsewhere (``arena.storage.backup`` says how and why).

Both work on the database file on this machine, beside a running server or without
one; neither talks to a server. The storage module is imported inside the handlers,
so loading the command line for other commands stays light.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from rich.console import Console

from arena.cli.output import CliError
from arena.core.defaults import DEFAULT_DB


def add_backup_commands(commands: Any) -> None:
    backup = commands.add_parser(
        "backup", help="copy the database and the bot files it names to one file, "
        "consistently, while seasons play (SQLite's online backup)")
    backup.add_argument("--db", type=Path, default=DEFAULT_DB,
                        help="the database (default .arena/arena.db)")
    backup.add_argument("--to", type=Path, required=True, metavar="FILE",
                        help="the backup file to write (a tar; replaced only once complete)")
    backup.add_argument("--json", action="store_true", help="print JSON instead of text")
    backup.set_defaults(handler=cmd_backup)
    restore = commands.add_parser(
        "restore", help="put a backup's database and bot files in place as --db (which "
        "must not exist yet); then `arena serve --db` resumes its seasons")
    restore.add_argument("file", type=Path, metavar="FILE", help="a file `arena backup` wrote")
    restore.add_argument("--db", type=Path, default=DEFAULT_DB,
                         help="where the restored database goes (default .arena/arena.db)")
    restore.add_argument("--json", action="store_true", help="print JSON instead of text")
    restore.set_defaults(handler=cmd_restore)


def _report(console: Console, args: argparse.Namespace, verb: str, summary: Any) -> None:
    if args.json:
        console.print_json(json.dumps({
            "path": str(summary.path), "schema_version": summary.schema_version,
            "bots": summary.bots, "series_results": summary.series_results,
            "files": summary.files, "bytes": summary.bytes}))
        return
    console.print(f"{verb} {summary.path}: {summary.bots} bot versions, "
                  f"{summary.series_results} stored series, {summary.files} files, "
                  f"{summary.bytes:,} bytes (schema {summary.schema_version})",
                  markup=False, highlight=False)


def cmd_backup(args: argparse.Namespace, console: Console) -> int:
    from arena.storage import BackupError, write_backup

    try:
        summary = write_backup(args.db, args.to)
    except (BackupError, OSError) as error:
        raise CliError(f"backup failed: {error}", code=1) from None
    _report(console, args, "wrote", summary)
    return 0


def cmd_restore(args: argparse.Namespace, console: Console) -> int:
    from arena.storage import BackupError, restore_backup

    try:
        summary = restore_backup(args.file, args.db)
    except (BackupError, OSError) as error:
        raise CliError(f"restore failed: {error}", code=1) from None
    _report(console, args, "restored", summary)
    return 0
