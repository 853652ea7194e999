"""Unit tests of the parser: AST shapes and positions (§13.1), syntax errors."""

from __future__ import annotations

import pytest

from esochess.fen import SourceError
from esochess.gambit import ast as A
from esochess.gambit import declarations as D
from esochess.gambit.parser import parse


def main_body(stmts: str, decls: str = "") -> tuple[A.Stmt, ...]:
    """Parse `stmts` inside main and return main's statements."""
    prog = parse(decls + "main() {\n" + stmts + "\n}\n", "t.gmb")
    main = [d for d in prog.decls if isinstance(d, D.FuncDecl) and d.name == "main"][0]
    assert isinstance(main.body, A.Block)
    return main.body.stmts


def test_method_call_is_rewritten_to_a_plain_call() -> None:
    (stmt,) = main_body("a:f(b, c)")
    assert isinstance(stmt, A.ExprStmt) and isinstance(stmt.expr, A.Call)
    call = stmt.expr
    assert call.method and isinstance(call.func, A.Name) and call.func.name == "f"
    assert [a.value.name for a in call.args if isinstance(a.value, A.Name)] == ["a", "b", "c"]
    assert call.pos == (2, 3)  # the name after the colon


def test_precedence() -> None:
    (stmt,) = main_body("x = not a == b or c and d")
    assert isinstance(stmt, A.Assign)
    e = stmt.value
    assert isinstance(e, A.Binary) and e.op == "or"
    assert isinstance(e.left, A.Unary) and e.left.op == "not"
    (s2,) = main_body("y = #xs filter (x: x > 1)")
    assert isinstance(s2, A.Assign) and isinstance(s2.value, A.Unary)
    assert isinstance(s2.value.operand, A.FilterMap)
    (s3,) = main_body("z = 1..n+1")
    assert isinstance(s3, A.Assign) and isinstance(s3.value, A.Binary)
    assert s3.value.op == ".." and isinstance(s3.value.right, A.Binary)


def test_alternatives_on_the_right_of_equality() -> None:
    (stmt,) = main_body("x = p == A|B|C")
    assert isinstance(stmt, A.Assign) and isinstance(stmt.value, A.Binary)
    assert isinstance(stmt.value.right, A.Alt) and len(stmt.value.right.alts) == 3


def test_positions_follow_the_diagnostic_rules() -> None:
    (stmt,) = main_body('    x = a.b + c[2]')
    assert isinstance(stmt, A.Assign)
    e = stmt.value
    assert isinstance(e, A.Binary) and e.pos == (2, 13)  # the operator
    assert isinstance(e.left, A.Member) and e.left.pos == (2, 11)  # the property name
    assert isinstance(e.right, A.Index) and e.right.pos == (2, 16)  # the `[`


def test_typed_declaration_versus_expression() -> None:
    stmts = main_body("[Card] hand = []\nCard c = Card()\n(c, s).is_on = true\np wins",
                      decls="entity Card\n")  # fmt: skip
    assert isinstance(stmts[0], A.DeclStmt) and isinstance(stmts[0].type, A.TList)
    assert isinstance(stmts[1], A.DeclStmt)
    assert isinstance(stmts[2], A.Assign) and isinstance(stmts[2].target, A.Member)
    assert isinstance(stmts[3], A.EndStmt) and stmts[3].kind == "wins"


def test_choose_parts() -> None:
    (stmt,) = main_body('x = p choose[2] secret ("Pick") [1, 2, 3]')
    assert isinstance(stmt, A.Assign) and isinstance(stmt.value, A.Choose)
    c = stmt.value
    assert c.k is not None and c.secret and isinstance(c.prompt, A.Lit)
    assert isinstance(c.options, A.ListLit)


def test_patterns() -> None:
    (stmt,) = main_body("x = c is Card<rank: ACE> | none", decls="entity Card\n")
    assert isinstance(stmt, A.Assign) and isinstance(stmt.value, A.Is)
    pat = stmt.value.pattern
    assert isinstance(pat, A.PAlt)
    assert isinstance(pat.alts[0], A.PType) and isinstance(pat.alts[1], A.PNone)
    (s2,) = main_body("y = n is 2..4")
    assert isinstance(s2, A.Assign) and isinstance(s2.value, A.Is)
    assert isinstance(s2.value.pattern, A.PRange)


def test_declarations() -> None:
    prog = parse(
        "players 2..4\nenum Suit { A, B, }\nstruct S { int a = 1, str b }\n"
        "entity Card\nstate [Card] [Player hand]\ntrait int [Player p t] { return 1 }\n"
        "fn f(Card<suit: A> c, int) -> int => 1\nmain() { }\n",
        "t.gmb",
    )
    kinds = [type(d).__name__ for d in prog.decls]
    assert kinds == ["PlayersDecl", "EnumDecl", "StructDecl", "EntityDecl", "PropertyDecl",
                     "PropertyDecl", "FuncDecl", "FuncDecl"]  # fmt: skip
    players = prog.decls[0]
    assert isinstance(players, D.PlayersDecl) and (players.low, players.high) == (2, 4)
    hand = prog.decls[4]
    assert isinstance(hand, D.PropertyDecl) and isinstance(hand.type, A.TList)
    assert [i.name for i in hand.items] == ["Player", "hand"]
    f = prog.decls[6]
    assert isinstance(f, D.FuncDecl) and f.pure and f.params[1].name is None


@pytest.mark.parametrize(
    ("src", "phrase"),
    [
        ("main() { print(1 < 2 < 3) }", "comparisons cannot be chained"),
        ("main() {\n    x = (1 +\n}", "expected"),
        ("main() { x = = 1 }", "expected"),
        ("fn f( => 1", "expected"),
    ],
)
def test_syntax_errors(src: str, phrase: str) -> None:
    with pytest.raises(SourceError) as exc:
        parse(src, "t.gmb")
    assert phrase in exc.value.message
    assert exc.value.source_line is not None
