"""The LALR parser of grammar.lark, built once and shipped with the package.

Building lark's LALR tables for grammar.lark takes about 1.5 s, and reading them back
through `Lark.save`/`Lark.load` about 0.07 s (lark rebuilds every table entry in Python):
too much for the start-up of a query that an index answers in a few hundredths of a second
(docs/performance.md#start-up-of-an-indexed-query). So the built parser object itself is
pickled, zlib-compressed, into `grammar.tables` beside the grammar, headed by the SHA-256
of the grammar text and the lark version it was built with; unpickling it takes about
0.02 s. When either no longer matches (the grammar was edited, another lark is installed)
or the file cannot be read, `load` builds the parser from the grammar instead: slower,
never wrong, and nothing is ever written at run time.

`python -m esochess.cqlvars.grammar_tables` rewrites the file; a test fails while it is
stale. The file is part of the package, trusted like its modules (it is a pickle).
"""

from __future__ import annotations

import hashlib
import importlib
import io
import pickle
import types
import zlib
from importlib import resources
from typing import Any

import lark
from lark.parsers import lalr_analysis
from lark.parsers.lalr_analysis import Action

from esochess.cqlvars.lexer import LarkLexer
from esochess.fen import files

GRAMMAR = "grammar.lark"
TABLES = "grammar.tables"
_MAGIC = b"cql-lalr 1\n"


def grammar_text() -> str:
    """The grammar as shipped."""
    return resources.files("esochess.cqlvars").joinpath(GRAMMAR).read_text(encoding="utf-8")


def stamp(grammar: str) -> bytes:
    """The header line a tables file must carry to be used with `grammar` and this lark."""
    digest = hashlib.sha256(grammar.encode("utf-8")).hexdigest()
    return f"{digest} lark {lark.__version__}\n".encode()


def build(grammar: str) -> lark.Lark:
    """Build the parser from the grammar text (about 1.5 s)."""
    return lark.Lark(grammar, parser="lalr", lexer=LarkLexer, maybe_placeholders=False)


def _module(module: types.ModuleType) -> tuple[Any, tuple[str]]:
    # The parser holds its regular-expression module: kept by name.
    return importlib.import_module, (module.__name__,)


def _action(action: Action) -> tuple[Any, tuple[Any, str]]:
    # The parser compares its LALR actions (Shift, Reduce) by identity: kept as references
    # to the very objects of the lark that loads them. Pickled once each, then memoised.
    return getattr, (lalr_analysis, action.name)


_REDUCERS = {types.ModuleType: _module, Action: _action}


def dumps(parser: lark.Lark, grammar: str) -> bytes:
    """The tables file's content for `parser`, built from `grammar`."""
    out = io.BytesIO()
    pickler = pickle.Pickler(out, protocol=pickle.HIGHEST_PROTOCOL)
    pickler.dispatch_table = _REDUCERS  # type: ignore[assignment]
    pickler.dump(parser)
    return _MAGIC + stamp(grammar) + zlib.compress(out.getvalue(), 9)


def loads(data: bytes, grammar: str) -> lark.Lark | None:
    """The parser in a tables file, or None when it was not made for `grammar` and this
    lark (or is not a tables file)."""
    head = _MAGIC + stamp(grammar)
    if not data.startswith(head):
        return None
    try:
        parser = pickle.loads(zlib.decompress(data[len(head) :]))
    except Exception:  # noqa: BLE001 - any damage means "build it instead"
        return None
    return parser if isinstance(parser, lark.Lark) else None


def load() -> lark.Lark:
    """The parser: from the shipped tables when they fit the grammar, else built."""
    grammar = grammar_text()
    try:
        data = resources.files("esochess.cqlvars").joinpath(TABLES).read_bytes()
    except OSError:
        data = b""
    return loads(data, grammar) or build(grammar)


def main() -> None:
    """Rewrite the shipped tables from the grammar (after editing grammar.lark)."""
    grammar = grammar_text()
    target = resources.files("esochess.cqlvars").joinpath(TABLES)
    with resources.as_file(target) as path:
        files.write_atomic(path, dumps(build(grammar), grammar))


if __name__ == "__main__":
    main()
