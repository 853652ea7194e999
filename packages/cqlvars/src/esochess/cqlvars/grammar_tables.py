"""The LALR parser of grammar.lark, shipped built in `grammar.tables` (esochess.fen's
prebuilt-parser mechanism, `esochess.fen.grammar_tables`).

Building lark's LALR tables for grammar.lark takes about 1.5 s, and reading them back
through `Lark.save`/`Lark.load` about 0.07 s (lark rebuilds every table entry in Python):
too much for the start-up of a query that an index answers in a few hundredths of a second
(docs/performance.md#start-up-of-an-indexed-query). Unpickling the shipped parser takes
about 0.007 s; when the tables do not fit the grammar or the installed lark, the parser is
built instead (slower, never wrong, nothing written at run time).

`python -m esochess.cqlvars.grammar_tables` rewrites the file (the same as
`python -m esochess.fen.grammar_tables esochess.cqlvars.grammar_tables:TABLES`); a test
fails while it is stale.
"""

from __future__ import annotations

from esochess.cqlvars.lexer import LarkLexer
from esochess.fen.grammar_tables import GrammarTables

TABLES = GrammarTables(
    "esochess.cqlvars",
    "esochess.cqlvars.grammar_tables:TABLES",
    options={"lexer": LarkLexer, "maybe_placeholders": False},
)


if __name__ == "__main__":
    TABLES.write()
