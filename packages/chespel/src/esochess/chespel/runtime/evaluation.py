"""The evaluation function of docs/reference/chespel.md#scoring: fixed values, rule passes, endgame
phase, justifications.

A compiled program (the module that codegen writes, or any object with the same
attributes) provides four functions that run the rules of one module for perspective
colour `c` and return the unclamped milli-unit sum (`score_main`, `score_endgame`) or
append justification items (`verbose_main`, `verbose_endgame`), plus its parameters.
`Program` wraps it with the driver logic that does not depend on the rules.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from types import ModuleType, TracebackType
from typing import Any

import chess

from esochess.chespel.runtime.context import Context
from esochess.chespel.runtime.values import ChespelRuntimeError, clamp, format_signed

Item = tuple[str, str, int, str]
"""A justification item: (prefix, rule name, contribution, text)
(docs/reference/chespel.md#justification-lines)."""

ScoreFunction = Callable[[Context, bool], int]
VerboseFunction = Callable[[Context, bool, list[Item]], None]

CHECKMATE_SCORE = 10_000_000


def _no_score(ctx: Context, c: bool) -> int:
    return 0


def _no_items(ctx: Context, c: bool, out: list[Item]) -> None:
    return None


@dataclass(frozen=True)
class OpeningRule:
    """One rule of the opening module: origin and destination FENs, line of the origin."""

    line: int
    origin: str
    destination: str


@dataclass(frozen=True)
class Program:
    """A compiled Chespel program: its parameters and its generated rule functions."""

    name: str
    source_path: str
    score_main: ScoreFunction = _no_score
    verbose_main: VerboseFunction = _no_items
    score_endgame: ScoreFunction = _no_score
    verbose_endgame: VerboseFunction = _no_items
    has_endgame_rules: bool = False
    max_time: float = 4.0
    max_depth: int = 64
    hash_size: int = 64
    quiescence: bool = True
    threshold: int = 20_000
    replace: bool = False
    openings: tuple[OpeningRule, ...] = ()
    rule_positions: dict[str, tuple[int, int, str, bool]] = field(default_factory=dict)
    """Generated rule function name → (line, column, rule name, sym), to locate errors."""
    rule_functions: dict[str, ScoreFunction] = field(default_factory=dict)
    """Generated rule function name → its score function for one perspective."""
    rest_main: ScoreFunction | None = None
    """`score_main` without the rules folded into `psq_main` (None: nothing folded)."""
    rest_endgame: ScoreFunction | None = None
    psq_main: tuple[int, ...] | None = None
    """The main module's symmetric piece-square rules as one table, White's point of view
    (colour * 448 + type * 64 + cell), whose sum over the pieces the search keeps move by
    move (runtime/search_board.py); None when no rule is folded."""
    psq_endgame: tuple[int, ...] | None = None

    @classmethod
    def from_module(cls, module: ModuleType | Any) -> Program:
        """Wrap a generated program module (see codegen.py for its attributes)."""
        return cls(
            name=module.NAME,
            source_path=module.SOURCE_PATH,
            score_main=module.score_main,
            verbose_main=module.verbose_main,
            score_endgame=module.score_endgame,
            verbose_endgame=module.verbose_endgame,
            has_endgame_rules=module.HAS_ENDGAME_RULES,
            max_time=module.MAX_TIME,
            max_depth=module.MAX_DEPTH,
            hash_size=module.HASH_SIZE,
            quiescence=module.QUIESCENCE,
            threshold=module.THRESHOLD,
            replace=module.REPLACE,
            openings=tuple(OpeningRule(*rule) for rule in module.OPENINGS),
            rule_positions=dict(getattr(module, "RULE_POSITIONS", {})),
            rule_functions={name: getattr(module, name)
                            for name in getattr(module, "RULE_POSITIONS", {})},
            rest_main=_folded(module, "main"),
            rest_endgame=_folded(module, "endgame"),
            psq_main=getattr(module, "PSQ_MAIN", None),
            psq_endgame=getattr(module, "PSQ_ENDGAME", None),
        )

    def context(self, board: chess.Board, flags: int) -> Context:
        """A fresh evaluation context for one position."""
        return Context(board, flags, self.threshold)

    def _endgame(self, ctx: Context) -> bool:
        return self.has_endgame_rules and ctx.phase_material() <= self.threshold

    def rule_score(self, board: chess.Board, color: bool, flags: int,
                   interrupt: Callable[[], None] | None = None) -> int:
        """The clamped rule-based score for `color`, without the fixed values of
        docs/reference/chespel.md#fixed-values.

        `interrupt` is called every few loop iterations of the rules and may raise to stop
        a long evaluation (the search's deadline check).
        """
        ctx = Context(board, flags, self.threshold, interrupt)
        try:
            if self._endgame(ctx):
                total = self.score_endgame(ctx, color)
                if not self.replace:
                    total += self.score_main(ctx, color)
            else:
                total = self.score_main(ctx, color)
        except (MemoryError, RecursionError) as exc:
            raise self.resource_error(exc) from None
        return clamp(total)

    def search_score(self, board: chess.Board, color: bool, flags: int, psq_main: int,
                     psq_endgame: int, interrupt: Callable[[], None] | None = None) -> int:
        """`rule_score` for a board that keeps the sums of `psq_main` and `psq_endgame` (White's
        point of view; 0 for a table that is None): the same score, without running the
        folded rules."""
        ctx = Context(board, flags, self.threshold, interrupt)
        main = self.rest_main or self.score_main
        try:
            if self._endgame(ctx):
                endgame = self.rest_endgame or self.score_endgame
                total = endgame(ctx, color) + (psq_endgame if color else -psq_endgame)
                if not self.replace:
                    total += main(ctx, color) + (psq_main if color else -psq_main)
            else:
                total = main(ctx, color) + (psq_main if color else -psq_main)
        except (MemoryError, RecursionError) as exc:
            raise self.resource_error(exc) from None
        return clamp(total)

    def resource_error(self, exc: MemoryError | RecursionError) -> ChespelRuntimeError:
        """A run-time error located at the rule that ran out of memory or of stack."""
        what = ("out of memory" if isinstance(exc, MemoryError)
                else "computation nested too deeply (Python's recursion limit)")
        where = _innermost_rule(exc.__traceback__, self.rule_positions)
        if where is None:
            return ChespelRuntimeError(1, 1, f"{what} while evaluating")
        line, column, name, _ = where
        return ChespelRuntimeError(line, column, f"{what} in rule {name}")

    def evaluate(self, board: chess.Board, color: bool, flags: int) -> int:
        """The evaluation of docs/reference/chespel.md#scoring for perspective `color`, in
        milli-units."""
        fixed = fixed_value(board, color)
        if fixed is not None:
            return fixed[0]
        return self.rule_score(board, color, flags)

    def evaluate_verbose(self, board: chess.Board, color: bool, flags: int) -> tuple[int, list[str]]:
        """The evaluation with its justification lines
        (docs/reference/chespel.md#justification-lines)."""
        fixed = fixed_value(board, color)
        if fixed is not None:
            return fixed[0], [f"game over: {fixed[1]}"]
        items = self._items(board, color, flags)
        return clamp(sum(item[2] for item in items)), merge_items(items)

    def rule_totals(self, board: chess.Board, color: bool,
                    flags: int) -> tuple[int, dict[str, dict[str, int]]]:
        """The evaluation and what each rule that scored contributed to it, by side (`me`,
        `foe`, or '' for a rule that is not symmetric), in the order the rules scored (no
        rules for a fixed value)."""
        fixed = fixed_value(board, color)
        if fixed is not None:
            return fixed[0], {}
        totals: dict[str, dict[str, int]] = {}
        for prefix, rule, value, _ in self._items(board, color, flags):
            sides = totals.setdefault(rule, {})
            side = prefix.strip().removesuffix(":")
            sides[side] = sides.get(side, 0) + value
        return clamp(sum(sum(s.values()) for s in totals.values())), totals

    def _items(self, board: chess.Board, color: bool, flags: int) -> list[Item]:
        ctx = Context(board, flags, self.threshold)
        items: list[Item] = []
        try:
            if self._endgame(ctx):
                if not self.replace:
                    self.verbose_main(ctx, color, items)
                self.verbose_endgame(ctx, color, items)
            else:
                self.verbose_main(ctx, color, items)
        except (MemoryError, RecursionError) as exc:
            raise self.resource_error(exc) from None
        return items


def _folded(module: ModuleType | Any, which: str) -> ScoreFunction | None:
    """A generated module's `score_WHICH_rest` when its piece-square rules were folded."""
    if getattr(module, f"PSQ_{which.upper()}", None) is None:
        return None
    rest: ScoreFunction = getattr(module, f"score_{which}_rest")
    return rest


def fixed_value(board: chess.Board, color: bool) -> tuple[int, str] | None:
    """The fixed value of docs/reference/chespel.md#fixed-values and its reason, or None when the
    rules decide."""
    if not any(board.generate_legal_moves()):
        if board.is_check():
            return (-CHECKMATE_SCORE if board.turn == color else CHECKMATE_SCORE), "checkmate"
        return 0, "stalemate"
    if board.is_insufficient_material():
        return 0, "insufficient material"
    return None


def _innermost_rule(trace: TracebackType | None, positions: dict[str, tuple[int, int, str, bool]],
                    ) -> tuple[int, int, str, bool] | None:
    """The position of the last generated rule function on the traceback, if any."""
    found = None
    while trace is not None:
        name = trace.tb_frame.f_code.co_name.removesuffix("_v")
        if name in positions:
            found = positions[name]
        trace = trace.tb_next
    return found


def merge_items(items: list[Item]) -> list[str]:
    """Merge identical items and render the justification lines
    (docs/reference/chespel.md#justification-lines)."""
    counts: dict[Item, int] = {}
    for item in items:
        counts[item] = counts.get(item, 0) + 1
    lines = []
    for (prefix, rule, value, text), n in counts.items():
        line = f"{prefix}{rule}: {format_signed(clamp(value * n))}"
        if text:
            line += " " + text
        if n >= 2:
            line += f" ({n})"
        lines.append(line)
    return lines
