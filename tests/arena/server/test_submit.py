"""Uploads (SubmitBot) over real gRPC: every bad archive gets its own status code and
message and stores nothing; name ownership, identical re-uploads, changed code,
--replace; `arena submit` and `arena bots register` as users call them."""

from __future__ import annotations

import io
import json
import random
import tarfile
import threading
from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest
import zstandard
from hollywood.arena.v1 import arena_pb2

from arena.cli import main
from arena.cli.client import ArenaClient
from arena.server.app import RunningServer
from arena.server.uploads import UploadLimits
from arena.storage import bundles_dir
from tests.helpers.arena_helpers import REPO_ROOT, make_bot_folder
from tests.helpers.polling import wait_until
from tests.helpers.servers import ServerFactory

SAMPLES = REPO_ROOT / "sample_bots"
GOOD_TOML = (b'name = "tiny"\nversion = "1.0.0"\nlanguage = "python"\n'
             b'[run]\ncommand = ["python3", "-m", "tiny"]\n')
DOCKERFILE = b"FROM python:3.11-slim\n"


def member(name: str, data: bytes = b"", kind: bytes = tarfile.REGTYPE,
           link: str = "") -> tuple[tarfile.TarInfo, bytes]:
    info = tarfile.TarInfo(name)
    info.type = kind
    info.size = len(data) if kind == tarfile.REGTYPE else 0
    info.linkname = link
    info.mode = 0o644
    return info, data


def archive(*members: tuple[tarfile.TarInfo, bytes], mode: str = "w:gz") -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode=mode) as tar:  # type: ignore[call-overload]
        for info, data in members:
            tar.addfile(info, io.BytesIO(data) if info.size else None)
    return buffer.getvalue()


def good(*extra: tuple[tarfile.TarInfo, bytes], toml: bytes = GOOD_TOML) -> bytes:
    return archive(member("bot.toml", toml), member("Dockerfile", DOCKERFILE),
                   member("tiny.py", b"pass\n"), *extra)


def submit(running: RunningServer, data: bytes, token: str | None = None, *,
           compression: str = "gzip", replace: bool = False) -> arena_pb2.SubmitBotResponse:
    with ArenaClient(running.address, token or running.token) as client:
        return client.submit(data, compression=compression, replace=replace)


def stored_nothing(running: RunningServer) -> bool:
    bundles = bundles_dir(running.storage)
    kept = [p for p in bundles.rglob("*") if p.is_file()] if bundles.exists() else []
    copies = list(running.storage.bots_dir.iterdir()) if running.storage.bots_dir.exists() else []
    return not running.storage.list_bots() and not kept and not copies


def refused(running: RunningServer, data: bytes, **kwargs: object) -> grpc.RpcError:
    with pytest.raises(grpc.RpcError) as caught:
        submit(running, data, **kwargs)  # type: ignore[arg-type]
    assert stored_nothing(running)
    return caught.value


BAD_UPLOADS = {
    "symlink": (good(member("link", kind=tarfile.SYMTYPE, link="/etc/passwd")),
                "'link' is a symbolic link"),
    "hardlink": (good(member("hard", kind=tarfile.LNKTYPE, link="tiny.py")),
                 "'hard' is a hard link"),
    "device": (good(member("dev", kind=tarfile.CHRTYPE)), "'dev' is a character device"),
    "fifo": (good(member("pipe", kind=tarfile.FIFOTYPE)), "'pipe' is a fifo"),
    "dotdot": (good(member("../escape.py", b"x")), "'../escape.py' contains '..'"),
    "absolute": (good(member("/abs.py", b"x")), "'/abs.py' is an absolute path"),
    "no-manifest": (archive(member("tiny.py", b"pass\n")), "bot.toml: missing"),
    "bad-toml": (good(toml=b"name = \n"), "bot.toml: invalid TOML"),
    "bad-name": (good(toml=GOOD_TOML.replace(b'"tiny"', b'"Tiny Bot"', 1)),
                 "name 'Tiny Bot' must match [a-z0-9][a-z0-9-]{0,31}"),
    "bad-version": (good(toml=GOOD_TOML.replace(b'"1.0.0"', b'"1.0"')),
                    "version '1.0' must be MAJOR.MINOR.PATCH"),
    "control-author": (good(toml=b'author = "a\\u0007b"\n' + GOOD_TOML), "author contains"),
    "long-description": (good(toml=b'description = "' + b"d" * 201 + b'"\n' + GOOD_TOML),
                         "description is 201 characters, at most 200"),
    "not-a-tar": (b"\x1f\x8b not really gzip", "cannot be read as a gzip tar"),
}


@pytest.mark.parametrize("case", sorted(BAD_UPLOADS))
def test_a_bad_upload_gets_its_own_error_and_stores_nothing(
        server: RunningServer, case: str) -> None:
    data, expected = BAD_UPLOADS[case]
    error = refused(server, data)
    assert error.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert expected in error.details()


@pytest.mark.parametrize(("limits", "data", "expected"), [
    (UploadLimits(compressed_bytes=2000),
     good(member("noise.bin", random.Random(1).randbytes(5000))),
     "the archive is over the limit of 2000 bytes compressed"),
    (UploadLimits(unpacked_bytes=10_000),
     good(member("zeros.bin", b"\0" * 20_000)),
     "the archive unpacks to more than 10000 bytes (at 'zeros.bin')"),
    (UploadLimits(entries=2), good(), "more than 2 entries (at 'tiny.py')"),
])
def test_over_a_limit_is_resource_exhausted_and_stores_nothing(
        serve: ServerFactory, limits: UploadLimits, data: bytes, expected: str) -> None:
    running = serve(upload_limits=limits)
    error = refused(running, data)
    assert error.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
    assert expected in error.details()


def test_a_good_upload_registers_from_the_unpacked_copy(server: RunningServer) -> None:
    executable = member("run.sh", b"#!/bin/sh\n")
    executable[0].mode = 0o755
    response = submit(server, good(executable))
    assert response.created and not response.replaced
    assert (response.bot.id, response.bot.owner, response.bot.status) == (
        "tiny@1.0.0", "", "active")
    assert response.entries == 4
    assert not response.bot.folder  # the server's paths are never shown
    folder = server.storage.get_bot(response.bot.id).folder
    assert sorted(p.name for p in folder.iterdir()) == ["Dockerfile", "bot.toml", "run.sh",
                                                         "tiny.py"]
    assert (folder / "run.sh").stat().st_mode & 0o111
    assert (bundles_dir(server.storage) / f"{response.bot.content_hash}.tar.gz").is_file()
    again = submit(server, good(executable))
    assert not again.created and again.bot.registered_at == response.bot.registered_at


def test_zstd_uploads_are_accepted(server: RunningServer) -> None:
    plain = archive(member("bot.toml", GOOD_TOML), member("Dockerfile", DOCKERFILE),
                    member("tiny.py", b"pass\n"), mode="w")
    response = submit(server, zstandard.ZstdCompressor().compress(plain), compression="zstd")
    assert response.created and response.bot.id == "tiny@1.0.0"


def test_changed_code_needs_a_new_version_or_replace_before_playing(
        server: RunningServer) -> None:
    submit(server, good())
    changed = good(member("extra.py", b"x = 1\n"))
    error = refused_after_first(server, changed)
    assert error.code() == grpc.StatusCode.ALREADY_EXISTS
    assert "bump the version" in error.details()
    replaced = submit(server, changed, replace=True)
    assert replaced.replaced
    assert (server.storage.get_bot(replaced.bot.id).folder / "extra.py").is_file()
    assert [bot.id for bot in server.storage.list_bots()] == ["tiny@1.0.0"]


def refused_after_first(running: RunningServer, data: bytes) -> grpc.RpcError:
    before = running.storage.list_bots()
    with pytest.raises(grpc.RpcError) as caught:
        submit(running, data)
    assert running.storage.list_bots() == before
    return caught.value


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def add_author(running: RunningServer, capsys: pytest.CaptureFixture[str], name: str) -> str:
    code, out, _ = run(capsys, "authors", "add", name, "--server", running.address,
                       "--token-file", str(running.token_path), "--json")
    assert code == 0
    token: str = json.loads(out)["token"]
    assert token.startswith(f"{name}.")
    return token


def test_authors_own_their_names_and_revocation_is_immediate(
        server: RunningServer, capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    alice, bob = add_author(server, capsys, "alice"), add_author(server, capsys, "bob")
    stored = server.storage.path.read_bytes()
    assert alice.encode() not in stored and alice.partition(".")[2].encode() not in stored
    folder = make_bot_folder(tmp_path, "mine")
    code, out, _ = run(capsys, "submit", str(folder), "--server", server.address,
                       "--token", alice)
    assert code == 0 and "mine@1.0.0 registered" in out and "owner alice" in out
    bumped = make_bot_folder(tmp_path / "b", "mine", version="1.1.0")
    code, _, err = run(capsys, "--server", server.address, "--token", bob, "submit",
                       str(bumped))
    assert code == 2 and "bot name mine belongs to author alice" in err
    assert "PERMISSION_DENIED" in err and "token used: --token" in err
    code, _, err = run(capsys, "authors", "list", "--server", server.address, "--token", bob)
    assert code == 2 and "needs the admin token" in err
    code, out, _ = run(capsys, "authors", "revoke", "alice", "--server", server.address,
                       "--token-file", str(server.token_path))
    assert code == 0 and "revoked" in out
    code, _, err = run(capsys, "submit", str(bumped), "--server", server.address,
                       "--token", alice)
    assert code == 2 and "the token of author alice was revoked" in err
    assert "UNAUTHENTICATED" in err and "next: pass a valid token with --token" in err
    code, out, _ = run(capsys, "authors", "list", "--server", server.address,
                       "--token-file", str(server.token_path), "--json")
    listed = {a["name"]: a for a in json.loads(out)}
    assert listed["alice"]["revoked_at"] and listed["alice"]["bot_names"] == 1
    assert not listed["bob"]["revoked_at"]


def test_an_author_cannot_take_a_name_the_admin_registered(
        server: RunningServer, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, _ = run(capsys, "bots", "register", str(SAMPLES / "random"), "--server",
                     server.address, "--token-file", str(server.token_path))
    assert code == 0
    carol = add_author(server, capsys, "carol")
    code, _, err = run(capsys, "submit", str(SAMPLES / "random"), "--server", server.address,
                       "--token", carol)
    assert code == 2 and "bot name random belongs to the arena's admin" in err


def test_bots_register_a_glob_skips_folders_without_bot_toml(
        server: RunningServer, capsys: pytest.CaptureFixture[str]) -> None:
    paths = [str(path) for path in sorted(SAMPLES.iterdir()) if path.is_dir()]
    assert str(SAMPLES / "sdk") in paths
    code, out, err = run(capsys, "bots", "register", *paths, "--server", server.address,
                         "--token-file", str(server.token_path))
    assert code == 0, err
    assert f"skipped {SAMPLES / 'sdk'}: no bot.toml" in out
    # A bot whose program is built in its folder (C++, Go, the bundled Ruby) only once
    # built (vetting would reject it): skipped with a note.
    programs = {"cpp-greedy": "bin/cpp-greedy", "go-greedy": "bin/go-greedy",
                "ruby-highcard": "bin/ruby-highcard"}
    built = [name for name, program in programs.items() if (SAMPLES / name / program).exists()]
    for name in programs.keys() - set(built):
        assert f"skipped {SAMPLES / name}: not built" in out
    assert sorted(bot.name for bot in server.storage.list_bots()) == sorted([
        "greedy", "js-greedy", "random", "shark", *built])
    # The JavaScript bot's node_modules (a local install) is not part of the upload.
    js = next(bot for bot in server.storage.list_bots() if bot.name == "js-greedy")
    assert not (js.folder / "node_modules").exists()


def test_a_bot_folder_with_a_symlink_is_refused_by_the_client(
        server: RunningServer, capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    folder = make_bot_folder(tmp_path, "linked")
    (folder / "secret").symlink_to("/etc/passwd")
    code, _, err = run(capsys, "submit", str(folder), "--server", server.address,
                       "--token-file", str(server.token_path))
    assert code == 2 and "symbolic links are not allowed" in err
    assert stored_nothing(server)


def test_arenaignore_leaves_listed_files_out(
        server: RunningServer, capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    folder = make_bot_folder(tmp_path, "tidy")
    (folder / ".arenaignore").write_text("# local only\n*.log\ndata/\n")
    (folder / "debug.log").write_text("x")
    (folder / "data").mkdir()
    (folder / "data" / "big.bin").write_bytes(b"\0" * 100)
    (folder / ".hg").mkdir()
    (folder / ".hg" / "store").write_text("x")
    code, _, err = run(capsys, "submit", str(folder), "--server", server.address,
                       "--token-file", str(server.token_path))
    assert code == 0, err
    [bot] = server.storage.list_bots()
    assert sorted(p.name for p in bot.folder.iterdir()) == [
        ".arenaignore", "Dockerfile", "bot.toml", "tidy.py"]


def test_uploads_beyond_the_concurrent_limit_are_refused_at_once(
        serve: ServerFactory) -> None:
    running = serve(upload_limits=UploadLimits(concurrent=1))
    release = threading.Event()

    def slow() -> Iterator[arena_pb2.SubmitBotRequest]:
        yield arena_pb2.SubmitBotRequest(header=arena_pb2.SubmitBotHeader(compression="gzip"))
        release.wait(timeout=60)
        yield arena_pb2.SubmitBotRequest(chunk=good())

    try:
        with ArenaClient(running.address, running.token) as client:
            first = client.stub.SubmitBot.future(slow(), metadata=client.auth)
            wait_until(lambda: running.service.upload_slots.in_use == 1,
                       what="the first upload to hold the only slot")
            with pytest.raises(grpc.RpcError) as caught:
                submit(running, good())
            error = caught.value
            assert error.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
            assert "receiving 1 uploads, its limit at once" in error.details()
            release.set()
            assert first.result(timeout=60).bot.id == "tiny@1.0.0"
        assert running.service.upload_slots.in_use == 0
    finally:
        release.set()


def test_a_version_that_has_played_cannot_be_replaced(server: RunningServer) -> None:
    submit(server, good())
    other = good(toml=GOOD_TOML.replace(b'"tiny"', b'"other"', 1))
    submit(server, other)
    with ArenaClient(server.address, server.token) as client:
        season = client.stub.CreateSeason(arena_pb2.CreateSeasonRequest(
            bots=["tiny", "other"], config=arena_pb2.SeasonConfig(
                series_per_pair=2, max_hands=3, sandbox_backend="process")),
            metadata=client.auth).season
    assert server.manager.wait(season.id, timeout=60)
    before = server.storage.get_bot("tiny@1.0.0")
    with pytest.raises(grpc.RpcError) as caught:
        submit(server, good(member("extra.py", b"x = 1\n")), replace=True)
    assert caught.value.code() == grpc.StatusCode.FAILED_PRECONDITION
    assert "tiny@1.0.0 has played season series" in caught.value.details()
    assert server.storage.get_bot("tiny@1.0.0") == before


def test_a_decompression_bomb_in_a_header_is_refused_before_it_is_read(
        serve: ServerFactory) -> None:
    # A pax header is read whole by tar: 8 MiB of it, compressed to a few KiB.
    bomb = member("bomb", b"1" * (8 * 1024 * 1024))
    bomb[0].type = tarfile.XHDTYPE
    bomb[0].size = len(bomb[1])
    running = serve(upload_limits=UploadLimits(unpacked_bytes=10_000, entries=5))
    error = refused(running, good(bomb))
    assert error.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert error.details() == (
        "the tar stream has a pax extended header of 8388608 bytes at byte 3072: at "
        "most 65536 bytes allowed (a bot's paths are far shorter)")


def test_bots_register_is_the_admins_upload_stored_in_the_servers_data_directory(
        server: RunningServer, capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    admin = ("--server", server.address, "--token-file", str(server.token_path))
    loose = make_bot_folder(tmp_path, "loose", version="1.0")
    code, _, err = run(capsys, "bots", "register", str(loose), *admin)
    assert code == 2 and "version '1.0' must be MAJOR.MINOR.PATCH" in err
    assert stored_nothing(server)
    code, out, err = run(capsys, "bots", "register", str(SAMPLES / "greedy"), *admin, "--json")
    assert code == 0, err
    [response] = json.loads(out)
    bot = response["bot"]
    assert response["created"] and bot["status"] == "active" and not bot.get("owner")
    # The server plays its own copy, never the folder the client named.
    assert server.storage.get_bot(bot["id"]).folder.is_relative_to(server.storage.bots_dir)
    assert not bot.get("folder") and str(server.storage.path.parent) not in out
    assert (bundles_dir(server.storage) / f"{bot['content_hash']}.tar.gz").is_file()


def test_author_commands_refuse_bad_names_duplicates_and_unknown_authors(
        server: RunningServer, capsys: pytest.CaptureFixture[str]) -> None:
    admin = ("--server", server.address, "--token-file", str(server.token_path))
    add_author(server, capsys, "dora")
    for argv, fragment in ((["authors", "add", "dora"], "author dora exists already"),
                           (["authors", "add", "Dora Bad"], "author name 'Dora Bad' must match"),
                           (["authors", "revoke", "nobody"], "no author 'nobody'")):
        code, _, err = run(capsys, *argv, *admin)
        assert code == 2 and fragment in err, (argv, err)
    run(capsys, "authors", "revoke", "dora", *admin)
    fresh = add_author(server, capsys, "dora")  # a revoked author may get a new token
    with ArenaClient(server.address, fresh) as client:
        assert client.submit(good()).bot.owner == "dora"
