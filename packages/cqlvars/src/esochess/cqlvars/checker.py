"""Static checking (docs/reference/cql.md#types and docs/reference/cql.md#filters,
docs/reference/cql.md#variables): function expansion, variable kinds and scopes, types.

The checker rebuilds the body with every function call expanded in place and returns the
static type of every node (keyed by node identity), the variable kinds, and the persistent
declarations. The first error found is raised as a SourceError; warnings are collected.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace

from esochess.cqlvars import ast
from esochess.cqlvars.check_assign import AssignChecks
from esochess.cqlvars.check_base import CheckedQuery, CheckerBase, convert_assignment, name_problem
from esochess.cqlvars.check_calls import CallChecks
from esochess.cqlvars.filters import FILTERS
from esochess.cqlvars.lexer import KEYWORDS, MAX_LITERAL
from esochess.cqlvars.qtypes import DICT, LOGICAL, NUMERIC, PIECE, POSITION, SET, STRING, TYPE_NOUN
from esochess.cqlvars.transforms import named_squares
from esochess.fen import SourceError
from esochess.fen.suggest import with_suggestion


class _Checker(AssignChecks, CallChecks):
    """The whole checker: the visitors of each filter kind."""

    # entry -------------------------------------------------------------------------
    def run(self) -> CheckedQuery:
        body: list[ast.Node] = []
        for element in self.query.body:
            if isinstance(element, ast.FunctionDef):
                self.define(element)
            else:
                body.append(self.test(element))
        persistent_kinds = {name: self.kinds[name] for name in self.persistent}
        return CheckedQuery(
            header=self.query.header,
            body=tuple(body),
            types=self.types,
            kinds=dict(self.kinds),
            persistent=dict(self.persistent),
            persistent_kinds=persistent_kinds,
            assigned=self.assigned,
            warnings=self.warnings,
            reducible_error=self.reducible(persistent_kinds),
            sorts=self.sorts,
            atomic=frozenset(self.atomic),
        )

    def reducible(self, kinds: dict[str, str]) -> str | None:
        for name, kind in kinds.items():
            if kind != NUMERIC or name in self.persistent_bad_ops or name in self.persistent_reads:
                return (
                    f"persistent variable '{name}' is not a reducible sum; "
                    "it cannot be used with --scheduler"
                )
        return None

    def visit_Designator(self, node: ast.Designator) -> tuple[ast.Node, str]:
        return self.typed(node, SET)

    def visit_IntLit(self, node: ast.IntLit) -> tuple[ast.Node, str]:
        return self.typed(node, NUMERIC)

    def visit_StrLit(self, node: ast.StrLit) -> tuple[ast.Node, str]:
        return self.typed(node, STRING)

    def visit_CaptureRef(self, node: ast.CaptureRef) -> tuple[ast.Node, str]:
        return self.typed(node, STRING)

    def visit_Var(self, node: ast.Var) -> tuple[ast.Node, str]:
        kind = self.lookup(node.name)
        if kind is None:
            if node.name in self.functions:
                raise self.error(node.span, f"'{node.name}' is a function; call it with '(...)'")
            if node.name in self.retired:
                raise self.error(node.span, f"variable '{node.name}' is not in scope here")
            raise self.error(node.span, with_suggestion(
                f"variable '{node.name}' used before assignment", node.name, KEYWORDS
            ))
        if node.name in self.persistent:
            self.persistent_reads.add(node.name)
        return self.typed(node, kind)

    def visit_Filter(self, node: ast.Filter) -> tuple[ast.Node, str]:
        """A filter of the table: argument count and types from its entry."""
        spec = FILTERS[node.name]
        count = len(node.args)
        most = None if spec.variadic else len(spec.params)
        if count < spec.fewest or (most is not None and count > most):
            wanted = (f"{spec.fewest} or more" if most is None else
                      str(most) if spec.fewest == most else
                      f"{spec.fewest} or {most}" if most == spec.fewest + 1 else
                      f"{spec.fewest} to {most}")
            noun = "argument" if wanted == "1" else "arguments"
            raise self.error(node.span, f"'{node.name}' takes {wanted} {noun}, not {count}")
        args: list[ast.Node] = []
        types: list[str] = []
        for i, arg in enumerate(node.args):
            new, t = self.visit(arg)
            self.need(new, t, spec.params[min(i, len(spec.params) - 1)], f"'{node.name}'")
            args.append(new)
            types.append(t)
        return self.typed(replace(node, args=tuple(args)), spec.result_for(tuple(types)))

    def visit_GameInfo(self, node: ast.GameInfo) -> tuple[ast.Node, str]:
        if node.field == "elo":
            return self.typed(node, NUMERIC)
        if node.field == "tag":  # `tag "Name"`: the tag's value (CQL 6.1)
            return self.typed(node, STRING)
        if node.field == "result" or node.literal is not None:
            return self.typed(node, LOGICAL)
        return self.typed(node, STRING)

    def visit_OriginalComment(self, node: ast.OriginalComment) -> tuple[ast.Node, str]:
        return self.typed(node, STRING if node.literal is None else LOGICAL)

    def visit_IsBound(self, node: ast.IsBound) -> tuple[ast.Node, str]:
        self.check_name(node.name, node.span)
        if (
            node.name not in self.ever_assigned
            and node.name not in self.kinds
            and not any(node.name in s for s in self.scoped)
        ):
            self.warnings.append(
                SourceError(
                    self.path,
                    node.span.line,
                    node.span.column,
                    f"variable '{node.name}' is never assigned in the query; "
                    "only --assign can bind it",
                    severity="warning",
                )
            )
        return self.typed(node, LOGICAL)

    def visit_Unary(self, node: ast.Unary) -> tuple[ast.Node, str]:
        if node.op == "not":
            operand = self.test(node.operand)
            return self.typed(replace(node, operand=operand), LOGICAL)
        operand, t = self.visit(node.operand)
        new = replace(node, operand=operand)
        if node.op == "-":
            self.need(operand, t, (NUMERIC,), "'-'")
            return self.typed(new, NUMERIC)
        if node.op == "~":
            self.need(operand, t, (SET,), "'~'")
            return self.typed(new, SET)
        self.need(operand, t, (SET, STRING, DICT), "'#'")
        return self.typed(new, NUMERIC)

    def visit_Binary(self, node: ast.Binary) -> tuple[ast.Node, str]:
        op = node.op
        if op in ("and", "or"):
            left = self.test(node.left)
            right = self.test(node.right)
            return self.typed(replace(node, left=left, right=right), LOGICAL)
        left, lt = self.visit(node.left)
        right, rt = self.visit(node.right)
        new = replace(node, left=left, right=right)
        lt_set, rt_set = self.set_like(lt), self.set_like(rt)
        if op == "in":
            if lt_set and rt_set:
                return self.typed(new, LOGICAL)
            if lt == STRING and rt == STRING or lt in (STRING, NUMERIC) and rt == DICT:
                return self.typed(new, LOGICAL)
            raise self.error(node.span, "'in' requires two sets, two strings, or a key and a "
                                        "dictionary")
        if op in ("<", "<=", ">", ">=", "==", "!="):
            if lt == NUMERIC and (rt == NUMERIC or rt_set) or (lt_set and rt == NUMERIC):
                return self.typed(new, NUMERIC)
            if lt_set and rt_set:
                if op in ("==", "!="):
                    return self.typed(new, LOGICAL)
                raise self.error(node.span, f"'{op}' cannot order two sets; compare counts with '#'")
            if lt == rt and lt in (STRING, POSITION):
                return self.typed(new, LOGICAL)
            raise self.error(
                node.span, f"cannot compare {TYPE_NOUN[lt]} with {TYPE_NOUN[rt]} using '{op}'"
            )
        if op == "+" and lt == STRING and rt == STRING:
            return self.typed(new, STRING)
        if op in ("+", "-", "*", "/", "%"):
            for t in (lt, rt):
                if t != NUMERIC:
                    hint = "; use '#' for a count" if self.set_like(t) else ""
                    raise self.error(
                        node.span, f"'{op}' requires numbers, not {TYPE_NOUN[t]}{hint}"
                    )
            return self.typed(new, NUMERIC)
        if op == "&" and lt == POSITION and rt == POSITION:
            return self.typed(new, SET)
        if op in ("|", "&", "attacks", "attackedby"):
            for operand, t in ((left, lt), (right, rt)):
                self.need(operand, t, (SET,), f"'{op}'")
            return self.typed(new, SET)
        if op == "~~":
            self.need(left, lt, (STRING,), "'~~'")
            self.need(right, rt, (STRING,), "'~~'")
            return self.typed(new, STRING)
        raise self.error(node.span, f"unknown operator '{op}'")  # pragma: no cover

    def visit_Subscript(self, node: ast.Subscript) -> tuple[ast.Node, str]:
        target, t = self.visit(node.target)
        if t == DICT:
            assert isinstance(target, ast.Var)  # only a variable can be a dictionary
            if node.is_slice or node.start is None:
                raise self.error(node.span, f"a dictionary takes one key: {target.name}[KEY]")
            key, kt = self.visit(node.start)
            self.need(key, kt, (STRING, NUMERIC), "a dictionary key")
            held = self.dict_values.get(target.name)
            if held is None:
                raise self.error(node.span, f"dictionary '{target.name}' is read before any "
                                            "value is assigned to it")
            return self.typed(replace(node, target=target, start=key), held)
        if t != STRING:
            raise self.error(node.span, "subscript requires a string")
        start = stop = None
        if node.start is not None:
            start, st = self.visit(node.start)
            self.need(start, st, (NUMERIC,), "a subscript")
        if node.stop is not None:
            stop, st = self.visit(node.stop)
            self.need(stop, st, (NUMERIC,), "a subscript")
        return self.typed(replace(node, target=target, start=start, stop=stop), STRING)

    def visit_AtPosition(self, node: ast.AtPosition) -> tuple[ast.Node, str]:
        position, t = self.visit(node.position)
        if t != POSITION:
            raise self.error(node.span, f"':' requires a position on the left, not {TYPE_NOUN[t]}")
        body, bt = self.visit(node.body)
        return self.typed(replace(node, position=position, body=body), bt)

    def visit_Compound(self, node: ast.Compound) -> tuple[ast.Node, str]:
        if not node.elements:
            return self.typed(node, LOGICAL)
        elements = list(self.sequence(node.elements[:-1]))
        last, t = self.visit(node.elements[-1])
        elements.append(last)
        return self.typed(ast.Compound(node.span, tuple(elements)), t)

    def visit_If(self, node: ast.If) -> tuple[ast.Node, str]:
        cond = self.test(node.cond)
        then, tt = self.visit(node.then)
        else_ = None
        if node.else_ is not None:
            else_, et = self.visit(node.else_)
            t = tt if tt == et else LOGICAL
        else:
            t = LOGICAL
        return self.typed(ast.If(node.span, cond, then, else_), t)

    def visit_Transform(self, node: ast.Transform) -> tuple[ast.Node, str]:
        if node.kind == "rotate45" and named_squares(node.body):
            raise self.error(node.span, "'rotate45' turns directions only; its filter may not name squares")
        self.no_sort.append("a transform")
        body = self.test(node.body)
        self.no_sort.pop()
        return self.typed(replace(node, body=body), NUMERIC if node.count else LOGICAL)

    def visit_Line(self, node: ast.Line) -> tuple[ast.Node, str]:
        self.no_sort.append("a line constituent")
        items = tuple(self.line_item(item) for item in node.items)
        self.no_sort.pop()
        kind = POSITION if "lastposition" in node.params else NUMERIC
        return self.typed(replace(node, items=items), kind)

    def line_item(self, item: ast.LineItem) -> ast.LineItem:
        if item.group is not None:
            return replace(item, group=tuple(self.line_item(i) for i in item.group))
        assert item.filter is not None
        return replace(item, filter=self.test(item.filter))

    def visit_Path(self, node: ast.Path) -> tuple[ast.Node, str]:
        changes: dict[str, object] = {}
        if node.focus is not None:
            focus, t = self.visit(node.focus)
            self.need(focus, t, (SET,), "'path focus'")
            changes["focus"] = focus
        if node.maximize is not None:
            maximize, t = self.visit(node.maximize)
            self.need(maximize, t, (NUMERIC,), "'path max'")
            changes["maximize"] = maximize
        self.no_sort.append("a path constituent")
        steps = tuple(self.path_step(step) for step in node.steps)
        self.no_sort.pop()
        kind = POSITION if "lastposition" in node.params else NUMERIC
        return self.typed(replace(node, steps=steps, **changes), kind)  # type: ignore[arg-type]

    def path_step(self, step: ast.PathStep) -> ast.PathStep:
        changes = self.set_parameters(step, "path move", ("left", "right"))
        if step.promote is not None:
            changes["promote"] = self.visit(step.promote)[0]
        targets = tuple(self.test(t) for t in step.targets)
        steps = tuple(self.path_step(s) for s in step.steps)
        return replace(step, targets=targets, steps=steps, **changes)  # type: ignore[arg-type]

    def visit_Find(self, node: ast.Find) -> tuple[ast.Node, str]:
        self.no_sort.append("a find body")
        body = self.test(node.body)
        self.no_sort.pop()
        counted = node.all or node.low is not None
        return self.typed(replace(node, body=body), NUMERIC if counted else POSITION)

    def bind_scoped(self, name: str, span: ast.Span, kind: str) -> None:
        self.check_name(name, span)
        if name in self.kinds or any(name in s for s in self.scoped):
            raise self.error(span, f"'{name}' is already a variable")

    def visit_Echo(self, node: ast.Echo) -> tuple[ast.Node, str]:
        self.bind_scoped(node.source, node.names_span, POSITION)
        self.bind_scoped(node.target, node.names_span, POSITION)
        self.scoped.append({node.source: POSITION, node.target: POSITION})
        self.no_sort.append("an echo body")
        body = self.test(node.body)
        self.no_sort.pop()
        self.scoped.pop()
        self.retired.update((node.source, node.target))
        t = NUMERIC if self.types[id(body)] == NUMERIC else LOGICAL
        return self.typed(replace(node, body=body), t)

    def visit_Iterate(self, node: ast.Iterate) -> tuple[ast.Node, str]:
        domain, dt = self.visit(node.domain)
        self.need(domain, dt, (SET,), f"'{node.kind} ... in'")
        self.bind_scoped(node.var, node.var_span, SET)
        self.scoped.append({node.var: SET if node.kind == "square" else PIECE})
        body = self.test(node.body)
        self.scoped.pop()
        self.retired.add(node.var)
        return self.typed(
            replace(node, domain=domain, body=body), LOGICAL if node.all else SET
        )

    def visit_Sort(self, node: ast.Sort) -> tuple[ast.Node, str]:
        if self.no_sort or self.expanding:
            where = self.no_sort[-1] if self.no_sort else "a function body"
            raise self.error(node.span, f"'sort' may not appear inside {where}")
        body, t = self.visit(node.body)
        self.need(body, t, (NUMERIC, STRING), "'sort'")
        new = replace(node, body=body)
        self.sorts.append(new)
        return self.typed(new, t)

    def visit_Emit(self, node: ast.Emit) -> tuple[ast.Node, str]:
        args: list[ast.Node] = []
        for arg in node.args:
            new, t = self.visit(arg)
            if t == LOGICAL:
                raise self.error(arg.span, f"'{node.kind}' cannot print a logical filter")
            args.append(new)
        return self.typed(replace(node, args=tuple(args)), STRING if node.kind == "str" else LOGICAL)

    def visit_MaxMin(self, node: ast.MaxMin) -> tuple[ast.Node, str]:
        args: list[ast.Node] = []
        for arg in node.args:
            new, t = self.visit(arg)
            self.need(new, t, (NUMERIC,), f"'{node.op}'")
            args.append(new)
        return self.typed(replace(node, args=tuple(args)), NUMERIC)

    def set_parameters(
        self, node: ast.Node, keyword: str, names: tuple[str, ...]
    ) -> dict[str, ast.Node | None]:
        """Check the set arguments of `move`/`pin` parameters; return the checked ones."""
        changes: dict[str, ast.Node | None] = {}
        for name in names:
            arg = getattr(node, name)
            if arg is not None:
                new, t = self.visit(arg)
                self.need(new, t, (SET,), f"'{keyword} {name.rstrip('_')}'")
                changes[name] = new
        return changes

    def visit_Move(self, node: ast.Move) -> tuple[ast.Node, str]:
        changes = self.set_parameters(node, "move", ("from_", "to", "capture"))
        if node.promote is not None:
            p = node.promote
            if not isinstance(p, ast.Designator) or p.squares is not None or p.pieces is None:
                raise self.error(p.span, "'promote' needs piece types without squares, e.g. Q or [RBN]")
            changes["promote"] = self.visit(p)[0]
        return self.typed(replace(node, **changes), NUMERIC if node.count else SET)  # type: ignore[arg-type]

    def visit_Pin(self, node: ast.Pin) -> tuple[ast.Node, str]:
        changes = self.set_parameters(node, "pin", ("from_", "through", "to"))
        return self.typed(replace(node, **changes), SET)  # type: ignore[arg-type]

    def visit_Ray(self, node: ast.Ray) -> tuple[ast.Node, str]:
        args: list[ast.Node] = []
        for arg in node.args:
            new, t = self.visit(arg)
            self.need(new, t, (SET,), "'ray'")
            args.append(new)
        return self.typed(replace(node, args=tuple(args)), SET)

    def visit_Direction(self, node: ast.Direction) -> tuple[ast.Node, str]:
        operand, t = self.visit(node.operand)
        self.need(operand, t, (SET,), f"'{node.directions[0]}'")
        return self.typed(replace(node, operand=operand), SET)


def check_query(
    query: ast.Query, path: str, source: str, assignments: Mapping[str, str] | None = None
) -> CheckedQuery:
    """Check a parsed query; raises the first SourceError, returns the checked form."""
    checker = _Checker(path, source, query, assignments or {})
    return checker.run()


__all__ = [
    "LOGICAL",
    "NUMERIC",
    "SET",
    "POSITION",
    "STRING",
    "PIECE",
    "MAX_LITERAL",
    "CheckedQuery",
    "check_query",
    "convert_assignment",
    "name_problem",
]


__all__ = ["CheckedQuery", "CheckerBase", "LOGICAL", "NUMERIC", "PIECE", "POSITION", "SET", "STRING",
           "check_query", "convert_assignment", "name_problem"]
