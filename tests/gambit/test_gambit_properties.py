"""Property tests (hypothesis): robustness of the front end and method-call equivalence."""

from __future__ import annotations

import signal
from pathlib import Path

from gambit_lang_helpers import EXAMPLES, compiled
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from esochess.fen import SourceError
from esochess.gambit.frontend import compile_source
from esochess.gambit.machine import Machine
from esochess.gambit.results import Decision, GambitRuntimeError, Result

SOURCES = {
    name: (EXAMPLES / name).read_text(encoding="utf-8")
    for name in ("nim.gmb", "tic-tac-toe.gmb", "rock-paper-scissors.gmb", "blackjack.gmb")
}
SNIPPETS = [
    "(", ")", "{", "}", "[", "]", "<", ">", ":", ",", ".", "..", "=", "==", "!", "?", "|", "&",
    "#", "+", "-", "*", "/", "%", "'", '"', "\n", " ", "choose", "wins", "illegal", "fn ",
    "state ", "trait ", "fixed ", "entity X\n", "if ", "else ", "match ", "for ", "in ", "none",
    "Player", "Card<", "x", "1", "1.5", "@", ";", "/*", "*/", "//", "secret", "commit",
    ":f(", "draw", "notation ", "[int]", "Heap<size >= 1>", "print(", "struct S { int a }\n",
]  # fmt: skip


@st.composite
def mutated(draw: st.DrawFn) -> tuple[str, str]:
    """An example program with a few random edits."""
    name = draw(st.sampled_from(sorted(SOURCES)))
    text = SOURCES[name]
    for _ in range(draw(st.integers(1, 3))):
        i = draw(st.integers(0, len(text)))
        kind = draw(st.sampled_from(["insert", "delete", "replace", "dup-line"]))
        if kind == "insert":
            text = text[:i] + draw(st.sampled_from(SNIPPETS)) + text[i:]
        elif kind == "delete":
            j = min(len(text), i + draw(st.integers(1, 12)))
            text = text[:i] + text[j:]
        elif kind == "replace":
            j = min(len(text), i + draw(st.integers(1, 6)))
            text = text[:i] + draw(st.sampled_from(SNIPPETS)) + text[j:]
        else:
            lines = text.splitlines(keepends=True)
            k = draw(st.integers(0, max(len(lines) - 1, 0)))
            lines.insert(k, lines[k] if lines else "")
            text = "".join(lines)
    return name, text


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mutated())
def test_mutated_programs_give_only_diagnostics(case: tuple[str, str]) -> None:
    name, text = case
    program, diags = compile_source(text, name)
    for d in diags:
        assert isinstance(d, SourceError)
        assert d.path == name and d.line >= 1 and d.column >= 1
        assert d.severity in ("error", "warning")
    if program is None:
        assert any(d.severity == "error" for d in diags)
        return
    # A program that checks runs a few decisions with only Gambit-level outcomes. An edit
    # can leave a loop without decisions (infinite loops are not detected, §11.8): a
    # timer stops such a run.
    m = Machine(program, seed=1, players=program.players_range[0])

    def stop(signum: int, frame: object) -> None:
        raise _Budget()

    previous = signal.signal(signal.SIGALRM, stop)
    signal.setitimer(signal.ITIMER_REAL, 2.0)
    try:
        for _ in range(5):
            out = m.run_until_decision()
            if not isinstance(out, Decision):
                return
            m.choose(1 if out.k is None else tuple(range(1, out.k + 1)))
    except (GambitRuntimeError, _Budget):
        return
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


class _Budget(Exception):
    """The time allowed for running a mutated program ran out."""


ARITHMETIC = st.sampled_from(["a + b", "a * 10 + b", "a - b * 2", "max(a, b)", "a % 7 + b"])


@settings(max_examples=40, deadline=None)
@given(
    body=ARITHMETIC,
    a=st.integers(-50, 50),
    b=st.integers(1, 50),
)
def test_method_call_is_the_plain_call(body: str, a: int, b: int) -> None:
    src = f"""fn f(int a, int b) -> int => {body}
fn g(int a) => a * 3
main() {{
    x = {a}
    xs = [{a}, {b}, {a}]
    print(x:f({b}) == f(x, {b}), ({a}):f({b}), f({a}, {b}))
    print({b}:g(), g({b}), xs:count({a}) == count(xs, {a}), xs:reverse() == reverse(xs))
}}
"""
    program = compiled(src)
    lines: list[str] = []

    class IO:
        def output(self, text: str) -> None:
            lines.append(text)

        def trace(self, line: int, col: int, event: str) -> None:
            raise AssertionError(event)

    out = Machine(program, seed=0, players=2, io=IO()).run_until_decision()
    assert isinstance(out, Result)
    first = lines[0].split()
    assert first[0] == "true" and first[1] == first[2]
    second = lines[1].split()
    assert second[0] == second[1] and second[2:] == ["true", "true"]


@settings(max_examples=25, deadline=None)
@given(order=st.permutations(range(4)), rank=st.sampled_from(["ACE", "KING", "TWO"]),
       suit=st.sampled_from(["SPADES", "HEARTS"]))  # fmt: skip
def test_specificity_is_independent_of_declaration_order(
    order: list[int], rank: str, suit: str
) -> None:
    overloads = [
        "fn v(Card c) => 1",
        "fn v(Card<rank: ACE|KING> c) => 2",
        "fn v(Card<rank: ACE> c) => 3",
        "fn v(Card<rank: ACE, suit: SPADES> c) => 4",
    ]
    src = "enum Suit { HEARTS, SPADES }\nenum Rank { TWO, KING, ACE }\nentity Card\n"
    src += "fixed Suit [Card suit]\nfixed Rank [Card rank]\n"
    src += "\n".join(overloads[i] for i in order)
    src += "\nmain() {\n    for s in Suit { for r in Rank { Card(suit: s, rank: r) } }\n"
    src += f"    print(v(Card<rank: {rank}, suit: {suit}>))\n}}\n"
    lines: list[str] = []

    class IO:
        def output(self, text: str) -> None:
            lines.append(text)

        def trace(self, line: int, col: int, event: str) -> None:
            raise AssertionError(event)

    Machine(compiled(src), seed=0, players=2, io=IO()).run_until_decision()
    expected = {"ACE": 4 if suit == "SPADES" else 3, "KING": 2, "TWO": 1}[rank]
    assert lines == [str(expected)]


def test_examples_dir_exists() -> None:
    assert Path(EXAMPLES, "nim.gmb").is_file()
