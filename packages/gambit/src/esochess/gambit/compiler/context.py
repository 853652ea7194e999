"""The compiler as its rule modules see it (a protocol), so no module imports its caller."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Protocol

from esochess.gambit import ast as A
from esochess.gambit import declarations as D
from esochess.gambit import types as T
from esochess.gambit.analysis import (
    Analysis,
    CellAnalysis,
)
from esochess.gambit.compiler.quiet import QuietAnalysis
from esochess.gambit.machine import Machine
from esochess.gambit.program import (
    Code,
    Ev,
    Overload,
    Program,
    Prop,
)
from esochess.gambit.resolver import FuncInfo, PropInfo, Symbols


class CompilerLike(Protocol):
    """The compiler as its rule modules see it."""

    tree: D.Program
    ck: Analysis
    sym: Symbols
    an: Analysis
    quiet: QuietAnalysis
    props: list[Prop]
    codes: dict[int, Code]
    override: dict[int, Ev]
    code: Code | None
    loop_stack: list[tuple[list[int], list[int], int]]
    pausing: set[str]
    in_proc: bool
    notation_codes: dict[int, Code]
    overloads: dict[str, list[Overload]]
    memo: dict[Any, Any]

    def build(self) -> Program:
        ...

    def static_trait(self, info: PropInfo, static_fns: set[str]) -> bool:
        ...

    def committers(self) -> set[str]:
        ...

    def static_functions(self) -> set[str]:
        ...

    def pausing_procs(self) -> set[str]:
        ...

    def zero(self, t: T.Type) -> Any:
        ...

    def struct_zero(self, name: str) -> Ev:
        ...

    def default_expr(self, e: A.Expr, t: T.Type) -> Ev:
        ...

    def property(self, info: PropInfo, prop: Prop) -> None:
        ...

    def overload_set(self, name: str, fs: list[FuncInfo]) -> list[Overload]:
        ...

    def ck_set(self, name: str, arity: int) -> CellAnalysis | None:
        ...

    def sel_tester(self, sel: A.Selector, optional: bool) -> Callable[[Machine, Any], bool]:
        ...

    def function(self, f: FuncInfo) -> None:
        ...

    def notation(self, n: Any) -> None:
        ...

    def emit(self, *ins: Any) -> int:
        ...

    def here(self) -> int:
        ...

    def patch(self, at: int, target: int) -> None:
        ...

    def loop_body(
        self, top: int, body: A.Block, exit_jump: int | None, horizon: int | None = None
    ) -> None:
        ...

    def new_temp(self) -> int:
        ...

    def block(self, b: A.Block) -> None:
        ...

    def ev(self, e: A.Expr) -> Ev:
        ...

    def truth(self, e: A.Expr) -> Ev:
        ...

    def stmt(self, s: A.Stmt) -> None:
        ...

    def zero_of_decl(self, s: A.DeclStmt) -> Ev:
        ...

    def simple(self, s: A.Simple) -> None:
        ...

    def end(self, s: A.EndStmt) -> Ev:
        ...

    def assign(self, s: A.Assign) -> None:
        ...

    def place(self, e: A.Expr) -> tuple[Ev, Callable[[Machine, list[Any], Any], None]]:
        ...

    def pauses(self, e: Any) -> bool:
        ...

    def pausing_call(self, e: A.Call) -> bool:
        ...

    def is_pausing_node(self, e: A.Expr) -> bool:
        ...

    def lower(self, e: A.Expr) -> Ev:
        ...

    def lower_conditional(self, e: A.Expr) -> Ev | None:
        ...

    def choose_spec(self, e: A.Choose) -> Ev:
        ...

    def wrap_conv(self, e: Any, f: Ev) -> Ev:
        ...

    def expr(self, e: A.Expr) -> Ev:
        ...

    def _expr(self, e: A.Expr) -> Ev:
        ...

    def name(self, e: A.Name) -> Ev:
        ...

    def member(self, e: A.Member) -> Ev:
        ...

    def call(self, e: A.Call) -> Ev:
        ...

    def call_resolver(self, e: A.Call) -> Callable[[Machine, list[Any]], tuple[Code, list[Any]]]:
        ...

    def builtin(self, e: A.Call, name: str) -> Ev:
        ...

    def effect_free(self, e: Any) -> bool:
        ...

    def struct_ctor(self, e: A.Call, name: str) -> Ev:
        ...

    def entity_ctor(self, e: A.Call, name: str) -> Ev:
        ...

    def notation_lit(self, e: A.NotationLit) -> Ev:
        ...

    def arith(self, op: str, pos: A.Pos) -> Callable[[Any, Any], Any]:
        ...

    def unary(self, e: A.Unary) -> Ev:
        ...

    def binary(self, e: A.Binary) -> Ev:
        ...

    def pattern(self, p: A.Pattern) -> Callable[[Machine, list[Any], Any], bool]:
        ...

    def pattern_parts(
        self, p: A.Pattern, base: int = 0
    ) -> tuple[list[Ev], Callable[[Machine, Any, Sequence[Any]], bool]]:
        ...

    def selector_entries(
        self, sel: A.Selector, only: bool | None = None
    ) -> tuple[list[Ev], Callable[[Machine, Any, Sequence[Any]], bool]]:
        ...

    def entry_test(
        self, en: A.Entry, read: Callable[[Machine, Any], Any], leaves: list[Ev]
    ) -> Callable[[Machine, Any, Sequence[Any]], bool]:
        ...

    def selector(self, sel: A.Selector) -> Ev:
        ...

    def fixed_leaf_indices(self, sel: A.Selector) -> list[int]:
        ...

