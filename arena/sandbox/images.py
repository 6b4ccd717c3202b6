"""Docker images for bots: the local base image and each bot's own image.

``prepare_base(...)`` makes sure the local base image (``hollywood/base:local``, see
``arena.base_image``) exists. ``build_bot_image(folder, manifest)`` stages the bot's
folder with the protocol stubs, the Python SDK and the ``.proto`` sources (the build
context of docs/design.md), fingerprints it together with the base image's id, and
builds it with ``--build-arg BASE_IMAGE=...`` unless an image with that fingerprint
exists already. A build has a time limit; its log is kept in a file and its tail is
shown on failure (``ImageBuildError``).

Command line (the CLI's ``arena images ...`` calls the same functions)::

    python -m arena.sandbox.images prepare-base [--force]
    python -m arena.sandbox.images build BOT_FOLDER [--base IMAGE] [--timeout SECONDS]
"""

from __future__ import annotations

import argparse
import hashlib
import logging
import os
import shutil
import sys
import tempfile
import time
from collections.abc import Sequence
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

log = logging.getLogger(__name__)

REPO_ROOT = Path(__file__).resolve().parents[2]
STUBS_PACKAGE = REPO_ROOT / "proto" / "gen" / "python" / "hollywood"
SDK_PACKAGE = REPO_ROOT / "sample_bots" / "sdk" / "python" / "hollywood_sdk"
PROTO_SOURCES = REPO_ROOT / "proto" / "hollywood"
STAGED_DIR = ".hollywood"
DEFAULT_BUILD_TIMEOUT_S = 300.0
DEFAULT_LOG_DIR = Path(".arena") / "build-logs"
DEFAULT_BUILD_NETWORK = "none"
"""Build steps (RUN) get no network by default: the local base already holds what
a bot needs, and an untrusted Dockerfile must not reach out while it builds."""
HASH_LABEL = "hollywood.bot.content-hash"
LOG_TAIL_LINES = 40

__all__ = [
    "BASE_IMAGE_TAG",
    "BaseImage",
    "BaseImageError",
    "BotImage",
    "ImageBuildError",
    "build_bot_image",
    "prepare_base",
    "stage_build_context",
]


class ImageBuildError(RuntimeError):
    """A bot image could not be built. ``log`` holds the whole build log, ``log_path``
    where it was kept; the message ends with the log's tail."""

    def __init__(self, message: str, log_text: str = "", log_path: Path | None = None) -> None:
        tail = "\n".join(log_text.rstrip().splitlines()[-LOG_TAIL_LINES:])
        where = f" (full log: {log_path})" if log_path else ""
        shown = f"\n--- build log tail ---\n{tail}" if tail else ""
        super().__init__(f"{message}{where}{shown}")
        self.log = log_text
        self.log_path = log_path


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
    generated ``hollywood`` stubs and ``hollywood_sdk``) and ``.hollywood/proto``.

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
    if SDK_PACKAGE.is_dir():
        shutil.copytree(SDK_PACKAGE, python_dir / "hollywood_sdk", ignore=ignore)
    shutil.copytree(
        PROTO_SOURCES, destination / STAGED_DIR / "proto" / "hollywood",
        ignore=shutil.ignore_patterns("gen"),
    )


def _tree_hash(root: Path, base_image_id: str, dockerfile: str) -> str:
    digest = hashlib.sha256(f"{base_image_id}\0{dockerfile}\0".encode())
    for path in sorted(p for p in root.rglob("*") if p.is_file()):
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
    timeout_s: float = DEFAULT_BUILD_TIMEOUT_S,
    log_dir: Path = DEFAULT_LOG_DIR,
    network: str = DEFAULT_BUILD_NETWORK,
) -> BotImage:
    """Build (or reuse) the image of the bot in ``folder``.

    ``base_image`` is passed as ``--build-arg BASE_IMAGE``; it must exist locally
    (``prepare_base``) unless a registry is reachable. ``network`` is the build
    steps' network ("none" by default; "default" lets ``RUN pip install`` reach a
    registry, for trusted bots on a connected machine). Raises ``ImageBuildError`` on
    a failed or timed-out build, ``ManifestError`` for a bad manifest."""
    started = time.monotonic()
    folder = Path(folder)
    manifest = manifest or BotManifest.load(folder)
    client = client or docker.from_env()
    base_id = _image_id(client, base_image)
    with tempfile.TemporaryDirectory(prefix="hollywood-build-") as context:
        context_path = Path(context)
        stage_build_context(folder, context_path)
        content_hash = _tree_hash(context_path, base_id or base_image, manifest.dockerfile)
        tag = image_tag(manifest, content_hash)
        existing = _existing(client, tag)
        if existing is not None and existing.labels.get(HASH_LABEL) == content_hash:
            return BotImage(tag, existing.id, content_hash, built=False,
                            seconds=time.monotonic() - started)
        log_path = log_dir / f"{manifest.name}-{content_hash[:16]}.log"
        image_id = _run_build(client, context_path, manifest, tag, content_hash, base_image,
                              timeout_s, log_path, network)
    _remove_older_images(client, manifest.name, keep=image_id)
    return BotImage(tag, image_id, content_hash, built=True, seconds=time.monotonic() - started)


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
    try:
        return str(client.images.get(name).id)
    except docker.errors.ImageNotFound:
        return None


def _existing(client: Any, tag: str) -> Any | None:
    try:
        return client.images.get(tag)
    except docker.errors.ImageNotFound:
        return None


def _run_build(
    client: Any,
    context: Path,
    manifest: BotManifest,
    tag: str,
    content_hash: str,
    base_image: str,
    timeout_s: float,
    log_path: Path,
    network: str,
) -> str:
    """Stream a build, keeping its log; enforce ``timeout_s`` on the whole build.

    A dedicated API client whose socket timeout is the time limit makes a silent,
    hanging step fail too; closing it makes dockerd cancel the build."""
    api = docker.from_env(timeout=max(1, int(timeout_s))).api
    lines: list[str] = []
    deadline = time.monotonic() + timeout_s
    error: str | None = None
    try:
        stream = api.build(
            path=str(context),
            dockerfile=manifest.dockerfile,
            tag=tag,
            buildargs={"BASE_IMAGE": base_image},
            labels={HASH_LABEL: content_hash, "hollywood.bot.name": manifest.name,
                    "hollywood.bot.version": manifest.version},
            rm=True,
            forcerm=True,
            network_mode=network,
            pull=False,
            decode=True,
            timeout=max(1, int(timeout_s)),
        )
        for chunk in stream:
            if "stream" in chunk:
                lines.append(str(chunk["stream"]).rstrip("\n"))
            if "error" in chunk:
                error = str(chunk["error"]).strip()
                lines.append(f"ERROR: {error}")
            if time.monotonic() > deadline:
                error = f"the build took longer than its {timeout_s:.0f} s limit"
                break
    except (requests.exceptions.RequestException, urllib3.exceptions.HTTPError):
        error = f"the build took longer than its {timeout_s:.0f} s limit (no output)"
    except docker.errors.APIError as api_error:
        error = f"docker refused the build: {api_error.explanation or api_error}"
    finally:
        api.close()
    log_text = "\n".join(lines) + "\n"
    log_path.parent.mkdir(parents=True, exist_ok=True)
    log_path.write_text(log_text)
    if error is not None:
        raise ImageBuildError(f"building {manifest.name} failed: {error}", log_text, log_path)
    image_id = _image_id(client, tag)
    if image_id is None:
        raise ImageBuildError(
            f"building {manifest.name} ended without an image {tag}", log_text, log_path
        )
    return image_id


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
    build.add_argument("--network", default=DEFAULT_BUILD_NETWORK,
                       help='network of the build steps ("none"; "default" to allow pip)')
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    try:
        if args.command == "prepare-base":
            base = prepare_base(force=args.force)
            state = "built" if base.built else "up to date"
            print(f"{base.tag} {state} ({base.image_id[:19]}, {base.seconds:.1f} s)")
        else:
            image = build_bot_image(args.folder, base_image=args.base, timeout_s=args.timeout,
                                    network=args.network)
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
