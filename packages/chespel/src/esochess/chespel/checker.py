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

from dataclasses import dataclass
from fractions import Fraction

from esochess.chespel import ast
from esochess.chespel.check_modules import PARAMETERS, ModuleChecks, truncation_warning
from esochess.chespel.check_result import (
    MAX_BLOCKS,
    MAX_DEPTH,
    MAX_LOOP_VARIABLES,
    MAX_LOOP_VARIABLES_IN_SCOPE,
    CallInfo,
    CheckResult,
)
from esochess.chespel.classes import (
    EMPTY_LIST,
    LISTABLE,
    Base,
    Class,
    ListOf,
    binary_class,
    fits,
    is_numeric,
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
    format_num,
)
from esochess.chespel.static import const_value, expression_depth
from esochess.fen.suggest import with_suggestion


@dataclass
class _Var:
    name: str
    pos: ast.Pos
    cls: Class | None
    used: bool = False


def _has_score(stmts: tuple[ast.Stmt, ...]) -> bool:
    for stmt in stmts:
        if isinstance(stmt, ast.Score):
            return True
        if isinstance(stmt, (ast.If, ast.Loop)) and _has_score(stmt.body):
            return True
    return False


class _Checker(ModuleChecks):
    def __init__(self, program: ast.Program, path: str) -> None:
        super().__init__(program, path)
        self.scopes: list[dict[str, _Var]] = []
        self.implicit: _Var | None = None
        self.loop_variables = 0  # loop variables in scope

    # ---- program level
    def run(self) -> CheckResult:
        """Check the whole program and return the result."""
        seen: dict[str, ast.Module] = {}
        rule_names: dict[str, ast.Rule] = {}
        for module in self.program.modules:
            first = seen.get(module.kind)
            self.once(seen, module.kind, module, f"module '{module.kind}' is defined twice")
            if module.kind in PARAMETERS:
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
            if expected is None or fits(expected, arg):
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
        result = binary_class(node.op, left, right)
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


def check(program: ast.Program, path: str) -> CheckResult:
    """Check a parsed program; see the module docstring for what the result holds."""
    return _Checker(program, path).run()
