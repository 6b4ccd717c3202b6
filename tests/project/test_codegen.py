"""arena.codegen: generation from every .proto, and the stale-stub check."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from arena import codegen

EXTRA_PROTO = """
syntax = "proto3";
package hollywood.extra.v1;
import "hollywood/bot/v1/bot.proto";
// A second package, to show generation is not tied to the bot protocol.
service ExtraService { rpc Ping(PingRequest) returns (PingResponse); }
message PingRequest { hollywood.bot.v1.Action action = 1; }
message PingResponse {}
"""


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("gen") / "python"
    codegen.generate(out)
    return out


def test_generates_stubs_type_stubs_and_packages(generated: Path) -> None:
    v1 = generated / "hollywood" / "bot" / "v1"
    for name in ("bot_pb2.py", "bot_pb2.pyi", "bot_pb2_grpc.py", "bot_pb2_grpc.pyi",
                 "__init__.py", "py.typed"):
        assert (v1 / name).is_file(), name
    assert (generated / "hollywood" / "__init__.py").is_file()


def test_installed_stubs_match_the_proto_sources() -> None:
    difference = codegen.check(codegen.GENERATED_ROOT)
    assert difference.clean, difference.summary()


def test_every_proto_is_generated_including_other_packages(tmp_path: Path) -> None:
    root = tmp_path / "proto"
    shutil.copytree(codegen.PROTO_ROOT / "hollywood", root / "hollywood")
    (root / "hollywood" / "extra" / "v1").mkdir(parents=True)
    (root / "hollywood" / "extra" / "v1" / "extra.proto").write_text(EXTRA_PROTO)
    files = codegen.generate(tmp_path / "out", root)
    names = {str(path) for path in files}
    assert "hollywood/extra/v1/extra_pb2_grpc.py" in names
    assert "hollywood/bot/v1/bot_pb2.py" in names
    source = (tmp_path / "out" / "hollywood/extra/v1/extra_pb2.py").read_text()
    assert "from hollywood.bot.v1 import bot_pb2" in source


def test_check_reports_changed_missing_and_unexpected_files(
    generated: Path, tmp_path: Path
) -> None:
    copy = tmp_path / "copy"
    shutil.copytree(generated, copy)
    (copy / "hollywood/bot/v1/bot_pb2.py").write_text("# edited by hand\n")
    (copy / "hollywood/bot/v1/bot_pb2_grpc.pyi").unlink()
    (copy / "hollywood/bot/v1/stale_pb2.py").write_text("")
    difference = codegen.compare_trees(generated, copy)
    assert difference.changed.keys() == {"hollywood/bot/v1/bot_pb2.py"}
    assert difference.missing == ["hollywood/bot/v1/bot_pb2_grpc.pyi"]
    assert difference.unexpected == ["hollywood/bot/v1/stale_pb2.py"]
    summary = difference.summary()
    assert "differs from what the .proto files generate: hollywood/bot/v1/bot_pb2.py" in summary
    assert "--- generated/hollywood/bot/v1/bot_pb2.py" in summary
    assert "more lines" in summary  # long diffs are cut short


def test_check_command_fails_with_a_summary_on_stale_stubs(
    generated: Path, tmp_path: Path
) -> None:
    copy = tmp_path / "copy"
    shutil.copytree(generated, copy)
    (copy / "hollywood/bot/v1/bot_pb2.pyi").write_text("stale\n")
    result = subprocess.run(
        [sys.executable, "-m", "arena.codegen", "--check", "--against", str(copy)],
        capture_output=True, text=True, check=False,
    )
    assert result.returncode == 1
    assert "do not match proto/" in result.stderr
    assert "bot_pb2.pyi" in result.stderr
    ok = subprocess.run(
        [sys.executable, "-m", "arena.codegen", "--check", "--against", str(generated)],
        capture_output=True, text=True, check=False,
    )
    assert ok.returncode == 0, ok.stderr


def _lower_bound(requirements: list[str], package: str) -> tuple[int, ...]:
    for requirement in requirements:
        name, _, bound = requirement.partition(">=")
        if name.strip() == package:
            return tuple(int(part) for part in bound.split(".") if part.isdigit())
    raise AssertionError(f"{package} has no lower bound in pyproject.toml")


def test_pinned_runtimes_can_load_the_stubs_the_build_generates(generated: Path) -> None:
    # Generated code refuses to import on an older protobuf or grpcio than the
    # generator's, so the lower bounds users install must not be older.
    import re
    import tomllib

    project = tomllib.loads((codegen.REPO_ROOT / "pyproject.toml").read_text())["project"]
    runtime = project["dependencies"]
    pb2 = (generated / "hollywood" / "bot" / "v1" / "bot_pb2.py").read_text()
    pb2_grpc = (generated / "hollywood" / "bot" / "v1" / "bot_pb2_grpc.py").read_text()
    protobuf_match = re.search(r"Protobuf Python Version: ([\d.]+)", pb2)
    grpc_match = re.search(r"GRPC_GENERATED_VERSION = '([\d.]+)'", pb2_grpc)
    assert protobuf_match and grpc_match
    protobuf_needed = tuple(int(p) for p in protobuf_match.group(1).split("."))
    grpc_needed = tuple(int(p) for p in grpc_match.group(1).split("."))
    assert _lower_bound(runtime, "protobuf") >= protobuf_needed
    assert _lower_bound(runtime, "grpcio") >= grpc_needed
