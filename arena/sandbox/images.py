"""Docker images for bots: the local base image and each bot's own image.

``prepare_base(...)`` makes sure the local base image (``hollywood/base:local``, see
``arena.sandbox.base_image``) exists. ``build_bot_image(folder, manifest)`` stages the bot's
folder with the protocol stubs, the Python SDK and the ``.proto`` sources (the build
context of docs/design.md), fingerprints it together with the base image's id, and
builds it with ``--build-arg BASE_IMAGE=...`` unless an image with that fingerprint
exists already. Bot Dockerfiles are untrusted: a build is checked first (nothing that
fetches), runs with no network, a time limit and a memory limit, keeps only its log's
tail (in memory and in its file; shown on failure, ``ImageBuildError``), and its image
is refused above a size limit (``SandboxConfig``). Failures the bot caused are
remembered by content hash (``arena.sandbox.build_guard``).

Command line (the CLI's ``arena images ...`` calls the same functions)::

    python -m arena.sandbox.images prepare-base [--force]
    python -m arena.sandbox.images build BOT_FOLDER [--base IMAGE] [--timeout SECONDS]
        [--max-image-mib MIB]
"""

from __future__ import annotations

import argparse
import compileall
import contextlib
import hashlib
import logging
import os
import py_compile
import re
import shutil
import sys
import tempfile
import time
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import docker  # type: ignore[import-untyped]
import docker.errors  # type: ignore[import-untyped]
import requests.exceptions
import urllib3.exceptions

from arena.core import arguments
from arena.core.manifest import BotManifest, ManifestError, iter_bot_files
from arena.sandbox.base_image import BASE_IMAGE_TAG, BaseImage, BaseImageError, prepare_base_image
from arena.sandbox.build_guard import BUILDS, BuildMemory, LogTail, remove_build_containers
from arena.sandbox.build_logs import DEFAULT_LOG_DIR, build_log_dir, keep_build_logs_beside
from arena.sandbox.config import DEFAULT_CONFIG, MIB, SandboxConfig
from arena.sandbox.dockerfile_check import DockerfileRefused, check_dockerfile, with_build_label
from arena.sandbox.sdk_package import install_sdk

log = logging.getLogger(__name__)

REPO_ROOT = Path(__file__).resolve().parents[2]
STUBS_PACKAGE = REPO_ROOT / "proto" / "gen" / "python" / "hollywood"
PROTO_SOURCES = REPO_ROOT / "proto" / "hollywood"
STAGED_DIR = ".hollywood"
DEFAULT_BUILD_TIMEOUT_S = DEFAULT_CONFIG.build_timeout_s
BUILD_NETWORK = "none"
"""Build steps (RUN) never get a network: the local base already holds what a bot
needs, and an untrusted Dockerfile must not reach out while it builds."""
HASH_LABEL = "hollywood.bot.content-hash"
BUILD_RUN_LABEL = "hollywood.build.run"
STAGED_BYTECODE = f"{sys.implementation.cache_tag}:checked-hash"
"""The staged stubs and SDK are compiled for this Python (the local base's): a Python
bot's start loads their bytecode rather than compiling them on a read-only root
(import time 64 -> 41 ms a start); checked by the source's hash, so bytecode for
another Python is ignored. In the fingerprint: changing it rebuilds the images."""
_IMAGE_ID = re.compile(r"(sha256:)?[0-9a-f]{1,64}")
LOG_TAIL_LINES = 40

__all__ = [
    "BASE_IMAGE_TAG", "DEFAULT_LOG_DIR", "BaseImage", "BaseImageError", "BotImage",
    "ImageBuildError", "build_bot_image", "build_log_dir", "keep_build_logs_beside",
    "prepare_base", "stage_build_context",
]


class ImageBuildError(RuntimeError):
    """A bot image could not be built. ``log`` holds the whole build log, ``log_path``
    where it was kept; the message ends with the log's tail."""

    def __init__(self, message: str, log_text: str = "", log_path: Path | None = None,
                 *, bot_caused: bool = False) -> None:
        tail = "\n".join(log_text.rstrip().splitlines()[-LOG_TAIL_LINES:])
        where = f" (full log: {log_path})" if log_path else ""
        shown = f"\n--- build log tail ---\n{tail}" if tail else ""
        super().__init__(f"{message}{where}{shown}")
        self.reason = message
        self.log = log_text
        self.log_path = log_path
        self.bot_caused = bot_caused
        """The bot's files caused it (remembered, not retried), not the machine."""


@dataclass(frozen=True)
class BotImage:
    """A bot's built image."""

    tag: str
    image_id: str
    content_hash: str
    built: bool
    """False when an image with the same content hash was reused."""
    seconds: float


def prepare_base(client: Any | None = None, *, force: bool = False) -> BaseImage:
    """Ensure the local base image exists (built from this machine's files)."""
    return prepare_base_image(client, force=force)


def stage_build_context(folder: Path, destination: Path) -> None:
    """Copy the bot's files to ``destination`` and add ``.hollywood/python`` (the
    generated ``hollywood`` stubs and the installed ``hollywood-sdk``,
    ``arena.sandbox.sdk_package``, compiled: ``STAGED_BYTECODE``) and ``.hollywood/proto``.

    Raises ``ImageBuildError`` when the stubs were never generated."""
    if not (STUBS_PACKAGE / "bot" / "v1" / "bot_pb2.py").is_file():
        raise ImageBuildError(
            f"generated protocol stubs are missing under {STUBS_PACKAGE}; "
            "run `make setup` (or `python -m arena.codegen`) first"
        )
    for relative, path in iter_bot_files(folder):
        if relative.split("/", 1)[0] == STAGED_DIR:
            continue  # the arena's own staging wins over anything the bot ships there
        target = destination / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(path, target)
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    python_dir = destination / STAGED_DIR / "python"
    shutil.copytree(STUBS_PACKAGE, python_dir / "hollywood", ignore=ignore)
    install_sdk(python_dir)  # as its wheel would install it: hollywood-sdk's dist-info too
    compileall.compile_dir(python_dir, quiet=2, workers=1,
                           invalidation_mode=py_compile.PycInvalidationMode.CHECKED_HASH)
    shutil.copytree(
        PROTO_SOURCES, destination / STAGED_DIR / "proto" / "hollywood",
        ignore=shutil.ignore_patterns("gen"),
    )


def _tree_hash(root: Path, base_image_id: str, dockerfile: str) -> str:
    """The build's fingerprint: the staged files but the staged bytecode, whose bytes
    may differ between compilations (``STAGED_BYTECODE`` stands for it)."""
    digest = hashlib.sha256(f"{base_image_id}\0{dockerfile}\0{STAGED_BYTECODE}\0".encode())
    staged_python = root / STAGED_DIR / "python"
    for path in sorted(p for p in root.rglob("*") if p.is_file()):
        if path.suffix == ".pyc" and path.is_relative_to(staged_python):
            continue
        relative = path.relative_to(root).as_posix()
        digest.update(f"{relative}\0{int(os.access(path, os.X_OK))}\0".encode())
        digest.update(hashlib.sha256(path.read_bytes()).digest())
    return digest.hexdigest()


def image_tag(manifest: BotManifest, content_hash: str) -> str:
    """The tag of a bot's image: one per bot name and content hash."""
    return f"hollywood/bot-{manifest.name}:{content_hash[:16]}"


def build_bot_image(
    folder: Path | str,
    manifest: BotManifest | None = None,
    *,
    client: Any | None = None,
    base_image: str = BASE_IMAGE_TAG,
    timeout_s: float | None = None,
    log_dir: Path | None = None,
    config: SandboxConfig = DEFAULT_CONFIG,
    memory: BuildMemory = BUILDS,
    before_build: Callable[[], object] | None = None,
) -> BotImage:
    """Build (or reuse) the image of the bot in ``folder``.

    The Dockerfile is checked first (``arena.sandbox.dockerfile_check``: nothing that
    fetches), then built with no network, ``base_image`` passed as ``--build-arg
    BASE_IMAGE``; it must exist locally (``prepare_base``). ``timeout_s`` overrides
    ``config.build_timeout_s``. The whole log goes to ``log_dir``, by default
    ``build_log_dir()``. Only this image's lock is held while building; a
    failure the bot caused is remembered by content hash in ``memory`` and repeated
    at once for the same files. ``before_build`` is called only when a build is
    needed (an image already built costs no wait). Raises ``ImageBuildError`` on a
    refused, failed, timed-out or oversized build, ``ManifestError`` for a bad
    manifest."""
    started = time.monotonic()
    folder = Path(folder)
    manifest = manifest or BotManifest.load(folder)
    client = client or docker.from_env()
    if timeout_s is not None:
        config = config.with_overrides(build_timeout_s=timeout_s)
    base_id = _image_id(client, base_image)
    with tempfile.TemporaryDirectory(prefix="hollywood-build-") as context:
        context_path = Path(context)
        stage_build_context(folder, context_path)
        content_hash = _tree_hash(context_path, base_id or base_image, manifest.dockerfile)
        tag = image_tag(manifest, content_hash)
        with memory.lock(content_hash):
            existing = _existing(client, tag)
            if existing is not None and existing.labels.get(HASH_LABEL) == content_hash:
                return BotImage(tag, existing.id, content_hash, built=False,
                                seconds=time.monotonic() - started)
            remembered = memory.failure(content_hash)
            if remembered is not None:
                raise ImageBuildError(f"{remembered} (remembered from an earlier build of "
                                      "the same files; change the bot to build it again)")
            if before_build is not None:
                before_build()
            try:
                label = _check_and_label(client, context_path, manifest, base_image,
                                         base_is_local=base_id is not None)
                log_path = ((log_dir or build_log_dir())
                            / f"{manifest.name}-{content_hash[:16]}.log")
                image_id = _run_build(client, context_path, manifest, tag, content_hash,
                                      base_image, config, log_path, label)
            except ImageBuildError as error:
                if error.bot_caused:
                    memory.remember_failure(content_hash, error.reason)
                raise
    _remove_older_images(client, manifest.name, keep=image_id)
    return BotImage(tag, image_id, content_hash, built=True, seconds=time.monotonic() - started)


def _check_and_label(client: Any, context: Path, manifest: BotManifest, base_image: str,
                     *, base_is_local: bool) -> str:
    """Refuse a Dockerfile that would fetch anything; label its stages for this build.
    Returns the label (``key=value``) every step container of this build carries."""
    dockerfile = context / manifest.dockerfile
    try:
        text = dockerfile.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        # Never str(error): an OSError names the build context, a server path.
        why = (error.strerror if isinstance(error, OSError) else str(error)) or "unreadable"
        raise ImageBuildError(f"building {manifest.name} failed: cannot read its "
                              f"{manifest.dockerfile}: {why}", bot_caused=True) from None
    try:
        check_dockerfile(text, build_args={"BASE_IMAGE": base_image},
                         allowed_images=frozenset({base_image} if base_is_local else ()),
                         image_is_local=lambda name: _usable_base(client, name))
    except DockerfileRefused as refused:
        raise ImageBuildError(f"building {manifest.name} refused: {refused}",
                              bot_caused=True) from None
    label = f"{BUILD_RUN_LABEL}={uuid.uuid4().hex}"
    dockerfile.write_text(with_build_label(text, label), encoding="utf-8")
    return label


def _remove_older_images(client: Any, bot_name: str, keep: str) -> None:
    """Drop the bot's superseded images (best effort: one in use stays)."""
    try:
        images = client.images.list(filters={"label": f"hollywood.bot.name={bot_name}"})
    except docker.errors.DockerException:
        return
    for image in images:
        if image.id != keep:
            try:
                client.images.remove(image.id, force=False)
            except docker.errors.DockerException as error:
                log.info("kept an older image of %s: %s", bot_name, error)


def _image_id(client: Any, name: str) -> str | None:
    image = _existing(client, name)
    return None if image is None else str(image.id)


def _usable_base(client: Any, name: str) -> bool:
    """Whether a build may start from (or copy out of) the local image ``name``: it is
    on this machine under a name (not an id, which could reach another build's layers)
    and is not a bot's image (which holds that bot's code)."""
    if _IMAGE_ID.fullmatch(name):
        return False
    image = _existing(client, name)
    return image is not None and bool(image.tags) and HASH_LABEL not in (image.labels or {})


def _existing(client: Any, tag: str) -> Any | None:
    try:
        return client.images.get(tag)
    except (docker.errors.ImageNotFound, docker.errors.NullResource):
        return None
    except docker.errors.APIError as error:
        if error.is_client_error():  # an invalid reference is no local image either
            return None
        raise


def _run_build(
    client: Any,
    context: Path,
    manifest: BotManifest,
    tag: str,
    content_hash: str,
    base_image: str,
    config: SandboxConfig,
    log_path: Path,
    label: str,
) -> str:
    """Stream a build, keeping its log's tail; enforce the time limit on the whole
    build, and the image size limit on its result.

    A dedicated API client whose socket timeout is the time limit makes a silent,
    hanging step fail too; closing it makes dockerd cancel the build, and the build's
    step containers (found by the label ``_check_and_label`` added) are removed."""
    timeout_s = config.build_timeout_s
    api = docker.from_env(timeout=max(1, int(timeout_s))).api
    tail = LogTail(config.build_log_bytes)
    deadline = time.monotonic() + timeout_s
    error: str | None = None
    bot_caused = True
    try:
        stream = api.build(
            path=str(context), dockerfile=manifest.dockerfile, tag=tag,
            buildargs={"BASE_IMAGE": base_image},
            labels={HASH_LABEL: content_hash, "hollywood.bot.name": manifest.name,
                    "hollywood.bot.version": manifest.version},
            rm=True, forcerm=True, network_mode=BUILD_NETWORK, pull=False, decode=True,
            timeout=max(1, int(timeout_s)),
            container_limits={"memory": config.build_memory_bytes,
                              "memswap": config.build_memory_bytes},
        )
        for chunk in stream:
            if "stream" in chunk:
                tail.add(str(chunk["stream"]).rstrip("\n"))
            if "error" in chunk:
                error = str(chunk["error"]).strip()[:2000]
                tail.add(f"ERROR: {error}")
            if time.monotonic() > deadline:
                error = f"the build took longer than its {timeout_s:.0f} s limit"
                break
    except (requests.exceptions.RequestException, urllib3.exceptions.HTTPError):
        error = f"the build took longer than its {timeout_s:.0f} s limit (no output)"
    except docker.errors.APIError as api_error:
        error = f"docker refused the build: {api_error.explanation or api_error}"
        bot_caused = api_error.is_client_error()
    finally:
        api.close()
        remove_build_containers(client, label)
    log_text = tail.text()
    log_path.parent.mkdir(parents=True, exist_ok=True)
    log_path.write_text(log_text)
    if error is not None:
        raise ImageBuildError(f"building {manifest.name} failed: {error}", log_text, log_path,
                              bot_caused=bot_caused)
    image = _existing(client, tag)
    if image is None:
        raise ImageBuildError(f"building {manifest.name} ended without an image {tag}",
                              log_text, log_path, bot_caused=False)
    size = int(image.attrs.get("Size") or 0)
    if size > config.max_image_bytes:
        with contextlib.suppress(docker.errors.DockerException):
            client.images.remove(image.id, force=True)
        raise ImageBuildError(
            f"building {manifest.name} refused: its image is {size / MIB:.1f} MiB, over the "
            f"{config.max_image_bytes / MIB:.1f} MiB limit (removed)", log_text, log_path,
            bot_caused=True)
    return str(image.id)


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m arena.sandbox.images``: prepare the base image or build a bot's image."""
    parser = argparse.ArgumentParser(prog="python -m arena.sandbox.images", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = parser.add_subparsers(dest="command", required=True)
    prepare = commands.add_parser("prepare-base", help="build the local base image if needed")
    prepare.add_argument("--force", action="store_true", help="rebuild even if up to date")
    build = commands.add_parser("build", help="build (or reuse) a bot's image")
    build.add_argument("folder", type=Path)
    build.add_argument("--base", default=BASE_IMAGE_TAG, help="BASE_IMAGE build argument")
    build.add_argument("--timeout", type=arguments.seconds, default=DEFAULT_BUILD_TIMEOUT_S)
    build.add_argument("--max-image-mib", type=int, default=DEFAULT_CONFIG.max_image_bytes // MIB,
                       help="refuse (and remove) an image larger than this many MiB")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    try:
        if args.command == "prepare-base":
            base = prepare_base(force=args.force)
            state = "built" if base.built else "up to date"
            print(f"{base.tag} {state} ({base.image_id[:19]}, {base.seconds:.1f} s)")
        else:
            limits = DEFAULT_CONFIG.with_overrides(max_image_bytes=args.max_image_mib * MIB)
            image = build_bot_image(args.folder, base_image=args.base, timeout_s=args.timeout,
                                    config=limits)
            state = "built" if image.built else "reused"
            print(f"{image.tag} {state} ({image.image_id[:19]}, {image.seconds:.1f} s)")
    except (BaseImageError, ImageBuildError, ManifestError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    except docker.errors.DockerException as error:
        print(f"error: Docker is not available: {error}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
