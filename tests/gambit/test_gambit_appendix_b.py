"""Appendix B: the seed's sample code, corrected; each row of the table is checked."""

from __future__ import annotations

from pathlib import Path

from gambit_lang_helpers import check_source, errors_of, run_source

CARDS = """enum Suit { HEARTS, SPADES, CLUBS, DIAMONDS }
enum Rank { ACE, TWO, THREE, KING }
entity Card
fixed Suit [Card suit]
fixed Rank [Card rank]
state int [Card tokens] = 0
"""


def test_fixed_is_queen_compiles_and_state_is_queen_changes(tmp_path: Path) -> None:
    fixed = "entity Checker\nfixed bool [Checker is_queen] = false\nmain() {\n"
    fixed += "    c = Checker()\n    print(c.is_queen)\n}\n"
    assert run_source(tmp_path, fixed).lines == ["false", "No result"]
    assert any("cannot assign to fixed property 'is_queen'" in e
               for e in errors_of(fixed.replace("print(c.is_queen)", "c.is_queen = true")))
    state = fixed.replace("fixed bool", "state bool").replace(
        "print(c.is_queen)", "c.is_queen = true\n    print(c.is_queen)"
    )
    assert run_source(tmp_path, state).lines == ["true", "No result"]


def test_ace_is_a_rank_not_a_suit() -> None:
    bad = CARDS + "fn point_value(Card<suit: ACE> card) => 2\nmain() { }\n"
    assert any("'ACE' is not a member of Suit" in e for e in errors_of(bad))
    good = CARDS + "fn point_value(Card<rank: ACE> card) => 2\nmain() { }\n"
    assert errors_of(good) == []


def test_lower_case_selector_is_not_a_selector() -> None:
    src = CARDS + "fn f(Card c) => 1\nmain() {\n    x = f(card<rank: ACE, suit: HEARTS>)\n}\n"
    assert errors_of(src)  # `card` is not an entity type: no selector, an error


def test_seed_overloads_with_unnamed_parameter(tmp_path: Path) -> None:
    src = CARDS + """fn point_value(Card card) => 2
fn point_value(Card<rank: ACE> card) => 2 + card.tokens
fn point_value(Card<rank: ACE|KING> card) => 11
fn point_value(Card<suit: HEARTS, rank: !ACE>) => 3
main() {
    for s in Suit { for r in Rank { Card(suit: s, rank: r) } }
    score = point_value(Card<rank: THREE, suit: HEARTS>)
    print(score, point_value(Card<rank: ACE, suit: SPADES>))
}
"""
    # (HEARTS, KING) is reached by neither call; the calls made are unambiguous.
    assert run_source(tmp_path, src).lines[0] == "3 2"


def test_coins_and_tokens_both_valid() -> None:
    src = """state int [Player coins]
state int [Player tokens]
fn can_win(Player player) => player.coins > 20
main() { print(can_win(Player[1]), #Player<tokens >= 10>) }
"""
    assert errors_of(src) == []


def test_equality_with_alternatives_is_membership(tmp_path: Path) -> None:
    src = """enum Kind { BISHOP, QUEEN, ROOK }
entity Piece
fixed Kind [Piece piece]
trait bool [Piece p can_move_diagonal] = p.piece == BISHOP|QUEEN
trait bool [Piece p diagonal_too] = p.piece is BISHOP|QUEEN
main() {
    for k in Kind {
        x = Piece(piece: k)
        print(x.can_move_diagonal, x.diagonal_too)
    }
}
"""
    assert run_source(tmp_path, src).lines[:3] == ["true true", "true true", "false false"]


def test_define_and_capitalised_forms_are_rejected(tmp_path: Path) -> None:
    assert check_source(tmp_path, "DEFINE Suit { HEART }\nmain() { }\n").exit_code == 2
    src = "enum Suit { HEARTS, SPADES }\nmain() { print(Spade&Heart) }\n"
    assert any("'Spade' is not defined" in e for e in errors_of(src))
    src2 = "enum Suit { HEARTS, SPADES }\nmain() { print(HEARTS IS HEARTS) }\n"
    assert errors_of(src2)


def test_rrg_is_two_red_one_green(tmp_path: Path) -> None:
    src = """struct ManaCost {
    Integer red = 0
    Integer green = 0
    Integer colourless = 0
}
notation ManaCost ([RG]*)(%d*) => match, colour, colourless {
    value.colourless = as_integer(colourless)
    for c in colour {
        match c {
            "R": value.red++
            "G": value.green++
        }
    }
}
main() { print('RRG' == ManaCost(red: 2, green: 1), 'RRG') }
"""
    assert run_source(tmp_path, src).lines[0] == "true ManaCost(red: 2, green: 1, colourless: 0)"
