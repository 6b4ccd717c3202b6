"""tests/ mirrors the packages (docs/testing.md, "Where a test goes"): no test file
sits flat in tests/, every folder of tests/arena/ is a layer of arena/, every folder
holding tests is a package (so two test files of the same name cannot clash), and
tests/helpers/ holds no tests."""

from __future__ import annotations

from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
# Folders of tests/ that hold no tests: data, bots and scripts run on their own.
NOT_TESTS = frozenset({"bench", "fixtures", "hostile_bots", "__pycache__"})


def layout_problems(repo: Path) -> list[str]:
    tests = repo / "tests"
    problems = [f"{path.relative_to(repo)}: flat in tests/; place it by the rule of "
                "docs/testing.md" for path in sorted(tests.glob("test_*.py"))]
    for folder in sorted(path for path in (tests / "arena").iterdir() if path.is_dir()):
        if folder.name != "__pycache__" and not (repo / "arena" / folder.name).is_dir():
            problems.append(f"{folder.relative_to(repo)}: arena/ has no layer {folder.name}")
    for test in sorted(tests.rglob("test_*.py")):
        inside = test.relative_to(tests).parts
        if inside[0] in NOT_TESTS:
            continue
        if inside[0] == "helpers":
            problems.append(f"{test.relative_to(repo)}: a test among the helpers")
        folder = test.parent
        while folder != repo:
            if not (folder / "__init__.py").is_file():
                problems.append(f"{folder.relative_to(repo)}: holds tests but no __init__.py")
            folder = folder.parent
    return sorted(set(problems))


def test_the_tests_mirror_the_packages() -> None:
    assert layout_problems(REPO) == []


def _tree(root: Path, *files: str) -> Path:
    for name in ("arena/season/__init__.py", "tests/__init__.py", "tests/arena/__init__.py",
                 *files):
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text("")
    return root


def test_a_misplaced_test_is_named(tmp_path: Path) -> None:
    repo = _tree(tmp_path, "tests/test_flat.py", "tests/arena/sesaon/test_typo.py",
                 "tests/helpers/test_helper.py", "tests/arena/season/__init__.py",
                 "tests/arena/season/test_fine.py")
    assert layout_problems(repo) == [
        "tests/arena/sesaon: arena/ has no layer sesaon",
        "tests/arena/sesaon: holds tests but no __init__.py",
        "tests/helpers/test_helper.py: a test among the helpers",
        "tests/helpers: holds tests but no __init__.py",
        "tests/test_flat.py: flat in tests/; place it by the rule of docs/testing.md",
    ]


def test_a_well_placed_tree_passes(tmp_path: Path) -> None:
    repo = _tree(tmp_path, "tests/arena/season/__init__.py", "tests/arena/season/test_fine.py",
                 "tests/bench/test_like_name.py")
    assert layout_problems(repo) == []
