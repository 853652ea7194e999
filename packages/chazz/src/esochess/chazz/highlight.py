"""A Pygments lexer for CHAZZ boards (`.fen`), registered as a Pygments entry point.

White pieces, black pieces, empty-square counts, rank separators and the field after
the board each get their own token, so a program's shape is visible at a glance.
"""

from __future__ import annotations

from pygments.lexer import RegexLexer
from pygments.token import Comment, Keyword, Name, Number, Punctuation, Text, Whitespace


class ChazzLexer(RegexLexer):
    """CHAZZ: a program written as a FEN board; only the first line is the program."""

    name = "CHAZZ"
    aliases = ["chazz"]
    filenames = ["*.fen"]

    tokens = {
        "root": [
            (r"[PNBRQK]", Name.Builtin),
            (r"[pnbrqk]", Keyword),
            (r"[0-9]+", Number),
            (r"/", Punctuation),
            (r" [^\n]*", Comment.Special),
            (r"\n", Whitespace, "rest"),
            (r".", Text),
        ],
        # The reference reads only the first line: the rest is not part of the program.
        "rest": [(r"(?s).+", Comment)],
    }
