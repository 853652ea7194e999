"""How the evaluation depends on the program's numbers: a traced run of the generic code.

Every number literal of a rule is compiled to a `Traced` value (codegen's `literals`
hook): an int (the milli-unit value, so the library and every comparison work as usual)
that also carries its derivative with respect to each literal it was computed from. One
evaluation of a position then gives its score and, per literal, the score's coefficient:
the position's features for Texel tuning. Addition, subtraction, negation, `_clamp`,
`*` and `/` by an untraced number propagate the derivatives exactly, so for a score that
is linear in its numbers (`score 0.3`, `score -0.15 * n`, a list of numbers read with
`elem`) the coefficients are exact.

A literal whose value also steers what is computed — compared (`x > 0.5`, `min`, `max`),
multiplied by another traced value that is not itself a bare literal, divided by, given
to `abs` — is *entangled*: its effect is not linear, so tuning leaves it as written. The
tracer records those in `Tracer.entangled`. Arithmetic that the tracer does not see (an
index computed from a literal, a library function's own arithmetic) simply drops the
derivative: such a literal never reaches the score and is not a weight.
"""

from __future__ import annotations

import types
from typing import Any

import chess

from esochess.chespel.check_result import CheckResult
from esochess.chespel.codegen import generate
from esochess.chespel.runtime.evaluation import Program
from esochess.chespel.runtime.values import NUM_MAX, clamp, num_div, num_mul

Gradient = dict[int, float]


class Tracer:
    """The literals found entangled so far (one per process; see the module text)."""

    entangled: set[int] = set()

    @classmethod
    def take(cls) -> set[int]:
        """The entangled literals recorded since the last call, and forget them."""
        found, cls.entangled = cls.entangled, set()
        return found


def _entangle(*values: object) -> None:
    for value in values:
        if isinstance(value, Traced):
            Tracer.entangled.update(value.grad)


def traced(value: int, grad: Gradient, pure: bool = False) -> int:
    """`value` carrying `grad` (a plain int when nothing depends on a literal)."""
    if not grad:
        return value
    result = Traced(value)
    result.grad = grad
    result.pure = pure
    return result


def _sum(a: Gradient, b: Gradient, sign: float) -> Gradient:
    # Gradients are never changed once made, so one without the other is shared as it is.
    if not b:
        return a
    if not a and sign == 1.0:
        return b
    out = dict(a)
    for key, coefficient in b.items():
        out[key] = out.get(key, 0.0) + sign * coefficient
    return out


def _scaled(grad: Gradient, factor: float) -> Gradient:
    return {key: coefficient * factor for key, coefficient in grad.items()} if factor else {}


def _grad(value: object) -> Gradient:
    return value.grad if isinstance(value, Traced) else {}


class Traced(int):
    """A milli-unit int with its derivatives by literal index (`grad`); `pure` when it is a
    literal itself (possibly negated)."""

    grad: Gradient
    pure: bool

    @classmethod
    def literal(cls, index: int, millis: int) -> int:
        """Literal number `index`, whose value is `millis`."""
        return traced(millis, {index: 1.0}, pure=True)

    def __add__(self, other: Any) -> Any:
        if not isinstance(other, int):
            return NotImplemented
        return traced(int(self) + int(other), _sum(self.grad, _grad(other), 1.0))

    __radd__ = __add__

    def __sub__(self, other: Any) -> Any:
        if not isinstance(other, int):
            return NotImplemented
        return traced(int(self) - int(other), _sum(self.grad, _grad(other), -1.0))

    def __rsub__(self, other: Any) -> Any:
        if not isinstance(other, int):
            return NotImplemented
        return traced(int(other) - int(self), _sum(_grad(other), self.grad, -1.0))

    def __neg__(self) -> Any:
        return traced(-int(self), _scaled(self.grad, -1.0), self.pure)

    def __pos__(self) -> Any:
        return self

    def __mul__(self, other: Any) -> Any:
        if not isinstance(other, int):
            return NotImplemented
        if isinstance(other, Traced):
            _entangle(self, other)
            return int(self) * int(other)
        return traced(int(self) * other, _scaled(self.grad, float(other)))

    __rmul__ = __mul__

    def __abs__(self) -> Any:
        _entangle(self)
        return abs(int(self))

    def _compare(self, other: object) -> None:
        # The saturation bounds of `clamp` are not a decision of the program.
        if not (type(other) is int and abs(other) == NUM_MAX):
            _entangle(self, other)

    def __lt__(self, other: Any) -> bool:
        self._compare(other)
        return bool(int(self) < other)

    def __le__(self, other: Any) -> bool:
        self._compare(other)
        return bool(int(self) <= other)

    def __gt__(self, other: Any) -> bool:
        self._compare(other)
        return bool(int(self) > other)

    def __ge__(self, other: Any) -> bool:
        self._compare(other)
        return bool(int(self) >= other)

    def __eq__(self, other: object) -> bool:
        self._compare(other)
        return int(self) == other

    def __ne__(self, other: object) -> bool:
        self._compare(other)
        return int(self) != other

    def __hash__(self) -> int:
        return int.__hash__(self)

    def __bool__(self) -> bool:
        _entangle(self)
        return int(self) != 0


def traced_mul(a: int, b: int) -> int:
    """`num_mul` that keeps derivatives: a bare literal times anything is linear in the
    literal (the other factor's own literals are then entangled)."""
    value = num_mul(int(a), int(b))
    ga, gb = _grad(a), _grad(b)
    if ga and gb:
        if getattr(a, "pure", False):
            _entangle(b)
            return traced(value, _scaled(ga, int(b) / 1000))
        if getattr(b, "pure", False):
            _entangle(a)
            return traced(value, _scaled(gb, int(a) / 1000))
        _entangle(a, b)
        return value
    if ga:
        return traced(value, _scaled(ga, int(b) / 1000))
    if gb:
        return traced(value, _scaled(gb, int(a) / 1000))
    return value


def traced_div(a: int, b: int, line: int, column: int) -> int:
    """`num_div` that keeps the numerator's derivatives (a traced divisor is entangled)."""
    _entangle(b)
    value = num_div(int(a), int(b), line, column)
    ga = _grad(a)
    return traced(value, _scaled(ga, 1000 / int(b))) if ga else value


def traced_clamp(value: int) -> int:
    """`clamp`: a saturated value no longer depends on anything."""
    result = clamp(int(value))
    return traced(result, _grad(value)) if result == int(value) else result


def traced_program(result: CheckResult, literals: dict[int, int],
                   values: list[int]) -> Program:
    """The generic code of `result` with literal `i` (`literals`: id(NumLit) → i) read as
    a traced value; `values[i]` is its value in milli-units."""
    module = types.ModuleType("chespel_traced_program")
    module.__file__ = f"<chespel traced program {result.path}>"
    namespace = module.__dict__
    namespace["_W"] = [Traced.literal(i, value) for i, value in enumerate(values)]
    namespace["_WN"] = [-weight for weight in namespace["_W"]]
    exec(compile(generate(result, specialise=False, literals=literals), module.__file__, "exec"),
         namespace)
    namespace.update(_mul=traced_mul, _div=traced_div, _clamp=traced_clamp)
    return Program.from_module(module)


def features(program: Program, board: chess.Board, flags: int) -> tuple[int, Gradient]:
    """White's rule score of `board` and its derivative by literal (milli-units per
    milli-unit). Raises ChespelRuntimeError as the evaluation would."""
    score = program.rule_score(board, chess.WHITE, flags)
    return int(score), dict(_grad(score))

