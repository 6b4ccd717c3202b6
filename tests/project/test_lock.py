"""requirements/*.lock: every install comes from the lock, and the lock agrees with pyproject."""

from __future__ import annotations

import importlib.metadata
import re
import tomllib
from pathlib import Path

import pytest
from packaging.markers import Marker
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

REPO = Path(__file__).resolve().parents[2]
DEV_LOCK = REPO / "requirements" / "dev.lock"
RUNTIME_LOCK = REPO / "requirements" / "runtime.lock"
PIN = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)==([^\s;\\]+)\s*(?:;\s*([^\\]*?))?\s*\\?$")


def read_lock(text: str) -> dict[str, tuple[str, int]]:
    """Each name locked for this interpreter, with its pinned version and its hash count.

    The lock is universal: a name may be pinned once per environment marker (numpy for
    Python 3.11 and for 3.12+); only the pins whose marker holds here are kept.
    """
    pins: dict[str, tuple[str, int]] = {}
    current: str | None = None
    for line in text.splitlines():
        match = PIN.match(line)
        if match:
            name, version, marker = match.groups()
            current = canonicalize_name(name)
            if marker and not Marker(marker).evaluate():
                current = None
                continue
            if current in pins:
                raise AssertionError(f"{current} is pinned twice for this interpreter")
            pins[current] = (version, 0)
        elif line.strip().startswith("--hash=sha256:"):
            if current:
                version, hashes = pins[current]
                pins[current] = (version, hashes + 1)
        elif line.strip() and not line.startswith((" ", "#")):
            raise AssertionError(f"a lock line that is not a pin: {line!r}")
    return pins


def project_requirements() -> tuple[list[Requirement], list[Requirement]]:
    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    runtime = [Requirement(text) for text in project["dependencies"]]
    dev = [Requirement(text) for text in project["optional-dependencies"]["dev"]]
    return runtime, dev


def test_read_lock_parses_pins_and_counts_hashes() -> None:
    text = (
        "# a comment\n"
        "grpcio==1.85.4 \\\n"
        "    --hash=sha256:aa \\\n"
        "    --hash=sha256:bb\n"
        "    # via hollywood-arena\n"
        "Typing_Extensions==4.15.0 ; python_full_version >= '3.11' \\\n"
        "    --hash=sha256:cc\n"
        "numpy==1.0 ; python_full_version < '3.11' \\\n"
        "    --hash=sha256:dd\n"
    )
    assert read_lock(text) == {"grpcio": ("1.85.4", 2), "typing-extensions": ("4.15.0", 1)}
    with pytest.raises(AssertionError, match="not a pin"):
        read_lock("grpcio>=1.0\n")


def test_every_project_requirement_is_locked_at_a_version_it_allows() -> None:
    dev_pins = read_lock(DEV_LOCK.read_text())
    runtime, dev = project_requirements()
    for requirement in [*runtime, *dev]:
        name = canonicalize_name(requirement.name)
        assert name in dev_pins, f"{name} is in pyproject.toml but not in the lock: make lock"
        version = dev_pins[name][0]
        assert requirement.specifier.contains(version, prereleases=True), (
            f"the lock pins {name}=={version}, which pyproject.toml's {requirement} refuses"
        )


def test_every_pin_carries_hashes() -> None:
    for lock in (DEV_LOCK, RUNTIME_LOCK):
        for name, (_, hashes) in read_lock(lock.read_text()).items():
            assert hashes > 0, f"{lock.name}: {name} has no hash"


def test_the_runtime_lock_is_the_dev_lock_cut_to_the_runtime() -> None:
    dev_pins = read_lock(DEV_LOCK.read_text())
    runtime_pins = read_lock(RUNTIME_LOCK.read_text())
    runtime, _ = project_requirements()
    for requirement in runtime:
        assert canonicalize_name(requirement.name) in runtime_pins
    assert "pytest" not in runtime_pins and "grpcio-tools" not in runtime_pins
    for name, (version, _) in runtime_pins.items():
        assert dev_pins[name][0] == version, f"{name}: runtime {version}, dev {dev_pins[name][0]}"


def test_the_stub_generator_and_the_runtime_floors_come_from_the_lock() -> None:
    # Stubs made by grpcio-tools X refuse to import on a grpcio older than X, so the floor
    # users install must reach the generator the lock pins.
    dev_pins = read_lock(DEV_LOCK.read_text())
    runtime, _ = project_requirements()
    floors: dict[str, str] = {
        str(canonicalize_name(r.name)): spec.version
        for r in runtime for spec in r.specifier if spec.operator == ">="
    }
    generator = dev_pins["grpcio-tools"][0]
    assert tuple(map(int, floors["grpcio"].split("."))) >= tuple(map(int, generator.split("."))), (
        f"grpcio>={floors['grpcio']} is below the locked generator grpcio-tools=={generator}"
    )


def test_the_venv_holds_exactly_the_locked_versions() -> None:
    pins = read_lock(DEV_LOCK.read_text())
    for name in ("grpcio", "grpcio-tools", "protobuf", "pytest", "setuptools"):
        assert importlib.metadata.version(name) == pins[name][0], (
            f"{name} {importlib.metadata.version(name)} is installed, the lock says "
            f"{pins[name][0]}: make setup installs from the lock"
        )
    installed = {
        canonicalize_name(d.metadata["Name"]) for d in importlib.metadata.distributions()
    }
    unlocked = installed - set(pins) - {"hollywood-arena"}
    assert not unlocked, f"installed but not locked: {sorted(unlocked)}"
