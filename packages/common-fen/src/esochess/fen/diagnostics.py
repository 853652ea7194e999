"""Source diagnostics shared by every esochess front end.

One exception type, `SourceError`, carries a position in a user's file; one renderer,
`format_diagnostic`, prints it as::

    FILE:LINE:COL: error: MESSAGE
    SOURCE LINE
    CARET LINE

The caret line repeats the characters of the source line before the column, keeping tabs
and turning everything else into spaces, so the caret lines up whatever the tab width.

What a source line may contain never floods or confuses the terminal: control characters
(other than tabs), bidirectional-text controls and lone surrogates are shown escaped as
`\x07`, `\u202e` or `\udcff` (the caret still under the right character), and a line
longer than `MAX_LINE` characters is cut to a window around the caret, with `…` where
text was left out.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, fields, replace
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    # Only for annotations: the core imports lark lazily, so code that embeds
    # esochess.fen (a Chespel executable) need not carry lark.
    import lark
    import lark.exceptions


@dataclass(frozen=True)
class Note:
    """A related position printed after a diagnostic, without source or caret lines."""

    path: str
    line: int
    column: int
    message: str

    def render(self) -> str:
        """Return the one-line `FILE:LINE:COL: note: MESSAGE` form."""
        return f"{self.path}:{self.line}:{self.column}: note: {self.message}"


# Not frozen: Python itself sets attributes on exceptions (__traceback__, __notes__).
@dataclass
class SourceError(Exception):
    """A diagnostic at a 1-based (line, column) of a source file.

    `severity` is the word after the position: `error`, `warning`, `runtime error`.
    `source_line` is the physical line the diagnostic points into; when it is None the
    renderer takes it from the source text it is given, if any. `width` is how many
    characters the caret line underlines (`^~~~` for a token of four characters).
    """

    path: str
    line: int
    column: int
    message: str
    severity: str = "error"
    source_line: str | None = None
    notes: tuple[Note, ...] = field(default=())
    width: int = 1

    def __str__(self) -> str:
        return self.header()

    def __reduce__(self) -> tuple[type[SourceError], tuple[object, ...]]:
        # Exceptions pickle through `args`; keep every field across process pools.
        return (type(self), tuple(getattr(self, f.name) for f in fields(self)))

    def header(self) -> str:
        """Return the first line, `FILE:LINE:COL: SEVERITY: MESSAGE`."""
        return f"{self.path}:{self.line}:{self.column}: {self.severity}: {self.message}"

    def with_source(self, source: str) -> SourceError:
        """Return a copy whose `source_line` is taken from the full source text."""
        return replace(self, source_line=source_line_at(source, self.line))

    @property
    def is_error(self) -> bool:
        """True unless this is a warning (errors fail a command; warnings do not)."""
        return self.severity != "warning"


def source_line_at(source: str, line: int) -> str | None:
    """Return physical line `line` (1-based) of `source` without its terminator."""
    if line < 1:
        return None
    lines = source.splitlines()
    if line > len(lines):
        # A position just past a final newline still names an (empty) line.
        return "" if line == len(lines) + 1 else None
    return lines[line - 1]


def caret_line(source_line: str, column: int, width: int = 1) -> str:
    """Return the caret line for a 1-based column (tabs kept so the caret aligns),
    underlining `width` characters as `^~~~`."""
    prefix = source_line[: max(column - 1, 0)]
    pad = "".join("\t" if ch == "\t" else " " for ch in prefix)
    # A column past the end of the line (end of input) pads with spaces.
    pad += " " * max(column - 1 - len(prefix), 0)
    return pad + "^" + "~" * max(width - 1, 0)


#: The longest source line shown whole; longer ones are shown as a window of this size.
MAX_LINE = 200
#: How many characters of a cut line are kept before the caret.
CONTEXT_BEFORE = 80
#: What marks text left out of a cut line.
ELLIPSIS = "\u2026"
# Bidirectional-text controls: they reorder what the terminal shows ("trojan source").
_BIDI = frozenset("\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")


def _escaped(ch: str) -> str:
    """How one character of a source line is shown: itself, or an escape."""
    if ch == "\t" or (ch.isprintable() and ch not in _BIDI):
        return ch
    if unicodedata.category(ch) not in ("Cc", "Cs", "Cf", "Zl", "Zp") and ch not in _BIDI:
        return ch  # other non-printables (spaces such as U+00A0) are harmless
    code = ord(ch)
    if code < 0x100:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"


def _shown_width(ch: str) -> int:
    return len(_escaped(ch))


def displayed(source_line: str, column: int, width: int = 1) -> tuple[str, str]:
    """The source line as printed and its caret line (see the module docstring)."""
    caret = max(column - 1, 0)
    n = len(source_line)
    lo, hi = 0, n
    # Escapes widen characters: a short line of them with a column past its end would put
    # the caret further right than MAX_LINE, so the caret's shown position counts too.
    ahead = max(caret - n, 0)
    if n > MAX_LINE or sum(map(_shown_width, source_line)) + ahead > MAX_LINE:
        caret = min(caret, n)
        budget = MAX_LINE - 2  # room for the two markers
        lo = caret
        used = 0
        while lo > 0 and used + _shown_width(source_line[lo - 1]) <= CONTEXT_BEFORE:
            lo -= 1
            used += _shown_width(source_line[lo])
        hi = caret
        while hi < n and used + _shown_width(source_line[hi]) <= budget:
            used += _shown_width(source_line[hi])
            hi += 1
        while lo > 0 and used + _shown_width(source_line[lo - 1]) <= budget:
            lo -= 1
            used += _shown_width(source_line[lo])
    head = ELLIPSIS if lo > 0 else ""
    tail = ELLIPSIS if hi < n else ""
    shown = head + "".join(map(_escaped, source_line[lo:hi])) + tail
    pad = " " * len(head) + "".join(
        "\t" if ch == "\t" else " " * _shown_width(ch) for ch in source_line[lo:caret]
    )
    pad += " " * max(caret - n, 0)  # a column past the end of the line (end of input)
    under = source_line[caret : min(caret + max(width, 1), hi)]
    length = sum(map(_shown_width, under)) + (max(width, 1) - len(under) if hi == n else 0)
    return shown, pad + "^" + "~" * max(length - 1, 0)


def format_diagnostic(error: SourceError, source: str | None = None) -> str:
    """Render one diagnostic: header, source line and caret (when known), then notes.

    The result has no trailing newline.
    """
    lines = [error.header()]
    text = error.source_line
    if text is None and source is not None:
        text = source_line_at(source, error.line)
    if text is not None:
        lines.extend(displayed(text, error.column, error.width))
    lines.extend(note.render() for note in error.notes)
    return "\n".join(lines)


def sort_diagnostics(errors: Iterable[SourceError]) -> list[SourceError]:
    """Sort by (line, column), errors before warnings, dropping exact duplicates."""
    seen: set[tuple[str, int, int, str, str]] = set()
    unique: list[SourceError] = []
    for err in errors:
        key = (err.path, err.line, err.column, err.severity, err.message)
        if key not in seen:
            seen.add(key)
            unique.append(err)
    return sorted(unique, key=lambda e: (e.line, e.column, 0 if e.is_error else 1))


def format_diagnostics(errors: Sequence[SourceError], source: str | None = None) -> str:
    """Render several diagnostics, one after the other, with no trailing newline."""
    return "\n".join(format_diagnostic(err, source) for err in errors)


def describe_token(token: lark.Token | None) -> str:
    """Describe a token for messages: its text in single quotes, or `end of file`."""
    if token is None or token.type == "$END":
        return "end of file"
    return f"'{token}'"


def end_position(source: str) -> tuple[int, int]:
    """Return the (line, column) one past the last character of `source`."""
    lines = source.split("\n")
    return len(lines), len(lines[-1]) + 1


def from_lark(
    exc: lark.exceptions.UnexpectedInput,
    path: str,
    source: str,
    message: str | None = None,
) -> SourceError:
    """Turn a lark parse error into a `SourceError` at the offending position.

    Without `message`, the text is `unexpected character 'c'` for a lexer error and
    `unexpected TOKEN` (or `unexpected end of file`) for a parser error.
    """
    import lark.exceptions
    line = getattr(exc, "line", -1)
    column = getattr(exc, "column", -1)
    token: lark.Token | None = getattr(exc, "token", None)
    if isinstance(exc, lark.exceptions.UnexpectedEOF) or (
        token is not None and token.type == "$END"
    ):
        line, column = end_position(source)
        token = None
    if not isinstance(line, int) or not isinstance(column, int) or line < 1 or column < 1:
        line, column = end_position(source)
    if message is None:
        if isinstance(exc, lark.exceptions.UnexpectedCharacters):
            pos = exc.pos_in_stream
            ch = source[pos] if pos is not None and 0 <= pos < len(source) else ""
            message = f"unexpected character {ch!r}"
        else:
            message = f"unexpected {describe_token(token)}"
    return SourceError(path, line, column, message, source_line=source_line_at(source, line))
