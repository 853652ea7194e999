"""What every checking rule shares: locals, the body context, the early stop, and the
protocols of the program and body checkers that the rule modules are written against."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, Protocol

from esochess.fen import Note
from esochess.gambit import ast as A
from esochess.gambit import declarations as D
from esochess.gambit import types as T
from esochess.gambit.analysis import (
    Analysis,
    CellAnalysis,
)
from esochess.gambit.resolver import (
    FuncInfo,
    NotationInfo,
    PropInfo,
    Symbols,
)
from esochess.gambit.values import EnumVal

MAX_ERRORS = 50


ARITH = {"+", "-", "*", "/", "%"}


ORDER = {"<", "<=", ">", ">="}


TERMINATING = ("return", "break", "continue", "wins", "loses", "draw", "illegal")


@dataclass
class Local:
    """A local variable or parameter: its slot, declared type and whether it is read-only."""

    slot: int
    type: T.Type
    readonly: bool
    pos: A.Pos


class Stop(Exception):
    """Raised to abandon the rest of an expression after an error."""


@dataclass
class Ctx:
    """What kind of body is being checked, for purity and return rules."""

    kind: str  # fn, proc, trait, default, notation, main
    label: str
    name: str
    declared_ret: T.Type | None = None
    static: bool = False


class RecursiveInference(Exception):
    """Return-type inference reached a function already being inferred."""

    def __init__(self, f: FuncInfo) -> None:
        super().__init__(f.name)
        self.f = f


class ProgramLike(Protocol):
    """The program checker as the body rules see it."""

    program: D.Program
    sym: Symbols
    out: Analysis
    ret_state: dict[int, str]
    set_cache: dict[tuple[str, int], CellAnalysis | None]
    notation_cache: dict[str, list[NotationInfo]]
    static_calls: list[tuple[A.Pos, str, str]]

    def err(self, pos: A.Pos, message: str, notes: tuple[Note, ...] = ()) -> None:
        ...

    def warn(self, pos: A.Pos, message: str) -> None:
        ...

    def run(self) -> Analysis:
        ...

    def property(self, p: PropInfo) -> None:
        ...

    def func_ret(self, f: FuncInfo) -> T.Type:
        ...

    def set_ret(self, name: str, fs: list[FuncInfo]) -> T.Type:
        ...

    def check_function(self, f: FuncInfo) -> T.Type:
        ...

    def overload_rules(self, name: str, fs: list[FuncInfo]) -> None:
        ...

    def overload_set(self, name: str, arity: int) -> CellAnalysis | None:
        ...

    def param_selector(self, f: FuncInfo, i: int) -> A.Selector | None:
        ...

    def sel_props(self, ent: str, sels: list[A.Selector | None]) -> list[PropInfo]:
        ...

    def atoms(self, ent: str, props: list[PropInfo]) -> list[Any]:
        ...

    def prop_atoms(self, p: PropInfo) -> list[Any]:
        ...

    def selector_entries(self, p: PropInfo) -> Iterator[A.Entry]:
        ...

    def int_constants(self, p: PropInfo) -> set[int]:
        ...

    def str_constants(self, p: PropInfo) -> set[str]:
        ...

    def param_matches(self, f: FuncInfo, i: int, cell: Any) -> bool:
        ...

    def sel_matches_cell(self, sel: A.Selector, cell: dict[int, Any]) -> bool:
        ...

    def notations(self) -> None:
        ...


class BodyLike(Protocol):
    """The body checker as its rule modules see it."""

    pc: ProgramLike
    sym: Symbols
    an: Analysis
    ctx: Ctx
    scopes: list[dict[str, Local]]
    nslots: int
    narrow: dict[int, T.Type]
    loops: list[list[bool]]
    returns: list[T.Type]
    pure_stack: list[str]
    value_slot: int

    def err(self, pos: A.Pos, message: str, notes: tuple[Note, ...] = ()) -> None:
        ...

    def new_slot(self) -> int:
        ...

    def push(self) -> None:
        ...

    def pop(self) -> None:
        ...

    def lookup(self, name: str) -> Local | None:
        ...

    def declare_local(self, name: str, t: T.Type, pos: A.Pos, *, slot: int | None = None,
                      readonly: bool = False, allow_value: bool = False) -> int:  # fmt: skip
        ...

    def local_type(self, loc: Local) -> T.Type:
        ...

    @property
    def pure(self) -> bool:
        ...

    def label(self) -> str:
        ...

    def impure(self, pos: A.Pos, what: str) -> None:
        ...

    def coerce(self, e: A.Expr, t: T.Type, target: T.Type, pos: A.Pos | None = None) -> None:
        ...

    def widen_list(self, e: A.ListLit, t: T.ListT, target: T.Type) -> None:
        ...

    def body_block(self, b: A.Block, declared: T.Type | None, name: str,
                   notation: bool = False) -> T.Type:  # fmt: skip
        ...

    def block(self, b: A.Block, new_scope: bool = True) -> bool:
        ...

    def stmt(self, s: A.Stmt) -> bool:
        ...

    def _stmt(self, s: A.Stmt) -> bool:
        ...

    def subject_local(self, e: A.Expr) -> Local | None:
        ...

    def ret(self, s: A.Return) -> bool:
        ...

    def if_stmt(self, s: A.If) -> bool:
        ...

    def cond(self, e: A.Expr) -> tuple[dict[int, T.Type], dict[int, T.Type]]:
        ...

    def narrowing(self, e: A.Expr) -> tuple[dict[int, T.Type], dict[int, T.Type]]:
        ...

    def assign(self, s: A.Assign) -> None:
        ...

    def place(self, e: A.Expr) -> T.Type:
        ...

    def prop_place(self, p: PropInfo, pos: A.Pos) -> T.Type:
        ...

    def place_root_is_state(self, e: A.Expr) -> PropInfo | None:
        ...

    def ex(self, e: A.Expr, expected: T.Type | None, *, statement: bool = False,
           as_place_root: bool = False) -> T.Type:  # fmt: skip
        ...

    def _ex(self, e: A.Expr, expected: T.Type | None, statement: bool) -> T.Type:
        ...

    def choose(self, e: A.Choose) -> T.Type:
        ...

    def list_lit(self, e: A.ListLit, expected: T.Type | None) -> T.Type:
        ...

    def name(self, e: A.Name, expected: T.Type | None) -> T.Type:
        ...

    def enum_member(self, name: str, expected: T.Type | None, pos: A.Pos) -> EnumVal:
        ...

    def static_read(self, p: PropInfo, pos: A.Pos) -> None:
        ...

    def member(self, e: A.Member) -> T.Type:
        ...

    def member_error(self, e: A.Member, ot: T.Type) -> None:
        ...

    def unary_prop(self, e: A.Member, t: T.EntityT) -> PropInfo:
        ...

    def nary_prop(self, e: A.Member, ts: list[T.Type]) -> PropInfo:
        ...

    def struct_member(self, e: A.Member, t: T.StructT) -> T.Type:
        ...

    def notation_lit(self, e: A.NotationLit, expected: T.Type | None) -> T.Type:
        ...

    def unary(self, e: A.Unary) -> T.Type:
        ...

    def arith(self, op: str, a: T.Type, b: T.Type, pos: A.Pos) -> T.Type:
        ...

    def binary(self, e: A.Binary, expected: T.Type | None) -> T.Type:
        ...

    def pattern(self, p: A.Pattern, subject: T.Type) -> T.Type | None:
        ...

    def selector(self, s: A.Selector, *, pattern: bool, param: bool = False) -> None:
        ...

    def constant_entry(self, en: A.Entry, p: PropInfo) -> bool:
        ...

    def call(self, e: A.Call, expected: T.Type | None, statement: bool) -> T.Type:
        ...

    def args_untyped(self, e: A.Call) -> list[T.Type]:
        ...

    def value_call(self, e: A.Call, ft: T.Type, f: A.Name | None) -> T.Type:
        ...

    def builtin_call(self, e: A.Call, name: str) -> T.Type:
        ...

    def place_arg(self, x: A.Expr, name: str) -> T.Type:
        ...

    def place_quiet(self, x: A.Expr) -> T.Type:
        ...

    def ctor(self, e: A.Call, name: str) -> T.Type:
        ...

    def overload_call(self, e: A.Call, name: str) -> T.Type:
        ...

    def static_arg_cells(self, a: A.Expr, t: T.Type, ent: str, cells: list[Any]) -> list[int]:
        ...

    def cell_check(self, e: A.Call, name: str, group: list[FuncInfo]) -> None:
        ...

    def describe_cell(self, group: list[FuncInfo], positions: list[int], cell: Any) -> str:
        ...

    def value_as_type(self, s: A.DeclStmt) -> bool:
        ...

    def prompt_after_options(self, e: A.Choose) -> bool:
        ...
