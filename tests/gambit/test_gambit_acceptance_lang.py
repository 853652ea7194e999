"""Spec §17 acceptance checks about the language (1–29, 31, 34, 38, 40), end to end in process."""

from __future__ import annotations

from pathlib import Path

import pytest
from gambit_lang_helpers import DECK, DECK_MAIN, check_source, run_source


def out(tmp_path: Path, source: str) -> list[str]:
    """Run a program that must succeed; return its stdout lines."""
    r = run_source(tmp_path, source)
    assert r.exit_code == 0, r.stderr
    return r.lines


def err(tmp_path: Path, source: str) -> str:
    """Check a program that must fail to compile; return the first error line."""
    r = check_source(tmp_path, source)
    assert r.exit_code == 2, r.stdout
    assert r.stdout == ""
    return r.first_error


# ---------------------------------------------------------------- lexical structure, decls


def test_01_display_forms(tmp_path: Path) -> None:
    src = 'main() { print("hi", 1 + 2, 7 / 2, 4 / 2, true, none, [1, 2], ["a"], -5 % 3) }'
    assert out(tmp_path, src) == ['hi 3 3.5 2.0 true none [1, 2] ["a"] 1', "No result"]


def test_02_comments_newlines_and_semicolon(tmp_path: Path) -> None:
    src = """/* a /* nested */ b */
main() {
    x = 1 +
      2
    if x == 3 {
        print("three")
    }
    else {
        print("not three")
    }
}
"""
    assert out(tmp_path, src) == ["three", "No result"]
    bad = "main() {\n    x = 1;\n}\n"
    r = check_source(tmp_path, bad)
    assert r.exit_code == 2
    assert r.first_error == "prog.gmb:2:10: error: unexpected ';': end statements with a newline"


def test_03_entities_and_display(tmp_path: Path) -> None:
    src = """enum Suit { HEARTS, SPADES }
entity Card
entity Token
fixed Suit [Card suit]
trait str [Card c name] = "card of " + str(c.suit)
main() {
    c = Card(suit: HEARTS)
    t = Token()
    print(c.suit, c, t, Player[2])
}
"""
    assert out(tmp_path, src)[0] == "HEARTS card of HEARTS Token#1 Player 2"


def test_04_bracket_items(tmp_path: Path) -> None:
    src = "entity Checker\nfixed bool [is_queen Checker] = false\nstate bool [Checker is_queen]\n"
    src += "main() { }\n"
    r = check_source(tmp_path, src)
    lines = r.stderr.splitlines()
    assert lines[0].endswith("prog.gmb:3:1: error: duplicate declaration of 'is_queen'")
    assert any(line.startswith("prog.gmb:2:1: note:") for line in lines)
    src2 = "entity Checker\nentity Square\nstate bool [Checker is_on Square s]\nmain() { }\n"
    assert "cannot tell which identifier is the property name" in err(tmp_path, src2)


NARY = """entity Checker
entity Square
state bool [Checker is_on Square] = false
main() {
    c1 = Checker()
    c2 = Checker()
    s1 = Square()
    s2 = Square()
    (c1, s1).is_on = true
    print((c1, s1).is_on, (c1, s2).is_on, (c2, s1).is_on)
    LAST
}
"""


def test_05_nary_properties(tmp_path: Path) -> None:
    assert out(tmp_path, NARY.replace("LAST", ""))[0] == "true false false"
    assert "has no property 'is_on'" in err(tmp_path, NARY.replace("LAST", "print((s1, c1).is_on)"))


def test_06_fixed_properties(tmp_path: Path) -> None:
    head = "enum Suit { HEARTS, SPADES }\nentity Card\nfixed Suit [Card suit]\n"
    e1 = err(tmp_path, head + "main() {\n    c = Card(suit: HEARTS)\n    c.suit = SPADES\n}\n")
    assert "cannot assign to fixed property 'suit'" in e1
    e2 = err(tmp_path, head + "main() {\n    c = Card()\n}\n")
    assert "missing value for fixed property 'suit'" in e2


def test_07_traits(tmp_path: Path) -> None:
    head = "state int [Player coins] = 0\ntrait bool [Player p can_win] = p.coins > 20\n"
    body = "main() {\n    p = Player[1]\n    print(p.can_win)\n    p.coins = 25\n    print(p.can_win)\n}\n"
    assert out(tmp_path, head + body)[:2] == ["false", "true"]
    e = err(tmp_path, head + "main() {\n    p = Player[1]\n    p.can_win = true\n}\n")
    assert "cannot assign to trait 'can_win'" in e


def test_08_zero_values_and_unset_state(tmp_path: Path) -> None:
    src = """enum Suit { HEARTS, SPADES }
entity Card
state int [Player coins]
state Suit [Card trump]
main() {
    print(Player[1].coins)
    print(Card().trump)
}
"""
    r = run_source(tmp_path, src)
    assert r.exit_code == 1
    assert r.lines == ["0"]
    assert "runtime error: property 'trump' of Card#1 read before it was set" in r.first_error


def test_09_nullary_properties(tmp_path: Path) -> None:
    head = "fixed int [SIZE] = 3\nstate int [round] = 1\ntrait bool [late] = round > 3\n"
    assert out(tmp_path, head + "main() {\n    round += SIZE\n    print(round, late)\n}\n")[0] == "4 true"
    assert "cannot assign to fixed property 'SIZE'" in err(tmp_path, head + "main() { SIZE = 4 }\n")


# ---------------------------------------------------------------- purity


def test_10_function_cannot_assign_state(tmp_path: Path) -> None:
    src = "state int [Player coins] = 0\nfn reward(Player p) { p.coins = 1 }\n"
    src += "main() { reward(Player[1]) }\n"
    assert "function 'reward' cannot assign to state property 'coins'" in err(tmp_path, src)
    assert out(tmp_path, src.replace("fn reward", "reward")) == ["No result"]


@pytest.mark.parametrize(
    ("decl", "phrase"),
    [
        ('fn f() { print("x") }', "cannot print"),
        ("fn g(Player p) => p choose bool", "cannot use 'choose'"),
        ("fn h([int] xs) { shuffle(xs) }", "cannot use randomness"),
        ("deal(Player p) { }\nfn k(Player p) { deal(p) }", "cannot call procedure 'deal'"),
        (
            "enum Suit { HEARTS }\nentity Card\nfixed Suit [Card suit]\n"
            "trait Card [Player p fresh] = Card(suit: HEARTS)",
            "cannot create entities",
        ),
    ],
)
def test_11_purity_errors(tmp_path: Path, decl: str, phrase: str) -> None:
    assert phrase in err(tmp_path, decl + "\nmain() { }\n")


def test_11_mutating_locals_is_pure(tmp_path: Path) -> None:
    src = "fn n() -> int {\n    xs = [1]\n    xs:insert(2)\n    return #xs\n}\nmain() { print(n()) }\n"
    assert out(tmp_path, src)[0] == "2"


# ---------------------------------------------------------------- selectors


def test_12_static_counts(tmp_path: Path) -> None:
    src = DECK + "main() {\n" + DECK_MAIN
    src += "    print(#Card<suit: HEARTS>, #Card<suit: HEARTS, rank: ACE|KING>, #Card<rank: !ACE>, "
    src += "#Card<rank >= JACK>, #Card)\n}\n"
    assert out(tmp_path, src)[0] == "13 2 48 16 52"


def test_13_dynamic_selectors(tmp_path: Path) -> None:
    src = """state int [Player coins]
state bool [Player in_play]
main() {
    print(#Player<coins >= 10>)
    Player[2].coins = 10
    print(#Player<coins >= 10>, Player<coins >= 10>)
    Player[1].in_play = true
    print(Player<in_play>, Player<!in_play>)
}
"""
    assert out(tmp_path, src)[:3] == ["0", "1 [Player 2]", "[Player 1] [Player 2]"]


@pytest.mark.parametrize(
    ("stmt", "phrase"),
    [
        ("x = Card<suit: ACE>", "'ACE' is not a member of Suit"),
        ("y = Checker<is_on>", "selector entries must be unary properties"),
        ("z = Player<coins > 10>", ">="),
    ],
)
def test_14_selector_errors(tmp_path: Path, stmt: str, phrase: str) -> None:
    src = DECK + "entity Checker\nentity Square\nstate bool [Checker is_on Square]\n"
    src += "state int [Player coins]\nmain() {\n    " + stmt + "\n}\n"
    assert phrase in err(tmp_path, src)


def test_15_single_value_coercion(tmp_path: Path) -> None:
    head = DECK + 'fn describe(Card c) -> str => str(c.rank) + " of " + str(c.suit)\nmain() {\n'
    head += DECK_MAIN
    ok = head + "    print(describe(Card<suit: SPADES, rank: ACE>))\n"
    ok += "    Card? k = Card<rank: ACE, rank: KING>\n    print(k)\n}\n"
    assert out(tmp_path, ok)[:2] == ["ACE of SPADES", "none"]
    r = run_source(tmp_path, head + "    Card c = Card<rank: ACE>\n}\n")
    assert r.exit_code == 1
    assert "matched 4 instances" in r.first_error


# ---------------------------------------------------------------- overloads


VALUES = [
    "fn value(Card c) => 1",
    "fn value(Card<rank: ACE> c) => 4",
    "fn value(Card<rank: ACE, suit: SPADES> c) => 10",
]


@pytest.mark.parametrize("order", [(0, 1, 2), (0, 2, 1), (1, 0, 2), (1, 2, 0), (2, 0, 1), (2, 1, 0)])
def test_16_specificity_by_inclusion(tmp_path: Path, order: tuple[int, int, int]) -> None:
    src = DECK + "\n".join(VALUES[i] for i in order) + "\nmain() {\n" + DECK_MAIN
    src += "    print(value(Card<rank: ACE, suit: SPADES>), value(Card<rank: ACE, suit: HEARTS>), "
    src += "value(Card<rank: THREE, suit: CLUBS>))\n}\n"
    assert out(tmp_path, src)[0] == "10 4 1"


def test_17_alternatives(tmp_path: Path) -> None:
    src = DECK + "fn pts(Card c) => 0\nfn pts(Card<rank: ACE|KING> c) => 2\n"
    src += "fn pts(Card<rank: ACE> c) => 3\nmain() {\n" + DECK_MAIN
    src += "    print(pts(Card<rank: ACE, suit: SPADES>), pts(Card<rank: KING, suit: HEARTS>), "
    src += "pts(Card<rank: TWO, suit: CLUBS>))\n}\n"
    assert out(tmp_path, src)[0] == "3 2 0"


SEED_OVERLOADS = """enum Suit { HEARTS, SPADES, CLUBS, DIAMONDS }
enum Rank { ACE, TWO, THREE, KING }
entity Card
fixed Suit [Card suit]
fixed Rank [Card rank]
fn point_value(Card card) => 1                       // line 6
fn point_value(Card<rank: ACE> card) => 4            // line 7
fn point_value(Card<suit: SPADES> card) => 2         // line 8

main() {
    for s in Suit { for r in Rank { Card(suit: s, rank: r) } }
    score = point_value(Card<rank: ACE, suit: SPADES>)   // line 12
}
"""


def test_18_ambiguous_call_seed_example(tmp_path: Path) -> None:
    path = tmp_path / "cards.gmb"
    path.write_text(SEED_OVERLOADS, encoding="utf-8")
    from gambit_lang_helpers import gambit

    r = gambit("run", str(path))
    assert r.exit_code == 2
    assert r.stdout == ""
    name = str(path)
    assert r.stderr.splitlines()[:5] == [
        f"{name}:12:13: error: ambiguous call to 'point_value': a Card with suit SPADES and rank "
        "ACE matches point_value(Card<rank: ACE> card) and point_value(Card<suit: SPADES> card), "
        "and neither is more specific",
        "    score = point_value(Card<rank: ACE, suit: SPADES>)   // line 12",
        "            ^",
        f"{name}:7:1: note: candidate point_value(Card<rank: ACE> card)",
        f"{name}:8:1: note: candidate point_value(Card<suit: SPADES> card)",
    ]


def test_18_unambiguous_calls_run(tmp_path: Path) -> None:
    src = SEED_OVERLOADS.replace(
        "    score = point_value(Card<rank: ACE, suit: SPADES>)   // line 12",
        "    score = point_value(Card<rank: ACE, suit: HEARTS>) + "
        "point_value(Card<rank: THREE, suit: SPADES>)\n    print(score)",
    )
    assert out(tmp_path, src)[0] == "6"


def test_19_conservative_check(tmp_path: Path) -> None:
    head = SEED_OVERLOADS.split("\nmain()")[0] + "\nfn f(Card c) => point_value(c)\n"
    assert "ambiguous call to 'point_value'" in err(tmp_path, head + "main() { }\n")
    fixed = head + "fn point_value(Card<rank: ACE, suit: SPADES> card) => 10\nmain() { }\n"
    assert check_source(tmp_path, fixed).exit_code == 0


@pytest.mark.parametrize(
    ("decls", "phrase"),
    [
        ('fn g(Card c) => 1\nfn g(Card<rank: ACE> c) => "x"', "must have the same return type"),
        (
            "fn g(Card<suit: HEARTS|SPADES> c) => 1\nfn g(Card<suit: SPADES|HEARTS> c) => 1",
            "duplicate overload",
        ),
        ("fn g(Card<in_play> c) => 1", "selector parameters must be static"),
        ("fn g(int x) => 1\nfn g(str x) => 1", "which is not an entity parameter"),
        ("fn g(Card c) => 1\ng(Card<rank: ACE> c) => 1", "must all be functions or all be procedures"),
    ],
)
def test_20_declaration_rules(tmp_path: Path, decls: str, phrase: str) -> None:
    src = DECK + "state bool [Card in_play]\n" + decls + "\nmain() { }\n"
    assert phrase in err(tmp_path, src)


def test_21_method_syntax_and_callable_values(tmp_path: Path) -> None:
    src = """fn combine(int a, int b, int c) => a * 100 + b * 10 + c
fn is_ok(int n) => n > 0
fn double(int n) => n * 2
fn apply(Function f, int n) -> int {
    r = f(n)
    if r is int: return r
    return 0
}
main() {
    print(combine(1, 2, 3), 1:combine(2, 3))
    xs = [3, 1, 2]
    xs:insert(4)
    print(xs:sort(), xs:pop(), xs)
    if 5:is_ok(): print("ok")
    print(apply(double, 4))
}
"""
    assert out(tmp_path, src)[:4] == ["123 123", "[1, 2, 3, 4] 4 [3, 1, 2]", "ok", "8"]


# ---------------------------------------------------------------- types


CARD = "enum Suit { HEARTS, SPADES, CLUBS }\nentity Card\nfixed Suit [Card suit]\n"


def test_22_optionals(tmp_path: Path) -> None:
    e = err(tmp_path, CARD + "main() {\n    Card? c = none\n    print(c.suit)\n}\n")
    assert "cannot read 'suit' of a Card? value" in e
    ok = CARD + "main() {\n    Card? c = none\n"
    ok += '    if c { print(c.suit) } else { print("no card") }\n'
    ok += "    if c == none: return\n    print(c.suit)\n}\n"
    assert out(tmp_path, ok) == ["no card", "No result"]
    assert "condition must be bool or optional, found int" in err(tmp_path, "main() { if 3 { } }\n")


def test_23_unions_and_well_formedness(tmp_path: Path) -> None:
    src = 'main() {\n    int|str v = 3\n    v = "x"\n    print(v)\n    if v is str { print(#v) }\n}\n'
    assert out(tmp_path, src)[:2] == ["x", "1"]
    assert "type mismatch" in err(tmp_path, "main() {\n    int|str v = 3\n    v = true\n}\n")
    src3 = CARD + "enum Colour { RED }\nmain() {\n    Suit!?|Colour w = none\n    print(w)\n"
    src3 += "    w = HEARTS & SPADES\n    print(w)\n    w = RED\n    print(w)\n}\n"
    assert out(tmp_path, src3)[:3] == ["none", "HEARTS&SPADES", "RED"]


@pytest.mark.parametrize("t", ["int??", "Suit!!", "int!", "Suit?!"])
def test_23_invalid_types(tmp_path: Path, t: str) -> None:
    assert "is not a valid type" in err(tmp_path, CARD + f"main() {{\n    {t} x = none\n}}\n")


def test_24_multi_type_table(tmp_path: Path) -> None:
    exprs = [
        "HEARTS == HEARTS", "HEARTS is HEARTS", "HEARTS & SPADES == SPADES",
        "HEARTS & SPADES is SPADES", "SPADES == HEARTS & SPADES", "SPADES is HEARTS & SPADES",
        "HEARTS & SPADES == CLUBS & SPADES", "HEARTS & SPADES is CLUBS & SPADES",
        "HEARTS & HEARTS == HEARTS",
    ]  # fmt: skip
    src = CARD + "main() {\n    print(" + ", ".join(exprs) + ")\n}\n"
    assert out(tmp_path, src)[0] == "true true false true false false false false true"


def test_25_enums(tmp_path: Path) -> None:
    throw = "enum Throw { ROCK, PAPER, SCISSORS }\n"
    src = throw + "main() {\n    for t in Throw: print(t, ord(t))\n    Throw t = PAPER\n"
    src += "    print(t > ROCK, Throw[3], #Throw)\n}\n"
    assert out(tmp_path, src)[:4] == ["ROCK 1", "PAPER 2", "SCISSORS 3", "true SCISSORS 3"]
    stone = throw + "enum Stone { ROCK, PEBBLE }\n"
    e = err(tmp_path, stone + "main() { print(ROCK) }\n")
    assert "ambiguous enum member 'ROCK'" in e
    assert "Throw.ROCK" in e and "Stone.ROCK" in e
    assert check_source(tmp_path, stone + "main() {\n    Throw u = ROCK\n}\n").exit_code == 0


def test_26_lists(tmp_path: Path) -> None:
    src = "main() {\n    xs = [10, 20, 30]\n    print(xs[1], xs[#xs], pop(xs), xs, 1..4, 3..1)\n"
    src += "    xs[2] = 99\n    print(xs, index_of(xs, 99), index_of(xs, 5))\n    print(xs[0])\n}\n"
    r = run_source(tmp_path, src)
    assert r.lines == ["10 30 30 [10, 20] [1, 2, 3, 4] []", "[10, 99] 2 none"]
    assert r.exit_code == 1
    assert "list index 0 out of range 1..2" in r.first_error
    r2 = run_source(tmp_path, "main() {\n    xs = [1]\n    remove(xs, 7)\n}\n")
    assert r2.exit_code == 1 and "runtime error" in r2.first_error


def test_27_value_semantics(tmp_path: Path) -> None:
    src = """struct Pool { int red = 0 }
state [int] [saved]
main() {
    a = Pool()
    b = a
    b.red = 5
    xs = [1, 2]
    ys = xs
    ys:insert(3)
    saved = xs
    xs:insert(9)
    print(a.red, b.red, xs, ys, saved)
}
"""
    assert out(tmp_path, src)[0] == "0 5 [1, 2, 9] [1, 2, 3] [1, 2]"


# ---------------------------------------------------------------- notation

MANA = """struct ManaCost {
\tInteger red = 0
\tInteger black = 0
\tInteger green = 0
\tInteger blue = 0
\tInteger white = 0
\tInteger colourless = 0
}

notation ManaCost ([RBGUW]*)(%d*) => match, colour, colourless {
    value.colourless = as_integer(colourless)
    for c in colour {
        match c {
            "R": value.red++
            "B": value.black++
            "G": value.green++
            "U": value.blue++
            "W": value.white++
        }
    }
}
"""

MANA_MAIN = """main() {
    print('RRG2' == ManaCost(red: 2, green: 1, colourless: 2))   // true
    print('RRG'.colourless, 'RRG'.red)                            // 0 2
}
"""

DICE = """struct Dice {
    int count = 1
    int sides = 6
}

notation Dice ([0-9]*)d([0-9]+) => text, count, sides {       // '2d6', 'd20'
    if count != "": value.count = as_integer(count)
    value.sides = as_integer(sides)
}
"""


def test_28_seed_notation(tmp_path: Path) -> None:
    assert out(tmp_path, MANA + MANA_MAIN) == ["true", "0 2", "No result"]
    src = MANA + DICE + "main() {\n    Dice d = '2d6'\n    print(d, 'd20'.sides)\n}\n"
    assert out(tmp_path, src)[0] == "Dice(count: 2, sides: 6) 20"


def test_29_notation_errors(tmp_path: Path) -> None:
    prose = MANA.replace("([RBGUW]*)(%d*)", r"[RBGUW]*(\d*)")
    assert "capture groups, so it needs 2 names" in err(tmp_path, prose + MANA_MAIN) or (
        "capture group, so it needs 2 names" in err(tmp_path, prose + MANA_MAIN)
    )
    assert "no notation matches 'XYZ'" in err(tmp_path, MANA + "main() { x = 'XYZ' }\n")
    colours = MANA + "struct Colours { int n = 0 }\nnotation Colours [RGB]+ => text { value.n = #text }\n"
    assert "ambiguous notation 'RG'" in err(tmp_path, colours + "main() { print('RG') }\n")
    typed = colours + "main() {\n    ManaCost m = 'RG'\n    print(m.red)\n}\n"
    assert out(tmp_path, typed)[0] == "1"


# ---------------------------------------------------------------- game flow and diagnostics


@pytest.mark.parametrize(
    ("stmt", "result"),
    [
        ("Player[2] wins", "Player 2 wins"),
        ("Player[1] loses", "Player 2 wins"),
        ("draw", "Draw"),
        ("Player wins", "Players 1, 2 win"),
    ],
)
def test_31_game_end(tmp_path: Path, stmt: str, result: str) -> None:
    r = run_source(tmp_path, f'main() {{\n    print("before")\n    {stmt}\n    print("after")\n}}\n')
    assert r.exit_code == 0
    assert r.lines == ["before", result]
    assert "warning: unreachable statement" in r.stderr


def test_31_empty_main(tmp_path: Path) -> None:
    assert out(tmp_path, "main() { }\n") == ["No result"]


def test_34_no_legal_move(tmp_path: Path) -> None:
    src = 'main() {\n    x = Player[1] choose ("Pick") [1, 2, 3]\n    illegal\n}\n'
    r = run_source(tmp_path, src)
    assert r.exit_code == 1 and "no legal move for Player 1" in r.first_error
    r2 = run_source(tmp_path, "main() { illegal }\n")
    assert r2.exit_code == 1 and "'illegal' outside of a turn" in r2.first_error


def test_38_whole_program_checking(tmp_path: Path) -> None:
    src = 'main() {\n    print("never printed")\n}\nunused() {\n    x = 1 + "a"\n}\n'
    r = run_source(tmp_path, src)
    assert r.exit_code == 2
    assert r.stdout == ""
    name = "prog.gmb"
    assert r.stderr.splitlines()[:3] == [
        f"{name}:5:11: error: operator '+' cannot be applied to int and str",
        '    x = 1 + "a"',
        "          ^",
    ]


def test_40_runtime_error_format(tmp_path: Path) -> None:
    src = "fn ratio(int a, int b) => a / b\nmain() {\n    print(ratio(1, 0))\n}\n"
    r = run_source(tmp_path, src)
    name = "prog.gmb"
    assert r.exit_code == 1
    assert r.stderr == (
        f"{name}:1:29: runtime error: division by zero\n"
        "fn ratio(int a, int b) => a / b\n"
        "                            ^\n"
        f"  called from main at {name}:3:11\n"
    )


def test_30_card_notation_in_blackjack(tmp_path: Path) -> None:
    from gambit_lang_helpers import EXAMPLES, gambit

    r = gambit("run", str(EXAMPLES / "blackjack.gmb"), "--players", "random", "--seed", "1")
    assert r.exit_code == 0, r.stderr
    assert r.lines[0] == "Notation check: AS 11 10H 10 QD 10"


def test_internal_errors_exit_70_without_traceback(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import esochess.gambit.cli as cli

    def broken(source: str, path: str, engine: str = "compiled") -> object:
        raise ValueError("boom")

    monkeypatch.setattr(cli, "compile_source", broken)
    monkeypatch.delenv("GAMBIT_DEBUG", raising=False)
    r = check_source(tmp_path, "main() { }\n")
    assert r.exit_code == 70
    assert r.stderr == "gambit: internal error: boom (please report this)\n"
    monkeypatch.setenv("GAMBIT_DEBUG", "1")
    r2 = check_source(tmp_path, "main() { }\n")
    assert r2.exit_code == 70 and "Traceback" in r2.stderr
