"""The local base image for bot containers, assembled from this machine's own files.

No container registry is reachable on the arena's machines, so nothing can be pulled.
``prepare_base_image`` instead copies the host's Python 3.11 (interpreter, standard
library, and the shared libraries ``ldd`` says they need), Node.js, a POSIX shell and
``env`` into a root file system, adds ``grpcio`` and ``protobuf`` (pip ``--target``,
the same versions the arena runs) and ``@grpc/grpc-js`` + ``@grpc/proto-loader``
(npm, under ``/opt/hollywood/node_modules``, on ``NODE_PATH``), and ``docker import``s
it as ``hollywood/base:local``. A label holds a fingerprint of the recipe's inputs:
later calls reuse the image while nothing changed.

The image has no init of its own: containers run with ``init=True`` (dockerd's
``docker-init``), so a bot is never PID 1.
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import json
import logging
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import docker  # type: ignore[import-untyped]
import docker.errors  # type: ignore[import-untyped]

log = logging.getLogger(__name__)

BASE_IMAGE_TAG = "hollywood/base:local"
RECIPE_LABEL = "hollywood.base.recipe"
# Bump when the recipe below changes in a way its inputs do not show.
RECIPE_VERSION = "5"
NODE_PACKAGES = ("@grpc/grpc-js@1.14.7", "@grpc/proto-loader@0.8.1")
NODE_MODULES_DIR = "/opt/hollywood/node_modules"
BOT_UID = 10001
PYTHON_CANDIDATES = ("/usr/bin/python3.11",)
# Parts of the standard library no bot needs; leaving them out halves the copy.
STDLIB_EXCLUDES = frozenset(
    {
        "test", "idlelib", "tkinter", "turtledemo", "ensurepip", "lib2to3", "pydoc_data",
        "site-packages", "dist-packages", "venv",
    }
)
_LDD_LINE = re.compile(r"(?:=>\s*)?(/\S+)\s+\(0x[0-9a-f]+\)")


class BaseImageError(RuntimeError):
    """The base image could not be assembled; the message says which step failed."""


@dataclass(frozen=True)
class PythonInfo:
    """What the base image needs to know about the interpreter it copies."""

    executable: Path
    version: str
    stdlib: Path
    dynload: Path
    site_packages: Path


@dataclass(frozen=True)
class BaseImage:
    """A prepared base image: its tag, id, and whether it was built just now."""

    tag: str
    image_id: str
    built: bool
    seconds: float


def prepare_base_image(
    client: Any | None = None,
    *,
    tag: str = BASE_IMAGE_TAG,
    force: bool = False,
    python: str | None = None,
    with_node: bool = True,
) -> BaseImage:
    """Return the local base image, building it first when it is missing or stale.

    ``python`` picks the interpreter to copy (default: Debian's /usr/bin/python3.11,
    else the interpreter running the arena). ``with_node=False`` leaves Node.js out.
    Raises ``BaseImageError`` with the failing step on any problem."""
    started = time.monotonic()
    client = client or docker.from_env()
    info = _python_info(python)
    node = shutil.which("node") if with_node else None
    if with_node and node is None:
        log.warning("node not found on this machine: the base image will have no Node.js")
    recipe = _recipe_fingerprint(info, node)
    existing = _existing_image(client, tag)
    if not force and existing is not None and existing.labels.get(RECIPE_LABEL) == recipe:
        return BaseImage(tag, existing.id, built=False, seconds=time.monotonic() - started)
    with tempfile.TemporaryDirectory(prefix="hollywood-base-") as work:
        rootfs = Path(work) / "rootfs"
        rootfs.mkdir()
        _assemble_rootfs(rootfs, info, node, Path(work))
        archive = Path(work) / "rootfs.tar"
        _write_tar(rootfs, archive)
        image_id = _import(client, archive, tag, recipe, info, node)
    if existing is not None and existing.id != image_id:
        _remove_quietly(client, existing.id)
    return BaseImage(tag, image_id, built=True, seconds=time.monotonic() - started)


def _existing_image(client: Any, tag: str) -> Any | None:
    try:
        return client.images.get(tag)
    except docker.errors.ImageNotFound:
        return None


def _remove_quietly(client: Any, image_id: str) -> None:
    """Drop a superseded base image; bot images built on it keep it alive, which is fine."""
    try:
        client.images.remove(image_id)
    except docker.errors.DockerException as error:
        log.info("kept superseded base image %s: %s", image_id[:19], error)


def _python_info(python: str | None) -> PythonInfo:
    running = getattr(sys, "_base_executable", sys.executable)
    candidates = [python] if python else [*PYTHON_CANDIDATES, running]
    for candidate in candidates:
        if candidate and Path(candidate).is_file():
            break
    else:
        raise BaseImageError(f"no Python 3.11 interpreter found (tried {candidates})")
    script = (
        "import json, site, sys, sysconfig;"
        "print(json.dumps({'executable': sys.executable,"
        " 'version': '%d.%d.%d' % sys.version_info[:3],"
        " 'stdlib': sysconfig.get_paths()['stdlib'],"
        " 'dynload': sysconfig.get_config_var('DESTSHARED'),"
        " 'site': site.getsitepackages()[0]}))"
    )
    try:
        raw = subprocess.run(
            [candidate, "-I", "-c", script], capture_output=True, text=True, check=True, timeout=30
        ).stdout
    except (OSError, subprocess.SubprocessError) as error:
        raise BaseImageError(f"could not run {candidate}: {error}") from error
    data = json.loads(raw)
    if not data["version"].startswith("3.11."):
        raise BaseImageError(f"{candidate} is Python {data['version']}, the base needs 3.11")
    return PythonInfo(
        executable=Path(os.path.realpath(data["executable"])),
        version=data["version"],
        stdlib=Path(data["stdlib"]),
        dynload=Path(data["dynload"]),
        site_packages=Path(data["site"]),
    )


def _pinned_python_packages() -> list[str]:
    """grpcio and protobuf at the versions the arena itself runs."""
    pins = []
    for name in ("grpcio", "protobuf"):
        try:
            pins.append(f"{name}=={importlib.metadata.version(name)}")
        except importlib.metadata.PackageNotFoundError:
            pins.append(name)
    return pins


def _recipe_fingerprint(info: PythonInfo, node: str | None) -> str:
    def stamp(path: Path) -> str:
        status = path.stat()
        return f"{path}:{status.st_size}:{int(status.st_mtime)}"

    parts = [
        RECIPE_VERSION,
        stamp(info.executable),
        info.version,
        *_pinned_python_packages(),
        stamp(Path(os.path.realpath(node))) if node else "no-node",
        *(NODE_PACKAGES if node else ()),
    ]
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()[:32]


def _assemble_rootfs(rootfs: Path, info: PythonInfo, node: str | None, work: Path) -> None:
    for directory, mode in (("tmp", 0o1777), ("run/hollywood", 0o755), ("opt/bot", 0o755),
                            ("proc", 0o555), ("sys", 0o555), ("dev", 0o755), ("etc", 0o755)):
        (rootfs / directory).mkdir(parents=True, exist_ok=True)
        (rootfs / directory).chmod(mode)
    (rootfs / "etc/passwd").write_text(
        f"root:x:0:0:root:/root:/bin/sh\nbot:x:{BOT_UID}:{BOT_UID}:bot:/tmp:/bin/sh\n"
    )
    (rootfs / "etc/group").write_text(f"root:x:0:\nbot:x:{BOT_UID}:\n")

    binaries: list[Path] = [info.executable]
    _copy_host_path(info.executable, rootfs)
    python_link = rootfs / "usr/bin/python3"
    if not python_link.exists() and not python_link.is_symlink():
        python_link.parent.mkdir(parents=True, exist_ok=True)
        python_link.symlink_to(info.executable)
    _copy_tree(info.stdlib, rootfs, exclude=STDLIB_EXCLUDES)
    if not str(info.dynload).startswith(str(info.stdlib)):
        _copy_tree(info.dynload, rootfs, exclude=frozenset())
    binaries.extend(info.dynload.glob("*.so"))

    site = rootfs / info.site_packages.relative_to("/")
    _install_python_packages(site, info)
    binaries.extend(site.rglob("*.so"))

    for tool in ("sh", "env"):
        found = shutil.which(tool, path="/bin:/usr/bin")
        if found:
            _copy_host_path(Path(found), rootfs)
            binaries.append(Path(os.path.realpath(found)))
    if node:
        _copy_host_path(Path(node), rootfs)
        binaries.append(Path(os.path.realpath(node)))
        _install_node_packages(rootfs / NODE_MODULES_DIR.lstrip("/"), work)

    for library in sorted(_shared_libraries(binaries, rootfs)):
        _copy_host_path(library, rootfs)


def _install_python_packages(site: Path, info: PythonInfo) -> None:
    """pip --target the pinned packages; fall back to copying the arena's own copies."""
    site.mkdir(parents=True, exist_ok=True)
    pins = _pinned_python_packages()
    command = [
        sys.executable, "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
        "--only-binary=:all:", "--target", str(site),
        "--python-version", ".".join(info.version.split(".")[:2]), *pins,
    ]
    result = subprocess.run(command, capture_output=True, text=True, timeout=600)
    if result.returncode != 0:
        log.warning("pip install %s failed (%s); copying the arena's own packages",
                    pins, result.stderr.strip()[-500:])
        if sys.version_info[:2] != (3, 11):
            raise BaseImageError(f"pip could not install {pins}:\n{result.stderr[-2000:]}")
        _copy_installed_distributions(("grpcio", "protobuf", "typing_extensions"), site)
    subprocess.run(
        [sys.executable, "-m", "compileall", "-q", "-j", "0", str(site)],
        capture_output=True, check=False, timeout=600,
    )


def _copy_installed_distributions(names: Iterable[str], site: Path) -> None:
    for name in names:
        distribution = importlib.metadata.distribution(name)
        for file in distribution.files or ():
            source = Path(str(distribution.locate_file(file)))
            if ".." in file.parts or not source.is_file():
                continue
            target = site / file
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target)


def _install_node_packages(target: Path, work: Path) -> None:
    npm = shutil.which("npm")
    if npm is None:
        log.warning("npm not found: the base image will have no @grpc/grpc-js")
        return
    prefix = work / "npm"
    prefix.mkdir()
    (prefix / "package.json").write_text('{"name": "hollywood-base", "private": true}\n')
    result = subprocess.run(
        [npm, "install", "--no-audit", "--no-fund", "--silent", "--prefix", str(prefix),
         *NODE_PACKAGES],
        capture_output=True, text=True, timeout=600,
    )
    if result.returncode != 0:
        raise BaseImageError(
            f"npm install {' '.join(NODE_PACKAGES)} failed:\n{result.stderr[-2000:]}"
        )
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copytree(prefix / "node_modules", target, symlinks=True)


def _shared_libraries(binaries: Iterable[Path], rootfs: Path) -> set[Path]:
    """Every shared library (and the dynamic loader) that ``binaries`` need, per ldd."""
    libraries: set[Path] = set()
    batch = [str(path) for path in binaries]
    for start in range(0, len(batch), 100):
        result = subprocess.run(
            ["ldd", *batch[start : start + 100]], capture_output=True, text=True, check=False
        )
        for line in result.stdout.splitlines():
            match = _LDD_LINE.search(line)
            if match and str(rootfs) not in match.group(1):
                libraries.add(Path(match.group(1)))
    if not libraries:
        raise BaseImageError("ldd found no shared libraries; is ldd (libc-bin) installed?")
    return libraries


def _copy_host_path(path: Path, rootfs: Path) -> None:
    """Copy the host file ``path`` to the same place under ``rootfs``, recreating every
    symbolic link met on the way (e.g. merged-/usr's /lib -> usr/lib)."""
    current = Path("/")
    parts = path.parts[1:]
    for index, part in enumerate(parts):
        host = current / part
        dest = rootfs / host.relative_to("/")
        if host.is_symlink():
            target = os.readlink(host)
            if not dest.is_symlink() and not dest.exists():
                dest.parent.mkdir(parents=True, exist_ok=True)
                dest.symlink_to(target)
            resolved = Path(os.path.normpath(host.parent / target)).joinpath(*parts[index + 1 :])
            _copy_host_path(resolved, rootfs)
            return
        current = host
    dest = rootfs / current.relative_to("/")
    if current.is_file() and not dest.exists():
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(current, dest)


def _copy_tree(source: Path, rootfs: Path, exclude: frozenset[str]) -> None:
    _copy_host_path(source, rootfs)  # recreates symlinked parents
    real = Path(os.path.realpath(source))
    shutil.copytree(
        real,
        rootfs / real.relative_to("/"),
        symlinks=True,
        dirs_exist_ok=True,
        ignore=lambda directory, names: [n for n in names if n in exclude],
    )


def _write_tar(rootfs: Path, archive: Path) -> None:
    def as_root(member: tarfile.TarInfo) -> tarfile.TarInfo:
        member.uid = member.gid = 0
        member.uname = member.gname = "root"
        return member

    with tarfile.open(archive, "w") as tar:
        for entry in sorted(rootfs.iterdir()):
            tar.add(entry, arcname=entry.name, filter=as_root)


def _import(
    client: Any, archive: Path, tag: str, recipe: str, info: PythonInfo, node: str | None
) -> str:
    repository, _, version = tag.partition(":")
    node_version = ""
    if node:
        node_version = subprocess.run(
            [node, "--version"], capture_output=True, text=True, check=False
        ).stdout.strip()
    environment = {
        "PATH": "/usr/local/bin:/usr/bin:/bin",
        "LANG": "C.UTF-8",
        "PYTHONUTF8": "1",
        "PYTHONDONTWRITEBYTECODE": "1",
        "PYTHONUNBUFFERED": "1",
        "NODE_PATH": NODE_MODULES_DIR,
        "HOME": "/tmp",
    }
    changes = [f"ENV {key}={value}" for key, value in environment.items()]
    changes += [
        f"LABEL {RECIPE_LABEL}={recipe}",
        f"LABEL hollywood.base.python={info.version}",
        f"LABEL hollywood.base.node={node_version or 'none'}",
        "WORKDIR /opt/bot",
        'CMD ["python3"]',
    ]
    try:
        client.api.import_image_from_file(
            str(archive), repository=repository, tag=version or "latest", changes=changes
        )
        return str(client.images.get(tag).id)
    except docker.errors.DockerException as error:
        raise BaseImageError(f"docker import of the base image failed: {error}") from error
