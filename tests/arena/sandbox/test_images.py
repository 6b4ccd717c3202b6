"""Bot images: staged build context, content-hash cache, failures with the log tail,
the build time limit, and what the local base image provides."""

from __future__ import annotations

import importlib.util
import shutil
import uuid
from pathlib import Path
from typing import Any

import docker.errors  # type: ignore[import-untyped]
import pytest

from arena.core.manifest import BotManifest
from arena.sandbox.build_guard import BuildMemory
from arena.sandbox.config import MIB, SandboxConfig
from arena.sandbox.images import (
    ImageBuildError,
    _tree_hash,
    build_bot_image,
    stage_build_context,
)

ROOT = Path(__file__).resolve().parents[3]
GREEDY = ROOT / "sample_bots" / "greedy"
TINY_DOCKERFILE = "ARG BASE_IMAGE=python:3.11-slim\nFROM ${BASE_IMAGE}\nCOPY bot.toml /bot/\n"


def tiny_bot(tmp_path: Path, dockerfile: str = TINY_DOCKERFILE, name: str = "tiny") -> Path:
    folder = tmp_path / name
    folder.mkdir()
    (folder / "bot.toml").write_text(
        f'name = "{name}"\nversion = "1"\nlanguage = "python"\n'
        '[run]\ncommand = ["python3", "bot.py"]\n'
    )
    (folder / "Dockerfile").write_text(dockerfile)
    return folder


def test_stage_adds_stubs_sdk_and_protos(tmp_path: Path) -> None:
    stage_build_context(GREEDY, tmp_path)
    assert (tmp_path / "greedy_bot.py").is_file()
    assert (tmp_path / ".hollywood/python/hollywood/bot/v1/bot_pb2_grpc.py").is_file()
    assert (tmp_path / ".hollywood/python/hollywood_sdk/__init__.py").is_file()
    assert (tmp_path / ".hollywood/proto/hollywood/bot/v1/bot.proto").is_file()
    assert not [p for p in tmp_path.rglob("__pycache__") if ".hollywood" not in p.parts]


def test_stage_compiles_the_stubs_and_sdk_checked_by_hash(tmp_path: Path) -> None:
    """Every staged module of the SDK and stubs has its bytecode beside it, for this
    Python, validated by the source's hash (PEP 552 flags 0b11), never a file time."""
    stage_build_context(GREEDY, tmp_path)
    python_dir = tmp_path / ".hollywood" / "python"
    sources = sorted(python_dir.rglob("*.py"))
    assert len(sources) > 10
    for source in sources:
        compiled = Path(importlib.util.cache_from_source(str(source)))
        assert compiled.is_file(), compiled
        header = compiled.read_bytes()[:16]
        assert header[:4] == importlib.util.MAGIC_NUMBER
        assert int.from_bytes(header[4:8], "little") == 0b11
        assert header[8:16] == importlib.util.source_hash(source.read_bytes())
    assert not (tmp_path / "__pycache__").exists()  # the bot's own files are its own


def test_staged_bytecode_is_not_in_the_fingerprint(tmp_path: Path) -> None:
    """The bytes of compiled code may differ between compilations of one source:
    the fingerprint leaves the staged bytecode out, so the image is not rebuilt."""
    stage_build_context(GREEDY, tmp_path)
    before = _tree_hash(tmp_path, "base", "Dockerfile")
    for compiled in (tmp_path / ".hollywood" / "python").rglob("*.pyc"):
        compiled.write_bytes(compiled.read_bytes() + b"other bytes")
    assert _tree_hash(tmp_path, "base", "Dockerfile") == before
    (tmp_path / ".hollywood" / "python" / "hollywood_sdk" / "cards.py").write_text("x = 1\n")
    assert _tree_hash(tmp_path, "base", "Dockerfile") != before


def test_stage_ignores_a_bots_own_hollywood_dir(tmp_path: Path) -> None:
    folder = tiny_bot(tmp_path)
    (folder / ".hollywood" / "python" / "hollywood").mkdir(parents=True)
    (folder / ".hollywood" / "python" / "hollywood" / "evil.py").write_text("x = 1\n")
    stage_build_context(folder, tmp_path / "context")
    assert not (tmp_path / "context/.hollywood/python/hollywood/evil.py").exists()


@pytest.mark.docker
def test_build_is_cached_by_content(tmp_path: Path, docker_client: Any, base_image: str) -> None:
    folder = tiny_bot(tmp_path)
    waits: list[str] = []  # the wait for an idle core (DockerSandbox.prepare): builds only
    first = build_bot_image(folder, client=docker_client, base_image=base_image,
                            log_dir=tmp_path / "logs", before_build=lambda: waits.append("1"))
    again = build_bot_image(folder, client=docker_client, base_image=base_image,
                            log_dir=tmp_path / "logs", before_build=lambda: waits.append("2"))
    assert first.built and not again.built
    assert (again.tag, again.image_id) == (first.tag, first.image_id)
    (folder / "bot.toml").write_text((folder / "bot.toml").read_text() + "# changed\n")
    changed = build_bot_image(folder, client=docker_client, base_image=base_image,
                              log_dir=tmp_path / "logs", before_build=lambda: waits.append("3"))
    assert changed.built and changed.tag != first.tag
    assert waits == ["1", "3"]
    image = docker_client.images.get(changed.tag)
    assert image.labels["hollywood.bot.content-hash"] == changed.content_hash
    with pytest.raises(docker.errors.ImageNotFound):  # the superseded image was dropped
        docker_client.images.get(first.tag)
    docker_client.images.remove(changed.tag, force=True)


@pytest.mark.docker
def test_failed_build_shows_the_log_tail(
    tmp_path: Path, docker_client: Any, base_image: str
) -> None:
    folder = tiny_bot(tmp_path, TINY_DOCKERFILE + "COPY no-such-file /x\n", name="broken")
    with pytest.raises(ImageBuildError) as caught:
        build_bot_image(folder, client=docker_client, base_image=base_image,
                        log_dir=tmp_path / "logs", memory=BuildMemory())
    error = caught.value
    assert "no-such-file" in str(error)
    assert error.log_path is not None and "no-such-file" in error.log_path.read_text()


@pytest.mark.docker
def test_build_time_limit(tmp_path: Path, docker_client: Any, base_image: str) -> None:
    nonce = uuid.uuid4().hex  # never a cached build
    folder = tiny_bot(tmp_path, TINY_DOCKERFILE + 'RUN ["python3", "-c", '
                      f'"import time; time.sleep(60)  # {nonce}"]\n', name="slow")
    with pytest.raises(ImageBuildError, match="longer than its 3 s limit"):
        build_bot_image(folder, client=docker_client, base_image=base_image, timeout_s=3,
                        log_dir=tmp_path / "logs")


@pytest.mark.docker
def test_base_image_runs_python_grpc_and_node_grpc(docker_client: Any, base_image: str) -> None:
    python = docker_client.containers.run(
        base_image, ["python3", "-c", "import grpc, google.protobuf, sys; "
                     "print(sys.version_info[:2], grpc.__version__)"],
        remove=True, network_mode="none",
    ).decode()
    assert python.startswith("(3, 11)")
    if shutil.which("node"):
        node = docker_client.containers.run(
            base_image, ["node", "-e", "require('@grpc/grpc-js'); require('@grpc/proto-loader');"
                         " console.log(process.version)"],
            remove=True, network_mode="none",
        ).decode()
        assert node.startswith("v20")


def test_manifest_dockerfile_is_used(tmp_path: Path) -> None:
    folder = tiny_bot(tmp_path)
    assert BotManifest.load(folder).dockerfile == "Dockerfile"


@pytest.mark.docker
def test_build_steps_have_no_network(tmp_path: Path, docker_client: Any, base_image: str) -> None:
    nonce = uuid.uuid4().hex
    folder = tiny_bot(tmp_path, TINY_DOCKERFILE + 'RUN ["python3", "-c", "import socket; '
                      f"socket.create_connection(('1.1.1.1', 53), timeout=3)  # {nonce}\"]\n",
                      name="online")
    with pytest.raises(ImageBuildError, match="Network is unreachable"):
        build_bot_image(folder, client=docker_client, base_image=base_image,
                        log_dir=tmp_path / "logs")


@pytest.mark.docker
def test_a_failed_build_is_remembered_not_retried(
    tmp_path: Path, docker_client: Any, base_image: str
) -> None:
    folder = tiny_bot(tmp_path, TINY_DOCKERFILE + f"COPY missing-{uuid.uuid4().hex} /x\n",
                      name="failing")
    memory = BuildMemory()
    with pytest.raises(ImageBuildError) as first:
        build_bot_image(folder, client=docker_client, base_image=base_image,
                        log_dir=tmp_path / "logs", memory=memory)
    assert "remembered from" not in str(first.value) and first.value.log_path is not None
    first.value.log_path.unlink()
    with pytest.raises(ImageBuildError) as again:
        build_bot_image(folder, client=docker_client, base_image=base_image,
                        log_dir=tmp_path / "logs", memory=memory)
    assert str(again.value).startswith(first.value.reason)
    assert "remembered from an earlier build of the same files" in str(again.value)
    assert not first.value.log_path.exists()  # no second build wrote a log
    (folder / "bot.toml").write_text((folder / "bot.toml").read_text() + "# changed\n")
    with pytest.raises(ImageBuildError) as changed:  # other files: built (and failing) anew
        build_bot_image(folder, client=docker_client, base_image=base_image,
                        log_dir=tmp_path / "logs", memory=memory)
    assert "remembered from" not in str(changed.value)


@pytest.mark.docker
def test_the_build_log_keeps_only_its_tail(
    tmp_path: Path, docker_client: Any, base_image: str
) -> None:
    nonce = uuid.uuid4().hex
    folder = tiny_bot(tmp_path, TINY_DOCKERFILE + 'RUN ["python3", "-c", "import sys; '
                      "[print('x' * 99) for _ in range(3000)]; print('LAST-LINE'); "
                      f'sys.exit(1)  # {nonce}"]\n', name="chatty")
    with pytest.raises(ImageBuildError) as caught:
        build_bot_image(folder, client=docker_client, base_image=base_image,
                        log_dir=tmp_path / "logs", memory=BuildMemory(),
                        config=SandboxConfig(build_log_bytes=4096))
    error = caught.value
    assert error.log_path is not None
    header = "earlier characters of the build log dropped]\n"
    for kept in (error.log, error.log_path.read_text()):
        assert header in kept and len(kept) <= 4096 + 200  # 300 KB of output, 4 KiB kept
        assert "LAST-LINE" in kept


@pytest.mark.docker
def test_an_image_over_the_size_limit_is_refused_and_removed(
    tmp_path: Path, docker_client: Any, base_image: str
) -> None:
    name = f"big-{uuid.uuid4().hex[:8]}"
    folder = tiny_bot(tmp_path, name=name)
    with pytest.raises(ImageBuildError, match=r"over the 1\.0 MiB limit \(removed\)"):
        build_bot_image(folder, client=docker_client, base_image=base_image,
                        log_dir=tmp_path / "logs", memory=BuildMemory(),
                        config=SandboxConfig(max_image_bytes=1 * MIB))
    assert docker_client.images.list(filters={"label": f"hollywood.bot.name={name}"}) == []


@pytest.mark.docker
def test_a_build_cannot_start_from_another_bots_image(
    tmp_path: Path, docker_client: Any, base_image: str
) -> None:
    victim = build_bot_image(tiny_bot(tmp_path, name=f"victim-{uuid.uuid4().hex[:8]}"),
                             client=docker_client, base_image=base_image,
                             log_dir=tmp_path / "logs", memory=BuildMemory())
    try:
        thief = tiny_bot(tmp_path, f"FROM {victim.tag}\nCOPY bot.toml /x\n", name="thief")
        with pytest.raises(ImageBuildError) as caught:
            build_bot_image(thief, client=docker_client, base_image=base_image,
                            log_dir=tmp_path / "logs", memory=BuildMemory())
        assert f"Dockerfile line 1: FROM {victim.tag} is not an image on this machine" in str(
            caught.value)
        # Nor by id, not even the base image's: an id could reach another build's layers.
        short_id = docker_client.images.get(base_image).id.removeprefix("sha256:")[:12]
        by_id = tiny_bot(tmp_path, f"FROM {short_id}\nCOPY bot.toml /x\n", name="by-id")
        with pytest.raises(ImageBuildError, match=f"FROM {short_id} is not an image on this"):
            build_bot_image(by_id, client=docker_client, base_image=base_image,
                            log_dir=tmp_path / "logs", memory=BuildMemory())
    finally:
        docker_client.images.remove(victim.tag, force=True)


@pytest.mark.docker
def test_a_python_bots_image_holds_bytecode_its_python_accepts(
        tmp_path: Path, docker_client: Any, base_image: str) -> None:
    """The staged SDK's bytecode reaches the image, and the image's Python would load
    it (its own magic number, the source's hash), not compile the source at start."""
    image = build_bot_image(GREEDY, client=docker_client, base_image=base_image,
                            log_dir=tmp_path / "logs")
    check = ("import importlib.util as u, hollywood_sdk.views as v, hollywood.bot.v1.bot_pb2 as b\n"
             "for m in (v, b):\n"
             "    data = open(m.__cached__, 'rb').read(16)\n"
             "    source = open(m.__file__, 'rb').read()\n"
             "    print(data[:4] == u.MAGIC_NUMBER and data[8:] == u.source_hash(source))\n")
    output = docker_client.containers.run(image.tag, ["python3", "-c", check], remove=True,
                                          network_mode="none").decode()
    assert output.split() == ["True", "True"]
