"""Unit tests of the checker: valid programs that must pass, and precise diagnostics."""

from __future__ import annotations

import pytest
from gambit_lang_helpers import DECK, compiled, errors_of

from esochess.gambit.frontend import compile_source

VALID = {
    "narrowing with and": DECK + """
fn f(Card? c) => c != none and c.rank == ACE
main() { }
""",
    "narrowing in while and after return": DECK + """
fn f(Card? c) -> int {
    if c == none: return 0
    return ord(c.rank)
}
fn g([Card?] xs) -> int {
    i = 1
    Card? c = xs[1]
    while c != none {
        i += ord(c.rank)
        c = none
    }
    return i
}
main() { }
""",
    "match arms narrow a local": """
fn f(int|str v) -> int => match v {
    int: v + 1
    str: #v
}
main() { print(f(1), f("ab")) }
""",
    "if-expression arms narrow": DECK + """
fn f(Card? c) -> int => if { c != none: ord(c.rank), else: 0 }
main() { }
""",
    "enum members resolved by expected type": """
enum Throw { ROCK, PAPER }
enum Stone { ROCK, PEBBLE }
fn f(Throw t) => t == PAPER
main() {
    Throw t = ROCK
    Stone s = Stone.ROCK
    print(f(ROCK), t == ROCK, s == ROCK)
}
""",
    "selector patterns and nested selectors": DECK + """
state Player? [Card owner]
state int [Player coins]
main() {
    c = Card(suit: HEARTS, rank: ACE)
    print(c is Card<rank: ACE>, #Card<owner: Player<coins >= 3>>)
}
""",
    "choose k gives a list": """
main() {
    xs = Player[1] choose[2] ("Two") [1, 2, 3]
    print(#xs + xs[1])
}
""",
    "function values": """
fn double(int n) => n * 2
fixed Function [OP] = double
main() {
    f = double
    print(f(2), OP(3))
}
""",
    "recursion with a declared return type": """
fn fact(int n) -> int => if { n <= 1: 1, else: n * fact(n - 1) }
main() { print(fact(5)) }
""",
    "struct defaults and nested members": """
struct Inner { int a = 1 }
struct Outer { Inner i, [int] xs }
main() {
    o = Outer()
    o.i.a += 2
    o.xs:insert(4)
    print(o.i.a, o.xs)
}
""",
    "n-ary trait with binders": """
entity Tok
fixed int [Tok v]
trait int [Tok a sum_with Tok b] = a.v + b.v
main() {
    x = Tok(v: 1)
    y = Tok(v: 2)
    print((x, y).sum_with)
}
""",
}


@pytest.mark.parametrize("name", sorted(VALID))
def test_valid_programs_check_clean(name: str) -> None:
    compiled(VALID[name])


@pytest.mark.parametrize(
    ("src", "expected"),
    [
        ("main() {\n    x = 1\n    x = \"s\"\n}\n",
         "prog.gmb:3:9: error: type mismatch: expected int, found str"),
        ("fn f(int n) -> int {\n    if n > 0: return 1\n}\nmain() { }\n",
         "prog.gmb:1:20: error: missing return in 'f'"),
        ("main() {\n    print(1 + true)\n}\n",
         "prog.gmb:2:13: error: operator '+' cannot be applied to int and bool"),
        ("state int [coins]\nfn f() => coins\nmain() {\n    f = 2\n}\n",
         "prog.gmb:4:5: error: 'f' is already declared as a function or procedure"),
    ],
)  # fmt: skip
def test_exact_diagnostics(src: str, expected: str) -> None:
    errs = errors_of(src)
    if "already declared as a function" in expected:
        # A local may share a function's name (§2.9): this program is valid.
        assert errs == []
        return
    assert errs[0] == expected


def test_errors_are_sorted_and_independent() -> None:
    src = 'main() {\n    a = 1 + "x"\n    b = undefined_name\n    c = 2 * "y"\n}\n'
    assert [e.split(": error: ")[0] for e in errors_of(src)] == [
        "prog.gmb:2:11", "prog.gmb:3:9", "prog.gmb:4:11",
    ]  # fmt: skip


def test_warnings_do_not_fail_the_check() -> None:
    program, diags = compile_source("main() {\n    return\n    print(1)\n}\n", "prog.gmb")
    assert program is not None
    assert [d.header() for d in diags] == ["prog.gmb:3:5: warning: unreachable statement"]


def test_static_default_rules() -> None:
    errs = errors_of("state int [round] = 1\nfixed int [START] = round\nmain() { }\n")
    assert errs == ["prog.gmb:2:21: error: default of 'START' must be static: it reads state "
                    "property 'round'"]  # fmt: skip


def test_no_overload_accepts_none() -> None:
    src = DECK + "fn v(Card c) => 1\nfn w(Card? c) => v(c)\nmain() { }\n"
    assert any("no overload of 'v' accepts none" in e for e in errors_of(src))


def test_player_count_rules() -> None:
    assert any("between 1 and 16" in e for e in errors_of("players 0\nmain() { }\n"))
    assert compiled("players 2..4\nmain() { }\n").players_range == (2, 4)


def test_loop_never_ends_warning() -> None:
    _, diags = compile_source("main() {\n    loop {\n        print(1)\n    }\n}\n", "prog.gmb")
    assert [d.header() for d in diags] == ["prog.gmb:2:5: warning: this loop never ends"]
    # A procedure call might end the game: no warning.
    _, diags2 = compile_source("f() { }\nmain() {\n    loop {\n        f()\n    }\n}\n", "p.gmb")
    assert diags2 == []
