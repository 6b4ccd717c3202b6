"""BotManifest: bot.toml validation with specific errors, and the content hash."""

from __future__ import annotations

from pathlib import Path

import pytest

from arena.core.manifest import (
    BotManifest,
    ManifestError,
    content_hash,
    iter_bot_files,
    submission_problem,
)

GOOD = """
name = "my-bot"
version = "1.2.3"
language = "python"
author = "Ada"
description = "Plays."
[run]
command = ["python3", "-m", "my_bot"]
[build]
dockerfile = "Dockerfile"
"""


def make_bot(tmp_path: Path, manifest: str = GOOD, dockerfile: bool = True) -> Path:
    folder = tmp_path / "bot"
    folder.mkdir(exist_ok=True)
    (folder / "bot.toml").write_text(manifest)
    if dockerfile:
        (folder / "Dockerfile").write_text("FROM scratch\n")
    (folder / "my_bot.py").write_text("print('hi')\n")
    return folder


def test_loads_every_field(tmp_path: Path) -> None:
    manifest = BotManifest.load(make_bot(tmp_path))
    assert manifest == BotManifest(
        name="my-bot", version="1.2.3", language="python",
        run_command=("python3", "-m", "my_bot"), dockerfile="Dockerfile",
        author="Ada", description="Plays.",
    )


def test_optional_fields_default(tmp_path: Path) -> None:
    text = 'name = "b"\nversion = "1"\nlanguage = "js"\n[run]\ncommand = ["node", "b.js"]\n'
    manifest = BotManifest.load(make_bot(tmp_path, text))
    assert (manifest.author, manifest.description, manifest.dockerfile) == ("", "", "Dockerfile")


def test_sample_bots_load() -> None:
    root = Path(__file__).resolve().parents[3]
    names = {BotManifest.load(folder).name for folder in (root / "sample_bots").iterdir()
             if (folder / "bot.toml").exists()}
    assert {"greedy", "random", "shark", "js-greedy"} <= names


def _dockerfile_cmd(dockerfile: Path) -> list[str]:
    import json

    lines = [line for line in dockerfile.read_text().splitlines() if line.startswith("CMD")]
    assert lines, f"{dockerfile} has no CMD"
    command = json.loads(lines[-1].removeprefix("CMD").strip())
    assert isinstance(command, list)
    return [str(part) for part in command]


def test_sample_bots_start_the_same_way_in_docker_and_as_processes() -> None:
    # Docker runs the image's CMD, the process sandbox the manifest's run.command.
    root = Path(__file__).resolve().parents[3]
    for manifest_path in sorted((root / "sample_bots").glob("*/bot.toml")):
        manifest = BotManifest.load(manifest_path.parent)
        dockerfile = manifest_path.parent / manifest.dockerfile
        assert _dockerfile_cmd(dockerfile) == list(manifest.run_command), manifest.name


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (lambda t: t.replace('name = "my-bot"', 'name = "My Bot"'), "must match"),
        (lambda t: t.replace('name = "my-bot"', 'name = "' + "a" * 33 + '"'), "must match"),
        (lambda t: t.replace('name = "my-bot"\n', ""), "required field 'name' is missing"),
        (lambda t: t.replace('version = "1.2.3"', "version = 3"), "version must be a non-empty"),
        (lambda t: t.replace('language = "python"', 'language = ""'), "language must be"),
        (lambda t: t.replace('version = "1.2.3"', 'version = "1.2.3\u202e"'),
         "version '1.2.3\\u202e' must match [0-9A-Za-z][0-9A-Za-z.+_-]{0,39}"),
        (lambda t: t.replace('version = "1.2.3"', 'version = "1.2 3"'), "version '1.2 3' must"),
        (lambda t: t.replace('language = "python"', 'language = "py\u200bthon"'),
         "language 'py\\u200bthon' must match [a-z][a-z0-9+#-]{0,31}"),
        (lambda t: t.replace('command = ["python3", "-m", "my_bot"]', "command = []"),
         "run.command must be a non-empty list"),
        (lambda t: t.replace('command = ["python3", "-m", "my_bot"]', 'command = "python3"'),
         "run.command must be a non-empty list"),
        (lambda t: t.replace("[run]\ncommand = [\"python3\", \"-m\", \"my_bot\"]\n", ""),
         "required table [run] is missing"),
        (lambda t: t + 'colour = "red"\n', "unknown field(s) in [build]: colour"),
        (lambda t: 'colour = "red"\n' + t, "unknown field(s) colour"),
        (lambda t: t.replace('dockerfile = "Dockerfile"', 'dockerfile = "../Dockerfile"'),
         "must be a path inside the bot folder"),
        (lambda t: t.replace('dockerfile = "Dockerfile"', 'dockerfile = "Other"'),
         "'Other' does not exist"),
        (lambda t: t + "[[[", "invalid TOML"),
        (lambda t: t.replace('author = "Ada"', "author = 5"), "author must be a string"),
    ],
)
def test_invalid_manifests_name_the_problem(tmp_path: Path, edit: object, message: str) -> None:
    assert callable(edit)
    folder = make_bot(tmp_path, edit(GOOD))
    with pytest.raises(ManifestError) as caught:
        BotManifest.load(folder)
    assert message in str(caught.value)
    assert "bot.toml" in str(caught.value)


def test_missing_folder_and_manifest(tmp_path: Path) -> None:
    with pytest.raises(ManifestError, match="does not exist"):
        BotManifest.load(tmp_path / "nope")
    with pytest.raises(ManifestError, match="missing"):
        BotManifest.load(tmp_path)


def test_binary_manifest_is_rejected(tmp_path: Path) -> None:
    folder = make_bot(tmp_path)
    (folder / "bot.toml").write_bytes(b"\xff\xfe\x00")
    with pytest.raises(ManifestError, match="not UTF-8"):
        BotManifest.load(folder)


def test_content_hash_follows_files(tmp_path: Path) -> None:
    folder = make_bot(tmp_path)
    first = content_hash(folder)
    assert content_hash(folder) == first
    (folder / "__pycache__").mkdir()
    (folder / "__pycache__" / "x.pyc").write_bytes(b"cache")
    assert content_hash(folder) == first  # caches are not part of the bot
    (folder / "my_bot.py").write_text("print('changed')\n")
    changed = content_hash(folder)
    assert changed != first
    (folder / "my_bot.py").chmod(0o755)
    assert content_hash(folder) != changed  # the executable bit matters in an image
    (folder / "my_bot.py").rename(folder / "renamed.py")
    assert content_hash(folder) not in (first, changed)


def test_a_local_node_modules_install_is_not_part_of_the_bot(tmp_path: Path) -> None:
    folder = make_bot(tmp_path)
    first = content_hash(folder)
    modules = folder / "node_modules"
    (modules / "@grpc" / "grpc-js").mkdir(parents=True)
    (modules / "@grpc" / "grpc-js" / "index.js").write_text("module.exports = {};\n")
    (modules / ".bin").mkdir()
    (modules / ".bin" / "tool").symlink_to("../@grpc/grpc-js/index.js")  # npm makes these
    assert content_hash(folder) == first
    listed = [relative for relative, _ in iter_bot_files(folder)]
    assert "bot.toml" in listed
    assert not [relative for relative in listed if relative.startswith("node_modules")]


def test_symlinks_are_refused(tmp_path: Path) -> None:
    folder = make_bot(tmp_path)
    (folder / "secret").symlink_to("/etc/passwd")
    with pytest.raises(ManifestError, match="symbolic links are not allowed"):
        content_hash(folder)


def test_every_sample_bot_passes_the_upload_rules() -> None:
    """The sample bots are what authors copy: each must be uploadable as it is."""
    samples = sorted((Path(__file__).parents[3] / "sample_bots").glob("*/bot.toml"))
    assert len(samples) >= 5
    for path in samples:
        assert submission_problem(BotManifest.load(path.parent)) is None, path
