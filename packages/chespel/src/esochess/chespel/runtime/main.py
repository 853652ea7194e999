"""The executable's entry point (docs/reference/chespel.md#the-engine): REPL by default, `--uci`,
`--help`."""

from __future__ import annotations

import sys
from typing import TextIO

from esochess.chespel.runtime.engine import Engine
from esochess.chespel.runtime.evaluation import Program
from esochess.chespel.runtime.polyglot import PolyglotBook
from esochess.chespel.runtime.repl import Output, Repl, input_lines
from esochess.chespel.runtime.uci import UciSession

USAGE = """usage: {name} [--uci | --help]
  (no argument)  start the REPL: type 'help' for its commands
  --uci          start in UCI mode, for chess GUIs and python-chess
  --help         print this text"""


def run_repl(program: Program, stdin: TextIO, stdout: TextIO, interactive: bool = False,
             book: PolyglotBook | None = None) -> int:
    """Run the REPL (switching to UCI mode on `uci`); returns the exit status."""
    try:
        repl = Repl(program, stdin, stdout, interactive)
        repl.engine.embedded = repl.engine.polyglot = book
        if repl.run() == "uci":
            return UciSession(repl.engine, repl.out).run(repl.lines, first="uci")
        return 0
    # Ctrl-C ends the engine silently (docs/reference/chespel.md#the-engine)
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0


def run_uci(program: Program, stdin: TextIO, stdout: TextIO,
            book: PolyglotBook | None = None) -> int:
    """Run UCI mode from the first line; returns the exit status."""
    try:
        out = Output(stdout)
        engine = Engine(program, out.line, book)
        return UciSession(engine, out).run(input_lines(stdin))
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0


def main(program: Program, argv: list[str], book_data: bytes | None = None) -> int:
    """Dispatch on the command-line arguments of a built engine (`book_data`: the Polyglot
    book built into it)."""
    book = PolyglotBook.from_bytes(book_data, "the built-in book") if book_data else None
    if argv == ["--help"]:
        print(USAGE.format(name=program.name))
        return 0
    if argv == ["--uci"]:
        return run_uci(program, sys.stdin, sys.stdout, book)
    if argv:
        print(USAGE.format(name=program.name), file=sys.stderr)
        return 2
    return run_repl(program, sys.stdin, sys.stdout, sys.stdin.isatty(), book)
