"""esochess.fen.grammar_tables: a parser shipped prebuilt, with its run-time objects (an
inline transformer, a post-lexer) made afresh at each load; stale, foreign or damaged
tables are refused and the parser is built instead, writing nothing."""

from __future__ import annotations

import importlib
import os
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import lark
import pytest
from child_processes import finish

from esochess.fen import grammar_tables
from esochess.fen.grammar_tables import GrammarTables

GRAMMAR = r"""
start: expr
?expr: expr "+" term -> add
     | term
?term: NUMBER -> number
     | WORD -> word
     | "(" expr ")"
%import common.NUMBER
%import common.WS
WORD: /[a-z]+/
%ignore WS
"""

# A package with a transformer that computes while parsing and a post-lexer that reads
# number words as numbers: neither can be stored by lark, both are made at each load.
MODULE = '''
from lark import Token, Transformer
from lark.lexer import Lexer
from esochess.fen.grammar_tables import GrammarTables

NAMES = {"one": "1", "two": "2", "three": "3"}


class Words:
    always_accept = ("WORD",)

    def process(self, stream):
        for tok in stream:
            if tok.type == "WORD" and tok.value in NAMES:
                yield Token.new_borrow_pos("NUMBER", NAMES[tok.value], tok)
            else:
                yield tok


class Calc(Transformer):
    def __init__(self):
        super().__init__()
        self.seen = []

    def add(self, c):
        return c[0] + c[1] if all(isinstance(x, int) for x in c) else f"({c[0]}+{c[1]})"

    def number(self, c):
        self.seen.append(int(c[0]))
        return int(c[0])

    def word(self, c):
        return str(c[0])

    def start(self, c):
        return c[0]


class Split(Lexer):
    """A custom lexer of lark's first interface (`lex(text)`), which lark wraps in a class
    of its own: words split on spaces."""

    def __init__(self, conf):
        pass

    def lex(self, text):
        kinds = {"+": "PLUS", "(": "LPAR", ")": "RPAR"}
        for word in text.split():
            kind = kinds.get(word) or ("NUMBER" if word.isdigit() else "WORD")
            yield Token(kind, word)


TABLES = GrammarTables("gtpkg", "gtpkg:TABLES", options={"lexer": "basic"},
                       runtime=lambda: {"transformer": Calc(), "postlex": Words()})
BARE = GrammarTables("gtpkg", "gtpkg:BARE", tables="bare.tables")
SPLIT = GrammarTables("gtpkg", "gtpkg:SPLIT", options={"lexer": Split}, tables="split.tables")
'''

SAMPLES = ["1 + 2", "one + two + three", "(1 + x) + 4", "1 +", "1 + + 2", "(two", "1 ? 2", ""]


@pytest.fixture
def pkg(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[ModuleType]:
    root = tmp_path / "gtpkg"
    root.mkdir()
    (root / "__init__.py").write_text(MODULE)
    (root / "grammar.lark").write_text(GRAMMAR)
    monkeypatch.syspath_prepend(str(tmp_path))
    module = importlib.import_module("gtpkg")
    yield module
    sys.modules.pop("gtpkg", None)


def _tables(pkg: ModuleType) -> GrammarTables:
    tables = pkg.TABLES
    assert isinstance(tables, GrammarTables)
    return tables


def _reading(parser: lark.Lark, text: str) -> object:
    try:
        return parser.parse(text)
    except lark.exceptions.UnexpectedInput as exc:
        return (type(exc).__name__, exc.line, exc.column, sorted(getattr(exc, "expected", ())))


def test_round_trip_reads_every_sample_as_a_fresh_parser(pkg: ModuleType) -> None:
    tables = _tables(pkg)
    assert tables.stale() is not None  # nothing shipped yet
    path = tables.write()
    assert path.name == "grammar.tables" and tables.stale() is None
    loaded, fresh = tables.load(), tables.build()
    assert loaded.parse("one + two + three") == 6  # transformer and post-lexer both ran
    for text in SAMPLES:
        assert _reading(loaded, text) == _reading(fresh, text), text


def test_run_time_objects_are_made_at_each_load(pkg: ModuleType) -> None:
    tables = _tables(pkg)
    tables.write()
    first, second = tables.load(), tables.load()
    assert first.options.transformer is not second.options.transformer
    assert first.parse("1 + two") == 3
    assert first.options.transformer.seen == [1, 2]  # this load's own transformer
    assert second.options.transformer.seen == []


def test_a_parser_without_run_time_objects(pkg: ModuleType) -> None:
    bare = pkg.BARE
    bare.write()
    assert bare.stale() is None
    tree = bare.load().parse("1 + x")
    assert isinstance(tree, lark.Tree) and tree == bare.build().parse("1 + x")


def test_a_custom_lexer_of_lark_s_older_interface(pkg: ModuleType) -> None:
    split = pkg.SPLIT
    split.write()
    assert split.stale() is None
    loaded, fresh = split.load(), split.build()
    for text in ["1 + x", "( 1 + 2 ) + 3", "1 +", "+"]:
        assert _reading(loaded, text) == _reading(fresh, text), text


def test_the_stored_table_shares_equal_entries(pkg: ModuleType) -> None:
    tables = _tables(pkg)
    tables.write()
    rows = tables.load().parser.parser._parse_table.states.values()
    entries = [entry for row in rows for entry in row.values()]
    assert len({id(e) for e in entries}) == len(set(entries)) < len(entries)


def test_tables_of_another_grammar_are_refused_and_the_parser_built(
        pkg: ModuleType, tmp_path: Path) -> None:
    tables = _tables(pkg)
    tables.write()
    data = tables.read()
    edited = GRAMMAR + "\n// edited\n"
    assert tables.loads(data, edited) is None
    (tmp_path / "gtpkg" / "grammar.lark").write_text(edited)
    assert tables.stale() is not None and "gtpkg:TABLES" in (tables.stale() or "")
    before = sorted(p.name for p in (tmp_path / "gtpkg").iterdir())
    temp_before = set(Path(tempfile.gettempdir()).iterdir())
    assert tables.load().parse("two + 2") == 4  # built from the grammar instead
    assert sorted(p.name for p in (tmp_path / "gtpkg").iterdir()) == before
    assert set(Path(tempfile.gettempdir()).iterdir()) - temp_before == set()


def test_tables_of_other_options_or_another_lark_are_refused(
        pkg: ModuleType, monkeypatch: pytest.MonkeyPatch) -> None:
    tables = _tables(pkg)
    tables.write()
    data = tables.read()
    other = GrammarTables("gtpkg", "gtpkg:TABLES", options={"lexer": "contextual"},
                          runtime=tables.runtime)
    assert other.loads(data) is None
    assert tables.loads(data.replace(b" lark ", b" lark 0", 1)) is None
    monkeypatch.setattr(lark, "__version__", "0.0.1")
    assert tables.loads(data) is None
    assert tables.load().parse("1 + 1") == 2


def test_damaged_tables_are_refused(pkg: ModuleType) -> None:
    tables = _tables(pkg)
    tables.write()
    data = tables.read()
    head = len(tables.stamp(tables.grammar_text()))
    assert tables.loads(data) is not None
    assert tables.loads(data[: head + 50]) is None
    assert tables.loads(b"") is None
    assert tables.loads(data[:head] + b"not zlib") is None


def test_only_run_time_options_are_made_at_run_time(pkg: ModuleType) -> None:
    odd = GrammarTables("gtpkg", "gtpkg:ODD", runtime=lambda: {"start": "expr"})
    with pytest.raises(ValueError, match="start"):
        odd.build()


def test_the_rewrite_command(pkg: ModuleType, capsys: pytest.CaptureFixture[str]) -> None:
    assert grammar_tables.main(["gtpkg:TABLES"]) == 0
    assert "grammar.tables" in capsys.readouterr().out and _tables(pkg).stale() is None
    assert grammar_tables.main(["gtpkg:NOPE"]) == 2
    assert "names no GrammarTables" in capsys.readouterr().err
    assert grammar_tables.main(["no_such_module_here:TABLES"]) == 2
    assert grammar_tables.main([]) == 2


def test_the_rewrite_command_under_python_m(pkg: ModuleType, tmp_path: Path) -> None:
    # `python -m` runs this file as __main__, a second copy of GrammarTables: the command
    # must still recognise the packages' tables (it once refused every one of them).
    tables = tmp_path / "gtpkg" / "grammar.tables"
    tables.unlink(missing_ok=True)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path), *sys.path])}
    command = [sys.executable, "-m", "esochess.fen.grammar_tables"]
    proc = subprocess.Popen([*command, "gtpkg:TABLES"], env=env, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    out, err = finish(proc, 60)
    assert proc.returncode == 0, err
    assert str(tables) in out and _tables(pkg).stale() is None
    proc = subprocess.Popen([*command, "gtpkg:NOPE"], env=env, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    out, err = finish(proc, 60)
    assert proc.returncode == 2 and "names no GrammarTables" in err
