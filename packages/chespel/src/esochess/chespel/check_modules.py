"""Checks of what surrounds the rules: recording diagnostics, the search and endgame
parameters (docs/reference/chespel.md#modules) and the opening rules
(docs/reference/chespel.md#opening). `ModuleChecks` is the base of the checker."""

from __future__ import annotations

from fractions import Fraction
from typing import TypeVar

import chess

from esochess.chespel import ast
from esochess.chespel.check_result import CheckResult, Opening
from esochess.chespel.runtime.values import (
    format_num,
)
from esochess.fen import SourceError
from esochess.fen.fen import parse_fen

PARAMETERS: dict[str, dict[str, tuple[str, Fraction, Fraction, str]]] = {
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

_Item = TypeVar("_Item", ast.Module, ast.Rule, ast.Parameter, ast.OpeningRule)


def truncation_warning(spelling: str, millis: int) -> str:
    """W1's text for a number literal with more than 3 decimals
    (docs/reference/chespel.md#literals)."""
    return f"number {spelling} has more than 3 decimals; truncated to {format_num(millis)}"


def position_key(board: chess.Board) -> str:
    """The docs/reference/chespel.md#opening key: placement, side, clean castling rights, en passant
    only if legal."""
    return " ".join(board.fen(en_passant="legal").split()[:4])


class ModuleChecks:
    """The diagnostics of one program being checked, and the checks of its parameters and
    opening rules (the rules themselves: checker.py)."""

    def __init__(self, program: ast.Program, path: str) -> None:
        self.program = program
        self.path = path
        self.result = CheckResult(path, program)

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

    def parameters(self, module: ast.Module, primary: bool) -> None:
        """E17-E20 for the parameters of a search or endgame module; keep the values."""
        table = PARAMETERS[module.kind]
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
