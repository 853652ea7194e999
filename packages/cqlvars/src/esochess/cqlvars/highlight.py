"""A Pygments lexer for CQL queries (`.cql`), registered as a Pygments entry point."""

from __future__ import annotations

from pygments.lexer import RegexLexer, words
from pygments.token import (
    Comment,
    Keyword,
    Name,
    Number,
    Operator,
    Punctuation,
    String,
    Text,
    Whitespace,
)

from esochess.cqlvars.lexer import KEYWORDS


class CqlLexer(RegexLexer):
    """CQL: chess query language filters over PGN games."""

    name = "CQL"
    aliases = ["cql"]
    filenames = ["*.cql"]

    tokens = {
        "root": [
            (r"\s+", Whitespace),
            (r"//.*?$", Comment.Single),
            (r"/\*.*?\*/", Comment.Multiline),
            (r";.*?$", Comment.Single),
            (r'"(\\.|[^"\\])*"', String),
            # Piece designators: pieces, optional square sets (Ra1, [Qq]c-e4, A, _).
            (r"\[[KQRBNPkqrbnpAa_]+\]([a-h](-[a-h])?[1-8](-[1-8])?)?", Name.Builtin),
            (words(sorted(KEYWORDS), suffix=r"\b"), Keyword),
            (r"[KQRBNPkqrbnpAa_](?:[a-h](?:-[a-h])?[1-8](?:-[1-8])?)?\b", Name.Builtin),
            (r"[a-h](-[a-h])?[1-8](-[1-8])?\b", Name.Constant),
            (r"[0-9]+", Number),
            (r"[A-Za-z_][A-Za-z0-9_]*", Name.Variable),
            (r"-->|<--|==|!=|<=|>=|[-+*/%<>=&|~:#]", Operator),
            (r"[.,()\[\]{}]", Punctuation),
            (r".", Text),
        ]
    }
