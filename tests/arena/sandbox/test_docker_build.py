"""The Docker sandbox's build for vetting (``DockerSandbox.build``), without Docker:
the builder is replaced, so what is checked is how its outcomes become a report for
the bot's owner (the log line by line, the image) or the arena's ``SandboxError``,
and that it builds under the sandbox's own configuration and build memory."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from arena.core.series import BotRef
from arena.sandbox import docker_build
from arena.sandbox.base import SandboxError
from arena.sandbox.build_guard import BuildMemory
from arena.sandbox.config import DEFAULT_CONFIG
from arena.sandbox.docker import DockerSandbox
from arena.sandbox.images import BotImage, ImageBuildError

HASH = "0123456789abcdef" + "f" * 48


def tiny_bot(root: Path) -> BotRef:
    folder = root / "tiny"
    folder.mkdir()
    (folder / "bot.toml").write_text('name = "tiny"\nversion = "1"\nlanguage = "python"\n'
                                     '[run]\ncommand = ["python3", "bot.py"]\n')
    (folder / "Dockerfile").write_text("FROM ${BASE_IMAGE}\n")
    return BotRef.from_folder(folder)


@pytest.fixture
def log_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "build-logs"
    folder.mkdir()
    monkeypatch.setattr(docker_build, "build_log_dir", lambda: folder)
    return folder


def builder(monkeypatch: pytest.MonkeyPatch, outcome: BotImage | Exception
            ) -> list[dict[str, Any]]:
    calls: list[dict[str, Any]] = []

    def build(folder: Path, manifest: Any, **options: Any) -> BotImage:
        calls.append({"folder": folder, "name": manifest.name, **options})
        if isinstance(outcome, Exception):
            raise outcome
        return outcome

    monkeypatch.setattr(docker_build, "build_bot_image", build)
    return calls


# A Docker client with nothing on it: what the sandbox's clean-up at exit lists.
NO_ENGINE = SimpleNamespace(api=SimpleNamespace(containers=lambda **_: [],
                                                volumes=lambda **_: {"Volumes": []}))


def sandbox(memory: BuildMemory | None = None) -> DockerSandbox:
    return DockerSandbox(NO_ENGINE, base_image="hollywood/base:test", prepare_base=False,
                         remove_leftovers=False, builds=memory or BuildMemory())


def test_a_build_reports_its_whole_log_line_by_line_and_the_image(
        tmp_path: Path, log_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    bot = tiny_bot(tmp_path)
    (log_dir / "tiny-0123456789abcdef.log").write_text("Step 1/2 : FROM base\nStep 2/2 : done\n")
    memory = BuildMemory()
    calls = builder(monkeypatch, BotImage("hollywood/bot-tiny:0123456789abcdef", "sha256:9",
                                          HASH, built=True, seconds=1.0))
    lines: list[str] = []
    report = sandbox(memory).build(bot, timeout_s=12.5, on_line=lines.append)
    assert (report.passed, report.reason, report.image_id) == (True, "", "sha256:9")
    assert report.log == "Step 1/2 : FROM base\nStep 2/2 : done\n"
    assert lines == ["Step 1/2 : FROM base", "Step 2/2 : done"]
    assert report.summary == "image hollywood/bot-tiny:0123456789abcdef built"
    [call] = calls
    assert call["folder"] == bot.folder and call["name"] == "tiny"
    assert (call["timeout_s"], call["base_image"], call["config"], call["memory"]) == (
        12.5, "hollywood/base:test", DEFAULT_CONFIG, memory)


def test_an_image_built_before_says_so_in_place_of_a_log(
        tmp_path: Path, log_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    builder(monkeypatch, BotImage("hollywood/bot-tiny:0123", "sha256:9", HASH, built=False,
                                  seconds=0.1))
    lines: list[str] = []
    report = sandbox().build(tiny_bot(tmp_path), on_line=lines.append)
    assert report.passed and report.log == "image hollywood/bot-tiny:0123 already built"
    assert lines == [report.log]
    assert report.summary == "image hollywood/bot-tiny:0123 up to date"


def test_a_build_the_bot_broke_is_a_failed_report_with_its_log(
        tmp_path: Path, log_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    builder(monkeypatch, ImageBuildError("RUN exited with 1", "compiling\nerror: no main\n",
                                         bot_caused=True))
    lines: list[str] = []
    report = sandbox().build(tiny_bot(tmp_path), on_line=lines.append)
    assert (report.passed, report.reason) == (False, "the image did not build: RUN exited with 1")
    assert report.log == "compiling\nerror: no main\n" and report.image_id == ""
    assert lines == ["compiling", "error: no main"]


def test_a_remembered_failure_is_the_bots_and_its_reason_stands_for_the_log(
        tmp_path: Path, log_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    reason = ("RUN exited with 1 (remembered from an earlier build of the same files; "
              "change the bot to build it again)")
    builder(monkeypatch, ImageBuildError(reason))
    lines: list[str] = []
    report = sandbox().build(tiny_bot(tmp_path), on_line=lines.append)
    assert (report.passed, report.reason) == (False, f"the image did not build: {reason}")
    assert report.log == reason and lines == []


@pytest.mark.parametrize(("error", "message"), [
    (ImageBuildError("the build container vanished"),
     "the image could not be built: the build container vanished"),
    (ConnectionError("engine refused"),
     "Docker is not available: ConnectionError: engine refused"),
])
def test_a_failure_of_the_machine_is_the_arenas(
        tmp_path: Path, log_dir: Path, monkeypatch: pytest.MonkeyPatch, error: Exception,
        message: str) -> None:
    builder(monkeypatch, error)
    lines: list[str] = []
    with pytest.raises(SandboxError) as raised:
        sandbox().build(tiny_bot(tmp_path), on_line=lines.append)
    assert str(raised.value) == message and lines == []
