"""Program text as highlighted HTML, one string per source line, by the languages' lexers.

The lexers are the Pygments ones each language package registers (`pygments.lexers`
entry points), so the studio's editors colour a program exactly as any Pygments user sees it.
"""

from __future__ import annotations

from collections.abc import Callable

from pygments import highlight as render
from pygments.formatters import HtmlFormatter
from pygments.lexer import Lexer

from esochess.chazz.highlight import ChazzLexer
from esochess.chespel.highlight import ChespelLexer
from esochess.cqlvars.highlight import CqlLexer
from esochess.gambit.highlight import GambitLexer

LEXERS: dict[str, type[Lexer]] = {
    "chazz": ChazzLexer,
    "chespel": ChespelLexer,
    "gambit": GambitLexer,
    "cql": CqlLexer,
}


def highlight(language: str, text: str) -> list[str]:
    """The lines of `text` as HTML spans (Pygments' short CSS classes)."""
    html = render(text, LEXERS[language](stripnl=False, ensurenl=False), HtmlFormatter(nowrap=True))
    lines = html.split("\n")
    count = text.count("\n") + 1
    return (lines + [""] * count)[:count]


def stylesheet() -> str:
    """The CSS of the highlighting classes."""
    style_defs: Callable[[str], str] = HtmlFormatter(style="friendly").get_style_defs
    return style_defs(".code")
