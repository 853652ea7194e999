"""Repository rules that keep the suite collectable and the packages installable."""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def test_test_file_names_are_unique() -> None:
    # Test directories are not packages, so pytest imports test files by basename:
    # two test_checker.py files make collection fail with "import file mismatch".
    seen: defaultdict[str, list[str]] = defaultdict(list)
    for path in (REPO / "tests").rglob("*.py"):
        if path.name != "conftest.py" and "__pycache__" not in path.parts:
            seen[path.name].append(str(path.relative_to(REPO)))
    assert {name: paths for name, paths in seen.items() if len(paths) > 1} == {}


def test_namespace_package_has_no_init() -> None:
    # PEP 420: an esochess/__init__.py in any package would hide the other four.
    assert list((REPO / "packages").glob("*/src/esochess/__init__.py")) == []
