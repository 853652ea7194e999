"""The compiled form of a program, shared by the compiler and the machine: instruction
opcodes, `Code` bodies, frames, run-time properties and overloads, and `Program`."""

from __future__ import annotations

import weakref
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from esochess.fen import SourceError
from esochess.gambit.resolver import FuncInfo

if TYPE_CHECKING:
    from esochess.gambit.machine import Machine

# Instruction opcodes (the first element of each instruction tuple).
OP_EXEC = 0  # (op, f): evaluate f for its effects
OP_SET = 1  # (op, slot, f): locals[slot] = f()
OP_JUMP = 2  # (op, target)
OP_JF = 3  # (op, f, target): jump when f() is false
OP_ITER = 4  # (op, f, slot): locals[slot] = (snapshot, 0)
OP_NEXT = 5  # (op, slot, var, target): next element into var, or jump when done
OP_RET = 6  # (op, f | None): return f() (or no value)
OP_CALL = 7  # (op, resolve, dest, pos): resolve() -> (code, args); push a frame
OP_CHOOSE = 8  # (op, spec, dest, pos, secret, player | None[, (stop, callee)]): a decision
OP_COMMIT = 9  # (op, pos): end the turn; pauses when `pause_at_commit` is set
OP_HORIZON = 10  # (op, pos): look-ahead of the turn may stop here (compiler/horizon.py)
OP_RUN = 11  # (op, run, first): run(m, L) runs plain instructions, returns the next pc (codegen/runs.py)

Pos = tuple[int, int]
Evaluator = Callable[["Machine", list[Any]], Any]
Ev = Evaluator

# Instruction functions `f(m, L)` whose body is `return EXPR` (the compiled engine's
# generated expressions, local reads), perhaps after a line that sets the call level:
# (that line or "", EXPR, the names EXPR uses), as Python source. Code that runs several
# instructions in a row (predicate.py) pastes them into one function.
RETURNS: weakref.WeakKeyDictionary[Callable[..., Any], tuple[str, str, dict[str, Any]]] = (
    weakref.WeakKeyDictionary()
)


class Code:
    """A compiled body: statement instructions, their local slot count and its name."""

    __slots__ = ("name", "kind", "instrs", "nlocals", "where", "simple", "pure", "static",
                 "horizon_returns", "steps")

    def __init__(self, name: str, kind: str, nlocals: int = 0) -> None:
        self.name = name
        self.kind = kind
        self.instrs: list[tuple[Any, ...]] = []
        self.nlocals = nlocals
        # Set for bodies that are a single `return expr`: the expression's closure.
        self.simple: Evaluator | None = None
        # Traits are re-read often at one state version (selectors, loops); they are
        # pure (docs/reference/gambit.md#purity), so their values are memoised per version.
        # Measured: memoising every function call costs more in misses than it saves on tic-tac-toe.
        self.pure = kind == "trait"
        # Functions that read only fixed data and instance lists depend on their
        # arguments and the set of instances alone: memoised per instance version.
        self.static = False
        # How `called from` lines name this body: `main`, `f`, `trait name`.
        self.where = name
        # Instruction indices just after a call whose return leads straight to the turn's
        # horizon (compiler/legality.py): a decision of the callee may be a predicate.
        self.horizon_returns: set[int] = set()
        # The compiled engine's generated steps, by the instruction they start at
        # (codegen/steps.py); none in the interpreter's bodies.
        self.steps: list[Callable[..., Any]] = []


class Frame:
    """One active Gambit call: its code, next instruction, locals and return slot."""

    __slots__ = ("code", "pc", "locals", "dest", "call_pos")

    def __init__(self, code: Code, args: Sequence[Any], dest: int, call_pos: Pos | None) -> None:
        self.code = code
        self.pc = 0
        self.locals: list[Any] = list(args) + [None] * (code.nlocals - len(args))
        self.dest = dest
        self.call_pos = call_pos

    def copy(self) -> Frame:
        """An independent copy (values are immutable, so a shallow copy suffices)."""
        f = Frame.__new__(Frame)
        f.code = self.code
        f.pc = self.pc
        f.locals = list(self.locals)
        f.dest = self.dest
        f.call_pos = self.call_pos
        return f


def store_key(args: tuple[Any, ...]) -> Any:
    """The key of a property's values in the machine's store (one dict per property): the
    instance itself for a property of one entity (a read builds no tuple), else the
    entity tuple."""
    return args[0] if len(args) == 1 else args


@dataclass
class Prop:
    """A property at run time."""

    pid: int
    name: str
    kind: str
    params: tuple[str, ...]
    zero: Any
    default: Ev | None = None
    default_locals: int = 0
    code: Code | None = None


@dataclass
class Overload:
    """One overload at run time: its code, entity-position tests and specificity rank."""

    info: FuncInfo
    code: Code
    tests: list[tuple[int, Callable[[Machine, Any], bool]]]
    rank: int
    label: str
    # The cells (docs/reference/gambit.md#overloads) this overload matches; None when its set has no
    # entity positions.
    cells: frozenset[int] | None = None
    # Run-time type tests of every parameter, for calls through Function values.
    types: list[Callable[[Any], bool]] = field(default_factory=list)


@dataclass
class Program:
    """A compiled program, ready for `Machine`."""

    path: str
    source: str
    main: Code
    entity_order: list[str]
    props: list[Prop]
    players_range: tuple[int, int]
    has_illegal: bool
    name_props: dict[str, Prop] = field(default_factory=dict)
    overloads: dict[str, list[Overload]] = field(default_factory=dict)
    warnings: list[SourceError] = field(default_factory=list)
    # Results of pure calls by (code, arguments, state version); see Machine.call.
    memo: dict[Any, Any] = field(default_factory=dict)
    # By seat count: the paused machine and first decision every silent game reaches
    # when nothing random runs before it (openings.py).
    openings: dict[int, Any] = field(default_factory=dict)
    # Which engine built it: "interpreter" (closures) or "compiled" (generated Python).
    engine: str = "interpreter"
    # The generated Python source (compiled engine): what `gambit compile` shows.
    python: Callable[[], str] = field(default=lambda: "")
    # The compiled engine's `Machine._exec(0)` by generated steps (codegen/steps.py).
    drive: Callable[[Machine], Any] | None = None

    def find_prop(self, name: str, params: tuple[str, ...]) -> Prop | None:
        """The property with this name and entity tuple."""
        for p in self.props:
            if p.name == name and p.params == params:
                return p
        return None
