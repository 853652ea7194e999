"""The index database and the prefilters: a query over an index (or with its prefilter)
gives exactly what the plain scan gives, for every shipped example, every documented
query and random queries; the summaries behind them agree with the filters they stand
for."""

from __future__ import annotations

import dataclasses
import functools
import io
import re
from collections.abc import Iterable
from contextlib import closing
from pathlib import Path

import chess.pgn
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from pgn_data import LICHESS, PROBLEMS, STUDIES, masters, needs_masters

from esochess.cqlvars import cqldb, pgnio
from esochess.cqlvars.conditions import ANY, holds
from esochess.cqlvars.engine import CompiledQuery, compile_query, run_game
from esochess.cqlvars.filters import FILTERS
from esochess.cqlvars.light import LightModel, read_light
from esochess.cqlvars.model import Ctx
from esochess.cqlvars.summary import FEATURES, GameSummary, SummaryVisitor, summarize
from esochess.fen import SourceError

ROOT = Path(__file__).resolve().parents[2]
#: Games per shipped file in the sample (enough for every feature, quick to run).
PER_FILE = 30


@functools.cache
def sample(directory: str) -> tuple[str, str]:
    """A PGN file of the first games of each shipped file, and its index (built once)."""
    pgn = Path(directory) / "sample.pgn"
    with open(pgn, "wb") as out:
        for path in (LICHESS, STUDIES, PROBLEMS):
            for part in pgnio.partitions([str(path)], last=PER_FILE):
                out.write(part.data)
    db = str(Path(directory) / "sample.cqldb")
    cqldb.build(db, [str(pgn)])
    return str(pgn), db


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, str]:
    return sample(str(tmp_path_factory.mktemp("index")))


def _outcomes(compiled: CompiledQuery, parts: Iterable[pgnio.Partition]) -> list[object]:
    state = compiled.new_state()
    out: list[object] = []
    for part in parts:
        for game in part.games():
            outcome = run_game(compiled, game, state)
            error = outcome.runtime_error
            # Only games that are evaluated differ in this flag; everything written agrees.
            # A run of games the index ruled out is one outcome: spelled out game by game.
            out.extend(dataclasses.replace(outcome, number=outcome.number + i, games=1,
                                           prefiltered=False, runtime_error=None)
                       for i in range(outcome.games))
            if error is not None:
                out.append(str(error))
                return out
    out.extend(state.persistent_lines())
    return out


def scan(compiled: CompiledQuery, pgn: str) -> list[object]:
    return _outcomes(compiled, pgnio.partitions([pgn]))


def indexed(compiled: CompiledQuery, db: str) -> list[object]:
    return _outcomes(compiled, pgnio.partitions(
        [db], indexed=cqldb.IndexInput(compiled.necessary)))


def documented_queries() -> list[str]:
    """Every `cql(...)` query the user documentation shows (those that compile)."""
    found: set[str] = set()
    for doc in ("docs/cql.md", "docs/reference/cql.md"):
        text = (ROOT / doc).read_text()
        found.update(m.group(1) for m in re.finditer(r"`(cql\([^`\n]*)`", text))
        found.update(m.group(1) for m in re.finditer(r"```\n(cql\(.*?)```", text, re.S))
    queries = []
    for query in sorted(found):
        try:
            compile_query("q.cql", query)
        except SourceError:
            continue
        queries.append(query)
    return queries


EXAMPLES = sorted((ROOT / "examples" / "cql").glob("*.cql"))
#: Selective queries the index must answer without reading most games.
SELECTIVE = [
    "cql() mate",
    "cql() move promote [RBN]",
    "cql() [QqBbNn] == 0 and #R == 1 and #r == 1",
    "cql() flipcolor { Kh8 mate }",
    "cql() move from N capture Q",
    "cql() mate move previous from N",
]


@pytest.mark.parametrize("example", EXAMPLES, ids=lambda p: p.stem)
def test_every_example_reads_the_same_from_the_index(example: Path, files: tuple[str, str]) -> None:
    pgn, db = files
    compiled = compile_query(str(example), example.read_text())
    assert indexed(compiled, db) == scan(compiled, pgn)


@pytest.mark.parametrize("query", documented_queries() + SELECTIVE)
def test_every_documented_query_reads_the_same_from_the_index(
    query: str, files: tuple[str, str]
) -> None:
    pgn, db = files
    compiled = compile_query("q.cql", query)
    assert indexed(compiled, db) == scan(compiled, pgn)


@pytest.mark.parametrize("query", SELECTIVE)
def test_selective_queries_skip_most_games(query: str, files: tuple[str, str]) -> None:
    _, db = files
    compiled = compile_query("q.cql", query)
    parts = list(pgnio.partitions([db], indexed=cqldb.IndexInput(compiled.necessary)))
    games = sum(len(p) for p in parts)
    skipped = sum(run for p in parts for _, run in p.skipped)
    assert games == 3 * PER_FILE and skipped >= games // 2
    # Each run of ruled-out games is one item, then one outcome: never one per game.
    items = [game for p in parts for game in p.games()]
    runs = [game.skipped for game in items if game.skipped]
    assert sum(runs) == skipped and len(items) == games - skipped + len(runs)
    assert all(p.skipped[i][0] + p.skipped[i][1] < p.skipped[i + 1][0]
               for p in parts for i in range(len(p.skipped) - 1))  # runs never touch
    state = compiled.new_state()
    outcomes = [run_game(compiled, game, state) for game in items]
    assert [o.games for o in outcomes] == [g.skipped or 1 for g in items]


def test_a_query_with_effects_reads_every_game() -> None:
    compiled = compile_query("q.cql", 'cql() mate message("mate")')
    assert compiled.necessary == ANY and compiled.raw_prefilter is None


# random queries: prefiltered == unfiltered, index == scan, summaries sound ----------------
ATOMS = [
    "Kh8", "kh1", "Kg1", "Qd1", "Ra1", "Rf1", "Pe4", "pe5", "N[f3,f6]", "[Qq]", "Q[a1,h8]", "Ra-h1",
    "mate", "stalemate", "check", "wtm", "initial", "terminal", "true",
    "move promote [RBN]", "move promote Q", "move capture Q", "move capture .",
    "move from N capture .", "move enpassant", "move castle", "move previous capture [rb]",
    "#[Qq] == 0", "#R >= 2", "[RrQq] == 0", "#P < 4", "3 > #n", "A[e4,d4]", "a[e5]",
    "Q attacks k", "x = 1", "move legal count > 30", "Qh5", "Bb5", "ke7", "Kf2", "nd4",
    "R[d7,e7]", "k[a-h1]", "move promote A",
    "move previous from N", "move previous from [QR]", "move previous from P", "move previous from K",
    "{path quiet B[x]p check}", "{path quiet focus [Qq] --{2,}}", "{path quiet Q-- check}",
    "{path quiet --=Q}", "{path quiet singlecolor (-- check){2}}", "pathcount >= 1",
]


def _compiled(text: str) -> CompiledQuery:
    try:
        return compile_query("q.cql", text)
    except SourceError:
        assume(False)  # e.g. `not x = 1`: random combinations need not type-check
        raise


def _query(atoms: st.DrawFn) -> str:
    def expr(depth: int) -> str:
        shape = atoms(st.integers(0, 5 if depth < 2 else 0))
        if shape == 0:
            return atoms(st.sampled_from(ATOMS))
        if shape == 1:
            return f"{{{expr(depth + 1)} {expr(depth + 1)}}}"
        if shape == 2:
            return f"({expr(depth + 1)} or {expr(depth + 1)})"
        if shape == 3:
            return f"not {expr(depth + 1)}"
        if shape == 4:
            return f"flipcolor {{{expr(depth + 1)}}}"
        return f"{expr(depth + 1)} and {expr(depth + 1)}"

    return "cql() " + " ".join(expr(0) for _ in range(atoms(st.integers(1, 3))))


queries = st.composite(lambda draw: _query(draw))()


@given(query=queries, variations=st.booleans())
@settings(max_examples=30, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
def test_prefilters_and_index_change_nothing(
    query: str, variations: bool, tmp_path_factory: pytest.TempPathFactory
) -> None:
    pgn, db = sample(str(tmp_path_factory.getbasetemp()))
    text = query.replace("cql()", "cql(variations)") if variations else query
    compiled = _compiled(text)
    unfiltered = dataclasses.replace(compiled, raw_prefilter=None)
    expected = scan(unfiltered, pgn)
    assert scan(compiled, pgn) == expected
    assert indexed(compiled, db) == expected


@given(queries)
@settings(max_examples=30, deadline=None)
def test_every_matching_game_meets_the_condition(query: str) -> None:
    compiled = _compiled(query)
    raw = compiled.raw_prefilter
    for game in pgnio.iter_games([str(PROBLEMS)], last=40):
        outcome = run_game(dataclasses.replace(compiled, raw_prefilter=None), game,
                           compiled.new_state())
        if outcome.matched:
            assert holds(compiled.necessary, summarize(game.text)), game.number
            assert raw is None or raw(game.text), game.number


def _visited(text: str) -> GameSummary:
    summary = chess.pgn.read_game(io.StringIO(text), Visitor=SummaryVisitor)
    assert summary is not None
    return summary


def _agree(paths: list[str]) -> None:
    for game in pgnio.iter_games(paths):
        assert summarize(game.text) == _visited(game.text), game.number


def test_lean_summaries_equal_the_visitors() -> None:
    """Plain games are summarised from the lean reader's snapshots, the rest by the
    visitor: the same summary either way."""
    _agree([str(LICHESS), str(STUDIES), str(PROBLEMS)])


@pytest.mark.slow
@needs_masters
def test_lean_summaries_equal_the_visitors_on_masters() -> None:
    _agree([str(masters())])


def test_implied_features_are_summary_features_and_agree() -> None:
    """The filter table's `implies` (one field per entry) against the summary: wherever
    the filter matches, the game's summary has the feature."""
    implying = {spec.keyword: spec.implies for spec in FILTERS.values() if spec.implies}
    assert implying and set(implying.values()) <= set(FEATURES)
    for path in (PROBLEMS, STUDIES):
        for game in pgnio.iter_games([str(path)], last=60):
            light = read_light(game.text, variations=True)
            assert light is not None
            model = LightModel(light)
            summary = summarize(game.text)
            for keyword, feature in implying.items():
                compiled = compile_query("q.cql", f"cql() {keyword}")
                ctx = Ctx(model, game.number, [None] * compiled.slot_count,
                          compiled.new_state().persistent)
                for pos in range(len(model)):
                    ctx.pos = pos
                    if compiled.body(ctx):
                        assert holds(compiled.necessary, summary), (game.number, keyword)
                        assert summary.flags & (1 << FEATURES.index(feature))


def _mates_by(text: str) -> set[str]:
    """An independent reading: the type of the piece that moved into each mate (any line)."""
    game = chess.pgn.read_game(io.StringIO(text))
    assert game is not None
    found: set[str] = set()
    # Each node's board is its parent's with the move pushed (node.board() would replay
    # the game from its start at every node).
    nodes = [(game, game.board())]
    while nodes:
        node, board = nodes.pop()
        for child in node.variations:
            after = board.copy(stack=False)
            after.push(child.move)
            if child.move and after.is_checkmate():
                mover = board.piece_at(child.move.from_square)
                assert mover is not None
                found.add(mover.symbol().upper())
            nodes.append((child, after))
    return found


def test_mate_by_is_the_piece_that_gave_mate() -> None:
    seen: set[str] = set()
    for path in (LICHESS, STUDIES, PROBLEMS):
        for game in pgnio.iter_games([str(path)]):
            summary = summarize(game.text)
            if summary.always:
                continue
            flagged = {name[-1] for name in FEATURES
                       if name.startswith("mate_by:") and summary.flags & (1 << FEATURES.index(name))}
            expected = _mates_by(game.text)
            assert flagged == expected, game.number
            seen |= expected
    assert seen >= set("QRBNP")  # the shipped games have mates by all of these


def test_games_are_numbered_without_gaps_when_appended(tmp_path: Path) -> None:
    # The index counts its games by their largest number (cqldb._count), not count(*).
    db = str(tmp_path / "two.cqldb")
    assert cqldb.build(db, [str(PROBLEMS)]) == (cqldb.check(db),) * 2
    added, total = cqldb.build(db, [str(STUDIES), str(PROBLEMS)])
    assert total == cqldb.check(db) > added > 0
    with closing(cqldb.open_index(db)) as conn:
        numbers = [n for (n,) in conn.execute("SELECT number FROM games ORDER BY number")]
    assert numbers == list(range(1, total + 1))
