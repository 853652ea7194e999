"""A Pygments lexer for Chespel programs (`.chp`), registered as a Pygments entry point."""

from __future__ import annotations

from pygments.lexer import RegexLexer, words
from pygments.token import Comment, Keyword, Name, Number, Operator, Punctuation, Text, Whitespace

from esochess.chespel.layout import KEYWORDS

_CONSTANTS = ("true", "false", "me", "foe", "white", "black")


class ChespelLexer(RegexLexer):
    """Chespel: modules of evaluation rules."""

    name = "Chespel"
    aliases = ["chespel", "chp"]
    filenames = ["*.chp"]

    tokens = {
        "root": [
            (r"\s+", Whitespace),
            (r"//.*?$", Comment.Single),
            (words(_CONSTANTS, suffix=r"\b"), Keyword.Constant),
            (
                words(sorted(w for w, k in KEYWORDS.items() if k == "TYPE"), suffix=r"\b"),
                Keyword.Type,
            ),
            (words(sorted(w for w in KEYWORDS if w not in _CONSTANTS), suffix=r"\b"), Keyword),
            (r"[0-9]+(\.[0-9]+)?", Number),
            (r"[A-Za-z_][A-Za-z0-9_]*", Name),
            (r"\+\+|==|!=|<=|>=|[-+*/<>=]", Operator),
            (r"[.,:;()\[\]{}]", Punctuation),
            (r".", Text),
        ]
    }
