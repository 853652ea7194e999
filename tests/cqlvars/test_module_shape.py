"""The shape rules of the cql package: no module over 600 lines, no import cycle between
its modules (function-level imports included)."""

from __future__ import annotations

import ast
from pathlib import Path

import esochess.cqlvars

PACKAGE = Path(esochess.cqlvars.__file__).parent
PREFIX = "esochess.cqlvars"


def _imports(path: Path) -> set[str]:
    """The package modules a module imports, anywhere in its body."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith(PREFIX):
            if node.module == PREFIX:
                found |= {alias.name for alias in node.names}
            else:
                found.add(node.module.split(".")[2])
        elif isinstance(node, ast.Import):
            found |= {a.name.split(".")[2] for a in node.names if a.name.startswith(PREFIX + ".")}
    return found


def test_no_module_over_600_lines() -> None:
    sizes = {p.name: len(p.read_text(encoding="utf-8").splitlines()) for p in PACKAGE.glob("*.py")}
    assert {name: n for name, n in sizes.items() if n > 600} == {}


def test_no_import_cycles() -> None:
    graph = {p.stem: _imports(p) for p in PACKAGE.glob("*.py")}
    done: set[str] = set()

    def visit(module: str, path: tuple[str, ...]) -> None:
        assert module not in path, " -> ".join((*path, module))
        if module in done:
            return
        for other in sorted(graph.get(module, ())):
            visit(other, (*path, module))
        done.add(module)

    for module in sorted(graph):
        visit(module, ())
