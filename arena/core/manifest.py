"""Bot manifests: the ``bot.toml`` in every bot folder (see docs/design.md).

``BotManifest.load(folder)`` reads and validates the manifest; every problem raises
``ManifestError`` naming the file, the field and what is wrong with it.
``content_hash(folder)`` fingerprints the bot's files, so an image is rebuilt only
when something in the folder changed.
"""

from __future__ import annotations

import fnmatch
import hashlib
import os
import re
import tomllib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any

from arena.core.sizes import human_size
from arena.core.text import first_forbidden
from arena.core.toml_limits import MAX_NESTING, deeply_nested_key, nested_beyond, too_deep

MANIFEST_NAME = "bot.toml"
NAME_PATTERN = re.compile(r"[a-z0-9][a-z0-9-]{0,31}")
VERSION_PATTERN = re.compile(r"[0-9A-Za-z][0-9A-Za-z.+_-]{0,39}")
LANGUAGE_PATTERN = re.compile(r"[a-z][a-z0-9+#-]{0,31}")
MAX_MANIFEST_BYTES = 64 * 1024
MAX_FIELD_CHARS = 200
MAX_DESCRIPTION_CHARS = 2000
MAX_COMMAND_ARGS = 64
MAX_SHOWN_CHARS = 80
SDK_CLASS_PATTERN = re.compile(r"([A-Za-z_][A-Za-z0-9_]*):([A-Za-z_][A-Za-z0-9_]*)")

# Never part of a bot's identity (never uploaded, never copied into its image build
# context): version control, caches, and node_modules, a local `npm ci` install (full
# of .bin symlinks) that the bot's Dockerfile installs from package-lock.json, like
# pip for Python bots. A bot folder's ``.arenaignore`` adds its own patterns.
IGNORED_NAMES = frozenset(
    {".git", ".hg", ".svn", "__pycache__", ".mypy_cache", ".pytest_cache", ".ruff_cache",
     "node_modules"}
)
IGNORED_SUFFIXES = (".pyc", ".pyo")
IGNORE_FILE = ".arenaignore"
RELEASE_VERSION_PATTERN = re.compile(r"(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)"
                                     r"(-[0-9A-Za-z][0-9A-Za-z.-]*)?")
"""The version form an uploaded bot must use (``MAJOR.MINOR.PATCH[-suffix]``): a
subset of ``VERSION_PATTERN``, which versions registered before uploads may use."""
MAX_SUBMITTED_TEXT_CHARS = 200

_TOP_LEVEL_KEYS = frozenset(
    {"name", "version", "language", "author", "description", "run", "build"}
)


class ManifestError(ValueError):
    """The bot folder or its ``bot.toml`` is missing or invalid; the message says why."""


@dataclass(frozen=True)
class BotManifest:
    """The validated content of a bot's ``bot.toml``."""

    name: str
    version: str
    language: str
    run_command: tuple[str, ...]
    dockerfile: str = "Dockerfile"
    author: str = ""
    description: str = ""
    sdk_class: str = ""
    """``module:Class`` of a Python SDK bot class in the folder (``[run] sdk_class``),
    which the ``inprocess`` sandbox serves inside the arena; empty if not given."""

    @classmethod
    def load(cls, folder: Path | str) -> BotManifest:
        """Read ``folder/bot.toml``; raise ``ManifestError`` on any problem."""
        folder = Path(folder)
        if not folder.is_dir():
            raise ManifestError(f"bot folder {folder} does not exist or is not a directory")
        path = folder / MANIFEST_NAME
        if not path.is_file():
            raise ManifestError(f"{path}: missing (every bot folder needs a {MANIFEST_NAME})")
        raw = path.read_bytes()
        if len(raw) > MAX_MANIFEST_BYTES:
            raise ManifestError(f"{path}: {human_size(len(raw))}, larger than "
                                f"{human_size(MAX_MANIFEST_BYTES)}")
        try:
            text = raw.decode("utf-8")
            data = tomllib.loads(text)
        except UnicodeDecodeError as error:
            raise ManifestError(f"{path}: not UTF-8 text ({error})") from None
        except tomllib.TOMLDecodeError as error:
            raise ManifestError(f"{path}: invalid TOML: {error}") from None
        except RecursionError:  # the parser recurses once per level of nesting
            raise ManifestError(f"{path}: {too_deep(deeply_nested_key(text))}") from None
        manifest = cls.from_dict(data, source=str(path))
        ignored = ignored_because(folder, manifest.dockerfile)
        if ignored is not None:
            raise ManifestError(
                f"{path}: build.dockerfile {manifest.dockerfile!r} is left out of the bot's "
                f"files ({ignored}): the build would never see it; move it or change "
                f"{IGNORE_FILE}")
        dockerfile = folder / manifest.dockerfile
        if not dockerfile.is_file():
            raise ManifestError(
                f"{path}: build.dockerfile {manifest.dockerfile!r} does not exist in {folder}"
            )
        if manifest.sdk_class and sdk_module_path(folder, manifest.sdk_class) is None:
            module = manifest.sdk_class.partition(":")[0]
            raise ManifestError(
                f"{path}: run.sdk_class {manifest.sdk_class!r} names module {module!r}, but "
                f"{folder} has no {module}.py (nor {module}/__init__.py)"
            )
        return manifest

    @classmethod
    def from_dict(cls, data: dict[str, Any], source: str = MANIFEST_NAME) -> BotManifest:
        """Validate an already parsed manifest; ``source`` prefixes error messages."""
        deep = nested_beyond(data, MAX_NESTING)
        if deep is not None:
            raise ManifestError(f"{source}: {too_deep(deep)}")
        unknown = sorted(set(data) - _TOP_LEVEL_KEYS)
        if unknown:
            names = ", ".join(unknown)
            cut = names if len(names) <= MAX_SHOWN_CHARS else names[:MAX_SHOWN_CHARS] + "..."
            raise ManifestError(f"{source}: unknown field(s) {cut}")
        name = _required_string(data, "name", source)
        if not NAME_PATTERN.fullmatch(name):
            raise ManifestError(
                f"{source}: name {name!r} must match [a-z0-9][a-z0-9-]{{0,31}} "
                "(lower-case letters, digits and '-', at most 32 characters)"
            )
        # Identifiers are strict (no look-alikes with invisible or bidi characters);
        # free texts are neutralised (arena.core.text) when stored and shown.
        version = _required_string(data, "version", source)
        if not VERSION_PATTERN.fullmatch(version):
            raise ManifestError(
                f"{source}: version {version!r} must match [0-9A-Za-z][0-9A-Za-z.+_-]"
                "{0,39} (ASCII letters, digits, '.', '+', '_' and '-', at most 40 characters)")
        language = _required_string(data, "language", source)
        if not LANGUAGE_PATTERN.fullmatch(language):
            raise ManifestError(
                f"{source}: language {language!r} must match [a-z][a-z0-9+#-]{{0,31}} "
                "(e.g. python, javascript)")
        author = _optional_string(data, "author", source, MAX_FIELD_CHARS)
        description = _optional_string(data, "description", source, MAX_DESCRIPTION_CHARS)

        run = _table(data, "run", source, required=True)
        unknown_run = sorted(set(run) - {"command", "sdk_class"})
        if unknown_run:
            raise ManifestError(f"{source}: unknown field(s) in [run]: {', '.join(unknown_run)}")
        command = run.get("command")
        if (
            not isinstance(command, list)
            or not command
            or not all(isinstance(arg, str) and arg for arg in command)
        ):
            raise ManifestError(
                f"{source}: run.command must be a non-empty list of non-empty strings "
                f'(an argv such as ["python3", "-m", "my_bot"]), got {_shown(command)}'
            )
        if len(command) > MAX_COMMAND_ARGS:
            raise ManifestError(f"{source}: run.command has {len(command)} arguments, at "
                                f"most {MAX_COMMAND_ARGS} allowed")
        if any(len(arg) > MAX_FIELD_CHARS for arg in command):
            raise ManifestError(f"{source}: run.command has an argument longer than "
                                f"{MAX_FIELD_CHARS} characters")

        sdk_class = run.get("sdk_class", "")
        if not isinstance(sdk_class, str) or len(sdk_class) > MAX_FIELD_CHARS or (
            sdk_class and not SDK_CLASS_PATTERN.fullmatch(sdk_class)
        ):
            raise ManifestError(
                f"{source}: run.sdk_class must be \"module:Class\" (a module of the bot "
                f'folder and a class in it, e.g. "greedy_bot:GreedyBot"), got {_shown(sdk_class)}'
            )

        build = _table(data, "build", source, required=False)
        unknown_build = sorted(set(build) - {"dockerfile"})
        if unknown_build:
            raise ManifestError(
                f"{source}: unknown field(s) in [build]: {', '.join(unknown_build)}"
            )
        dockerfile = build.get("dockerfile", "Dockerfile")
        if not isinstance(dockerfile, str) or not dockerfile:
            raise ManifestError(f"{source}: build.dockerfile must be a non-empty string")
        if len(dockerfile) > MAX_FIELD_CHARS:
            raise ManifestError(f"{source}: build.dockerfile is longer than {MAX_FIELD_CHARS} "
                                "characters")
        relative = PurePosixPath(dockerfile)
        if relative.is_absolute() or ".." in relative.parts:
            raise ManifestError(
                f"{source}: build.dockerfile {dockerfile!r} must be a path inside the bot folder "
                "(relative, without '..')"
            )
        return cls(
            name=name,
            version=version,
            language=language,
            run_command=tuple(command),
            dockerfile=dockerfile,
            author=author,
            description=description,
            sdk_class=sdk_class,
        )

    def content_hash(self, folder: Path | str) -> str:
        """SHA-256 (hex) of every file of the bot folder; see ``content_hash``."""
        return content_hash(folder)


def sdk_module_path(folder: Path | str, sdk_class: str) -> Path | None:
    """The file of ``sdk_class``'s module in ``folder`` (``module.py``, else a package's
    ``module/__init__.py``), or ``None`` if it has neither."""
    module = sdk_class.partition(":")[0]
    for candidate in (Path(folder) / f"{module}.py", Path(folder) / module / "__init__.py"):
        if candidate.is_file():
            return candidate
    return None


def content_hash(folder: Path | str) -> str:
    """SHA-256 (hex) over the relative path, executable bit and bytes of every file in
    ``folder`` (caches and byte code excluded), in a fixed order. Two folders hash
    alike exactly when a build would see the same files."""
    folder = Path(folder)
    digest = hashlib.sha256()
    for relative, path in iter_bot_files(folder):
        executable = os.access(path, os.X_OK)
        digest.update(f"{relative}\0{int(executable)}\0".encode())
        with path.open("rb") as handle:  # in pieces: an upload's file may be 100 MiB
            digest.update(hashlib.file_digest(handle, "sha256").digest())
    return digest.hexdigest()


def submission_problem(manifest: BotManifest) -> str | None:
    """What stops ``manifest`` from being uploaded beyond ``BotManifest.load``'s own
    checks (a release version, short display texts without hidden characters), or
    ``None``. The name rule is ``NAME_PATTERN`` for every bot."""
    if not RELEASE_VERSION_PATTERN.fullmatch(manifest.version):
        return (f"bot.toml: version {manifest.version!r} must be MAJOR.MINOR.PATCH with an "
                "optional -suffix (e.g. 1.0.0 or 2.1.0-beta.1)")
    for field, value in (("author", manifest.author), ("description", manifest.description)):
        if len(value) > MAX_SUBMITTED_TEXT_CHARS:
            return (f"bot.toml: {field} is {len(value)} characters, at most "
                    f"{MAX_SUBMITTED_TEXT_CHARS} allowed")
        problem = first_forbidden(value, multiline=False)
        if problem is not None:
            return f"bot.toml: {field} contains {problem}, which is not allowed"
    return None


def ignore_patterns(folder: Path) -> tuple[str, ...]:
    """The patterns of ``folder``'s ``.arenaignore`` (one per line, ``#`` comments,
    shell wildcards matched against the relative path and the file or folder name; a
    trailing ``/`` is allowed)."""
    path = folder / IGNORE_FILE
    if not path.is_file():
        return ()
    lines = (line.strip() for line in path.read_text(errors="replace").splitlines())
    return tuple(line.rstrip("/") for line in lines if line and not line.startswith("#"))


def _ignored(relative: str, patterns: tuple[str, ...]) -> bool:
    name = relative.rpartition("/")[2]
    return any(fnmatch.fnmatchcase(relative, pattern) or fnmatch.fnmatchcase(name, pattern)
               for pattern in patterns)


def iter_bot_files(folder: Path) -> Iterator[tuple[str, Path]]:
    """(posix relative path, path) of every regular file in ``folder``, sorted,
    without ``IGNORED_NAMES`` and what its ``.arenaignore`` lists.

    Raises ``ManifestError`` for a symbolic link: a bot's files are copied into its
    image, and a link could pull in a file from outside the folder."""
    patterns = ignore_patterns(folder)
    for root, dirs, files in os.walk(folder):
        root_path = Path(root)
        prefix = "" if root_path == folder else root_path.relative_to(folder).as_posix() + "/"
        dirs[:] = sorted(d for d in dirs
                         if d not in IGNORED_NAMES and not _ignored(prefix + d, patterns))
        for directory in dirs:
            if (root_path / directory).is_symlink():
                raise ManifestError(
                    f"{root_path / directory}: symbolic links are not allowed in a bot folder"
                )
        for name in sorted(files):
            if name in IGNORED_NAMES or name.endswith(IGNORED_SUFFIXES):
                continue
            if _ignored(prefix + name, patterns):
                continue
            path = root_path / name
            if path.is_symlink():
                raise ManifestError(f"{path}: symbolic links are not allowed in a bot folder")
            if not path.is_file():
                continue
            yield path.relative_to(folder).as_posix(), path


def _shown(value: object) -> str:
    """``value`` as a message quotes it: its repr, cut short."""
    text = repr(value)
    return text if len(text) <= MAX_SHOWN_CHARS else text[:MAX_SHOWN_CHARS] + "... (cut)"


def ignored_because(folder: Path, relative: str) -> str | None:
    """Why the file ``relative`` of ``folder`` is left out of the bot's files (never
    uploaded nor built), or None if it is one of them."""
    parts = PurePosixPath(relative).parts
    patterns = ignore_patterns(folder)
    for count, part in enumerate(parts, 1):
        prefix = "/".join(parts[:count])
        if part in IGNORED_NAMES:
            return f"{part!r} is never part of a bot"
        if _ignored(prefix, patterns):
            return f"{IGNORE_FILE} leaves out {prefix!r}"
    if parts and parts[-1].endswith(IGNORED_SUFFIXES):
        return f"{', '.join(IGNORED_SUFFIXES)} files are never part of a bot"
    return None


def _required_string(data: dict[str, Any], key: str, source: str) -> str:
    value = data.get(key)
    if value is None:
        raise ManifestError(f"{source}: required field {key!r} is missing")
    if not isinstance(value, str) or not value.strip():
        raise ManifestError(f"{source}: {key} must be a non-empty string, got {_shown(value)}")
    if len(value) > MAX_FIELD_CHARS:
        raise ManifestError(f"{source}: {key} is longer than {MAX_FIELD_CHARS} characters")
    return value


def _optional_string(data: dict[str, Any], key: str, source: str, limit: int) -> str:
    value = data.get(key, "")
    if not isinstance(value, str):
        raise ManifestError(f"{source}: {key} must be a string, got {_shown(value)}")
    if len(value) > limit:
        raise ManifestError(f"{source}: {key} is longer than {limit} characters")
    return value


def _table(data: dict[str, Any], key: str, source: str, *, required: bool) -> dict[str, Any]:
    value = data.get(key)
    if value is None:
        if required:
            raise ManifestError(f"{source}: required table [{key}] is missing")
        return {}
    if not isinstance(value, dict):
        raise ManifestError(f"{source}: {key} must be a table ([{key}]), got {_shown(value)}")
    return value
