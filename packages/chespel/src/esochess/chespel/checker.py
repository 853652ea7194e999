"""Chespel checker: modules, parameters, openings, names, classes (docs/reference/chespel.md#modules
and docs/reference/chespel.md#diagnostics, docs/reference/chespel.md#opening).

`check(program, path)` returns a `CheckResult`: the program, every diagnostic found
(errors and warnings, unsorted), and the annotations the code generator needs:

* `class_of(expr)`: the static class of every expression that has one
  (docs/reference/chespel.md#classes). An expression containing an error has none (no cascades,
  docs/reference/chespel.md#diagnostics).
* `call_of(node)`: for every `ast.Name` and `ast.Call`, a `CallInfo` saying what it
  resolved to: a variable, a true global, or a library method with its receiver
  expression (explicit, the first argument of a global-form call, or the implicit loop
  variable of docs/reference/chespel.md#implicit-receiver), the component-accessor `path` of
  docs/reference/chespel.md#aggregation, and whether the call is lifted over a list
  (docs/reference/chespel.md#lists).
* Variables: a `Let`'s class is `class_of(let.value)`; loop variables are Piece
  (`piece` loops) or Cell (`cell` loops).
* `search` / `endgame`: module parameters with defaults filled in (Num parameters in
  milli-units, integers as int, flags as bool); `openings`: the opening rules with their
  position keys (docs/reference/chespel.md#opening).

Annotations are keyed by node identity; the result keeps the program alive.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from typing import TypeVar

import chess

from esochess.chespel import ast
from esochess.chespel.classes import (
    EMPTY_LIST,
    EQUATABLE,
    LISTABLE,
    ORDERABLE,
    Base,
    Class,
    ListOf,
    common_list,
    is_numeric,
    lists_compatible,
)
from esochess.chespel.layout import RESERVED
from esochess.chespel.library import (
    LIBRARY,
    Ambiguous,
    Entry,
    Resolved,
    ambiguity_text,
    element_accepts,
    globals_named,
    method_names,
    own,
    resolve_method,
)
from esochess.chespel.runtime.values import (
    TYPE_VALUES,
    clamp,
    format_num,
    num_div,
    num_mul,
)
from esochess.fen import SourceError
from esochess.fen.fen import parse_fen
from esochess.fen.suggest import with_suggestion

MAX_ERRORS = 50
# An implementation limit (not in the spec): deeper expressions are refused with an error
# rather than risking the recursion limits of this checker and of the generated Python.
MAX_DEPTH = 200
# Likewise for blocks (a rule body is level 1); Python itself stops at 100 indentations.
MAX_BLOCKS = 32
# The generated code spends one indentation level per loop variable (chespel-back).
MAX_LOOP_VARIABLES = 32
MAX_LOOP_VARIABLES_IN_SCOPE = 64


@dataclass(frozen=True)
class CallInfo:
    """What an `ast.Name` or `ast.Call` resolved to (see the module docstring).

    * kind "variable": `variable` is the name.
    * kind "global": a true global function `entry` applied to `args`.
    * kind "method": `entry` (a method of `entry.receiver`, or a List method) applied to
      the receiver and `args`. The receiver is `receiver` (an expression) or, when
      `implicit` is set, the loop variable of that name. With `lifted`, the receiver is a
      list: `path` then `entry` are applied to each element and the results collected
      (concatenated when `flatten`). Without `lifted`, `path` is applied to the receiver
      itself first (`p.value` = `Type.value(Piece.type(p))`). `element` is the element
      class of a list receiver (None for `[]` or non-list receivers).
    """

    kind: str
    entry: Entry | None = None
    receiver: ast.Expr | None = None
    implicit: str | None = None
    args: tuple[ast.Expr, ...] = ()
    path: tuple[Entry, ...] = ()
    lifted: bool = False
    flatten: bool = False
    element: Base | None = None
    variable: str | None = None


@dataclass(frozen=True)
class Opening:
    """One opening rule with the keys (docs/reference/chespel.md#opening) of its origin and
    destination positions."""

    line: int
    origin: str
    destination: str
    origin_key: str
    destination_key: str
    reachable: bool


SEARCH_DEFAULTS: dict[str, int | bool] = {
    "maxTime": 4000,
    "maxDepth": 64,
    "hashSize": 64,
    "quiescence": True,
}
ENDGAME_DEFAULTS: dict[str, int | bool] = {"threshold": 20000, "replace": False}

# name -> (kind, low, high, description for E19); Num bounds are exact fractions.
_PARAMETERS: dict[str, dict[str, tuple[str, Fraction, Fraction, str]]] = {
    "search": {
        "maxTime": ("num", Fraction(1, 100), Fraction(3600), "a number between 0.01 and 3600"),
        "maxDepth": ("int", Fraction(1), Fraction(64), "an integer between 1 and 64"),
        "hashSize": ("int", Fraction(1), Fraction(4096), "an integer between 1 and 4096"),
        "quiescence": ("bool", Fraction(0), Fraction(0), "true or false"),
    },
    "endgame": {
        "threshold": ("num", Fraction(0), Fraction(10000), "a number between 0 and 10000"),
        "replace": ("bool", Fraction(0), Fraction(0), "true or false"),
    },
}


@dataclass
class CheckResult:
    """The checked program, its diagnostics and the annotations for the back end."""

    path: str
    program: ast.Program | None
    diagnostics: list[SourceError] = field(default_factory=list)
    classes: dict[int, Class] = field(default_factory=dict)
    calls: dict[int, CallInfo] = field(default_factory=dict)
    search: dict[str, int | bool] = field(default_factory=lambda: dict(SEARCH_DEFAULTS))
    endgame: dict[str, int | bool] = field(default_factory=lambda: dict(ENDGAME_DEFAULTS))
    openings: tuple[Opening, ...] = ()

    @property
    def errors(self) -> list[SourceError]:
        """The error diagnostics (the program may run only when this is empty)."""
        return [d for d in self.diagnostics if d.is_error]

    @property
    def warnings(self) -> list[SourceError]:
        """The warnings."""
        return [d for d in self.diagnostics if not d.is_error]

    @property
    def ok(self) -> bool:
        """True when the program parsed and has no error."""
        return self.program is not None and not self.errors

    def class_of(self, expr: ast.Expr) -> Class | None:
        """The static class of `expr`, or None if it contains an error."""
        return self.classes.get(id(expr))

    def call_of(self, node: ast.Expr) -> CallInfo | None:
        """The resolution of a `Name` or `Call` node, or None if it did not resolve."""
        return self.calls.get(id(node))


_Item = TypeVar("_Item", ast.Module, ast.Rule, ast.Parameter, ast.OpeningRule)


@dataclass
class _Var:
    name: str
    pos: ast.Pos
    cls: Class | None
    used: bool = False


def const_value(expr: ast.Expr) -> int | None:
    """The value in milli-units of a constant Num expression (docs/reference/chespel.md#num), else
    None."""
    if isinstance(expr, ast.NumLit):
        return expr.millis
    if isinstance(expr, (ast.RowLit, ast.ColLit)):
        return expr.number * 1000
    if isinstance(expr, ast.TypeLit):
        return TYPE_VALUES[expr.piece_type]
    if isinstance(expr, ast.Unary) and expr.op in ("-", "abs"):
        v = const_value(expr.operand)
        if v is None:
            return None
        return clamp(-v if expr.op == "-" else abs(v))
    if isinstance(expr, ast.Binary) and expr.op in ("+", "-", "*", "/"):
        a, b = const_value(expr.left), const_value(expr.right)
        if a is None or b is None:
            return None
        if expr.op == "+":
            return clamp(a + b)
        if expr.op == "-":
            return clamp(a - b)
        if expr.op == "*":
            return num_mul(a, b)
        if b == 0:
            return None
        return num_div(a, b, expr.pos.line, expr.pos.column)
    return None


def truncation_warning(spelling: str, millis: int) -> str:
    """W1's text for a number literal with more than 3 decimals
    (docs/reference/chespel.md#literals)."""
    return f"number {spelling} has more than 3 decimals; truncated to {format_num(millis)}"


def expression_depth(expr: ast.Expr) -> int:
    """Nesting depth of an expression tree (a literal is 1), computed without recursion."""
    deepest = 0
    stack = [(expr, 1)]
    while stack:
        node, depth = stack.pop()
        deepest = max(deepest, depth)
        if isinstance(node, ast.Unary):
            stack.append((node.operand, depth + 1))
        elif isinstance(node, ast.Binary):
            stack.extend(((node.left, depth + 1), (node.right, depth + 1)))
        elif isinstance(node, ast.Call):
            stack.extend((arg, depth + 1) for arg in node.args)
            if node.receiver is not None:
                stack.append((node.receiver, depth + 1))
        elif isinstance(node, ast.ListLit):
            stack.extend((item, depth + 1) for item in node.elements)
    return deepest


def position_key(board: chess.Board) -> str:
    """The docs/reference/chespel.md#opening key: placement, side, clean castling rights, en passant
    only if legal."""
    return " ".join(board.fen(en_passant="legal").split()[:4])


def _has_score(stmts: tuple[ast.Stmt, ...]) -> bool:
    for stmt in stmts:
        if isinstance(stmt, ast.Score):
            return True
        if isinstance(stmt, (ast.If, ast.Loop)) and _has_score(stmt.body):
            return True
    return False


class _Checker:
    def __init__(self, program: ast.Program, path: str) -> None:
        self.program = program
        self.path = path
        self.result = CheckResult(path, program)
        self.scopes: list[dict[str, _Var]] = []
        self.implicit: _Var | None = None
        self.loop_variables = 0  # loop variables in scope

    # ---- diagnostics
    def error(self, pos: ast.Pos, message: str) -> None:
        """Record an error at `pos`."""
        self.result.diagnostics.append(SourceError(self.path, pos.line, pos.column, message))

    def warning(self, pos: ast.Pos, message: str) -> None:
        """Record a warning at `pos`."""
        self.result.diagnostics.append(
            SourceError(self.path, pos.line, pos.column, message, severity="warning")
        )

    def once(
        self,
        seen: dict[str, _Item],
        key: str,
        item: _Item,
        message: str,
        pos: ast.Pos | None = None,
    ) -> bool:
        """Record `item` under `key`; if already there, report `message (first at line N)`."""
        earlier = seen.get(key)
        if earlier is None:
            seen[key] = item
            return True
        self.error(pos or item.pos, f"{message} (first at line {earlier.pos.line})")
        return False

    # ---- program level
    def run(self) -> CheckResult:
        """Check the whole program and return the result."""
        seen: dict[str, ast.Module] = {}
        rule_names: dict[str, ast.Rule] = {}
        for module in self.program.modules:
            first = seen.get(module.kind)
            self.once(seen, module.kind, module, f"module '{module.kind}' is defined twice")
            if module.kind in _PARAMETERS:
                self.parameters(module, first is None)
            if module.kind == "opening":
                self.openings(module, first is None)
            if module.kind == "evaluation" and not module.rules and first is None:
                self.warning(module.name_pos, "module 'evaluation' has no rules")
            for rule in module.rules:
                message = f"rule '{rule.name}' is defined twice"
                self.once(rule_names, rule.name, rule, message, rule.name_pos)
                self.rule(rule)
        if "evaluation" not in seen:
            self.error(ast.Pos(1, 1), "missing mandatory module 'evaluation'")
        return self.result

    def parameters(self, module: ast.Module, primary: bool) -> None:
        """E17-E20 for the parameters of a search or endgame module; keep the values."""
        table = _PARAMETERS[module.kind]
        values = self.result.search if module.kind == "search" else self.result.endgame
        seen: dict[str, ast.Parameter] = {}
        first_rule = module.rules[0].pos if module.rules else None
        for param in module.parameters:
            if first_rule is not None and param.pos > first_rule:
                self.error(param.pos, "parameters must come before the first rule")
            spec = table.get(param.name)
            if spec is None:
                self.error(param.pos, f"unknown parameter '{param.name}' for module {module.kind}")
                continue
            if not self.once(seen, param.name, param, f"parameter '{param.name}' is set twice"):
                continue
            value = self.parameter_value(param, spec)
            if value is not None and primary:
                values[param.name] = value

    def parameter_value(
        self, param: ast.Parameter, spec: tuple[str, Fraction, Fraction, str]
    ) -> int | bool | None:
        """The typed value of one parameter, or None after reporting E19."""
        kind, low, high, description = spec
        text = param.value
        problem = f"parameter '{param.name}' must be {description}"
        if kind == "bool":
            if text in ("true", "false"):
                return text == "true"
            self.error(param.value_pos, problem)
            return None
        if text in ("true", "false", "-true", "-false"):
            self.error(param.value_pos, problem)
            return None
        digits = text.lstrip("-")
        decimals = digits.partition(".")[2]
        # Literals keep at most 3 decimals (docs/reference/chespel.md#literals), here as everywhere
        # else.
        number = Fraction(text)
        if len(decimals) > 3:
            millis = int(number * 1000)  # int() truncates toward zero
            number = Fraction(millis, 1000)
            self.warning(param.value_pos, truncation_warning(digits, millis))
        if not low <= number <= high or (kind == "int" and number.denominator != 1):
            self.error(param.value_pos, problem)
            return None
        if kind == "int":
            return int(number)
        return int(number * 1000)

    def openings(self, module: ast.Module, primary: bool) -> None:
        """E21, E22 and W4 for the opening rules; keep their keys."""
        seen: dict[str, ast.OpeningRule] = {}
        found: list[Opening] = []
        for rule in module.openings:
            origin = self.fen(rule.origin, rule.pos)
            destination = self.fen(rule.destination, rule.destination_pos)
            if origin is None:
                continue
            key = position_key(origin)
            if not self.once(seen, key, rule, "duplicate opening rule for this position"):
                continue
            if destination is None:
                continue
            target = position_key(destination)
            reachable = False
            for move in origin.legal_moves:
                origin.push(move)
                hit = position_key(origin) == target
                origin.pop()
                if hit:
                    reachable = True
                    break
            if not reachable:
                self.warning(
                    rule.destination_pos,
                    "opening rule: the destination is not reachable from the origin "
                    "by one legal move",
                )
            found.append(
                Opening(rule.pos.line, rule.origin, rule.destination, key, target, reachable)
            )
        if primary:
            self.result.openings = tuple(found)

    def fen(self, text: str, pos: ast.Pos) -> chess.Board | None:
        """Parse an opening FEN, or report E21 and return None."""
        try:
            return parse_fen(text, path=self.path, drop_impossible_castling=True)
        except SourceError as exc:
            self.error(pos, f"invalid FEN: {exc.message}")
        except ValueError as exc:
            self.error(pos, f"invalid FEN: {exc}")
        return None

    # ---- rules and statements
    def rule(self, rule: ast.Rule) -> None:
        """W3, then the rule body."""
        if not _has_score(rule.body):
            self.warning(rule.name_pos, f"rule '{rule.name}' has no score statement")
        self.block(rule.body)

    def block(self, body: tuple[ast.Stmt, ...], preset: dict[str, _Var] | None = None) -> None:
        """Check statements in a new scope (optionally pre-filled with loop variables)."""
        self.scopes.append(preset if preset is not None else {})
        for stmt in body:
            self.statement(stmt)
        self.close_scope()

    def close_scope(self) -> None:
        """Leave a scope, reporting W2 for its unused variables."""
        for var in self.scopes.pop().values():
            if not var.used:
                self.warning(var.pos, f"unused variable '{var.name}'")

    def lookup(self, name: str) -> _Var | None:
        """The variable `name` in scope, if any."""
        for scope in reversed(self.scopes):
            var = scope.get(name)
            if var is not None:
                return var
        return None

    def declare(self, name: str, pos: ast.Pos, cls: Class | None, scope: dict[str, _Var]) -> None:
        """Declare a variable (E37 for reserved words, E36 when already in scope)."""
        if name in RESERVED:
            self.error(pos, f"'{name}' is a reserved word")
            return
        earlier = self.lookup(name) or scope.get(name)
        if earlier is not None:
            self.error(pos, f"'{name}' is already defined (line {earlier.pos.line})")
            return
        scope[name] = _Var(name, pos, cls)

    def statement(self, stmt: ast.Stmt) -> None:
        """Check one statement."""
        if isinstance(stmt, ast.Score):
            value = self.root(stmt.value)
            if value is not None and not is_numeric(value):
                self.error(stmt.value.start, f"score value must be Num, found {value}")
            if stmt.justification is not None:
                text = self.root(stmt.justification)
                if text is not None and text is not Base.STRING:
                    self.error(
                        stmt.justification.start, f"justification must be String, found {text}"
                    )
        elif isinstance(stmt, (ast.If, ast.Loop)) and len(self.scopes) >= MAX_BLOCKS:
            self.error(stmt.pos, f"blocks are nested too deeply (more than {MAX_BLOCKS} levels)")
        elif isinstance(stmt, ast.If):
            self.condition(stmt.condition)
            self.block(stmt.body)
        elif isinstance(stmt, ast.Let):
            cls = self.root(stmt.value)
            self.declare(stmt.name, stmt.name_pos, cls, self.scopes[-1])
        elif isinstance(stmt, ast.Loop):
            self.loop(stmt)

    def condition(self, expr: ast.Expr) -> None:
        """Check an if or loop condition (E30)."""
        cls = self.root(expr)
        if cls is not None and cls is not Base.BOOL:
            self.error(expr.start, f"condition must be Bool, found {cls}")

    def loop(self, loop: ast.Loop) -> None:
        """Check a loop header (variables, conditions with the implicit receiver) and body."""
        count = len(loop.variables)
        if count > MAX_LOOP_VARIABLES:
            self.error(loop.pos, f"a loop may declare at most {MAX_LOOP_VARIABLES} variables")
            return
        if self.loop_variables + count > MAX_LOOP_VARIABLES_IN_SCOPE:
            self.error(
                loop.pos,
                f"too many loop variables in scope (more than {MAX_LOOP_VARIABLES_IN_SCOPE})",
            )
            return
        cls = Base.PIECE if loop.kind == "piece" else Base.CELL
        scope: dict[str, _Var] = {}
        for var in loop.variables:
            self.declare(var.name, var.pos, cls, scope)
        self.scopes.append(scope)
        saved = self.implicit
        self.implicit = None
        if len(loop.variables) == 1:
            self.implicit = scope.get(loop.variables[0].name)
        for cond in loop.conditions:
            self.condition(cond)
        self.implicit = saved
        self.scopes.pop()
        self.loop_variables += count
        self.block(loop.body, scope)
        self.loop_variables -= count

    # ---- expressions
    def root(self, expr: ast.Expr) -> Class | None:
        """Check a statement's whole expression, refusing absurdly deep nesting first."""
        if expression_depth(expr) > MAX_DEPTH:
            self.error(
                expr.start, f"expression is nested too deeply (more than {MAX_DEPTH} levels)"
            )
            return None
        return self.expr(expr)

    def expr(self, expr: ast.Expr) -> Class | None:
        """The class of `expr` (recorded for the back end), or None after an error."""
        cls = self._expr(expr)
        if cls is not None:
            self.result.classes[id(expr)] = cls
        return cls

    def _expr(self, expr: ast.Expr) -> Class | None:
        if isinstance(expr, ast.NumLit):
            return self.number(expr)
        simple = _LITERAL_CLASS.get(type(expr))
        if simple is not None:
            return simple
        if isinstance(expr, ast.ListLit):
            return self.list_literal(expr)
        if isinstance(expr, ast.Name):
            return self.name(expr)
        if isinstance(expr, ast.Call):
            return self.call(expr)
        if isinstance(expr, ast.Unary):
            return self.unary(expr)
        if isinstance(expr, ast.Binary):
            return self.binary(expr)
        raise TypeError(f"unknown expression node {type(expr).__name__}")

    def number(self, lit: ast.NumLit) -> Class | None:
        """E11 and W1 for a number literal."""
        frac = lit.spelling.partition(".")[2]
        if Fraction(lit.spelling) > 10000:
            self.error(lit.pos, f"number out of range (-10000..10000): {lit.spelling}")
            return None
        if len(frac) > 3:
            self.warning(lit.pos, truncation_warning(lit.spelling, lit.millis))
        return Base.NUM

    def list_literal(self, lit: ast.ListLit) -> Class | None:
        """E33 and E34 for a list literal."""
        classes = [self.expr(e) for e in lit.elements]
        if any(c is None for c in classes):
            return None
        if not lit.elements:
            return EMPTY_LIST
        for element, cls in zip(lit.elements, classes, strict=True):
            if not (isinstance(cls, Base) and cls in LISTABLE):
                self.error(element.start, f"a list cannot contain {cls} values")
                return None
        first = classes[0]
        for element, cls in zip(lit.elements, classes, strict=True):
            if cls != first:
                self.error(
                    element.start,
                    f"list elements must have the same class (found {first} and {cls})",
                )
                return None
        assert isinstance(first, Base)
        return ListOf(first)

    def name(self, node: ast.Name) -> Class | None:
        """Resolve a bare word (the steps of docs/reference/chespel.md#calls without arguments)."""
        var = self.lookup(node.name)
        if var is not None:
            var.used = True
            self.result.calls[id(node)] = CallInfo("variable", variable=node.name)
            return var.cls
        for entry in globals_named(node.name):
            if entry.arity == 0:
                self.result.calls[id(node)] = CallInfo("global", entry)
                return entry.return_class()
        found, cls = self.implicit_call(node, node.name, ())
        if found:
            return cls
        entries = globals_named(node.name)
        if entries:
            self.arity_error(node.pos, node.name, entries, 0)
            return None
        self.unknown_name(node.pos, node.name)
        return None

    def unknown_name(self, pos: ast.Pos, name: str) -> None:
        """`unknown name 'x'`, with the close variables in scope and global functions."""
        known = {n for scope in self.scopes for n in scope}
        known |= {entry.name for entry in LIBRARY if entry.receiver is None}
        self.error(pos, with_suggestion(f"unknown name '{name}'", name, known))

    def call(self, node: ast.Call) -> Class | None:
        """Resolve a call: a method on a receiver, or a bare call by the steps of
        docs/reference/chespel.md#calls."""
        if node.receiver is not None:
            receiver = self.expr(node.receiver)
            if receiver is None:
                return None
            checked = [self.expr(a) for a in node.args]
            known = [a for a in checked if a is not None]
            if len(known) != len(checked):
                return None
            return self.method(node, node.receiver, None, receiver, node.args, known)
        args = [self.expr(a) for a in node.args]
        if any(a is None for a in args):
            return None
        classes: list[Class] = [a for a in args if a is not None]
        # Step 2: a true global whose parameters accept the arguments.
        entries = globals_named(node.name)
        for entry in entries:
            if entry.arity == len(args) and self.accepts(entry, classes, None):
                self.check_ranges(entry, node.name, node.args)
                self.result.calls[id(node)] = CallInfo("global", entry, args=node.args)
                return entry.return_class()
        # Step 3: the global form of a method, `m(x, a...)` = `x.m(a...)`.
        method_found = None
        if node.args:
            first = classes[0]
            method_found = self.find_method(first, node.name)
            if isinstance(method_found, tuple) and any(
                e.arity == len(args) - 1 for e in method_found[0]
            ):
                return self.method(node, node.args[0], None, first, node.args[1:], classes[1:])
        # Step 4: the implicit receiver of a single-variable loop's conditions.
        found, cls = self.implicit_call(node, node.name, node.args, classes)
        if found:
            return cls
        # Step 5: explain why nothing fitted.
        if entries:
            arity_ok = [e for e in entries if e.arity == len(args)]
            if not arity_ok:
                self.arity_error(node.pos, node.name, entries, len(args))
            else:
                self.accepts(arity_ok[0], classes, node.name, node.args)
            return None
        if isinstance(method_found, Ambiguous):
            self.ambiguous(node.pos, node.name, classes[0], method_found)
            return None
        if isinstance(method_found, tuple):
            self.arity_error(node.pos, node.name, method_found[0], len(args) - 1)
            return None
        self.unknown_name(node.pos, node.name)
        return None

    def implicit_call(
        self,
        node: ast.Expr,
        name: str,
        arg_exprs: tuple[ast.Expr, ...],
        args: list[Class] | None = None,
    ) -> tuple[bool, Class | None]:
        """Try `V.name(args)` for the implicit loop variable V
        (docs/reference/chespel.md#implicit-receiver): (found, class)."""
        var = self.implicit
        if var is None or var.cls is None:
            return False, None
        found = self.find_method(var.cls, name)
        if found is None:
            return False, None
        var.used = True
        if isinstance(found, Ambiguous):
            self.ambiguous(node.pos, name, var.cls, found)
            return True, None
        return True, self.method(node, None, var.name, var.cls, arg_exprs, args or [])

    def find_method(
        self, cls: Class, name: str
    ) -> tuple[tuple[Entry, ...], tuple[Entry, ...]] | Ambiguous | None:
        """Entries and path for `name` on `cls` (lists: own List methods, then lifting)."""
        if isinstance(cls, ListOf):
            mine = own("List", name)
            if mine:
                return mine, ()
            if cls.element is None:
                return None
            cls = cls.element
        found = resolve_method(cls, name)
        if isinstance(found, Resolved):
            return found.entries, found.path
        return found

    def method(
        self,
        node: ast.Expr,
        receiver_expr: ast.Expr | None,
        implicit: str | None,
        receiver: Class,
        arg_exprs: tuple[ast.Expr, ...],
        args: list[Class],
    ) -> Class | None:
        """Check `receiver.name(args)` with list methods, lifting and aggregation."""
        name = node.name if isinstance(node, (ast.Name, ast.Call)) else ""
        pos = node.pos
        lifted = False
        element: Base | None = None
        if isinstance(receiver, ListOf):
            element = receiver.element
            mine = own("List", name)
            if mine:
                entry = mine[0]
                if element is None and not entry.on_empty:
                    self.error(pos, f"method '{name}' cannot be used on the empty list '[]'")
                    return None
                if element is not None and not element_accepts(entry.element, element):
                    self.error(pos, f"class {receiver} has no method '{name}'")
                    return None
                if entry.arity != len(args):
                    self.arity_error(pos, name, mine, len(args))
                    return None
                if not self.accepts(entry, args, name, arg_exprs, element):
                    return None
                self.check_ranges(entry, name, arg_exprs)
                self.result.calls[id(node)] = CallInfo(
                    "method",
                    entry,
                    receiver_expr,
                    implicit,
                    arg_exprs,
                    element=element,
                )
                result = entry.return_class(element)
                if element is None and result is None:
                    return EMPTY_LIST
                return result
            if element is None:
                self.error(pos, f"method '{name}' cannot be used on the empty list '[]'")
                return None
            lifted = True
            base: Base = element
        else:
            base = receiver
        found = resolve_method(base, name)
        if found is None:
            self.error(pos, with_suggestion(f"class {base} has no method '{name}'", name,
                                            method_names(base)))
            return None
        if isinstance(found, Ambiguous):
            self.ambiguous(pos, name, base, found)
            return None
        candidates = [e for e in found.entries if e.arity == len(args)]
        if not candidates:
            self.arity_error(pos, name, found.entries, len(args))
            return None
        entry = next((e for e in candidates if self.accepts(e, args, None)), candidates[0])
        if not self.accepts(entry, args, name, arg_exprs):
            return None
        self.check_ranges(entry, name, arg_exprs)
        result = entry.return_class()
        flatten = lifted and isinstance(result, ListOf)
        self.result.calls[id(node)] = CallInfo(
            "method",
            entry,
            receiver_expr,
            implicit,
            arg_exprs,
            found.path,
            lifted,
            flatten,
            element,
        )
        if lifted:
            if isinstance(result, ListOf):
                return result
            assert isinstance(result, Base)
            return ListOf(result)
        return result

    def accepts(
        self,
        entry: Entry,
        args: list[Class],
        name: str | None,
        arg_exprs: tuple[ast.Expr, ...] = (),
        element: Base | None = None,
    ) -> bool:
        """Whether `args` fit `entry`'s parameters; with `name`, report E28 if not."""
        if entry.receiver is None and entry.name == "in" and len(args) == 2:
            element_cls = args[0] if isinstance(args[0], Base) else None
            if element_cls is None or element_cls not in LISTABLE:
                if name is not None:
                    self.error(
                        arg_exprs[0].start,
                        f"argument 1 of '{name}' must be a list element, found {args[0]}",
                    )
                return False
            element = element_cls
        for index, arg in enumerate(args):
            expected = entry.param_class(index, element)
            if expected is None or _fits(expected, arg):
                continue
            if name is not None:
                self.error(
                    arg_exprs[index].start,
                    f"argument {index + 1} of '{name}' must be {expected}, found {arg}",
                )
            return False
        return True

    def check_ranges(self, entry: Entry, name: str, arg_exprs: tuple[ast.Expr, ...]) -> None:
        """E41 for constant arguments outside an entry's range."""
        for index, arg in enumerate(arg_exprs):
            rng = entry.range_of(index)
            if rng is None:
                continue
            value = const_value(arg)
            if value is not None and not rng.accepts(value):
                self.error(arg.start, f"argument out of range for '{name}': {format_num(value)}")

    def arity_error(self, pos: ast.Pos, name: str, entries: tuple[Entry, ...], given: int) -> None:
        """Report E27 for the signatures `entries`."""
        arities = sorted({e.arity for e in entries})
        text = " or ".join(str(a) for a in arities)
        self.error(pos, f"'{name}' expects {text} argument(s), {given} given")

    def ambiguous(self, pos: ast.Pos, name: str, cls: Class, found: Ambiguous) -> None:
        """Report E26."""
        self.error(
            pos,
            f"method '{name}' is ambiguous for class {cls} "
            f"(inherited from {ambiguity_text(found.providers)})",
        )

    def unary(self, node: ast.Unary) -> Class | None:
        """Class of a prefix operation (E29 if it does not apply)."""
        operand = self.expr(node.operand)
        if operand is None:
            return None
        if node.op == "not":
            if operand is Base.BOOL:
                return Base.BOOL
        elif is_numeric(operand):
            return Base.NUM
        self.error(node.pos, f"operator '{node.op}' cannot be applied to {operand}")
        return None

    def binary(self, node: ast.Binary) -> Class | None:
        """Class of an infix operation (E29, E38)."""
        left = self.expr(node.left)
        right = self.expr(node.right)
        if left is None or right is None:
            return None
        result = _binary_class(node.op, left, right)
        if result is None:
            self.error(node.pos, f"operator '{node.op}' cannot be applied to {left} and {right}")
            return None
        if node.op == "/" and const_value(node.right) == 0:
            self.error(node.pos, "division by zero")
            return None
        return result


_LITERAL_CLASS: dict[type, Class] = {
    ast.StrLit: Base.STRING,
    ast.BoolLit: Base.BOOL,
    ast.RowLit: Base.ROW,
    ast.ColLit: Base.COL,
    ast.CellLit: Base.CELL,
    ast.TypeLit: Base.TYPE,
    ast.PlayerLit: Base.PLAYER,
    ast.ColorLit: Base.COLOR,
}


def _fits(expected: Class, actual: Class) -> bool:
    """Argument passing: Num parameters take Num* (docs/reference/chespel.md#numeric-value); list
    parameters take `[]`."""
    if expected == actual:
        return True
    if expected is Base.NUM and is_numeric(actual):
        return True
    if isinstance(expected, ListOf) and isinstance(actual, ListOf):
        return lists_compatible(expected, actual)
    return False


_ARITH = frozenset({"+", "-", "*", "/"})
_ORDER = frozenset({"<", ">", "<=", ">="})
_RELATIVE = frozenset({"*<", "*>", "*<=", "*>="})


def _binary_class(op: str, left: Class, right: Class) -> Class | None:
    """The class of `left op right` (docs/reference/chespel.md#operators), or None when the operator
    does not apply."""
    if op in _ARITH:
        return Base.NUM if is_numeric(left) and is_numeric(right) else None
    if op in _ORDER:
        same = left == right and isinstance(left, Base) and left in ORDERABLE
        mixed = (left is Base.NUM and is_numeric(right)) or (right is Base.NUM and is_numeric(left))
        return Base.BOOL if same or mixed else None
    if op in _RELATIVE:
        return Base.BOOL if left is Base.ROW and right is Base.ROW else None
    if op in ("==", "!="):
        if isinstance(left, ListOf) and isinstance(right, ListOf):
            return Base.BOOL if lists_compatible(left, right) else None
        if isinstance(left, Base) and isinstance(right, Base):
            if left == right and left in EQUATABLE:
                return Base.BOOL
            if (left is Base.NUM and is_numeric(right)) or (right is Base.NUM and is_numeric(left)):
                return Base.BOOL
        return None
    if op == "in":
        if isinstance(left, Base) and left in LISTABLE and isinstance(right, ListOf):
            return Base.BOOL if right.element in (None, left) else None
        return None
    if op in ("and", "or"):
        return Base.BOOL if left is Base.BOOL and right is Base.BOOL else None
    # '++' (docs/reference/chespel.md#string-forms)
    if isinstance(left, ListOf) and isinstance(right, ListOf):
        return common_list(left, right) if lists_compatible(left, right) else None
    if isinstance(left, ListOf) or isinstance(right, ListOf):
        other = right if isinstance(left, ListOf) else left
        return Base.STRING if other is Base.STRING else None
    return Base.STRING


def check(program: ast.Program, path: str) -> CheckResult:
    """Check a parsed program; see the module docstring for what the result holds."""
    return _Checker(program, path).run()
