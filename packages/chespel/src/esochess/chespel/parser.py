"""Chespel parser: source text -> `ast.Program` (lark LALR + the layout post-lexer).

`parse(path, text)` returns the program or raises `SourceError` for the first lexical,
layout or syntax error (E01-E12, E14, E39, E40 end the analysis,
docs/reference/chespel.md#diagnostics). `prepare_source` applies
docs/reference/chespel.md#source-text (BOM, CRLF) and is what diagnostics should quote from.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import replace
from functools import cache
from typing import Any

import lark
import lark.exceptions
from lark import Token, Transformer

from esochess.chespel import ast
from esochess.chespel.layout import KEYWORDS, TYPE_OF_WORD, Layout, LayoutError
from esochess.fen import SourceError, source_line_at
from esochess.fen.diagnostics import describe_token, end_position
from esochess.fen.grammar_tables import GrammarTables

#: The LALR parser ships prebuilt in grammar.tables (esochess.fen's prebuilt-parser
#: mechanism; rewrite it with `python -m esochess.fen.grammar_tables
#: esochess.chespel.parser:TABLES` after editing grammar.lark, a test fails while it is
#: stale). The AST transformer and the layout post-lexer are made afresh at each load.
TABLES = GrammarTables(
    "esochess.chespel",
    "esochess.chespel.parser:TABLES",
    options={"lexer": "basic", "start": "start"},
    runtime=lambda: {"transformer": _ToAst(), "postlex": Layout()},
)


@cache
def lark_parser() -> lark.Lark:
    """The LALR parser of grammar.lark with the layout post-lexer (loaded once).

    The AST is built during the parse (lark's inline transformer), so an error found
    while building it (E39) is reported in reading order with the syntax errors. Nothing
    is written at run time: when the shipped tables do not fit the grammar or the
    installed lark, the parser is built in memory instead.
    """
    return TABLES.load()


def prepare_source(text: str) -> str:
    """Drop a UTF-8 BOM and the CR of every CRLF (docs/reference/chespel.md#source-text)."""
    if text.startswith("\ufeff"):
        text = text[1:]
    return text.replace("\r\n", "\n")


def parse(path: str, text: str) -> ast.Program:
    """Parse a whole Chespel source (already `prepare_source`d) into a Program."""
    try:
        program = lark_parser().parse(text)
    except LayoutError as exc:
        raise _error(path, text, exc.line, exc.column, exc.message) from None
    except lark.exceptions.UnexpectedCharacters as exc:
        where = exc.pos_in_stream or 0
        ch = text[where] if 0 <= where < len(text) else ""
        shown = ch if ch.isprintable() else ch.encode("unicode_escape").decode("ascii")
        message = f"unexpected character '{shown}'"
        if ch == "{":
            message = _braces_message(source_line_at(text, exc.line) or "", message)
        raise _error(path, text, exc.line, exc.column, message) from None
    except lark.exceptions.UnexpectedToken as exc:
        raise _syntax_error(path, text, exc) from None
    except lark.exceptions.UnexpectedInput as exc:
        line, column = end_position(text)
        raise _error(path, text, line, column, "unexpected end of file") from exc
    assert isinstance(program, ast.Program)
    return replace(program, path=path)


def _error(path: str, text: str, line: int, column: int, message: str) -> SourceError:
    return SourceError(path, line, column, message, source_line=source_line_at(text, line))


# Expected-token descriptions for E12, most useful first.
_PUNCT = {
    "SEMI": "';'",
    "COLON": "':'",
    "RPAR": "')'",
    "RSQB": "']'",
    "ARROW": "'->'",
    "ASSIGN": "'='",
}
_EXPR_START = {"NUMBER", "STRING", "LPAR", "LSQB", "ROW", "COL", "CELL", "TYPE", "IDENT"}


def _describe_expected(expected: set[str]) -> str:
    for name, text in _PUNCT.items():
        if name in expected:
            return text
    if "LET" in expected and "IDENT" in expected:
        return "a name"  # a variable name: keywords are accepted there to report E37
    if "SCORE" in expected:
        return "a statement"
    if "RULE" in expected:
        return "'rule'"
    if "MODULE" in expected:
        return "'module'"
    if expected and expected <= {"NUMBER", "BOOL", "MINUS"}:
        return "a number, 'true' or 'false'"
    if expected & _EXPR_START and "NUMBER" in expected:
        return "an expression"
    if "STRING" in expected:
        return "a string"
    if "IDENT" in expected:
        return "a name"
    if expected & {"SEARCH", "EVALUATION", "OPENING", "ENDGAME"}:
        return "a module name (search, evaluation, opening or endgame)"
    if "$END" in expected:
        return "end of file"
    return _token_text(min(expected)) if expected else "end of file"


def _token_text(name: str) -> str:
    """A terminal as E12 shows it: its fixed text in single quotes (`'('`, `'with'`)."""
    for word, kind in KEYWORDS.items():
        if kind == name:
            return f"'{word}'"
    pattern = lark_parser().get_terminal(name).pattern
    if isinstance(pattern, lark.lexer.PatternStr):
        return f"'{pattern.value}'"
    return name.lower()


def _syntax_error(path: str, text: str, exc: lark.exceptions.UnexpectedToken) -> SourceError:
    token: Token = exc.token
    expected = set(exc.expected)
    if exc.interactive_parser is not None:
        # LALR merges look-aheads, so `exc.expected` can list tokens that are only valid
        # in other contexts; `accepts()` tries each one through the pending reductions.
        expected = set(exc.interactive_parser.accepts())  # type: ignore[no-untyped-call]
    if token.type == "$END" or token.line is None:
        line, column = end_position(text)
        found = "end of file"
    else:
        line, column = token.line or 1, token.column or 1
        found = describe_token(token)
    # Only right after an if condition are both ':' and 'score' valid (a rule header
    # also takes 'score' as a name word, but then takes any other word too).
    if "SCORE" in expected and "COLON" in expected and "IDENT" not in expected:
        return _error(path, text, line, column, "an inline if may only contain a score statement")
    word = str(token.value) if token.type != "$END" else ""
    if word in _OTHER_DIALECTS and token.column == 1:
        return _error(path, text, line, column, _OTHER_DIALECTS[word])
    message = f"expected {_describe_expected(expected)}, found {found}"
    if "SEMI" in expected:
        end = _statement_end(text, line, column)
        if end is not None:
            # The statement ended on an earlier line: point at its end, not at the next line.
            where = "end of file" if found == "end of file" else f"{found} on line {line}"
            return _error(path, text, end[0], end[1], f"expected ';' at the end of the "
                          f"statement, found {where}")
    return _error(path, text, line, column, message)


_OTHER_DIALECTS = {
    "config": "'config { … }' is not Chespel: search parameters go in 'module search' "
              "(for example 'maxTime = 2'), endgame ones in 'module endgame'",
    "global": "'global' declarations are not Chespel: compute a value with 'let NAME = VALUE;' "
              "inside the rule that uses it",
}
"""Constructs of other Chespel dialects, by their first word, with the supported form."""


def _braces_message(line: str, message: str) -> str:
    """A `{` after a rule header (`rule X sym {`) gets the supported form."""
    if re.match(r"\s*(sym\s+)?rule\b", line):
        return ("'rule NAME sym { … }' is not Chespel: write 'sym rule NAME:' (or 'rule NAME:') "
                "and indent the rule's statements with one tab, without braces")
    return message


def _statement_end(text: str, line: int, column: int) -> tuple[int, int] | None:
    """Just after the last character of code before (line, column), when that is on an
    earlier line (comments and blank lines skipped); None otherwise."""
    lines = text.split("\n")
    before = lines[line - 1][:column - 1] if line - 1 < len(lines) else ""
    if before.strip():
        return None
    for number in range(min(line - 1, len(lines)), 0, -1):
        code = lines[number - 1].split("//", 1)[0].rstrip()
        if code.strip():
            return number, len(code) + 1
    return None


# ------------------------------------------------------------------ tree -> AST


def _pos(tok: Token) -> ast.Pos:
    return ast.Pos(tok.line or 1, tok.column or 1)


class _Args:
    """The argument list of a call, kept apart from expressions during the transform."""

    def __init__(self, items: tuple[ast.Expr, ...]) -> None:
        self.items = items


def raw_tokens(text: str) -> Iterator[Token]:
    """The parser's token stream (after the layout post-lexer), without parsing."""
    return lark_parser().lex(text)


def number_literal(tok: Token) -> ast.NumLit:
    """A NUMBER token as a literal: milli-units truncated toward zero, spelling kept."""
    text = str(tok)
    whole, _, frac = text.partition(".")
    millis = int(whole) * 1000 + int((frac + "000")[:3])
    return ast.NumLit(_pos(tok), _pos(tok), millis, text)


def _exprs(children: list[Any]) -> tuple[ast.Expr, ...]:
    return tuple(c for c in children if isinstance(c, ast.Expr))


class _ToAst(Transformer[Token, ast.Program]):
    """Turn the lark parse tree into frozen AST nodes (see ast.py)."""

    # ---- program and modules
    def start(self, children: list[Any]) -> ast.Program:
        """The whole file: its modules in order."""
        return ast.Program("", tuple(children))

    def _module(self, children: list[Any]) -> ast.Module:
        head, name = children[0], children[1]
        items = children[2:]
        return ast.Module(
            _pos(head),
            str(name),
            _pos(name),
            tuple(i for i in items if isinstance(i, ast.Parameter)),
            tuple(i for i in items if isinstance(i, ast.Rule)),
            tuple(i for i in items if isinstance(i, ast.OpeningRule)),
        )

    search_module = evaluation_module = endgame_module = opening_module = _module

    def parameter(self, children: list[Any]) -> ast.Parameter:
        """`NAME = [-]VALUE [;]`; the value keeps its sign as text."""
        name = children[0]
        rest = [c for c in children[2:] if c.type != "SEMI"]
        value = "".join(str(c) for c in rest)
        return ast.Parameter(_pos(name), str(name), value, _pos(rest[0]))

    def opening_rule(self, children: list[Any]) -> ast.OpeningRule:
        """`'FEN' -> 'FEN';` (quotes stripped)."""
        origin, _, dest, _ = children
        return ast.OpeningRule(_pos(origin), str(origin)[1:-1], str(dest)[1:-1], _pos(dest))

    # ---- rules and statements
    def rule(self, children: list[Any]) -> ast.Rule:
        """`[sym] rule WORDS: block`; the name joins the words with single spaces."""
        head = children[0]
        sym = head.type == "SYM"
        words = children[(2 if sym else 1) : -2]
        return ast.Rule(
            _pos(head), " ".join(str(w) for w in words), _pos(words[0]), sym, children[-1]
        )

    def rule_word(self, children: list[Any]) -> Token:
        """A word of a rule name or a variable name: the token itself."""
        return children[0]  # type: ignore[no-any-return]

    var_name = rule_word

    def block(self, children: list[Any]) -> tuple[ast.Stmt, ...]:
        """The statements of an indented block."""
        return tuple(c for c in children if isinstance(c, ast.Stmt))

    def score_stmt(self, children: list[Any]) -> ast.Score:
        """`score VALUE [[,] JUSTIFICATION];`."""
        exprs = _exprs(children)
        return ast.Score(_pos(children[0]), exprs[0], exprs[1] if len(exprs) > 1 else None)

    def justification(self, children: list[Any]) -> ast.Expr:
        """The justification expression (the optional comma dropped)."""
        return _exprs(children)[0]

    def if_block(self, children: list[Any]) -> ast.If:
        """`if COND:` and its block."""
        return ast.If(_pos(children[0]), children[1], children[3], False, _pos(children[2]))

    def if_inline(self, children: list[Any]) -> ast.If:
        """`if COND score ...;`."""
        return ast.If(_pos(children[0]), children[1], (children[2],), True)

    def let_stmt(self, children: list[Any]) -> ast.Let:
        """`let NAME = VALUE;`."""
        name = children[1]
        return ast.Let(_pos(children[0]), str(name), _pos(name), children[3])

    def loop_stmt(self, children: list[Any]) -> ast.Loop:
        """`piece|cell V, ... [with C, ...]:` and its block."""
        head = children[0]
        variables: list[ast.VarDecl] = []
        conditions: list[ast.Expr] = []
        in_conditions = False
        for child in children[1:-1]:
            if isinstance(child, Token):
                if child.type == "WITH" and not in_conditions:
                    in_conditions = True
                elif child.type not in ("COMMA", "COLON"):
                    variables.append(ast.VarDecl(str(child), _pos(child)))
            elif isinstance(child, ast.Expr):
                conditions.append(child)
        kind = "piece" if head.type == "PIECE" else "cell"
        return ast.Loop(_pos(head), kind, tuple(variables), tuple(conditions), children[-1])

    # ---- expressions
    def binary(self, children: list[Any]) -> ast.Binary:
        """An infix operator; its position is the operator, its start the left operand."""
        left, op, right = children
        return ast.Binary(_pos(op), left.start, str(op), left, right)

    def chain(self, children: list[Any]) -> ast.Binary:
        """A comparison; a second comparison operator in a row is E39."""
        if len(children) > 3:
            op = children[3]
            raise LayoutError(
                op.line or 1, op.column or 1, "comparisons cannot be chained; use parentheses"
            )
        return self.binary(children)

    def unary(self, children: list[Any]) -> ast.Unary:
        """A prefix operator (`-`, `abs`, `not`)."""
        op, operand = children
        return ast.Unary(_pos(op), _pos(op), str(op), operand)

    def method(self, children: list[Any]) -> ast.Call:
        """`receiver.name` with optional arguments."""
        receiver, _, name = children[:3]
        args = children[3] if len(children) > 3 else None
        items = args.items if isinstance(args, _Args) else ()
        return ast.Call(_pos(name), receiver.start, receiver, str(name), items, args is not None)

    def arguments(self, children: list[Any]) -> _Args:
        """A parenthesised argument list (possibly empty)."""
        return _Args(_exprs(children))

    def list_lit(self, children: list[Any]) -> ast.ListLit:
        """A list literal."""
        return ast.ListLit(_pos(children[0]), _pos(children[0]), _exprs(children))

    def paren(self, children: list[Any]) -> ast.Expr:
        """A parenthesised expression: no node, but its start moves to the `(`."""
        inner: ast.Expr = children[1]
        return replace(inner, start=_pos(children[0]))

    def name(self, children: list[Any]) -> ast.Expr:
        """A bare word, or a bare call when followed by arguments."""
        tok = children[0]
        if len(children) > 1:
            args = children[1]
            return ast.Call(_pos(tok), _pos(tok), None, str(tok), args.items, True)
        return ast.Name(_pos(tok), _pos(tok), str(tok))

    def in_call(self, children: list[Any]) -> ast.Call:
        """The global form `in(x, L)`."""
        tok, args = children
        return ast.Call(_pos(tok), _pos(tok), None, "in", args.items, True)

    def literal(self, children: list[Any]) -> ast.Expr:
        """A literal token as its AST node."""
        tok: Token = children[0]
        p = _pos(tok)
        text = str(tok)
        kind = tok.type
        if kind == "NUMBER":
            return number_literal(tok)
        if kind == "STRING":
            return ast.StrLit(p, p, text[1:-1])
        if kind == "ROW":
            return ast.RowLit(p, p, int(text[1]))
        if kind == "COL":
            return ast.ColLit(p, p, ord(text[1]) - ord("a") + 1)
        if kind == "CELL":
            return ast.CellLit(p, p, (int(text[1]) - 1) * 8 + ord(text[0]) - ord("a"))
        if kind == "BOOL":
            return ast.BoolLit(p, p, text == "true")
        if kind == "PLAYER":
            return ast.PlayerLit(p, p, text == "me")
        if kind == "COLOR":
            return ast.ColorLit(p, p, text == "white")
        return ast.TypeLit(p, p, TYPE_OF_WORD[text], text)
