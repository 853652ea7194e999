"""Static checking (docs/reference/cql.md#types and docs/reference/cql.md#filters,
docs/reference/cql.md#variables): function expansion, variable kinds and scopes, types.

The checker rebuilds the body with every function call expanded in place and returns the
static type of every node (keyed by node identity), the variable kinds, and the persistent
declarations. The first error found is raised as a SourceError; warnings are collected.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field, replace

from esochess.cqlvars import ast, pawns
from esochess.cqlvars.lexer import KEYWORDS, MAX_LITERAL, match_designator
from esochess.cqlvars.parser import query_error
from esochess.fen import SourceError
from esochess.fen.suggest import with_suggestion

LOGICAL = "logical"
NUMERIC = "numeric"
SET = "set"
POSITION = "position"
STRING = "string"
PIECE = "piece"  # a piece variable: a set everywhere except comment/str/message arguments

KIND_WORD = {NUMERIC: "numeric", SET: "a set variable", PIECE: "a piece variable"}
TYPE_NOUN = {
    NUMERIC: "a number",
    SET: "a set",
    POSITION: "a position",
    STRING: "a string",
    LOGICAL: "a logical filter",
    PIECE: "a piece",
}
SIMPLE_TYPES = {
    "check": LOGICAL,
    "mate": LOGICAL,
    "stalemate": LOGICAL,
    "wtm": LOGICAL,
    "btm": LOGICAL,
    "initial": LOGICAL,
    "terminal": LOGICAL,
    "true": LOGICAL,
    "false": LOGICAL,
    "ply": NUMERIC,
    "movenumber": NUMERIC,
    "positionid": NUMERIC,
    "currentposition": POSITION,
    "initialposition": POSITION,
    "parent": POSITION,
}
ASSIGNMENT_VALUE = re.compile(r"-?[0-9]+")
#: Filters that function calls may add by expansion: calls inside functions multiply, so
#: twenty lines that each call the previous function twice would expand a million-fold.
MAX_EXPANSION = 100_000


@dataclass
class CheckedQuery:
    """The checked, function-expanded body plus everything later stages need."""

    header: ast.Header
    body: tuple[ast.Node, ...]
    types: dict[int, str]
    kinds: dict[str, str]
    persistent: dict[str, bool]  # name -> quiet, in order of first declaration
    persistent_kinds: dict[str, str]
    assigned: dict[str, int | str]  # --assign values, converted
    warnings: list[SourceError] = field(default_factory=list)
    reducible_error: str | None = None
    sorts: list[ast.Sort] = field(default_factory=list)

    def type_of(self, node: ast.Node) -> str:
        """The static type of a checked node."""
        return self.types[id(node)]


def convert_assignment(value: str) -> int | str:
    """`-a NAME=VALUE`: numeric when VALUE looks like an integer, else a string
    (docs/reference/cql.md#command-line)."""
    if ASSIGNMENT_VALUE.fullmatch(value):
        return int(value)
    if len(value) >= 2 and value.startswith('"') and value.endswith('"'):
        return value[1:-1]
    return value


def name_problem(name: str) -> str | None:
    """Why `name` cannot be a variable name (docs/reference/cql.md#names), or None when it is
    legal."""
    if name in KEYWORDS:
        return f"'{name}' is a keyword and cannot be a variable name"
    if len(name) == 1 and name in "abcdefgh":
        return f"'{name}' is a piece designator and cannot be a variable name"
    try:
        whole = match_designator(name, 0)
    except ValueError:
        whole = None
    if whole is not None and whole[1] == len(name):
        return f"'{name}' is a piece designator and cannot be a variable name"
    if name.startswith("__CQL") or name.startswith("cql__"):
        return "names beginning with 'cql__' or '__CQL' are reserved"
    return None


class _Checker:
    def __init__(self, path: str, source: str, query: ast.Query, assigned: Mapping[str, str]):
        self.path = path
        self.source = source
        self.query = query
        self.types: dict[int, str] = {}
        self.kinds: dict[str, str] = {}
        self.persistent: dict[str, bool] = {}
        self.scoped: list[dict[str, str]] = []
        self.retired: set[str] = set()
        self.functions: dict[str, ast.FunctionDef] = {}
        self.expanding: list[str] = []
        self.expanded = 0  # filters added by function calls so far (MAX_EXPANSION)
        self.hidden = 0
        self.warnings: list[SourceError] = []
        self.sorts: list[ast.Sort] = []
        self.no_sort: list[str] = []
        self.assigned = {name: convert_assignment(v) for name, v in assigned.items()}
        self.assign_kinds: dict[str, str] = {}
        self.ever_assigned = self._assigned_names(query.body)
        # Persistent usage facts for the reducible-sum rule (docs/cql.md#running-on-a-dask-cluster).
        self.persistent_reads: set[str] = set()
        self.persistent_bad_ops: dict[str, str] = {}
        for name, value in self.assigned.items():
            kind = NUMERIC if isinstance(value, int) else STRING
            self.kinds[name] = kind
            self.assign_kinds[name] = kind

    # helpers -----------------------------------------------------------------------
    def error(self, span: ast.Span, message: str) -> SourceError:
        return query_error(self.path, self.source, span, message)

    def typed(self, node: ast.Node, type_: str) -> tuple[ast.Node, str]:
        self.types[id(node)] = type_
        return node, type_

    def _assigned_names(self, nodes: tuple[ast.Node, ...]) -> set[str]:
        return {
            n.target.name
            for n in ast.walk(nodes)
            if isinstance(n, ast.Assign) and isinstance(n.target, ast.Var)
        }

    def lookup(self, name: str) -> str | None:
        for scope in reversed(self.scoped):
            if name in scope:
                return scope[name]
        return self.kinds.get(name)

    def check_name(self, name: str, span: ast.Span) -> None:
        problem = name_problem(name)
        if problem is None and name in self.functions:
            problem = f"'{name}' is already a function"
        if problem:
            raise self.error(span, problem)

    def set_like(self, type_: str) -> bool:
        return type_ in (SET, PIECE)

    def need(self, node: ast.Node, type_: str, wanted: tuple[str, ...], what: str) -> None:
        if type_ == PIECE and SET in wanted:
            return
        if type_ not in wanted:
            if isinstance(node, ast.Var) and type_ == POSITION and SET in wanted:
                raise self.error(node.span, f"{what} requires sets; '{node.name}' is a position")
            names = " or ".join(TYPE_NOUN[w].split(" ", 1)[1] for w in wanted)
            raise self.error(node.span, f"{what} requires {names}, not {TYPE_NOUN[type_]}")

    def test(self, node: ast.Node) -> ast.Node:
        """Check a node in a test context (docs/reference/cql.md#types)."""
        if isinstance(node, ast.IntLit):
            raise self.error(
                node.span, f"numeric literal '{node.value}' is only tested for whether it matches"
            )
        if isinstance(node, ast.Var) and self.lookup(node.name) == NUMERIC:
            raise self.error(
                node.span, f"numeric variable '{node.name}' is only tested for whether it matches"
            )
        if isinstance(node, ast.Compound) and node.elements:
            elements = [self.test(e) for e in node.elements]
            new = ast.Compound(node.span, tuple(elements))
            return self.typed(new, self.types[id(elements[-1])])[0]
        return self.visit(node)[0]

    def sequence(self, elements: tuple[ast.Node, ...]) -> tuple[ast.Node, ...]:
        out: list[ast.Node] = []
        for element in elements:
            if isinstance(element, ast.FunctionDef):
                raise self.error(element.span, "a function may only be defined at top level")
            out.append(self.test(element))
        return tuple(out)

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
        )

    def reducible(self, kinds: dict[str, str]) -> str | None:
        for name, kind in kinds.items():
            if kind != NUMERIC or name in self.persistent_bad_ops or name in self.persistent_reads:
                return (
                    f"persistent variable '{name}' is not a reducible sum; "
                    "it cannot be used with --scheduler"
                )
        return None

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

    # dispatcher --------------------------------------------------------------------
    def visit(self, node: ast.Node) -> tuple[ast.Node, str]:
        method = getattr(self, "visit_" + type(node).__name__)
        result: tuple[ast.Node, str] = method(node)
        return result

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

    def visit_Simple(self, node: ast.Simple) -> tuple[ast.Node, str]:
        return self.typed(node, SET if node.name in pawns.FILTERS else SIMPLE_TYPES[node.name])

    def visit_GameInfo(self, node: ast.GameInfo) -> tuple[ast.Node, str]:
        if node.field in ("elo", "year", "gamenumber"):
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
        if node.op in ("-", "abs"):
            self.need(operand, t, (NUMERIC,), f"'{node.op}'")
            return self.typed(new, NUMERIC)
        if node.op in ("~", "light", "dark"):
            self.need(operand, t, (SET,), f"'{node.op}'")
            return self.typed(new, SET)
        if node.op == "#":
            self.need(operand, t, (SET, STRING), "'#'")
            return self.typed(new, NUMERIC)
        if node.op in ("file", "rank"):
            self.need(operand, t, (SET,), f"'{node.op}'")
            return self.typed(new, NUMERIC)
        if node.op in ("power", "pieceid"):
            self.need(operand, t, (SET,), f"'{node.op}'")
            return self.typed(new, NUMERIC)
        if node.op == "int":
            self.need(operand, t, (STRING,), "'int'")
            return self.typed(new, NUMERIC)
        self.need(operand, t, (STRING,), f"'{node.op}'")
        return self.typed(new, STRING)

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
            if lt == STRING and rt == STRING:
                return self.typed(new, LOGICAL)
            raise self.error(node.span, "'in' requires two sets or two strings")
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
        self.no_sort.append("a transform")
        body = self.test(node.body)
        self.no_sort.pop()
        return self.typed(replace(node, body=body), NUMERIC if node.count else LOGICAL)

    def visit_Line(self, node: ast.Line) -> tuple[ast.Node, str]:
        self.no_sort.append("a line constituent")
        items = tuple(self.line_item(item) for item in node.items)
        self.no_sort.pop()
        return self.typed(replace(node, items=items), NUMERIC)

    def line_item(self, item: ast.LineItem) -> ast.LineItem:
        if item.group is not None:
            return replace(item, group=tuple(self.line_item(i) for i in item.group))
        assert item.filter is not None
        return replace(item, filter=self.test(item.filter))

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
        self.need(body, t, (NUMERIC,), "'sort'")
        new = replace(node, body=body)
        self.sorts.append(new)
        return self.typed(new, NUMERIC)

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

    def _set_of_two(self, node: ast.Node, fields: tuple[str, str], kind: str) -> tuple[ast.Node, str]:
        """A filter of two operands of type `kind` whose value is a set."""
        operands: dict[str, ast.Node] = {}
        for name in fields:
            operand, t = self.visit(getattr(node, name))
            self.need(operand, t, (kind,), f"'{type(node).__name__.lower()}'")
            operands[name] = operand
        return self.typed(replace(node, **operands), SET)  # type: ignore[arg-type]

    def visit_MakeSquare(self, node: ast.MakeSquare) -> tuple[ast.Node, str]:
        return self._set_of_two(node, ("file", "rank"), NUMERIC)

    def visit_Direction(self, node: ast.Direction) -> tuple[ast.Node, str]:
        operand, t = self.visit(node.operand)
        self.need(operand, t, (SET,), f"'{node.directions[0]}'")
        return self.typed(replace(node, operand=operand), SET)

    def visit_Between(self, node: ast.Between) -> tuple[ast.Node, str]:
        return self._set_of_two(node, ("left", "right"), SET)

    # assignments -------------------------------------------------------------------
    def visit_Assign(self, node: ast.Assign) -> tuple[ast.Node, str]:
        target = node.target
        if isinstance(node.value, ast.Assign):
            raise self.error(node.value.span, "an assignment has no value and cannot be assigned")
        if isinstance(target, ast.Subscript):
            return self.assign_subscript(node, target)
        if isinstance(target, ast.Designator):
            raise self.error(
                target.span, f"'{target.text}' is a piece designator and cannot be a variable name"
            )
        if isinstance(target, ast.Simple) or isinstance(target, ast.GameInfo):
            word = target.name if isinstance(target, ast.Simple) else target.field
            raise self.error(target.span, f"'{word}' is a keyword and cannot be a variable name")
        if not isinstance(target, ast.Var):
            raise self.error(node.span, "the left side of an assignment must be a variable")
        name = target.name
        self.check_name(name, target.span)
        if any(name in s for s in self.scoped):
            raise self.error(target.span, f"cannot assign to iteration variable '{name}'")
        if name in self.retired and name not in self.kinds:
            raise self.error(target.span, f"'{name}' is already a variable")
        known = self.kinds.get(name)
        if node.persistent and name in self.assign_kinds:
            raise self.error(
                target.span, f"variable '{name}' is persistent; --assign cannot set it"
            )
        if node.persistent:
            if known is not None and name not in self.persistent:
                raise self.error(
                    target.span, f"variable '{name}' was used before its persistent declaration"
                )
            self.persistent[name] = self.persistent.get(name, False) or node.quiet
        if name in self.persistent and node.op not in ("+=", "-="):
            self.persistent_bad_ops[name] = node.op
        op = node.op
        if op in ("+=", "-=", "*=", "/=", "%="):
            value, vt = self.visit(node.value)
            if known is None and node.persistent:
                # Persistent variables start at 0 or "" (docs/reference/cql.md#persistent): the
                # declaration may update.
                known = STRING if vt == STRING and op == "+=" else NUMERIC
                self.kinds[name] = known
            if known is None:
                raise self.error(target.span, f"variable '{name}' used before assignment")
            if name in self.persistent:
                self.persistent_reads.update(self._reads_persistent(node.value))
            if known == STRING and op == "+=":
                self.need(value, vt, (STRING,), "'+=' on a string")
            elif known == NUMERIC:
                self.need(value, vt, (NUMERIC,), f"'{op}'")
            else:
                noun = {SET: "set", PIECE: "piece", POSITION: "position", STRING: "string"}[known]
                raise self.error(node.span, f"operator '{op}' is not defined for {noun} variables")
            self.types[id(target)] = known
            return self.typed(replace(node, value=value), LOGICAL)
        value, vt = self.visit(node.value)
        if node.piece:
            self.need(value, vt, (SET,), "'piece ='")
            kind = PIECE
        elif op == "=?":
            if not self.set_like(vt):
                raise self.error(node.span, "'=?' requires a set on the right-hand side")
            kind = SET
        elif vt == LOGICAL:
            raise self.error(node.span, "a logical filter has no value to assign")
        else:
            kind = SET if vt == PIECE else vt
        if node.persistent and kind not in (NUMERIC, STRING, SET):
            raise self.error(target.span, "persistent variables must be numeric, string or set")
        if name in self.persistent and kind not in (NUMERIC, STRING, SET):
            raise self.error(target.span, "persistent variables must be numeric, string or set")
        if known is not None and known != kind:
            if name in self.assign_kinds:
                raise self.error(
                    target.span,
                    f"variable '{name}' is {self.noun(kind)} in the query but --assign gives "
                    f"{'a number' if known == NUMERIC else 'a string'}",
                )
            if {known, kind} == {SET, PIECE}:
                raise self.error(
                    target.span,
                    f"variable '{name}' is {KIND_WORD[known]}; cannot make it {KIND_WORD[kind]}",
                )
            raise self.error(
                target.span,
                f"variable '{name}' is {self.noun(known)}; cannot assign {TYPE_NOUN[kind]}",
            )
        self.kinds[name] = kind
        self.types[id(target)] = kind
        return self.typed(replace(node, value=value), LOGICAL)

    def noun(self, kind: str) -> str:
        return {
            NUMERIC: "numeric",
            SET: "a set variable",
            PIECE: "a piece variable",
            STRING: "a string",
            POSITION: "a position",
        }.get(kind, kind)

    def _reads_persistent(self, node: ast.Node) -> set[str]:
        return {n.name for n in ast.walk([node]) if isinstance(n, ast.Var) and n.name in self.persistent}

    def assign_subscript(self, node: ast.Assign, target: ast.Subscript) -> tuple[ast.Node, str]:
        if not isinstance(target.target, ast.Var):
            raise self.error(target.span, "subscript assignment requires a string variable")
        name = target.target.name
        kind = self.lookup(name)
        if kind is None:
            raise self.error(target.target.span, f"variable '{name}' used before assignment")
        if kind != STRING:
            raise self.error(target.span, "subscript requires a string")
        if node.op != "=":
            raise self.error(node.span, f"operator '{node.op}' cannot assign to a subscript")
        new_target, _ = self.visit(target)
        value, vt = self.visit(node.value)
        self.need(value, vt, (STRING,), "subscript assignment")
        return self.typed(replace(node, target=new_target, value=value), LOGICAL)

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
