"""Console-script entry points that exit quietly on Ctrl-C during start-up.

A command imports python-chess, lark, click and its own pipeline before it can handle
Ctrl-C itself (about 0.2 s). A KeyboardInterrupt raised by those imports would print a
Python traceback, so the scripts start here, in a module that imports nothing heavy, and
import the real `main` inside a `try`. This module is deliberately outside `esochess.fen`,
whose package import loads python-chess.
"""

from __future__ import annotations

import importlib  # already loaded by the interpreter itself: nothing to wait for

#: The exit status of a process ended by SIGINT, as the commands use it themselves.
EXIT_INTERRUPTED = 130


def run(module: str, attr: str = "main") -> object:
    """Import `module`, then call its `attr`; 130 if Ctrl-C arrives during the import."""
    try:
        entry = getattr(importlib.import_module(module), attr)
    except KeyboardInterrupt:
        return EXIT_INTERRUPTED
    return entry()


def esochess() -> object:
    """`esochess`: the umbrella command."""
    return run("esochess.fen.cli")


def chazz() -> object:
    """`chazz`: the CHAZZ interpreter."""
    return run("esochess.chazz.cli")


def chespel() -> object:
    """`chespel`: the Chespel compiler."""
    return run("esochess.chespel.cli")


def gambit() -> object:
    """`gambit`: the Gambit interpreter."""
    return run("esochess.gambit.cli")


def cql() -> object:
    """`cql`: the CQL query engine."""
    return run("esochess.cqlvars.cli")
