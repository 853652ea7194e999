"""The package's shape: module size, no import cycle, and a typed analysis contract.

The import graph is the one Python executes: imports inside `if TYPE_CHECKING:` are
annotations only (program.py names the machine in closure signatures that way) and are
left out; a cycle among the remaining imports fails here.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PKG = Path(__file__).resolve().parents[2] / "packages" / "gambit" / "src" / "esochess" / "gambit"
MODULES = sorted(PKG.rglob("*.py"))
MAX_LINES = 600


def module_name(path: Path) -> str:
    parts = path.relative_to(PKG.parents[1]).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


KNOWN = {module_name(p) for p in MODULES}


def runtime_imports(path: Path) -> set[str]:
    """The esochess.gambit modules `path` imports when it runs."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found: set[str] = set()

    def visit(nodes: list[ast.stmt]) -> None:
        for node in nodes:
            if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
                continue
            if isinstance(node, ast.ImportFrom) and node.module:
                if node.module.startswith("esochess.gambit"):
                    # `from package import module` depends on the module, not the package.
                    subs = {f"{node.module}.{a.name}" for a in node.names} & KNOWN
                    found.update(subs or {node.module})
            elif isinstance(node, ast.Import):
                found.update(a.name for a in node.names if a.name.startswith("esochess.gambit."))
            for field in ("body", "orelse", "finalbody", "handlers"):
                visit([n for n in getattr(node, field, []) if isinstance(n, ast.stmt)])

    visit(tree.body)
    return found


@pytest.mark.parametrize("path", MODULES, ids=[module_name(p) for p in MODULES])
def test_no_module_is_over_the_limit(path: Path) -> None:
    lines = len(path.read_text(encoding="utf-8").splitlines())
    assert lines <= MAX_LINES, f"{module_name(path)} has {lines} lines"


def test_no_import_cycle() -> None:
    names = {module_name(p): p for p in MODULES}
    graph = {name: runtime_imports(path) & names.keys() for name, path in names.items()}
    state: dict[str, int] = {}

    def walk(node: str, stack: list[str]) -> None:
        state[node] = 1
        for nxt in sorted(graph[node]):
            if state.get(nxt) == 1:
                cycle = stack[stack.index(nxt) :] + [nxt] if nxt in stack else [node, nxt]
                pytest.fail("import cycle: " + " -> ".join(cycle))
            if nxt not in state:
                walk(nxt, stack + [nxt])
        state[node] = 2

    for name in sorted(graph):
        if name not in state:
            walk(name, [name])


def test_the_analysis_contract_has_no_any() -> None:
    tree = ast.parse((PKG / "analysis.py").read_text(encoding="utf-8"))
    names = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}
    names |= {a.name for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) for a in n.names}
    strings = [n.value for n in ast.walk(tree) if isinstance(n, ast.Constant) and isinstance(n.value, str)]
    assert "Any" not in names
    assert not any("Any" in s.split() or "Any," in s for s in strings)
