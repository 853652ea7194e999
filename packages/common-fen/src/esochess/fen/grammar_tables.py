"""A package's LALR parser, built once and shipped with the package (`grammar.tables`).

Building lark's LALR tables costs 0.15-1.5 s a grammar, and lark's own `cache=True` keeps
them in the temporary directory, written at run time and left there. Instead the built
parser object is pickled, zlib-compressed, into a file beside the grammar, headed by the
SHA-256 of the grammar text and of the lark options it was built with, and by the lark
version. Unpickling it costs a few milliseconds (equal table entries are stored once).
When the header no longer fits (the grammar or the options were edited, another lark is
installed) or the file cannot be read, `GrammarTables.load` builds the parser from the
grammar instead: slower, never wrong, and nothing is ever written at run time.

What lark does not serialise stays out of the file: the objects a parser is given at run
time (an inline `transformer`, a `postlex`, `lexer_callbacks`, the names lark documents as
allowed in `Lark.load`) are made afresh by the package's `runtime` function at each load,
and the parse callbacks built from the transformer are built again for them, as
`Lark.load(f, transformer=..., postlex=...)` does.

`python -m esochess.fen.grammar_tables MODULE:NAME` rewrites the file of the
`GrammarTables` named NAME in MODULE; `GrammarTables.stale()` is what each package's test
asserts. The file is part of the package, trusted like its modules (it is a pickle).
"""

from __future__ import annotations

import hashlib
import importlib
import io
import pickle
import pkgutil
import sys
import types
import zlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import lark
from lark import parser_frontends
from lark.lexer import Lexer
from lark.parsers import lalr_analysis
from lark.parsers.lalr_analysis import Action

_MAGIC = b"esochess-lalr 1\n"
#: The lark options that hold run-time objects, made by `runtime` and never stored.
RUNTIME_OPTIONS = frozenset({"transformer", "postlex", "lexer_callbacks"})
_CALLBACKS = "callbacks"
_GRAMMAR = "grammar"


def _no_runtime() -> dict[str, Any]:
    return {}


def _module(module: types.ModuleType) -> tuple[Any, tuple[str]]:
    # The parser holds its regular-expression module: kept by name.
    return importlib.import_module, (module.__name__,)


def _action(action: Action) -> tuple[Any, tuple[Any, str]]:
    # The parser compares its LALR actions (Shift, Reduce) by identity: kept as references
    # to the very objects of the lark that loads them.
    return getattr, (lalr_analysis, action.name)


def _wrapped_lexer(lexer_class: type, state: dict[str, Any]) -> object:
    # lark wraps a custom lexer of its older interfaces in a class made inside a function,
    # which pickle cannot name: kept as the custom lexer's class, wrapped again on loading.
    wrapper = parser_frontends._wrap_lexer(lexer_class)  # type: ignore[no-untyped-call]
    lexer = wrapper.__new__(wrapper)
    lexer.__dict__.update(state)
    return lexer


def _share_actions(parser: lark.Lark) -> None:
    """Make equal entries of the LALR table one tuple: the table holds tens of thousands
    of (action, argument) pairs but a few hundred distinct ones, and a shared tuple is
    pickled once, then referred to (unpickling makes far fewer objects)."""
    frontend = getattr(parser, "parser", None)
    table = getattr(getattr(frontend, "parser", None), "_parse_table", None)
    states = getattr(table, "states", None)
    if not isinstance(states, dict):
        return
    shared: dict[tuple[object, object], tuple[object, object]] = {}
    for row in states.values():
        for token, (action, arg) in row.items():
            key = (action, arg if isinstance(arg, int) else id(arg))
            row[token] = shared.setdefault(key, (action, arg))


_REDUCERS: Mapping[type, Callable[[Any], tuple[Callable[..., Any], tuple[Any, ...]]]] = {
    types.ModuleType: _module, Action: _action}


def _spelling(value: object) -> str:
    """An option value as the header digests it: a class or function by its name."""
    if isinstance(value, type) or callable(value):
        return f"{getattr(value, '__module__', '')}.{getattr(value, '__qualname__', value)}"
    return repr(value)


@dataclass(frozen=True)
class GrammarTables:
    """Where a package's grammar and its tables are, and how lark builds its parser.

    `options` are the `lark.Lark` options stored with the tables (`parser="lalr"` is
    implied); `runtime` makes the options that are objects of the run (see
    `RUNTIME_OPTIONS`) each time a parser is built or loaded. `name` is the `MODULE:NAME`
    that defines this object, for the command that rewrites the tables.
    """

    package: str
    name: str
    options: Mapping[str, Any] = field(default_factory=dict)
    runtime: Callable[[], Mapping[str, Any]] = _no_runtime
    grammar: str = "grammar.lark"
    tables: str = "grammar.tables"

    def _data(self, name: str) -> bytes:
        # pkgutil (already loaded at start-up) reads through the package's loader, as
        # importlib.resources does, without importing importlib.readers and zipfile.
        data = pkgutil.get_data(self.package, name)
        if data is None:
            raise OSError(f"{self.package} cannot read its {name}")
        return data

    def grammar_text(self) -> str:
        """The grammar as shipped."""
        return self._data(self.grammar).decode("utf-8")

    def stamp(self, grammar: str) -> bytes:
        """The header a tables file must carry to be used with `grammar`, these options
        and this lark."""
        options = "".join(f"{k}={_spelling(v)};" for k, v in sorted(self.options.items()))
        digest = hashlib.sha256(f"{grammar}\0{options}".encode()).hexdigest()
        return _MAGIC + f"{digest} lark {lark.__version__}\n".encode()

    def _runtime(self) -> Mapping[str, Any]:
        made = self.runtime()
        unknown = set(made) - RUNTIME_OPTIONS
        if unknown:
            raise ValueError(f"not run-time lark options: {', '.join(sorted(unknown))}")
        return made

    def _build(self, grammar: str) -> tuple[lark.Lark, Mapping[str, Any]]:
        runtime = self._runtime()
        return lark.Lark(grammar, parser="lalr", **self.options, **runtime), runtime

    def build(self, grammar: str | None = None) -> lark.Lark:
        """The parser built from the grammar (the shipped one unless given)."""
        return self._build(self.grammar_text() if grammar is None else grammar)[0]

    def dumps(self, grammar: str | None = None) -> bytes:
        """A tables file for `grammar` (the shipped one unless given): built, pickled
        without its run-time objects and its parse callbacks."""
        grammar = self.grammar_text() if grammar is None else grammar
        parser, runtime = self._build(grammar)
        kept = {id(obj): name for name, obj in runtime.items()}
        if not parser.options.cache_grammar:
            # the grammar's own tree, only used to build the tables: not stored, as
            # lark's `Lark.save` leaves it out (a tenth of the unpickling)
            kept[id(parser.grammar)] = _GRAMMAR
        if "transformer" in runtime:
            # its parse callbacks (often closures) are rebuilt at load, for the new one
            kept[id(parser._callbacks)] = _CALLBACKS

        class Pickler(pickle.Pickler):
            dispatch_table = _REDUCERS

            def persistent_id(self, obj: object) -> str | None:
                return kept.get(id(obj))

            def reducer_override(self, obj: object) -> Any:
                wrapped = getattr(obj, "lexer", None)
                if (isinstance(obj, Lexer) and wrapped is not None
                        and type(obj).__qualname__.startswith("_wrap_lexer.<locals>.")):
                    return _wrapped_lexer, (type(wrapped), obj.__dict__)
                return NotImplemented

        _share_actions(parser)
        out = io.BytesIO()
        Pickler(out, protocol=pickle.HIGHEST_PROTOCOL).dump(parser)
        return self.stamp(grammar) + zlib.compress(out.getvalue(), 9)

    def loads(self, data: bytes, grammar: str | None = None) -> lark.Lark | None:
        """The parser in a tables file, with fresh run-time objects; None when the file was
        not made for `grammar` (the shipped one unless given), these options and this
        lark, or is damaged."""
        grammar = self.grammar_text() if grammar is None else grammar
        head = self.stamp(grammar)
        if not data.startswith(head):
            return None
        runtime = self._runtime()
        callbacks: dict[Any, Any] = {}
        rebuilt: list[bool] = []

        class Unpickler(pickle.Unpickler):
            def persistent_load(self, pid: Any) -> object:
                if pid == _CALLBACKS:
                    rebuilt.append(True)
                    return callbacks
                if pid == _GRAMMAR:
                    return None
                if pid in runtime:
                    return runtime[pid]
                # made at build time but not now: the options no longer match the header
                raise pickle.UnpicklingError(f"no run-time object {pid!r}")

        try:
            parser = Unpickler(io.BytesIO(zlib.decompress(data[len(head) :]))).load()
        except Exception:  # noqa: BLE001 - any damage means "build it instead"
            return None
        if not isinstance(parser, lark.Lark):
            return None
        if rebuilt:
            # The parse callbacks of the new transformer, into the dictionary the LALR
            # parser already holds (what `Lark.load` does for its `transformer` option).
            parser._prepare_callbacks()
            callbacks.update(parser._callbacks)
            parser._callbacks = callbacks
        return parser

    def read(self) -> bytes:
        """The shipped tables file (empty when there is none)."""
        try:
            return self._data(self.tables)
        except OSError:
            return b""

    def load(self) -> lark.Lark:
        """The parser: from the shipped tables when they fit the grammar, else built."""
        grammar = self.grammar_text()
        return self.loads(self.read(), grammar) or self.build(grammar)

    def stale(self) -> str | None:
        """Why the shipped tables cannot be used (for the package's test), or None."""
        if self.loads(self.read()) is not None:
            return None
        return (f"{self.package}'s {self.tables} does not fit {self.grammar}, its options "
                f"and lark {lark.__version__}: rewrite it with "
                f"`python -m esochess.fen.grammar_tables {self.name}`")

    def write(self) -> Path:
        """Rewrite the shipped tables from the grammar; the file written."""
        from importlib import resources

        from esochess.fen import files  # the one file writer (atomic)

        target = resources.files(self.package).joinpath(self.tables)
        with resources.as_file(target) as path:
            files.write_atomic(path, self.dumps())
            return Path(path)


def find(spec: str) -> GrammarTables:
    """The `GrammarTables` named by `MODULE:NAME`."""
    module, _, name = spec.partition(":")
    found = getattr(importlib.import_module(module), name or "TABLES", None)
    if not isinstance(found, GrammarTables):
        raise ValueError(f"{spec} names no GrammarTables")
    return found


def main(argv: list[str] | None = None) -> int:
    """`python -m esochess.fen.grammar_tables MODULE:NAME ...`: rewrite their tables."""
    args = sys.argv[1:] if argv is None else argv
    if not args:
        print("usage: python -m esochess.fen.grammar_tables MODULE:NAME ...", file=sys.stderr)
        return 2
    for spec in args:
        try:
            path = find(spec).write()
        except (ImportError, ValueError) as exc:
            print(f"grammar_tables: error: {exc}", file=sys.stderr)
            return 2
        print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    # Under `python -m` this file runs as `__main__`, whose GrammarTables class is not the
    # one the packages import: run the imported module's `main`.
    from esochess.fen import grammar_tables as _imported

    sys.exit(_imported.main())
