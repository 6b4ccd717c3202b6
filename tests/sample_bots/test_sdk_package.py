"""hollywood-sdk is a package of its own: `make sdk` writes a wheel holding the SDK and
the protocol's generated stubs, whose metadata names it and its floors, and which a
bot imports from alone (no checkout on its path)."""

from __future__ import annotations

import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

from packaging.requirements import Requirement

REPO = Path(__file__).resolve().parents[2]
SDK_PYPROJECT = REPO / "sample_bots" / "sdk" / "python" / "pyproject.toml"


def _floors(requirements: list[str]) -> dict[str, str]:
    return {Requirement(text).name: str(Requirement(text).specifier) for text in requirements}


def test_the_sdk_asks_for_the_same_grpcio_and_protobuf_as_the_arena() -> None:
    arena = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["dependencies"]
    sdk = tomllib.loads(SDK_PYPROJECT.read_text())["project"]
    assert sdk["name"] == "hollywood-sdk"
    assert _floors(sdk["dependencies"]) == {
        name: floor for name, floor in _floors(arena).items() if name in ("grpcio", "protobuf")}
    assert set(_floors(sdk["dependencies"])) == {"grpcio", "protobuf"}


def _build_wheel(tmp_path: Path) -> Path:
    stubs = REPO / "proto" / "gen" / "python" / "hollywood" / "bot" / "v1" / "bot_pb2.py"
    assert stubs.is_file(), "run `make stubs` first: the wheel carries the generated stubs"
    dist = tmp_path / "dist"
    # -o: never remake the venv or the stubs from inside a test run (they are current).
    result = subprocess.run(
        ["make", "--no-print-directory", "-o", ".venv/.installed", "-o", "proto/gen/.generated",
         "sdk", f"DIST={dist}", f"SDK_BUILD={tmp_path / 'sdk-build'}"],
        cwd=REPO, capture_output=True, text=True, timeout=600, check=False)
    assert result.returncode == 0, result.stdout + result.stderr
    [wheel] = dist.glob("*.whl")
    return wheel


def test_make_sdk_builds_a_wheel_a_bot_can_import_alone(tmp_path: Path) -> None:
    wheel = _build_wheel(tmp_path)
    assert wheel.name == "hollywood_sdk-0.1.0-py3-none-any.whl"
    names = set(zipfile.ZipFile(wheel).namelist())
    for expected in ("hollywood_sdk/__init__.py", "hollywood_sdk/bot.py", "hollywood_sdk/py.typed",
                     "hollywood/bot/v1/bot_pb2.py", "hollywood/bot/v1/bot_pb2_grpc.py",
                     "hollywood/bot/v1/bot_pb2.pyi", "hollywood/bot/v1/py.typed"):
        assert expected in names
    assert not any("__pycache__" in name or name.endswith(".pyc") for name in names)
    metadata = zipfile.ZipFile(wheel).read("hollywood_sdk-0.1.0.dist-info/METADATA").decode()
    assert "Name: hollywood-sdk" in metadata
    assert "Requires-Dist: grpcio>=1.85.4" in metadata

    # A pure wheel unpacked onto the path is installed: what a bot's image does.
    site = tmp_path / "site"
    zipfile.ZipFile(wheel).extractall(site)
    probe = ("import importlib.metadata, hollywood_sdk, hollywood.bot.v1.bot_pb2_grpc as g;"
             "print(importlib.metadata.version('hollywood-sdk'));"
             "print(hollywood_sdk.__file__); print(g.__file__)")
    result = subprocess.run([sys.executable, "-c", probe], cwd=tmp_path, capture_output=True,
                            text=True, timeout=120, check=False,
                            env={"PYTHONPATH": str(site), "PATH": "/usr/bin:/bin"})
    assert result.returncode == 0, result.stderr
    version, sdk_file, stubs_file = result.stdout.split()
    assert version == "0.1.0"
    assert Path(sdk_file).is_relative_to(site)
    assert Path(stubs_file).is_relative_to(site)
