"""The Pygments lexers of the four languages: found through Pygments' own entry points,
every example highlights without an error token, and the text comes back unchanged."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pygments.lexers import get_lexer_by_name, get_lexer_for_filename
from pygments.token import Error

from esochess.studio.highlight import LEXERS, highlight

REPO = Path(__file__).resolve().parents[2]
FILES = {
    "chazz": "chazz/*.fen",
    "chespel": "chespel/*.chp",
    "gambit": "gambit/*.gmb",
    "cql": "cql/*.cql",
}


@pytest.mark.parametrize("language", sorted(LEXERS))
def test_pygments_finds_each_lexer_by_name_and_file_name(language: str) -> None:
    # Registered as `pygments.lexers` entry points by the language packages.
    assert type(get_lexer_by_name(language)) is LEXERS[language]
    suffix = FILES[language].split("*")[1]
    assert type(get_lexer_for_filename("x" + suffix)) is LEXERS[language]


@pytest.mark.parametrize("language", sorted(LEXERS))
def test_every_example_highlights_cleanly(language: str) -> None:
    lexer = LEXERS[language]()
    for path in sorted((REPO / "examples").glob(FILES[language])):
        text = path.read_text()
        tokens = list(lexer.get_tokens(text))
        assert [v for t, v in tokens if t in Error] == [], path.name
        assert "".join(v for _, v in tokens) == text


def test_keywords_and_pieces_get_their_classes() -> None:
    assert '<span class="k">cql</span>' in highlight("cql", "cql() mate")[0]
    assert '<span class="nb">R</span>' in highlight("chazz", "3R4 w")[0]
    assert '<span class="k">rule</span>' in highlight("chespel", "sym rule x:")[0]
    assert '<span class="k">entity</span>' in highlight("gambit", "entity Heap")[0]


@given(st.sampled_from(sorted(LEXERS)), st.text(max_size=200))
def test_any_text_keeps_its_line_count(language: str, text: str) -> None:
    assert len(highlight(language, text)) == text.count("\n") + 1
