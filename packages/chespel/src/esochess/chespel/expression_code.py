"""Python code for Chespel expressions (part of code generation, see codegen.py): values in
the run-time representations of runtime/library.py, calls of the library, lifting over
lists, string forms, and the analysis of expressions the generator needs (classes, calls,
variables, whether an expression can fail).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from esochess.chespel import ast
from esochess.chespel.check_result import CallInfo, CheckResult
from esochess.chespel.classes import Base, Class, ListOf
from esochess.chespel.frontend import concat_spelling
from esochess.chespel.library import Entry

_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
_FAILING = {"global.row", "global.col", "Player.rank", "List.head", "List.last", "List.elem",
            "List.min", "List.max"}
_COMPARISONS = {"<", ">", "<=", ">=", "==", "!="}
_RELATIVE = {"*<": "<", "*>": ">", "*<=": "<=", "*>=": ">="}
_MIRRORED = {"<": ">", ">": "<", "<=": ">=", ">=": "<="}
# CPython refuses more than 200 nested brackets in one expression: deeper code goes into
# local functions (a hoisted expression is still evaluated only where it is used).
_MAX_NESTING = 40


STRING_FORMS: dict[Base, str] = {
    Base.STRING: "{}",
    Base.NUM: "_fmt({})",
    Base.BOOL: "_sb({})",
    Base.ROW: "_srow({})",
    Base.COL: "_scol({})",
    Base.CELL: "_sc({})",
    Base.TYPE: "_stype({})",
    Base.PLAYER: "_splayer({}, me)",
    Base.COLOR: "_scolor({})",
    Base.PIECE: "_L.str_piece(ctx, {})",
}
"""The generated call that gives each base class's string form, `{}` being its code."""

class CodegenError(Exception):
    """The checked program lacks an annotation the generator needs (a front-end bug)."""


def mangle(name: str) -> str:
    """The Python name of a program variable; rejects anything but a Chespel word."""
    if not _IDENTIFIER.match(name):
        raise CodegenError(f"invalid variable name {name!r}")
    return "v_" + name


class ExpressionCode:
    """The expression half of the generator: `expr(e)` is the code of `e`; deep code is
    hoisted into local functions (`pending`), flushed by the statement half."""

    def __init__(self, result: CheckResult, literals: dict[int, int] | None = None) -> None:
        self.result = result
        self.literals = literals or {}
        self.constant_lists: list[str] = []
        self.counter = 0
        self.pending: list[tuple[str, str]] = []

    # ------------------------------------------------------------------ analysis

    def call_info(self, node: ast.Expr) -> CallInfo:
        info = self.result.call_of(node)
        if info is None:
            raise CodegenError(f"unresolved name at {node.pos}")
        return info

    def cls(self, expr: ast.Expr) -> Class:
        found = self.result.class_of(expr)
        if found is None:
            raise CodegenError(f"expression without a class at {expr.pos}")
        return found

    def children(self, expr: ast.Expr) -> Iterator[ast.Expr]:
        if isinstance(expr, ast.Binary):
            yield expr.left
            yield expr.right
        elif isinstance(expr, ast.Unary):
            yield expr.operand
        elif isinstance(expr, ast.Call):
            if expr.receiver is not None:
                yield expr.receiver
            yield from expr.args
        elif isinstance(expr, ast.ListLit):
            yield from expr.elements

    def walk(self, expr: ast.Expr) -> Iterator[ast.Expr]:
        yield expr
        for child in self.children(expr):
            yield from self.walk(child)

    def variables_in(self, expr: ast.Expr) -> set[str]:
        found: set[str] = set()
        for node in self.walk(expr):
            if isinstance(node, (ast.Name, ast.Call)):
                info = self.call_info(node)
                if info.kind == "variable" and info.variable is not None:
                    found.add(info.variable)
                if info.implicit is not None:
                    found.add(info.implicit)
        return found

    def can_fail(self, expr: ast.Expr) -> bool:
        for node in self.walk(expr):
            if isinstance(node, ast.Binary) and node.op == "/":
                return True
            if isinstance(node, (ast.Name, ast.Call)):
                info = self.call_info(node)
                if info.entry is not None and info.entry.key in _FAILING:
                    return True
        return False

    def fresh(self, stem: str) -> str:
        self.counter += 1
        return f"_{stem}{self.counter}"

    # ------------------------------------------------------------------ expressions

    def num(self, expr: ast.Expr) -> str:
        """Code for `expr` converted to a Num (docs/reference/chespel.md#numeric-value)."""
        return self.as_num(self.expr(expr), self.cls(expr))

    @staticmethod
    def as_num(code: str, cls: Class) -> str:
        if cls is Base.ROW or cls is Base.COL:
            return f"({code}) * 1000"
        if cls is Base.TYPE:
            return f"_TV[{code}]"
        return code

    def expr(self, expr: ast.Expr) -> str:
        """Code for `expr` in its class's run-time representation (deep code is hoisted)."""
        code = self.expr_code(expr)
        if _nesting(code) > _MAX_NESTING:
            name = self.fresh("e")
            self.pending.append((name, code))
            return f"{name}()"
        return code

    def expr_code(self, expr: ast.Expr) -> str:
        """Code for `expr`, possibly deeply nested."""
        if isinstance(expr, ast.NumLit):
            if id(expr) in self.literals:
                return f"_W[{self.literals[id(expr)]}]"
            return repr(int(expr.millis))
        if isinstance(expr, ast.StrLit):
            return repr(str(expr.value))
        if isinstance(expr, ast.BoolLit):
            return repr(bool(expr.value))
        if isinstance(expr, (ast.RowLit, ast.ColLit)):
            return repr(int(expr.number))
        if isinstance(expr, ast.CellLit):
            return repr(int(expr.square))
        if isinstance(expr, ast.TypeLit):
            return repr(int(expr.piece_type))
        if isinstance(expr, ast.PlayerLit):
            return "me" if expr.is_me else "(not me)"
        if isinstance(expr, ast.ColorLit):
            return repr(bool(expr.is_white))
        if isinstance(expr, ast.ListLit):
            code = "[" + ", ".join(self.expr(e) for e in expr.elements) + "]"
            if self.literals and expr.elements and all(
                    self.literal_weight(e) for e in expr.elements):
                name = f"_CL{len(self.constant_lists)}"
                self.constant_lists.append(f"{name} = {code}")
                return name
            return code
        if self.literal_weight(expr):
            assert isinstance(expr, ast.Unary)
            return f"_WN[{self.literals[id(expr.operand)]}]"
        if isinstance(expr, ast.Unary):
            if expr.op == "not":
                return f"(not {self.expr(expr.operand)})"
            if expr.op == "-":
                return f"(-{self.num(expr.operand)})"
            return f"abs({self.num(expr.operand)})"
        if isinstance(expr, ast.Binary):
            return self.binary(expr)
        if isinstance(expr, (ast.Name, ast.Call)):
            return self.call(expr)
        raise CodegenError(f"unknown expression {type(expr).__name__}")

    def literal_weight(self, expr: ast.Expr) -> bool:
        """A traced literal, or one after a unary minus (never for the normal code)."""
        if isinstance(expr, ast.Unary) and expr.op == "-":
            expr = expr.operand
        return isinstance(expr, ast.NumLit) and id(expr) in self.literals

    def binary(self, expr: ast.Binary) -> str:
        op = expr.op
        left, right = expr.left, expr.right
        if op == "and" or op == "or":
            return f"({self.expr(left)} {op} {self.expr(right)})"
        if op == "+" or op == "-":
            return f"_clamp({self.num(left)} {op} {self.num(right)})"
        if op == "*":
            scaled = self.literal_times_count(left, right) or self.literal_times_count(right, left)
            if scaled is not None:
                return scaled
            return f"_mul({self.num(left)}, {self.num(right)})"
        if op == "/":
            line, column = expr.pos.line, expr.pos.column
            return f"_div({self.num(left)}, {self.num(right)}, {line}, {column})"
        if op == "in":
            return f"({self.expr(left)} in {self.expr(right)})"
        if op == "++":
            if isinstance(self.cls(left), ListOf) and isinstance(self.cls(right), ListOf):
                return f"({self.expr(left)} + {self.expr(right)})"
            return f"({self.text(left)} + {self.text(right)})"
        if op in _RELATIVE:
            plain = _RELATIVE[op]
            a, b = self.expr(left), self.expr(right)
            return f"(({a} {plain} {b}) if me else ({a} {_MIRRORED[plain]} {b}))"
        if op in _COMPARISONS:
            lc, rc = self.cls(left), self.cls(right)
            if (lc is Base.NUM) != (rc is Base.NUM) or (
                    lc is Base.TYPE and rc is Base.TYPE and op not in ("==", "!=")):
                return f"({self.num(left)} {op} {self.num(right)})"
            return f"({self.expr(left)} {op} {self.expr(right)})"
        raise CodegenError(f"unknown operator {op!r}")

    def text(self, expr: ast.Expr) -> str:
        """Code for the string form of `expr` (docs/reference/chespel.md#string-forms)."""
        spelling = concat_spelling(expr)
        if spelling is not None:
            return repr(spelling)
        return self.string_of(self.expr(expr), self.cls(expr))

    def string_of(self, code: str, cls: Class) -> str:
        if isinstance(cls, ListOf):
            if cls.element is None:
                return "'[]'"
            item = self.fresh("t")
            inner = self.string_of(item, cls.element)
            return f"_L.str_list({code}, lambda {item}: {inner})"
        form = STRING_FORMS.get(cls) if isinstance(cls, Base) else None
        if form is None:
            raise CodegenError(f"no string form for {cls}")
        return form.format(code)

    # ------------------------------------------------------------------ calls

    def argument(self, entry: Entry, index: int, arg: ast.Expr) -> str:
        if entry.params[index] == "Num":
            return self.num(arg)
        return self.expr(arg)

    def call(self, node: ast.Name | ast.Call) -> str:
        info = self.call_info(node)
        if info.kind == "variable":
            if info.variable is None:
                raise CodegenError(f"variable without a name at {node.pos}")
            return mangle(info.variable)
        entry = info.entry
        if entry is None:
            raise CodegenError(f"call without an entry at {node.pos}")
        args = [self.argument(entry, i, a) for i, a in enumerate(info.args)]
        if info.kind == "global":
            return self.global_call(node, entry, args)
        if info.implicit is not None:
            receiver = mangle(info.implicit)
        elif info.receiver is not None:
            receiver = self.expr(info.receiver)
        else:
            raise CodegenError(f"method call without a receiver at {node.pos}")
        if entry.receiver == "List":
            count = self.attack_count(info)
            if count is not None:
                return f"({count} * 1000)"
            return self.list_method(node, entry, receiver, info, args)
        if not info.lifted:
            return self.apply(node, entry, info.path, receiver, args)
        # Lifting (docs/reference/chespel.md#lists): receiver first, then the arguments, each
        # evaluated once.
        names = [self.fresh("a") for _ in args]
        item = self.fresh("x")
        inner = self.apply(node, entry, info.path, item, names)
        if info.flatten:
            out = self.fresh("y")
            body = f"[{out} for {item} in _r for {out} in {inner}]"
        else:
            body = f"[{inner} for {item} in _r]"
        params = ", ".join(["_r", *names])
        return f"(lambda {params}: {body})({', '.join([receiver, *args])})"

    def literal_times_count(self, literal: ast.Expr, count: ast.Expr) -> str | None:
        """`0.02 * p.visibleCells.length` without the milli-unit rounding of `_mul`, which a
        whole count never needs (None unless `literal` is an untraced number literal and
        `count` a popcount of `attack_count`)."""
        if not isinstance(literal, ast.NumLit) or self.literal_weight(literal):
            return None
        if not isinstance(count, (ast.Name, ast.Call)):
            return None
        info = self.call_info(count)
        code = self.attack_count(info) if info.kind == "method" else None
        if code is None:
            return None
        return f"_clamp({self.num(literal)} * {code})"

    def attack_count(self, info: CallInfo) -> str | None:
        """For `P.visibleCells.length`, the number of cells as a popcount of the piece's
        attack set (a whole number, no list made); None for any other call."""
        if info.entry is None or info.entry.key != "List.length" or info.lifted:
            return None
        inner_node = info.receiver
        if not isinstance(inner_node, (ast.Name, ast.Call)):
            return None
        inner = self.call_info(inner_node)
        if (inner.kind != "method" or inner.lifted or inner.entry is None
                or inner.entry.key != "Piece.visibleCells"):
            return None
        if inner.implicit is not None:
            piece = mangle(inner.implicit)
        elif inner.receiver is not None:
            piece = self.expr(inner.receiver)
        else:
            return None
        for step in inner.path:
            piece = self.method(inner_node, step, piece, [])
        return f"ctx.attacks({piece}).bit_count()"

    def apply(self, node: ast.Expr, entry: Entry, path: tuple[Entry, ...], receiver: str,
              args: list[str]) -> str:
        code = receiver
        for step in path:
            code = self.method(node, step, code, [])
        return self.method(node, entry, code, args)

    def method(self, node: ast.Expr, entry: Entry, receiver: str, args: list[str]) -> str:
        key = entry.key
        r = receiver
        inline = {
            "Piece.player": f"(ctx.occupied_co[1] >> ({r}) & 1 == 1)",
            "Piece.color": f"(ctx.occupied_co[1] >> ({r}) & 1 == 1)",
            "Piece.type": f"ctx.board.piece_type_at({r})",
            "Piece.cell": r,
            "Cell.pos": r,
            "Cell.row": f"((({r}) >> 3) + 1)",
            "Cell.col": f"((({r}) & 7) + 1)",
            "Type.value": f"_TV[{r}]",
            "Player.pieces": f"_L.squares(ctx.occupied_co[{r}])",
            "Color.pieces": f"_L.squares(ctx.occupied_co[{r}])",
            "Player.other": f"(not {r})",
            "Color.other": f"(not {r})",
            "Player.color": r,
            "Color.player": r,
        }
        if key in inline:
            return inline[key]
        owner, _, name = key.partition(".")
        name = name.partition("/")[0]
        parts = ["ctx", "me", r, *args]
        if key in _FAILING:
            parts += [str(node.pos.line), str(node.pos.column)]
        return f"_L.{owner}_{name}({', '.join(parts)})"

    def global_call(self, node: ast.Expr, entry: Entry, args: list[str]) -> str:
        name = entry.key.partition(".")[2]
        if name == "abs":
            return f"abs({args[0]})"
        if name == "in":
            return f"({args[0]} in {args[1]})"
        if name in ("min", "max"):
            return f"{name}({args[0]}, {args[1]})"
        parts = ["ctx", "me", *args]
        if entry.key in _FAILING:
            parts += [str(node.pos.line), str(node.pos.column)]
        return f"_L.G_{name}({', '.join(parts)})"

    def list_method(self, node: ast.Expr, entry: Entry, receiver: str, info: CallInfo,
                    args: list[str]) -> str:
        name = entry.name
        where = f"{node.pos.line}, {node.pos.column}"
        element = info.element
        if name == "length":
            return f"(len({receiver}) * 1000)"
        if name == "empty":
            return f"(not {receiver})"
        if name == "tail":
            return f"{receiver}[1:]"
        if name == "nub":
            return f"_L.L_nub({receiver})"
        if name in ("head", "last"):
            return f"_L.L_{name}({receiver}, {where})"
        if name == "elem":
            return f"_L.L_elem({receiver}, {args[0]}, {where})"
        if name in ("all", "any"):
            return f"{name}({receiver})"
        if name in ("sum", "product"):
            if element in (Base.ROW, Base.COL, Base.TYPE):
                item = self.fresh("n")
                receiver = f"[{self.as_num(item, element)} for {item} in {receiver}]"
            return f"_L.L_{name}({receiver})"
        if name in ("min", "max", "sort", "reverseSort"):
            if element is Base.TYPE:
                key = "_TV.__getitem__"
            elif element is Base.PIECE:
                key = "(lambda _p: _TV[ctx.board.piece_type_at(_p)])"
            else:
                key = "int"
            if name in ("min", "max"):
                return f"_L.L_{name}({receiver}, {key}, {where})"
            return f"_L.L_{name}({receiver}, {key})"
        raise CodegenError(f"unknown list method {name!r}")


def _nesting(code: str) -> int:
    """The deepest bracket nesting of generated code (brackets inside strings count too,
    which only makes hoisting happen a little earlier)."""
    depth = deepest = 0
    for char in code:
        if char in "([{":
            depth += 1
            deepest = max(deepest, depth)
        elif char in ")]}":
            depth -= 1
    return deepest
