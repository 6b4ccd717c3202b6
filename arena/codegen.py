"""Generate the Python gRPC stubs from every ``.proto`` under ``proto/``.

``python -m arena.codegen`` writes ``*_pb2.py``, ``*_pb2_grpc.py`` and their
``.pyi`` type stubs (mypy-protobuf) into ``proto/gen/python/`` (git-ignored), with
an ``__init__.py`` and ``py.typed`` in every package directory.

``--link-venv`` also writes ``hollywood.pth`` into the running interpreter's
site-packages, putting ``proto/gen/python`` and ``sample_bots/sdk/python`` on the
path, so ``from hollywood.bot.v1 import bot_pb2`` and ``import hollywood_sdk`` work
in the venv exactly as they do inside a bot's container (where both live under
``/opt/hollywood/python``).

``--check`` regenerates into a temporary directory and compares it with the
generated tree (or ``--against DIR``, e.g. a staged ``.hollywood/python``); it
exits 1 with a summary of missing, unexpected and differing files when they do
not match, so stale or hand-edited stubs are caught.
"""

from __future__ import annotations

import argparse
import difflib
import filecmp
import shutil
import sys
import sysconfig
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
PROTO_ROOT = REPO_ROOT / "proto"
GENERATED_ROOT = PROTO_ROOT / "gen" / "python"
SDK_ROOT = REPO_ROOT / "sample_bots" / "sdk" / "python"
PTH_NAME = "hollywood.pth"


class CodegenError(RuntimeError):
    """protoc failed or a needed plugin is missing; the message says which."""


def find_proto_files(proto_root: Path = PROTO_ROOT) -> list[Path]:
    """Every ``.proto`` under ``proto_root`` (skipping generated output), sorted."""
    generated = proto_root / "gen"
    return sorted(
        path for path in proto_root.rglob("*.proto") if generated not in path.parents
    )


def _plugin(name: str) -> Path:
    """A protoc plugin installed next to the running interpreter (the venv's bin)."""
    candidate = Path(sys.executable).parent / name
    if candidate.exists():
        return candidate
    found = shutil.which(name)
    if found is None:
        raise CodegenError(f"{name} not found; install the dev extras (mypy-protobuf)")
    return Path(found)


def generate(out_dir: Path, proto_root: Path = PROTO_ROOT) -> list[Path]:
    """Generate stubs for every proto under ``proto_root`` into ``out_dir`` (emptied
    first). Returns the generated files relative to ``out_dir``."""
    from grpc_tools import protoc  # type: ignore[import-untyped]  # dev-only dependency

    protos = find_proto_files(proto_root)
    if not protos:
        raise CodegenError(f"no .proto files under {proto_root}")
    if out_dir.exists():
        shutil.rmtree(out_dir)
    out_dir.mkdir(parents=True)
    well_known = resources.files("grpc_tools") / "_proto"
    args = [
        "grpc_tools.protoc",
        f"-I{proto_root}",
        f"-I{well_known}",
        f"--plugin=protoc-gen-mypy={_plugin('protoc-gen-mypy')}",
        f"--plugin=protoc-gen-mypy_grpc={_plugin('protoc-gen-mypy_grpc')}",
        f"--python_out={out_dir}",
        f"--grpc_python_out={out_dir}",
        f"--mypy_out=quiet:{out_dir}",
        f"--mypy_grpc_out=quiet:{out_dir}",
        *(str(path.relative_to(proto_root)) for path in protos),
    ]
    status = protoc.main(args)
    if status != 0:
        raise CodegenError(f"protoc failed with status {status} (see its messages above)")
    # Regular packages (not namespace packages) so mypy and the bot images treat
    # the stubs like any installed, typed package.
    for directory in sorted({p.parent for p in out_dir.rglob("*.py")}):
        while directory != out_dir:
            (directory / "__init__.py").touch()
            (directory / "py.typed").touch()
            directory = directory.parent
    return sorted(p.relative_to(out_dir) for p in out_dir.rglob("*") if p.is_file())


@dataclass
class TreeDifference:
    """How a directory of stubs differs from a fresh generation."""

    missing: list[str] = field(default_factory=list)
    unexpected: list[str] = field(default_factory=list)
    changed: dict[str, str] = field(default_factory=dict)
    """file -> a short unified diff."""

    @property
    def clean(self) -> bool:
        return not (self.missing or self.unexpected or self.changed)

    def summary(self) -> str:
        lines: list[str] = []
        for name in self.missing:
            lines.append(f"missing (not generated or deleted): {name}")
        for name in self.unexpected:
            lines.append(f"unexpected (no .proto generates it): {name}")
        for name, diff in self.changed.items():
            lines.append(f"differs from what the .proto files generate: {name}")
            lines.extend("    " + line for line in diff.splitlines())
        return "\n".join(lines)


def _files(root: Path) -> set[str]:
    if not root.is_dir():
        return set()
    return {
        str(p.relative_to(root))
        for p in root.rglob("*")
        if p.is_file() and "__pycache__" not in p.parts
    }


def compare_trees(expected: Path, actual: Path, max_diff_lines: int = 12) -> TreeDifference:
    """Compare a freshly generated tree (``expected``) with ``actual``."""
    expected_files, actual_files = _files(expected), _files(actual)
    difference = TreeDifference(
        missing=sorted(expected_files - actual_files),
        unexpected=sorted(actual_files - expected_files),
    )
    for name in sorted(expected_files & actual_files):
        if filecmp.cmp(expected / name, actual / name, shallow=False):
            continue
        diff = difflib.unified_diff(
            (expected / name).read_text(errors="replace").splitlines(),
            (actual / name).read_text(errors="replace").splitlines(),
            fromfile=f"generated/{name}",
            tofile=f"found/{name}",
            lineterm="",
            n=0,
        )
        lines = list(diff)
        if len(lines) > max_diff_lines:
            lines = [*lines[:max_diff_lines], f"... ({len(lines) - max_diff_lines} more lines)"]
        difference.changed[name] = "\n".join(lines)
    return difference


def check(against: Path, proto_root: Path = PROTO_ROOT) -> TreeDifference:
    """Regenerate into a temporary directory and compare with ``against``."""
    with tempfile.TemporaryDirectory(prefix="hollywood-codegen-") as tmp:
        fresh = Path(tmp) / "python"
        generate(fresh, proto_root)
        return compare_trees(fresh, against)


def link_venv() -> Path:
    """Write ``hollywood.pth`` into the running interpreter's site-packages."""
    site_packages = Path(sysconfig.get_paths()["purelib"])
    pth = site_packages / PTH_NAME
    pth.write_text(f"{GENERATED_ROOT}\n{SDK_ROOT}\n")
    return pth


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m arena.codegen", description=(__doc__ or "").split("\n\n")[0]
    )
    parser.add_argument("--check", action="store_true", help="verify instead of generating")
    parser.add_argument(
        "--against",
        type=Path,
        default=GENERATED_ROOT,
        help=f"directory to check (default {GENERATED_ROOT.relative_to(REPO_ROOT)})",
    )
    parser.add_argument(
        "--link-venv",
        action="store_true",
        help=f"also write {PTH_NAME} into this interpreter's site-packages",
    )
    options = parser.parse_args(argv)
    try:
        if options.check:
            difference = check(options.against)
            if not difference.clean:
                print(
                    f"stubs in {options.against} do not match proto/ "
                    "(run `make stubs` to regenerate):",
                    file=sys.stderr,
                )
                print(difference.summary(), file=sys.stderr)
                return 1
            print(f"stubs in {options.against} match proto/")
            return 0
        written = generate(GENERATED_ROOT)
        print(f"generated {len(written)} files into {GENERATED_ROOT.relative_to(REPO_ROOT)}")
        if options.link_venv:
            print(f"wrote {link_venv()}")
    except CodegenError as error:
        print(f"codegen: {error}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
