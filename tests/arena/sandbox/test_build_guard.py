"""Untrusted builds without Docker: the Dockerfile check, the bounded build log, the
remembered failures, one lock per image (a slow build holds up no other bot), and
only a real socket accepted as a bot's socket."""

from __future__ import annotations

import os
import socket
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from arena.core.faults import BotFault, FaultKind
from arena.core.series import BotRef
from arena.sandbox import docker as docker_sandbox
from arena.sandbox.base import wait_for_socket
from arena.sandbox.build_guard import BuildMemory, LogTail
from arena.sandbox.dockerfile_check import (
    DockerfileRefused,
    check_dockerfile,
    with_build_label,
)
from arena.sandbox.images import BotImage

BASE = "hollywood/base:local"
LOCAL_IMAGES = {"alpine:3.19"}
START = "ARG BASE_IMAGE\nFROM ${BASE_IMAGE}\n"


def check(text: str) -> None:
    check_dockerfile(text, build_args={"BASE_IMAGE": BASE}, allowed_images=frozenset({BASE}),
                     image_is_local=lambda name: name in LOCAL_IMAGES)


def refused(text: str) -> str:
    with pytest.raises(DockerfileRefused) as caught:
        check(text)
    return str(caught.value)


def test_the_usual_bot_dockerfile_passes() -> None:
    check("ARG BASE_IMAGE=python:3.11-slim\nFROM ${BASE_IMAGE}\n"
          "COPY .hollywood/python /opt/hollywood/python\nRUN python3 -c 'print(1)'\n"
          'ADD bot.py /bot/\nCMD ["python3", "bot.py"]\n')


def test_stages_of_the_same_file_and_local_images_pass() -> None:
    check("ARG BASE_IMAGE\nFROM $BASE_IMAGE AS build\nRUN true\nFROM alpine:3.19\n"
          "COPY --from=build /x /x\nCOPY --from=0 /y /y\nFROM build\n")


def test_add_from_a_url_is_refused_naming_the_line() -> None:
    message = refused("ARG BASE_IMAGE\nFROM ${BASE_IMAGE}\n# a comment\nRUN true\n"
                      "ADD --chown=1:1 https://example.com/x.py /x.py\n")
    assert message.startswith("Dockerfile line 5: ADD from https://example.com/x.py is refused")


def test_a_url_hidden_in_a_variable_or_a_continuation_is_refused() -> None:
    assert refused(f"{START}ARG WHERE=http://10.0.0.1/p\nADD $WHERE /p\n").startswith(
        "Dockerfile line 4: ADD from http://10.0.0.1/p")
    assert refused(f"{START}ADD \\\n  git@github.com:a/b.git \\\n  /src\n").startswith(
        "Dockerfile line 3: ADD from git@github.com:a/b.git")
    assert refused(f'{START}ADD ["https://e.com/a", "/a"]\n').startswith(
        "Dockerfile line 3: ADD from https://e.com/a")
    assert "uses $UNSET" in refused(f"{START}ADD ${{UNSET}}/p /p\n")


def test_from_an_image_not_on_the_machine_is_refused() -> None:
    message = refused(f"{START}RUN true\nFROM python:3.12\n")
    assert message.startswith("Dockerfile line 4: FROM python:3.12 is not an image on this "
                              "machine, and builds never pull one")
    assert refused("ARG IMAGE=debian:12\nFROM $IMAGE\n").startswith(
        "Dockerfile line 2: FROM debian:12 is not an image on this machine")
    assert refused(f"{START}COPY --from=busybox:1 /bin/sh /sh\n").startswith(
        "Dockerfile line 3: COPY --from busybox:1 is not an image on this machine")
    assert refused("FROM --platform=linux/arm64 ${BASE_IMAGE}\n").startswith(
        "Dockerfile line 1: FROM options (--platform=linux/arm64) are refused")


def test_run_options_and_a_syntax_directive_are_refused() -> None:
    assert refused(f"{START}RUN --network=host curl x\n").startswith(
        "Dockerfile line 3: RUN options (--network=host) are refused")
    assert refused(f"{START}RUN --mount=type=bind,from=alpine:9,target=/m ls\n"
                   ).startswith("Dockerfile line 3: RUN options (--mount=")
    assert "parser directive '# syntax=docker/dockerfile:1'" in refused(
        f"# syntax=docker/dockerfile:1\n{START}")


def test_an_undeclared_build_argument_names_no_image() -> None:
    # Docker applies a build argument to FROM only when an ARG before it declares it.
    assert refused("FROM ${BASE_IMAGE}\n") == (
        "Dockerfile line 1: FROM names no image once its variables are filled in (declare "
        "ARG BASE_IMAGE before the first FROM)")


def test_every_stage_gets_the_build_label() -> None:
    text = "ARG BASE_IMAGE\nFROM ${BASE_IMAGE} \\\n  AS one\nRUN true\nFROM one\nRUN false\n"
    assert with_build_label(text, "hollywood.build.run=abc") == (
        "ARG BASE_IMAGE\nFROM ${BASE_IMAGE} \\\n  AS one\nLABEL hollywood.build.run=abc\n"
        "RUN true\nFROM one\nLABEL hollywood.build.run=abc\nRUN false\n")


def test_the_build_log_keeps_only_its_tail() -> None:
    tail = LogTail(20)
    for number in range(10):
        tail.add(f"line {number}")  # 6 characters each
    assert tail.text() == "[40 earlier characters of the build log dropped]\n" \
        " 6\nline 7\nline 8\nline 9\n"
    one_long = LogTail(5)
    one_long.add("abcdefghij")
    assert one_long.text() == "[5 earlier characters of the build log dropped]\nfghij\n"


def test_failures_are_remembered_and_bounded() -> None:
    memory = BuildMemory(capacity=2)
    memory.remember_failure("a", "bad A")
    memory.remember_failure("b", "bad B")
    memory.remember_failure("c", "bad C")
    assert (memory.failure("a"), memory.failure("b"), memory.failure("c")) == (
        None, "bad B", "bad C")
    assert memory.lock("b") is memory.lock("b") and memory.lock("b") is not memory.lock("c")


def tiny_bot(root: Path, name: str) -> BotRef:
    folder = root / name
    folder.mkdir()
    (folder / "bot.toml").write_text(f'name = "{name}"\nversion = "1"\nlanguage = "python"\n'
                                     '[run]\ncommand = ["python3", "bot.py"]\n')
    (folder / "Dockerfile").write_text("FROM ${BASE_IMAGE}\n")
    return BotRef.from_folder(folder)


def test_a_slow_build_holds_up_no_other_bots_image(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    slow, fast = tiny_bot(tmp_path, "slow"), tiny_bot(tmp_path, "fast")
    slow_started, release = threading.Event(), threading.Event()

    def fake_build(folder: Path, manifest: Any, **_: Any) -> BotImage:
        if manifest.name == "slow":
            slow_started.set()
            release.wait()
        return BotImage(f"hollywood/bot-{manifest.name}:x", "sha256:1", "h", True, 0.0)

    monkeypatch.setattr(docker_sandbox, "build_bot_image", fake_build)
    sandbox = docker_sandbox.DockerSandbox(object(), prepare_base=False, remove_leftovers=False)
    with ThreadPoolExecutor(max_workers=2) as pool:
        slow_image = pool.submit(sandbox.image_for, slow)
        assert slow_started.wait(30)
        try:
            # Bounded only so that a regression fails instead of hanging the suite.
            assert pool.submit(sandbox.image_for, fast).result(timeout=30) == (
                "hollywood/bot-fast:x")
            assert not slow_image.done()
        finally:
            release.set()
        assert slow_image.result(timeout=30) == "hollywood/bot-slow:x"


def never_dead() -> BotFault | None:
    return None


def test_a_symlink_in_place_of_the_socket_is_refused(tmp_path: Path) -> None:
    real = tmp_path / "real.sock"
    with socket.socket(socket.AF_UNIX) as listener:
        listener.bind(str(real))
        os.symlink("real.sock", tmp_path / "bot.sock")
        sealed: list[bool] = []
        with pytest.raises(BotFault) as caught:
            wait_for_socket(tmp_path / "bot.sock", 5, never_dead, seal=lambda: sealed.append(True))
    assert caught.value.kind is FaultKind.STARTUP
    assert str(caught.value.message) == (
        "the bot put a symbolic link at its socket path bot.sock, not a Unix socket; "
        "the arena connects only to a socket the bot created")
    assert sealed == [True]  # sealed before looking, so nothing is swapped in after


def test_a_plain_file_in_place_of_the_socket_is_refused(tmp_path: Path) -> None:
    (tmp_path / "bot.sock").write_text("not a socket")
    with pytest.raises(BotFault, match=r"put a file at its socket path bot\.sock"):
        wait_for_socket(tmp_path / "bot.sock", 5, never_dead)


def test_a_real_socket_is_accepted(tmp_path: Path) -> None:
    with socket.socket(socket.AF_UNIX) as listener:
        listener.bind(str(tmp_path / "bot.sock"))
        wait_for_socket(tmp_path / "bot.sock", 5, never_dead)


def test_removing_a_container_another_thread_is_removing_is_quiet(
        caplog: pytest.LogCaptureFixture) -> None:
    import docker
    import requests

    from arena.sandbox.docker_owner import remove_container

    def refusal(status: int, text: str) -> docker.errors.APIError:
        response = requests.Response()
        response.status_code = status
        return docker.errors.APIError(text, response=response, explanation=text)

    class Api:
        def __init__(self, error: Exception) -> None:
            self.error = error

        def remove_container(self, container_id: str, force: bool) -> None:
            raise self.error

    class Client:
        def __init__(self, error: Exception) -> None:
            self.api = Api(error)

    busy = refusal(409, "removal of container abc is already in progress")
    with caplog.at_level("WARNING"):
        assert remove_container(Client(busy), "abc") is False
    assert caplog.records == []
    with caplog.at_level("WARNING"):
        assert remove_container(Client(refusal(500, "engine broke")), "abc") is False
    assert [record.levelname for record in caplog.records] == ["WARNING"]
