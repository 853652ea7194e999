"""Chespel front end speed, as ratios against lark's own lexer on the same text.

The program is positional.chp's evaluation rules repeated (with renamed rules) to about
2000 lines. Baseline: `lark` basic-lexer tokenisation alone (no layout, no parse). The
script prints how many times the baseline each stage costs, and lines per second of the
whole front end for scale.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from pathlib import Path

from esochess.chespel.frontend import compile_source
from esochess.chespel.parser import lark_parser, parse

ROOT = Path(__file__).resolve().parent.parent
REPEAT = 40


def program() -> str:
    """positional.chp's rules, REPEAT times, each copy with its own rule names."""
    text = (ROOT / "examples" / "chespel" / "positional.chp").read_text(encoding="utf-8")
    body = text.split("module evaluation\n", 1)[1]
    copies = [re.sub(r"rule (\w+):", rf"rule \1 copy{i}:", body) for i in range(REPEAT)]
    return "module evaluation\n" + "".join(copies)


def best_of(runs: int, work: Callable[[], object]) -> float:
    """Fastest of `runs` timings (seconds): the least disturbed by other load."""
    best = float("inf")
    for _ in range(runs):
        start = time.perf_counter()
        work()
        best = min(best, time.perf_counter() - start)
    return best


def main() -> None:
    """Print the ratios."""
    text = program()
    lines = text.count("\n")
    lexer = lark_parser()
    lex = best_of(9, lambda: sum(1 for _ in lexer.lex(text, dont_ignore=True)))
    layout_parse = best_of(9, lambda: parse("bench.chp", text))
    whole = best_of(9, lambda: compile_source("bench.chp", text))
    result = compile_source("bench.chp", text)
    assert result.ok, result.diagnostics[:3]
    print(f"chespel front end on {lines} lines ({REPEAT} x positional.chp rules)")
    print("baseline: lark basic lexer alone = 1.00")
    print(f"layout + LALR parse + AST      = {layout_parse / lex:.2f}")
    print(f"whole front end (with checker) = {whole / lex:.2f}")
    print(f"whole front end: {lines / whole:,.0f} lines/s")


if __name__ == "__main__":
    main()
