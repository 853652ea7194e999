"""Parse Gambit source into the AST (lark LALR over the tokens of lexer.py)."""

from __future__ import annotations

from functools import cache
from typing import Any

import lark
import lark.exceptions
from lark import Token, Transformer

from esochess.fen import SourceError
from esochess.fen.grammar_tables import GrammarTables
from esochess.gambit import ast as A
from esochess.gambit import declarations as D
from esochess.gambit import spans
from esochess.gambit.lexer import GambitLexer, Raw, tokenize
from esochess.gambit.syntax import syntax_error

# How deeply a program may nest: the depth of its parse tree. Each bracket, parenthesis,
# operator term or block is one level (a call is three, an `if` block four). Every later
# stage recurses over the tree; the limit keeps them within the Python stack that
# `limits.deep_python_stack` provides (tested at the limit in every stage).
MAX_NESTING = 3000


class _Lexer(GambitLexer):
    pass


#: The LALR parser ships prebuilt in grammar.tables (esochess.fen's prebuilt-parser
#: mechanism; rewrite it with `python -m esochess.fen.grammar_tables
#: esochess.gambit.parser:TABLES` after editing grammar.lark, a test fails while it is
#: stale). Building the tables costs ~0.2 s, which every `gambit` run would otherwise pay.
TABLES = GrammarTables(
    "esochess.gambit",
    "esochess.gambit.parser:TABLES",
    options={"lexer": _Lexer, "maybe_placeholders": False},
)


@cache
def _parser() -> lark.Lark:
    # Nothing is written at run time: when the shipped tables do not fit the grammar or
    # the installed lark, the parser is built in memory instead.
    return TABLES.load()


def _pos(tok: Token) -> A.Pos:
    return (tok.line or 0, tok.column or 0)


def _end(tok: Token) -> A.Pos:
    """The position just past a token."""
    return (tok.end_line or 0, tok.end_column or 0)


def first_pos(node: Any) -> A.Pos:
    """The position of the first character of a token or expression."""
    if isinstance(node, Token):
        return _pos(node)
    return spans.first_pos(node)


class _Build(Transformer[Token, Any]):
    """lark tree -> AST."""

    def __init__(self, path: str) -> None:
        super().__init__()
        self.path = path

    def _err(self, pos: A.Pos, message: str) -> SourceError:
        return SourceError(self.path, pos[0], pos[1], message)

    # ---- declarations
    def start(self, c: list[Any]) -> list[Any]:
        return [x for x in c if not isinstance(x, Token)]

    def players_decl(self, c: list[Token]) -> D.PlayersDecl:
        low = int(c[1])
        high = int(c[3]) if len(c) > 2 else low
        return D.PlayersDecl(_pos(c[0]), low, high)

    def entity_decl(self, c: list[Token]) -> D.EntityDecl:
        return D.EntityDecl(_pos(c[0]), str(c[1]))

    def enum_member(self, c: list[Token]) -> tuple[str, A.Pos]:
        return (str(c[0]), _pos(c[0]))

    def enum_decl(self, c: list[Any]) -> D.EnumDecl:
        members = tuple(x for x in c[3:] if isinstance(x, tuple))
        return D.EnumDecl(_pos(c[0]), str(c[1]), members)

    def member(self, c: list[Any]) -> D.StructMember:
        c = [x for x in c if not (isinstance(x, Token) and x.type == "DECL")]
        t, name = c[0], c[1]
        default = c[3] if len(c) > 3 else None
        return D.StructMember(_type_pos(t), t, str(name), default)

    def struct_decl(self, c: list[Any]) -> D.StructDecl:
        members = tuple(x for x in c if isinstance(x, D.StructMember))
        return D.StructDecl(_pos(c[0]), str(c[1]), members)

    def prop_item(self, c: list[Token]) -> D.PropItem:
        return D.PropItem(_pos(c[0]), str(c[0]), c[0].type == "ENTITY_NAME")

    def prop_items(self, c: list[Any]) -> tuple[D.PropItem, ...]:
        return tuple(x for x in c if isinstance(x, D.PropItem))

    def _prop(self, kind: str, c: list[Any]) -> D.PropertyDecl:
        default = c[4] if len(c) > 4 else None
        return D.PropertyDecl(_pos(c[0]), kind, c[1], c[2], default, None)

    def fixed_decl(self, c: list[Any]) -> D.PropertyDecl:
        return self._prop("fixed", c)

    def state_decl(self, c: list[Any]) -> D.PropertyDecl:
        return self._prop("state", c)

    def trait_expr_decl(self, c: list[Any]) -> D.PropertyDecl:
        return self._prop("trait", c)

    def trait_block_decl(self, c: list[Any]) -> D.PropertyDecl:
        return D.PropertyDecl(_pos(c[0]), "trait", c[1], c[2], None, c[3])

    def params(self, c: list[Any]) -> tuple[D.Param, ...]:
        return tuple(x for x in c if isinstance(x, D.Param))

    def param(self, c: list[Any]) -> D.Param:
        name = str(c[1]) if len(c) > 1 else None
        return D.Param(_type_pos(c[0]), c[0], name)

    def ret_type(self, c: list[Any]) -> Any:
        return c[1] if c else None

    def arrow_body(self, c: list[Any]) -> Any:
        return c[1]

    def block_body(self, c: list[Any]) -> A.Block:
        return A.Block(_pos(c[0]), c[1])

    def body(self, c: list[Any]) -> Any:
        return c[0]

    def function_decl(self, c: list[Any]) -> D.FuncDecl:
        return D.FuncDecl(_pos(c[0]), str(c[1]), True, c[3], c[5], c[6], _pos(c[1]), _end(c[4]))

    def procedure_decl(self, c: list[Any]) -> D.FuncDecl:
        return D.FuncDecl(_pos(c[0]), str(c[0]), False, c[2], c[4], c[5], _pos(c[0]), _end(c[3]))

    def tname(self, c: list[Token]) -> Token:
        return c[0]

    def pname(self, c: list[Token]) -> tuple[str | None, A.Pos]:
        tok = c[0]
        return (str(tok) if tok.type == "IDENT" else None, _pos(tok))

    def notation_decl(self, c: list[Any]) -> D.NotationDecl:
        names = tuple(x for x in c[4:-1] if isinstance(x, tuple))
        return D.NotationDecl(
            _pos(c[0]), str(c[1]), _pos(c[1]), str(c[2]).rstrip(" \t"), _pos(c[2]), names, c[-1]
        )

    # ---- types
    def type(self, c: list[Any]) -> A.TypeExpr:
        members = tuple(x for x in c if not isinstance(x, Token))
        if len(members) == 1:
            only: A.TypeExpr = members[0]
            return only
        return A.TUnion(_type_pos(members[0]), members)

    def type_suffix(self, c: list[Token]) -> Token:
        return c[0]

    def post_type(self, c: list[Any]) -> A.TypeExpr:
        t: A.TypeExpr = c[0]
        for suffix in c[1:]:
            t = A.TSuffix(_pos(suffix), t, str(suffix))
        return t

    def t_name(self, c: list[Token]) -> A.TName:
        return A.TName(_pos(c[0]), str(c[0]))

    def t_sel(self, c: list[Any]) -> A.TSel:
        return A.TSel(c[0].pos, c[0])

    def t_list(self, c: list[Any]) -> A.TList:
        return A.TList(_pos(c[0]), c[1])

    def t_paren(self, c: list[Any]) -> A.TypeExpr:
        t: A.TypeExpr = c[1]
        return t

    def t_none(self, c: list[Token]) -> A.TNone:
        return A.TNone(_pos(c[0]))

    def t_any(self, c: list[Token]) -> A.TAny:
        return A.TAny(_pos(c[0]))

    # ---- selectors and patterns
    def selector(self, c: list[Any]) -> A.Selector:
        entries = tuple(x for x in c if isinstance(x, A.Entry))
        return A.Selector(_pos(c[0]), str(c[0]), entries, _end(c[-1]))

    def e_true(self, c: list[Token]) -> A.Entry:
        return A.Entry(_pos(c[0]), str(c[0]), "true")

    def e_false(self, c: list[Token]) -> A.Entry:
        return A.Entry(_pos(c[1]), str(c[1]), "false")

    def e_pat(self, c: list[Any]) -> A.Entry:
        return A.Entry(_pos(c[0]), str(c[0]), "pat", pattern=c[2])

    def e_cmp(self, c: list[Any]) -> A.Entry:
        return A.Entry(_pos(c[0]), str(c[0]), str(c[1]), value=c[2])

    def pattern(self, c: list[Any]) -> A.Pattern:
        alts = tuple(x for x in c if not isinstance(x, Token))
        if len(alts) == 1:
            one: A.Pattern = alts[0]
            return one
        return A.PAlt(alts[0].pos, alts)

    def p_not(self, c: list[Any]) -> A.PNot:
        return A.PNot(_pos(c[0]), c[1])

    def p_any(self, c: list[Token]) -> A.PAny:
        return A.PAny(_pos(c[0]))

    def p_expr(self, c: list[Any]) -> A.Pattern:
        e = c[0]
        suffixes = c[1:]
        if suffixes:
            t = self._expr_to_type(e)
            for s in suffixes:
                t = A.TSuffix(_pos(s), t, str(s))
            return A.PType(t.pos, t)
        return self._expr_to_pattern(e)

    def _expr_to_type(self, e: Any) -> A.TypeExpr:
        if isinstance(e, A.Name):
            return A.TName(e.pos, e.name)
        if isinstance(e, A.SelectorExpr):
            return A.TSel(e.pos, e.selector)
        if isinstance(e, A.ListLit) and len(e.items) == 1:
            return A.TList(e.pos, self._expr_to_type(e.items[0]))
        if isinstance(e, A.Lit) and e.value is None:
            return A.TNone(e.pos)
        raise self._err(first_pos(e), "expected a type in this pattern")

    def _expr_to_pattern(self, e: Any) -> A.Pattern:
        if isinstance(e, A.Lit) and e.value is None:
            return A.PNone(e.pos)
        if isinstance(e, A.SelectorExpr):
            return A.PType(e.pos, A.TSel(e.pos, e.selector))
        if isinstance(e, A.Binary) and e.op == "..":
            return A.PRange(first_pos(e), e.left, e.right)
        if isinstance(e, A.Name) and e.name in self.type_names:
            return A.PType(e.pos, A.TName(e.pos, e.name))
        if (
            isinstance(e, A.ListLit)
            and len(e.items) == 1
            and isinstance(e.items[0], (A.Name, A.ListLit))
            and _is_type_expr(e.items[0], self.type_names)
        ):
            return A.PType(e.pos, self._expr_to_type(e))
        return A.PValue(first_pos(e), e)

    type_names: set[str] = set()

    # ---- statements
    def stmts(self, c: list[Any]) -> tuple[A.Stmt, ...]:
        return tuple(x for x in c if not isinstance(x, Token))

    def singleton(self, c: list[Any]) -> A.Block:
        return A.Block(_pos(c[0]), (c[1],))

    def block(self, c: list[Any]) -> A.Block:
        b: A.Block = c[0]
        return b

    def elif_part(self, c: list[Any]) -> tuple[Any, A.Block]:
        return (c[2], c[3])

    def else_part(self, c: list[Any]) -> A.Block:
        b: A.Block = c[1]
        return b

    def if_stmt(self, c: list[Any]) -> A.If:
        branches = [(c[1], c[2])]
        orelse = None
        for x in c[3:]:
            if isinstance(x, tuple):
                branches.append(x)
            else:
                orelse = x
        return A.If(_pos(c[0]), tuple(branches), orelse)

    def for_stmt(self, c: list[Any]) -> A.For:
        return A.For(_pos(c[0]), str(c[1]), _pos(c[1]), c[3], c[4])

    def while_stmt(self, c: list[Any]) -> A.While:
        return A.While(_pos(c[0]), c[1], c[2])

    def loop_stmt(self, c: list[Any]) -> A.Loop:
        return A.Loop(_pos(c[0]), c[1])

    def s_arm(self, c: list[Any]) -> A.StmtArm:
        head = c[0]
        pattern = None if isinstance(head, Token) and head.type == "ELSE" else head
        pos = _pos(head) if isinstance(head, Token) else head.pos
        rest = c[1:]
        if isinstance(rest[0], Token) and rest[0].type == "COLON":
            body = A.Block(_pos(rest[0]), (rest[1],))
        else:
            body = rest[0]
        return A.StmtArm(pos, pattern, body)

    def match_stmt(self, c: list[Any]) -> A.MatchStmt:
        arms = tuple(x for x in c if isinstance(x, A.StmtArm))
        return A.MatchStmt(_pos(c[0]), c[1], arms)

    def decl_stmt(self, c: list[Any]) -> A.DeclStmt:
        value = c[4] if len(c) > 4 else None
        return A.DeclStmt(_pos(c[0]), c[1], str(c[2]), _pos(c[2]), value)

    def assign_op(self, c: list[Token]) -> Token:
        return c[0]

    def assign_stmt(self, c: list[Any]) -> A.Assign:
        return A.Assign(_pos(c[1]), c[0], str(c[1]), c[2])

    def incdec_stmt(self, c: list[Any]) -> A.IncDec:
        return A.IncDec(_pos(c[1]), c[0], str(c[1]))

    def swap_stmt(self, c: list[Any]) -> A.Swap:
        return A.Swap(_pos(c[0]), c[1], c[3])

    def end_stmt(self, c: list[Any]) -> A.EndStmt:
        return A.EndStmt(_pos(c[1]), c[0], str(c[1]))

    def _simple(self, c: list[Token]) -> A.Simple:
        return A.Simple(_pos(c[0]), str(c[0]))

    draw_stmt = illegal_stmt = commit_stmt = break_stmt = continue_stmt = _simple

    def return_stmt(self, c: list[Any]) -> A.Return:
        return A.Return(_pos(c[0]), c[1] if len(c) > 1 else None)

    def expr_stmt(self, c: list[Any]) -> A.ExprStmt:
        return A.ExprStmt(first_pos(c[0]), c[0])

    # ---- expressions
    def choose(self, c: list[Any]) -> A.Choose:
        player = c[0]
        tok = c[1]
        k = None
        secret = False
        prompt = None
        for x in c[2:-1]:
            if isinstance(x, tuple) and x[0] == "k":
                k = x[1]
            elif isinstance(x, tuple) and x[0] == "prompt":
                prompt = x[1]
            elif isinstance(x, Token) and x.type == "SECRET":
                secret = True
        return A.Choose(_pos(tok), player, k, secret, prompt, c[-1])

    def choose_k(self, c: list[Any]) -> tuple[str, Any]:
        return ("k", c[1])

    def choose_prompt(self, c: list[Any]) -> tuple[str, Any]:
        return ("prompt", c[1])

    def binop(self, c: list[Any]) -> A.Binary:
        return A.Binary(_pos(c[1]), str(c[1]), c[0], c[2])

    def unop(self, c: list[Any]) -> A.Unary:
        return A.Unary(_pos(c[0]), str(c[0]), c[1])

    def cmp_op(self, c: list[Token]) -> Token:
        return c[0]

    def compare(self, c: list[Any]) -> A.Binary:
        if len(c) > 3:
            raise self._err(_pos(c[3]), "comparisons cannot be chained")
        return A.Binary(_pos(c[1]), str(c[1]), c[0], c[2])

    def is_expr(self, c: list[Any]) -> A.Is:
        return A.Is(_pos(c[1]), c[0], c[2])

    def alt(self, c: list[Any]) -> A.Alt:
        left = c[0]
        alts = (*left.alts, c[2]) if isinstance(left, A.Alt) else (left, c[2])
        pos = left.pos if isinstance(left, A.Alt) else _pos(c[1])
        return A.Alt(pos, alts)

    def member_access(self, c: list[Any]) -> A.Member:
        return A.Member(_pos(c[2]), c[0], str(c[2]))

    def index(self, c: list[Any]) -> A.Index:
        return A.Index(_pos(c[1]), c[0], c[2])

    def args(self, c: list[Any]) -> tuple[A.Arg, ...]:
        return tuple(x for x in c if isinstance(x, A.Arg))

    def arg(self, c: list[Any]) -> A.Arg:
        if len(c) == 3:
            return A.Arg(_pos(c[0]), str(c[0]), c[2])
        return A.Arg(first_pos(c[0]), None, c[0])

    def call(self, c: list[Any]) -> A.Call:
        func = c[0]
        pos = func.pos if isinstance(func, A.Name) else first_pos(func)
        if isinstance(func, A.Member):
            pos = func.pos
        return A.Call(pos, func, c[2])

    def method_call(self, c: list[Any]) -> A.Call:
        recv = A.Arg(first_pos(c[0]), None, c[0])
        name = A.Name(_pos(c[2]), str(c[2]))
        return A.Call(_pos(c[2]), name, (recv, *c[4]), method=True)

    def filter_map(self, c: list[Any]) -> A.FilterMap:
        return A.FilterMap(_pos(c[1]), str(c[1]), c[0], str(c[3]), _pos(c[3]), c[5])

    def int_lit(self, c: list[Token]) -> A.Lit:
        return A.Lit(_pos(c[0]), int(c[0]))

    def num_lit(self, c: list[Token]) -> A.Lit:
        return A.Lit(_pos(c[0]), float(c[0]))

    def str_lit(self, c: list[Token]) -> A.Lit:
        return A.Lit(_pos(c[0]), str(c[0]))

    def notation_lit(self, c: list[Token]) -> A.NotationLit:
        return A.NotationLit(_pos(c[0]), str(c[0]))

    def true_lit(self, c: list[Token]) -> A.Lit:
        return A.Lit(_pos(c[0]), True)

    def false_lit(self, c: list[Token]) -> A.Lit:
        return A.Lit(_pos(c[0]), False)

    def none_lit(self, c: list[Token]) -> A.Lit:
        return A.Lit(_pos(c[0]), None)

    def name(self, c: list[Token]) -> A.Name:
        return A.Name(_pos(c[0]), str(c[0]))

    def selector_expr(self, c: list[Any]) -> A.SelectorExpr:
        return A.SelectorExpr(c[0].pos, c[0])

    def paren(self, c: list[Any]) -> Any:
        return c[1]

    def tuple(self, c: list[Any]) -> A.TupleExpr:
        items = tuple(x for x in c if not isinstance(x, Token))
        return A.TupleExpr(_pos(c[0]), items)

    def list_lit(self, c: list[Any]) -> A.ListLit:
        items = tuple(x for x in c if not isinstance(x, Token))
        return A.ListLit(_pos(c[0]), items)

    def c_arm(self, c: list[Any]) -> A.IfArm:
        head = c[0]
        if isinstance(head, Token):
            return A.IfArm(_pos(head), None, c[2])
        return A.IfArm(first_pos(head), head, c[2])

    def e_arm(self, c: list[Any]) -> A.MatchArm:
        head = c[0]
        if isinstance(head, Token):
            return A.MatchArm(_pos(head), None, c[2])
        return A.MatchArm(head.pos, head, c[2])

    def if_expr(self, c: list[Any]) -> A.IfExpr:
        return A.IfExpr(_pos(c[0]), tuple(x for x in c if isinstance(x, A.IfArm)))

    def match_expr(self, c: list[Any]) -> A.MatchExpr:
        arms = tuple(x for x in c if isinstance(x, A.MatchArm))
        return A.MatchExpr(_pos(c[0]), c[1], arms)


def _is_type_expr(e: Any, type_names: set[str]) -> bool:
    if isinstance(e, A.Name):
        return e.name in type_names
    if isinstance(e, A.ListLit):
        return len(e.items) == 1 and _is_type_expr(e.items[0], type_names)
    return False


def _type_pos(t: Any) -> A.Pos:
    pos: A.Pos = t.pos
    if isinstance(t, A.TSuffix):
        return _type_pos(t.inner)
    if isinstance(t, A.TUnion):
        return _type_pos(t.members[0])
    return pos


def parse(source: str, path: str) -> D.Program:
    """Parse a whole file; raises `SourceError` for the first lexical or syntax error."""
    toks: list[Raw] = tokenize(source, path)
    text = source.lstrip("\ufeff").replace("\r\n", "\n").replace("\r", "\n")
    parser = _parser()
    try:
        tree = _run(parser, text, toks)
    except lark.exceptions.UnexpectedInput as exc:
        raise syntax_error(exc, path, text, toks) from None
    except lark.exceptions.VisitError as exc:
        if isinstance(exc.orig_exc, SourceError):
            raise exc.orig_exc from None
        raise
    deep = _too_deep(tree)
    if deep is not None:
        raise SourceError(path, deep.line or 1, deep.column or 1, "this is nested too deeply "
                          f"(more than {MAX_NESTING} levels of brackets, parentheses, operators "
                          "and blocks)").with_source(text)  # fmt: skip
    builder = _Build(path)
    builder.type_names = _type_names(toks)
    try:
        decls = builder.transform(tree)
    except lark.exceptions.VisitError as exc:
        if isinstance(exc.orig_exc, SourceError):
            raise exc.orig_exc.with_source(text) from None
        raise
    return D.Program(path, text, tuple(decls))


def _too_deep(tree: lark.Tree[Token]) -> Token | None:
    """The first token of a subtree nested past `MAX_NESTING`, found without recursion."""
    stack: list[tuple[lark.Tree[Token] | Token, int]] = [(tree, 0)]
    while stack:
        node, depth = stack.pop()
        if isinstance(node, Token):
            continue
        if depth > MAX_NESTING:
            return _first_token(node)
        stack.extend((child, depth + 1) for child in node.children)
    return None


def _first_token(node: lark.Tree[Token] | Token) -> Token | None:
    while not isinstance(node, Token):
        if not node.children:
            return None
        node = node.children[0]
    return node


def _type_names(toks: list[Raw]) -> set[str]:
    return {t.text for t in toks if t.kind in ("TYPE_NAME", "ENTITY_NAME")}


def _run(parser: lark.Lark, text: str, toks: list[Raw]) -> Any:
    interactive = parser.parse_interactive(text)
    lexer_tokens = _Lexer.__new__(_Lexer)
    lexer_tokens.tokens = toks
    for tok in lexer_tokens.lex(None):
        interactive.feed_token(tok)
    return interactive.resume_parse()  # type: ignore[no-untyped-call]
