"""A Pygments lexer for Gambit programs (`.gmb`), registered as a Pygments entry point."""

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

from esochess.gambit.lexer import PREDECLARED_TYPES, RESERVED

_CONSTANTS = ("true", "false", "none")


class GambitLexer(RegexLexer):
    """Gambit: a language for describing games."""

    name = "Gambit"
    aliases = ["gambit", "gmb"]
    filenames = ["*.gmb", "*.gambit"]

    tokens = {
        "root": [
            (r"\s+", Whitespace),
            (r"//.*?$", Comment.Single),
            (r"/\*", Comment.Multiline, "comment"),
            (r'"', String, "string"),
            (words(_CONSTANTS, suffix=r"\b"), Keyword.Constant),
            (words(sorted(w for w in RESERVED if w not in _CONSTANTS), suffix=r"\b"), Keyword),
            (
                words(
                    ("players", "main", "choose", "commit", "illegal", "print", "secret"),
                    suffix=r"\b",
                ),
                Keyword.Pseudo,
            ),
            (words(sorted(PREDECLARED_TYPES), suffix=r"\b"), Keyword.Type),
            (r"[0-9]+(\.[0-9]+)?", Number),
            (r"[A-Z][A-Za-z0-9_]*", Name.Class),
            (r"[a-z_][A-Za-z0-9_]*", Name),
            (r"\.\.|==|!=|<=|>=|=>|->|[-+*/%#&|!?<>=]=?", Operator),
            (r"[.,:()\[\]{}]", Punctuation),
            (r".", Text),
        ],
        "comment": [
            (r"[^*]+", Comment.Multiline),
            (r"\*/", Comment.Multiline, "#pop"),
            (r"\*", Comment.Multiline),
        ],
        "string": [
            (r"\\.", String.Escape),
            (r'"', String, "#pop"),
            (r'[^"\\\n]+', String),
            (r"\n", String, "#pop"),
        ],
    }
