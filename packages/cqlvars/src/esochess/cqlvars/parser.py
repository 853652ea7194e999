"""Query text -> `ast.Query`: lark LALR over lexer.py's tokens, then a tree transformer."""

from __future__ import annotations

import functools
from typing import Any

import lark
import lark.exceptions
from lark import Token, Transformer

from esochess.cqlvars import ast, grammar_tables, pathsyntax
from esochess.cqlvars.header import parse_header
from esochess.cqlvars.lexer import (
    KEYWORDS,
    MAX_LITERAL,
    TIER1_KEYWORDS,
    Tokenizer,
    span_of,
    token_extra,
)
from esochess.fen import SourceError, source_line_at
from esochess.fen.suggest import did_you_mean

DIRECTIONS = {
    "up": ("up",),
    "down": ("down",),
    "left": ("left",),
    "right": ("right",),
    "northeast": ("northeast",),
    "northwest": ("northwest",),
    "southeast": ("southeast",),
    "southwest": ("southwest",),
    "horizontal": ("left", "right"),
    "vertical": ("up", "down"),
    "diagonal": ("northeast", "northwest", "southeast", "southwest"),
    "orthogonal": ("up", "down", "left", "right"),
    "anydirection": (
        "up",
        "down",
        "left",
        "right",
        "northeast",
        "northwest",
        "southeast",
        "southwest",
    ),
}


@functools.cache
def _lark() -> lark.Lark:
    # The LALR tables take ~1.5 s to build: they ship with the package, built.
    return grammar_tables.TABLES.load()


def _nodes(children: list[Any]) -> list[ast.Node]:
    return [c for c in children if isinstance(c, ast.Node)]


def query_error(path: str, source: str, span: ast.Span, message: str) -> SourceError:
    """Build a positioned query error whose caret covers the whole token."""
    return SourceError(
        path, span.line, span.column, message,
        source_line=source_line_at(source, span.line), width=span.length,
    )  # fmt: skip


class _Builder(pathsyntax.PathBuilder, Transformer[Token, Any]):
    """Turns the lark tree into ast nodes; raises SourceError for literal errors."""

    def __init__(self, path: str, source: str) -> None:
        super().__init__()
        self.path = path
        self.source = source
        # Arrows written inside constituent groups, checked against the line's direction.
        self.group_arrows: dict[int, list[Token]] = {}

    def error(self, span: ast.Span, message: str) -> SourceError:
        """A query error at span."""
        return query_error(self.path, self.source, span, message)

    # atoms -------------------------------------------------------------------------
    def desig(self, c: list[Any]) -> ast.Node:
        tok = c[0]
        value = token_extra(tok)
        return ast.Designator(span_of(tok), value.pieces, value.squares, str(tok))

    def number(self, c: list[Any]) -> ast.Node:
        tok = c[0]
        value = int(str(tok))
        if value > MAX_LITERAL:
            raise self.error(span_of(tok), f"numeric literal {value} exceeds {MAX_LITERAL}")
        return ast.IntLit(span_of(tok), value)

    def string(self, c: list[Any]) -> ast.Node:
        return ast.StrLit(span_of(c[0]), c[0].extra)

    def var(self, c: list[Any]) -> ast.Node:
        return ast.Var(span_of(c[0]), str(c[0]))

    def capref(self, c: list[Any]) -> ast.Node:
        return ast.CaptureRef(span_of(c[0]), c[0].extra)

    def paren(self, c: list[Any]) -> ast.Node:
        node: ast.Node = c[1]
        return node

    def compound(self, c: list[Any]) -> ast.Node:
        return ast.Compound(span_of(c[0]), tuple(_nodes(c)))

    def move_arrow(self, c: list[Any]) -> ast.Node:
        """`S--T` (a move from S to T) and `S[x]T` (from S capturing on T); S or T is absent
        (any square) unless written against the dash (`Q--`, `--g5`, `--`)."""
        arrow = next(t for t in c if isinstance(t, Token) and t.type in _DASHES)
        at = c.index(arrow)
        left = c[0] if at == 1 else None
        right = c[at + 1] if at + 1 < len(c) else None
        span = span_of(arrow)
        if str(arrow) == "--":
            return ast.Move(span, "played", from_=left, to=right, first="to")
        anywhere = right if right is not None else ast.Designator(span, None, None, ".")
        return ast.Move(span, "played", from_=left, capture=anywhere, first="capture")

    def table_filter(self, c: list[Any]) -> ast.Node:
        return ast.Filter(span_of(c[0]), str(c[0]), tuple(_nodes(c)))

    def table_filter_params(self, c: list[Any]) -> ast.Node:
        """`consecutivemoves 5 100 quiet (x y)`: CQL's range and `quiet` before the
        arguments are refused with the way to write the range."""
        name, first = str(c[0]), c[1]
        if name == "consecutivemoves":
            message = ("the range and 'quiet' of 'consecutivemoves' are not supported; "
                       "compare its value instead: consecutivemoves (x y) >= 5")
        else:
            message = f"'{name}' takes only its arguments in parentheses"
        raise self.error(span_of(first), message)

    def prefix(self, c: list[Any]) -> ast.Node:
        return ast.Unary(span_of(c[0]), str(c[0]), c[1])

    # operators ---------------------------------------------------------------------
    def binop(self, c: list[Any]) -> ast.Node:
        return ast.Binary(span_of(c[1]), str(c[1]), c[0], c[2])

    def assign(self, c: list[Any]) -> ast.Node:
        return ast.Assign(span_of(c[1]), str(c[1]), c[0], c[2])

    def opassign(self, c: list[Any]) -> ast.Node:
        return ast.Assign(span_of(c[1]), str(c[1]), c[0], c[2])

    def piece_assign(self, c: list[Any]) -> ast.Node:
        target = ast.Var(span_of(c[1]), str(c[1]))
        return ast.Assign(span_of(c[2]), "=", target, c[3], piece=True)

    def persistent(self, c: list[Any]) -> ast.Node:
        quiet = any(isinstance(t, Token) and t.type == "QUIET" for t in c)
        name = next(t for t in c if isinstance(t, Token) and t.type == "IDENT")
        op_tok: Token = c[-2]
        return ast.Assign(
            span_of(op_tok),
            str(op_tok),
            ast.Var(span_of(name), str(name)),
            c[-1],
            persistent=True,
            quiet=quiet,
        )

    def unbind(self, c: list[Any]) -> ast.Node:
        target = c[1]
        if not (isinstance(target, ast.Var) or isinstance(target, ast.Subscript)
                and isinstance(target.target, ast.Var)):
            raise self.error(span_of(c[0]), "'unbind' takes a variable or a dictionary entry D[KEY]")
        return ast.Unbind(span_of(c[0]), target)

    def dict_decl(self, c: list[Any]) -> ast.Node:
        """`dictionary D` or `dictionary D[K] = V`, optionally `persistent [quiet]` or `local`."""
        words = [t for t in c if isinstance(t, Token)]
        keyword = next(t for t in words if t.type == "DICTIONARY")
        body = c[-1]
        init: ast.Node | None = None
        if isinstance(body, ast.Assign) and isinstance(body.target, ast.Subscript):
            init, var = body, body.target.target
        else:
            var = body
        if not isinstance(var, ast.Var):
            raise self.error(span_of(keyword), "'dictionary' takes a name, or NAME[KEY] = VALUE")
        return ast.DictDecl(
            span_of(keyword), var.name, var.span,
            persistent=any(t.type == "PERSISTENT" for t in words),
            quiet=any(t.type == "QUIET" for t in words), init=init,
            local=any(t.type == "LOCAL" for t in words),
        )  # fmt: skip

    def atomic_assign(self, c: list[Any]) -> ast.Node:
        op_tok: Token = c[2]
        target = ast.Var(span_of(c[1]), str(c[1]))
        return ast.Assign(span_of(op_tok), str(op_tok), target, c[3], atomic=True)

    def persistent_bare(self, c: list[Any]) -> ast.Node:
        name = c[-1]
        raise self.error(span_of(name), f"expected an assignment after 'persistent {name}'")

    def assign_op(self, c: list[Any]) -> Token:
        tok: Token = c[0]
        return tok

    def subscript(self, c: list[Any]) -> ast.Node:
        kind, start, stop = c[2]
        return ast.Subscript(span_of(c[1]), c[0], start, stop, kind == "slice")

    def index(self, c: list[Any]) -> tuple[str, ast.Node | None, ast.Node | None]:
        return ("index", c[0], None)

    def slice(self, c: list[Any]) -> tuple[str, ast.Node | None, ast.Node | None]:
        colon = next(i for i, x in enumerate(c) if isinstance(x, Token))
        start = c[0] if colon == 1 else None
        stop = c[colon + 1] if colon + 1 < len(c) else None
        return ("slice", start, stop)

    def at_position(self, c: list[Any]) -> ast.Node:
        return ast.AtPosition(span_of(c[1]), c[0], c[2])

    # keyword filters ---------------------------------------------------------------
    def move_param(self, c: list[Any]) -> tuple[Token, ast.Node | None]:
        return (c[0], c[1] if len(c) > 1 else None)

    def move(self, c: list[Any]) -> ast.Node:
        fields: dict[str, Any] = {"mode": "played"}
        seen: set[str] = set()
        for tok, arg in c[1:]:
            word = str(tok)
            key = "castle" if word in ("o-o", "o-o-o", "castle") else word
            if key in ("previous", "legal", "pseudolegal"):
                key = "mode"
            if key in ("primary", "secondary"):
                key = "branch"
            if key in seen:
                raise self.error(span_of(tok), f"'move' parameter '{word}' given twice")
            seen.add(key)
            if key in ("mode", "branch"):
                fields[key] = word
            elif word in ("from", "to", "capture", "promote"):
                fields["from_" if word == "from" else word] = arg
                if word != "promote" and "first" not in fields:
                    fields["first"] = word
            elif key == "castle":
                fields["castle"] = word
            else:
                fields[word] = True
        if "branch" in fields and fields["mode"] in ("legal", "pseudolegal"):
            raise self.error(span_of(c[0]), f"'move {fields['branch']}' applies to the moves of "
                             f"the game, not to '{fields['mode']}' moves")
        return ast.Move(span_of(c[0]), **fields)

    def pin_param(self, c: list[Any]) -> tuple[Token, ast.Node]:
        return (c[0], c[1])

    def pin(self, c: list[Any]) -> ast.Node:
        fields: dict[str, Any] = {}
        for tok, arg in c[1:]:
            word = str(tok)
            key = "from_" if word == "from" else word
            if key in fields:
                raise self.error(span_of(tok), f"'pin' parameter '{word}' given twice")
            fields[key] = arg
            fields.setdefault("first", word)
        return ast.Pin(span_of(c[0]), **fields)

    def direction(self, c: list[Any]) -> Token:
        tok: Token = c[0]
        return tok

    def ray(self, c: list[Any]) -> ast.Node:
        dirs: list[str] = []
        for tok in c[1:]:
            if isinstance(tok, Token) and str(tok) in DIRECTIONS:
                for d in DIRECTIONS[str(tok)]:
                    if d not in dirs:
                        dirs.append(d)
        if not dirs:
            dirs = list(DIRECTIONS["anydirection"])
        return ast.Ray(span_of(c[0]), tuple(dirs), tuple(_nodes(c)))

    def stepping(self, c: list[Any]) -> ast.Node:
        word = c[0]
        numbers = [int(str(t)) for t in c[1:] if isinstance(t, Token) and t.type == "STEPNUM"]
        low, high = (numbers + [numbers[0]])[:2] if numbers else (1, 7)
        if not 1 <= low <= high <= 7:
            raise self.error(span_of(word), f"'{word}' distances must satisfy 1 <= m <= n <= 7")
        operand = _nodes(c)[-1]
        return ast.Direction(span_of(word), DIRECTIONS[str(word)], low, high, operand)

    def gameinfo(self, c: list[Any]) -> ast.Node:
        head = c[0]
        word = str(head)
        color = None
        literal = None
        for tok in c[1:]:
            if tok.type in ("WHITE", "BLACK"):
                color = str(tok)
            elif tok.type == "STRING":
                literal = token_extra(tok)
            elif tok.type == "RESULTTOK":
                literal = str(tok)
        if word == "player" and color is None and literal is None:
            raise self.error(span_of(head), "'player' needs 'white', 'black' or a string")
        return ast.GameInfo(span_of(head), word, color, literal)

    def originalcomment(self, c: list[Any]) -> ast.Node:
        literal = c[1].extra if len(c) > 1 else None
        return ast.OriginalComment(span_of(c[0]), literal)

    def call(self, c: list[Any]) -> ast.Node:
        return ast.Call(span_of(c[0]), str(c[0]), tuple(_nodes(c)))

    def fname(self, c: list[Any]) -> Token:
        tok: Token = c[0]
        return tok

    def fundef(self, c: list[Any]) -> ast.Node:
        name = c[1]
        params: list[str] = []
        body: list[ast.Node] = []
        seen_lbrace = False
        for item in c[2:]:
            if isinstance(item, Token):
                if item.type == "LBRACE":
                    seen_lbrace = True
                elif item.type == "IDENT" and not seen_lbrace:
                    if str(item) in params:
                        raise self.error(span_of(item), f"parameter '{item}' given twice")
                    params.append(str(item))
            else:
                body.append(item)
        return ast.FunctionDef(span_of(name), str(name), tuple(params), tuple(body))

    # navigation --------------------------------------------------------------------
    def constituent(self, c: list[Any]) -> ast.LineItem:
        node = c[0]
        low, high = c[1].extra if len(c) > 1 else (1, 1)
        return ast.LineItem(node.span, node, None, low, high)

    def group(self, c: list[Any]) -> ast.LineItem:
        first: ast.LineItem = c[1]
        pairs = [x for x in c if isinstance(x, tuple)]
        items = [first] + [item for _, item in pairs]
        arrows = [arrow for arrow, _ in pairs]
        rep = c[-1] if isinstance(c[-1], Token) and c[-1].type == "REP" else None
        low, high = token_extra(rep) if rep is not None else (1, 1)
        item = ast.LineItem(span_of(c[0]), None, tuple(items), low, high)
        self.group_arrows[id(item)] = arrows + self.group_arrows.pop(id(first), [])
        for _, inner in pairs:
            self.group_arrows[id(item)] += self.group_arrows.pop(id(inner), [])
        return item

    def group_item(self, c: list[Any]) -> tuple[Token, ast.LineItem]:
        return (c[0], c[1])

    def forward_item(self, c: list[Any]) -> tuple[Token, ast.LineItem]:
        return (c[0], c[1])

    def backward_item(self, c: list[Any]) -> tuple[Token, ast.LineItem]:
        return (c[0], c[1])

    def line(self, c: list[Any]) -> ast.Node:
        pairs = [x for x in c if isinstance(x, tuple)]
        want = str(pairs[0][0])
        arrows = [arrow for arrow, _ in pairs]
        for _, item in pairs:
            arrows += self.group_arrows.pop(id(item), [])
        for arrow in arrows:
            if str(arrow) != want:
                raise self.error(span_of(arrow), "a line may not mix '-->' and '<--'")
        params = [t for t in c[1:] if isinstance(t, Token)]
        numbers = [int(str(t)) for t in params if t.type == "NUMBER"]
        if len(numbers) > 2 or (len(numbers) == 2 and numbers[0] > numbers[1]):
            raise self.error(span_of(c[0]), "'line' takes a range: LO or LO HI, ascending")
        low = numbers[0] if numbers else None
        high = numbers[-1] if numbers else None
        words = frozenset(str(t) for t in params if t.type not in ("NUMBER", "QUIET"))
        if {"primary", "secondary"} <= words:
            raise self.error(span_of(c[0]), "'line' takes 'primary' or 'secondary', not both")
        return ast.Line(span_of(c[0]), want == "<--", tuple(item for _, item in pairs), words,
                        low, high)

    def line_param(self, c: list[Any]) -> Token:
        tok: Token = c[0]
        return tok

    def find_param(self, c: list[Any]) -> Token:
        tok: Token = c[0]
        return tok

    def find(self, c: list[Any]) -> ast.Node:
        backward = all_ = False
        numbers: list[int] = []
        for tok in c[1:-1]:
            if tok.type == "LARROW":
                backward = True
            elif tok.type == "ALL":
                all_ = True
            elif tok.type == "FINDNUM":
                numbers.append(int(str(tok)))
                if len(numbers) > 2:
                    raise self.error(span_of(tok), "'find' takes at most two range numbers")
        if all_ and numbers:
            raise self.error(span_of(c[0]), "'find' cannot take both 'all' and a range")
        low = numbers[0] if numbers else None
        high = numbers[1] if len(numbers) > 1 else low
        quiet = any(isinstance(t, Token) and t.type == "QUIET" for t in c[1:-1])
        return ast.Find(span_of(c[0]), backward, all_, low, high, c[-1], quiet)

    def echo_all(self, c: list[Any]) -> bool:
        return True

    def echo(self, c: list[Any]) -> ast.Node:
        names = [t for t in c if isinstance(t, Token) and t.type == "IDENT"]
        in_all = any(x is True for x in c)
        if str(names[0]) == str(names[1]):
            raise self.error(span_of(names[1]), "echo variables must be distinct")
        quiet = any(isinstance(t, Token) and t.type == "QUIET" for t in c)
        return ast.Echo(
            span_of(c[0]), str(names[0]), str(names[1]), in_all, c[-1], span_of(names[0]), quiet
        )

    def iterate(self, c: list[Any]) -> ast.Node:
        name = next(t for t in c if isinstance(t, Token) and t.type == "IDENT")
        all_ = any(isinstance(t, Token) and t.type == "ALL" for t in c)
        domain, body = c[-2], c[-1]
        return ast.Iterate(span_of(c[0]), str(c[0]), all_, str(name), span_of(name), domain, body)

    def sort_mode(self, c: list[Any]) -> Token:
        tok: Token = c[0]
        return tok

    def sort(self, c: list[Any]) -> ast.Node:
        minimum = any(isinstance(t, Token) and t.type == "SORTMIN" for t in c)
        doc = next((token_extra(t) for t in c if isinstance(t, Token) and t.type == "STRING"), "sort")
        return ast.Sort(span_of(c[0]), minimum, doc, c[-1])

    def emit(self, c: list[Any]) -> ast.Node:
        args = _nodes(c)
        if len(c) == 2 and isinstance(c[1], Token) and c[1].type == "STRING":
            args = [ast.StrLit(span_of(c[1]), token_extra(c[1]))]
        return ast.Emit(span_of(c[0]), str(c[0]), tuple(args))

    def maxmin(self, c: list[Any]) -> ast.Node:
        return ast.MaxMin(span_of(c[0]), str(c[0]), tuple(_nodes(c)))

    def transform_kind(self, c: list[Any]) -> Token:
        tok: Token = c[0]
        return tok

    def xform(self, c: list[Any]) -> ast.Node:
        count = any(isinstance(t, Token) and t.type == "COUNT" for t in c)
        return ast.Transform(span_of(c[0]), str(c[0]), count, c[-1])

    def if_(self, c: list[Any]) -> ast.Node:
        nodes = _nodes(c)
        else_ = nodes[2] if len(nodes) > 2 else None
        return ast.If(span_of(c[0]), nodes[0], nodes[1], else_)

    def isbound(self, c: list[Any]) -> ast.Node:
        return ast.IsBound(span_of(c[1]), str(c[1]), c[0].type == "ISUNBOUND")

    def hword(self, c: list[Any]) -> Token:
        tok: Token = c[0]
        return tok


_DASHES = frozenset({"MOVEARROW", "CAPTUREARROW", "DASHFROM", "DASHTO", "DASHANY"})


def _unexpected(exc: lark.exceptions.UnexpectedInput, path: str, source: str) -> SourceError:
    token = getattr(exc, "token", None)
    if token is None or token.type == "$END":
        # One past the last character of the text, ignoring trailing blank space.
        lines = source.rstrip().split("\n")
        span = ast.Span(len(lines), len(lines[-1]) + 1, 1)
        return query_error(path, source, span, "unexpected end of input")
    word = str(token)
    message = f"unexpected '{word}'"
    if token.type != "IDENT" and word in TIER1_KEYWORDS:
        message = f"unexpected keyword '{word}'"
    state = getattr(exc, "state", None)
    stack = getattr(state, "value_stack", None) or []
    last = stack[-1] if stack else None
    if isinstance(last, Token) and last.type in ("ISBOUND", "ISUNBOUND", "PIECE", "SQUARE"):
        if token.type == "DESIG" or (len(word) == 1 and word in "abcdefgh"):
            message = f"'{word}' is a piece designator and cannot be a variable name"
        elif word in TIER1_KEYWORDS:
            message = f"'{word}' is a keyword and cannot be a variable name"
    elif token.type in ("ASSIGN", "OPASSIGN", "ASSIGNQ") and isinstance(last, Token):
        if str(last) in TIER1_KEYWORDS:
            return query_error(
                path, source, span_of(last), f"'{last}' is a keyword and cannot be a variable name"
            )
    # `move previus from N`: the parser took the typo for a variable and stumbled on the
    # next word; the mistake is the typo.
    leaves = [last] if isinstance(last, Token) else (
        [v for v in last.scan_values(lambda v: isinstance(v, Token)) if isinstance(v, Token)]
        if isinstance(last, lark.Tree) else [])  # fmt: skip
    if len(leaves) == 1 and leaves[0].type == "IDENT":
        if (hint := did_you_mean(str(leaves[0]), KEYWORDS)) is not None:
            return query_error(path, source, span_of(leaves[0]), f"unknown word '{leaves[0]}'; {hint}")
    return query_error(path, source, span_of(token), message)


def parse_query(source: str, path: str = "<query>") -> ast.Query:
    """Parse query text into an `ast.Query`; raises SourceError on any lexical/syntax error."""
    if source.startswith("\ufeff"):
        source = source[1:]
    builder = _Builder(path, source)
    try:
        tree = _lark().parse(source)
    except SourceError as err:
        err.path = path
        raise
    except lark.exceptions.UnexpectedInput as exc:
        raise _unexpected(exc, path, source) from None
    except lark.exceptions.VisitError as exc:  # pragma: no cover - defensive
        if isinstance(exc.orig_exc, SourceError):
            raise exc.orig_exc from None
        raise
    children = tree.children
    close = next(
        i for i, c in enumerate(children) if isinstance(c, Token) and c.type == "RPAR"
    )
    words = [
        w.children[0]
        for w in children[2:close]
        if isinstance(w, lark.Tree) and isinstance(w.children[0], Token)
    ]
    try:
        header = parse_header(words, builder.error)
        body = tuple(
            builder.transform(c) for c in children[close + 1 :] if isinstance(c, lark.Tree)
        )
    except lark.exceptions.VisitError as exc:
        if isinstance(exc.orig_exc, SourceError):
            raise exc.orig_exc from None
        raise
    lines = source.split("\n")
    return ast.Query(header, body, ast.Span(len(lines), len(lines[-1]) + 1))


def tokenize(source: str, path: str = "<query>") -> list[Token]:
    """Tokenize without parsing (no line context); used by tests and diagnostics."""
    return list(Tokenizer(source, path).tokens())
