"""A bot's build context holds hollywood-sdk as an installed distribution: its
metadata is the SDK's pyproject's (name, version, floors, written out here by hand),
its RECORD's hashes are its files', importlib.metadata finds it with nothing else on
the path, and a Python bot's image reports it installed."""

from __future__ import annotations

import base64
import hashlib
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from arena.sandbox.images import build_bot_image, stage_build_context
from arena.sandbox.sdk_package import install_sdk

REPO = Path(__file__).resolve().parents[3]
GREEDY = REPO / "sample_bots" / "greedy"
PROBE = ("import importlib.metadata as m; d = m.distribution('hollywood-sdk');"
         "print(d.version); print(d.metadata['Requires-Python']); print(sorted(d.requires));"
         "print(d.read_text('top_level.txt').strip())")
EXPECTED = ["0.1.0", ">=3.11", "['grpcio>=1.85.4', 'protobuf>=7.35.1']", "hollywood_sdk"]


def test_the_sdk_is_installed_with_its_pyprojects_metadata(tmp_path: Path) -> None:
    assert install_sdk(tmp_path) is True
    assert (tmp_path / "hollywood_sdk" / "bot.py").is_file()
    assert not list(tmp_path.rglob("__pycache__"))
    found = subprocess.run([sys.executable, "-I", "-c", f"import sys; sys.path.insert(0, "
                            f"{str(tmp_path)!r}); {PROBE}"], capture_output=True, text=True,
                           timeout=60, check=True)
    assert found.stdout.splitlines() == EXPECTED


def test_its_record_names_every_file_with_its_hash(tmp_path: Path) -> None:
    install_sdk(tmp_path)
    info = tmp_path / "hollywood_sdk-0.1.0.dist-info"
    rows = [line.split(",") for line in (info / "RECORD").read_text().splitlines()]
    recorded = {name for name, _, _ in rows}
    on_disk = {p.relative_to(tmp_path).as_posix() for p in tmp_path.rglob("*") if p.is_file()}
    assert recorded == on_disk
    for name, digest, size in rows:
        if name.endswith("RECORD"):
            assert (digest, size) == ("", "")
            continue
        data = (tmp_path / name).read_bytes()
        expected = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=")
        assert digest == "sha256=" + expected.decode()
        assert int(size) == len(data)


def test_without_an_sdk_nothing_is_written(tmp_path: Path) -> None:
    assert install_sdk(tmp_path / "site", root=tmp_path / "no-sdk") is False
    assert not (tmp_path / "site").exists()


def test_a_staged_context_holds_the_installed_sdk(tmp_path: Path) -> None:
    stage_build_context(GREEDY, tmp_path)
    info = tmp_path / ".hollywood" / "python" / "hollywood_sdk-0.1.0.dist-info"
    assert (info / "METADATA").read_text().startswith(
        "Metadata-Version: 2.1\nName: hollywood-sdk\nVersion: 0.1.0\n")


@pytest.mark.docker
def test_a_python_bots_image_has_hollywood_sdk_installed(
        tmp_path: Path, docker_client: Any, base_image: str) -> None:
    image = build_bot_image(GREEDY, client=docker_client, base_image=base_image,
                            log_dir=tmp_path / "logs")
    output = docker_client.containers.run(image.tag, ["python3", "-c", PROBE], remove=True,
                                          network_mode="none").decode()
    assert output.splitlines() == EXPECTED
