"""Checking functions (docs/reference/cql.md#functions): definitions and calls expanded
in place, with the expansion bounded."""

from __future__ import annotations

from dataclasses import replace

from esochess.cqlvars import ast
from esochess.cqlvars.check_base import MAX_EXPANSION, CheckerBase, name_problem
from esochess.cqlvars.qtypes import LOGICAL, PIECE, SET


class CallChecks(CheckerBase):
    """Function definitions and calls."""

    def define(self, fn: ast.FunctionDef) -> None:
        if fn.name in self.functions:
            raise self.error(fn.span, f"function '{fn.name}' is already defined")
        if fn.name in self.kinds or fn.name in self.ever_assigned:
            raise self.error(fn.span, f"'{fn.name}' is already a variable")
        problem = name_problem(fn.name)
        if problem:
            raise self.error(fn.span, problem.replace("variable", "function"))
        # Calls must name functions defined earlier, so recursion can only be direct.
        for call in _calls(fn.body):
            if call.name == fn.name:
                raise self.error(call.span, f"recursive call of '{fn.name}'")
            if call.name not in self.functions:
                raise self.error(
                    call.span, f"unknown function '{call.name}' (define it before use)"
                )
        self.functions[fn.name] = fn

    # functions ---------------------------------------------------------------------
    def visit_FunctionDef(self, node: ast.FunctionDef) -> tuple[ast.Node, str]:
        raise self.error(node.span, "a function may only be defined at top level")

    def visit_Call(self, node: ast.Call) -> tuple[ast.Node, str]:
        fn = self.functions.get(node.name)
        if fn is None:
            if node.name in self.kinds:
                raise self.error(node.span, f"'{node.name}' is a variable, not a function")
            raise self.error(node.span, f"unknown function '{node.name}' (define it before use)")
        if len(node.args) != len(fn.params):
            plural = "argument" if len(fn.params) == 1 else "arguments"
            raise self.error(
                node.span,
                f"function '{fn.name}' takes {len(fn.params)} {plural}, {len(node.args)} given",
            )
        if fn.name in self.expanding:
            raise self.error(node.span, f"recursive call of '{fn.name}'")
        renames: dict[str, str] = {}
        prelude: list[ast.Node] = []
        for param, arg in zip(fn.params, node.args, strict=True):
            if isinstance(arg, ast.Var):
                # A bare identifier is passed by reference: the parameter aliases it.
                renames[param] = arg.name
            else:
                self.hidden += 1
                hidden = f"cql__arg{self.hidden}_{param}"
                renames[param] = hidden
                prelude.append(ast.Assign(arg.span, "=", ast.Var(arg.span, hidden), arg))
        self.expanded += sum(1 for _ in ast.walk(fn.body)) + len(node.args)
        if self.expanded > MAX_EXPANSION:
            raise self.error(
                node.span,
                f"function calls expand the query to more than {MAX_EXPANSION:,} filters",
            )
        body = tuple(_rename(e, renames) for e in fn.body)
        self.expanding.append(fn.name)
        try:
            checked = [self._hidden_assign(a) for a in prelude]
            checked.extend(self.test(element) for element in body[:-1])
            t = LOGICAL
            if body:
                last, t = self.visit(body[-1])
                checked.append(last)
        finally:
            self.expanding.pop()
        return self.typed(ast.Compound(node.span, tuple(checked)), t)

    def _hidden_assign(self, node: ast.Node) -> ast.Node:
        assert isinstance(node, ast.Assign) and isinstance(node.target, ast.Var)
        value, vt = self.visit(node.value)
        if vt == LOGICAL:
            raise self.error(node.value.span, "a logical filter cannot be passed by value")
        kind = SET if vt == PIECE else vt
        self.kinds[node.target.name] = kind
        self.types[id(node.target)] = kind
        return self.typed(replace(node, value=value), LOGICAL)[0]


def _calls(nodes: tuple[ast.Node, ...]) -> list[ast.Call]:
    """Every function call in the given trees, in no particular order."""
    return [n for n in ast.walk(nodes) if isinstance(n, ast.Call)]


def _rename(node: ast.Node, names: dict[str, str]) -> ast.Node:
    """Rename variables per `names` throughout a function body (parameter aliasing)."""
    if isinstance(node, ast.Var):
        return replace(node, name=names.get(node.name, node.name))
    if isinstance(node, ast.IsBound):
        return replace(node, name=names.get(node.name, node.name))
    changes: dict[str, object] = {}
    for key, value in vars(node).items():
        if isinstance(value, ast.Node):
            changes[key] = _rename(value, names)
        elif isinstance(value, tuple) and value and isinstance(value[0], ast.Node):
            changes[key] = tuple(_rename(v, names) for v in value)
    return replace(node, **changes) if changes else node  # type: ignore[arg-type]
