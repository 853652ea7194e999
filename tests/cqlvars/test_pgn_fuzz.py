"""Fuzzing the PGN reader (issue 22): random and mutated games among real ones.

Whatever a bad game holds, the run reports it (file, line, game number) and skips it;
every good game around it is evaluated exactly once; one process and two agree.
"""

from __future__ import annotations

import re
import tempfile
from dataclasses import replace
from pathlib import Path

from fuzzing import fuzz_settings
from hypothesis import given
from hypothesis import strategies as st
from pgn_data import LICHESS

from esochess.cqlvars import parallel, pgnio
from esochess.cqlvars.engine import GameOutcome, RunOptions, compile_query
from esochess.cqlvars.parallel import EngineWorker, QueryJob

REAL = [g.text.strip("\n") + "\n\n" for g in pgnio.iter_games([str(LICHESS)], last=12)]
REPORT = re.compile(r"^fuzz\.pgn:\d+: game (\d+): error: .+ \(game skipped\)$")
NOISE = ["{", "}", "(", ")", "\x00", ";", "%", "[", "]", '"', "$", "1-0", "Kxe9", "O-O-O",
         "\n", "e4", "=Q", "#", "\udcff", "[FEN \"x\"]\n", "[Variant \"atomic\"]\n", "1."]  # fmt: skip


@st.composite
def mutated(draw: st.DrawFn) -> str:
    """A real game with a few random edits, kept to one game (no blank line inside)."""
    text = draw(st.sampled_from(REAL)).rstrip("\n")
    for _ in range(draw(st.integers(1, 4))):
        at = draw(st.integers(0, len(text)))
        cut = draw(st.integers(0, 8))
        insert = draw(st.sampled_from(NOISE) | st.text(max_size=4))
        text = text[:at] + insert + text[at + cut :]
    text = re.sub(r"\n\s*\n", "\n", text).replace("[Event", "[Evnt")
    text = text.replace("[Site \"", "[Site \"mutated ")
    return text.lstrip("\n") + "\n\n" if text.strip() else ""


games = st.lists(
    st.one_of(st.sampled_from(REAL).map(lambda g: (True, g)), mutated().map(lambda g: (False, g))),
    min_size=1, max_size=10,
)  # fmt: skip

JOB = QueryJob("q.cql", "cql(silent) true", (), RunOptions())


def _run(text: str, jobs: int) -> list[GameOutcome]:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "fuzz.pgn"
        path.write_text(text, encoding="utf-8", errors="surrogateescape")
        parts = pgnio.partitions([str(path)], max_games=3)
        worker = EngineWorker(compile_query(JOB.path, JOB.text))
        outcomes = list(parallel.run_local(JOB, parts, jobs, worker=worker))
    # The folder differs between runs: compare reports without it.
    return [replace(o, error=o.error.replace(folder + "/", "")) if o.error else o
            for o in outcomes]  # fmt: skip


@fuzz_settings(40)
@given(games)
def test_bad_games_cost_only_themselves(items: list[tuple[bool, str]]) -> None:
    # Every game starts with `[Event`: an unclosed comment resynchronises at the next one.
    text = "".join(g if g.startswith("[Event") else '[Event "fuzz"]\n' + g for _, g in items
                   if g)  # fmt: skip
    one = _run(text, 1)
    assert one == _run(text, 2)
    assert [o.number for o in one] == list(range(1, len(one) + 1))
    for outcome in one:
        assert (outcome.error is None) == outcome.matched
        if outcome.error is not None:
            match = REPORT.match(outcome.error)
            assert match and int(match[1]) == outcome.number, outcome.error
    written = "".join(o.pgn or "" for o in one)
    for good in {g for ok, g in items if ok}:
        site = re.search(r'\[Site "([^"]+)"\]', good)
        assert site is not None
        count = sum(1 for ok, g in items if ok and g == good)
        assert written.count(f'[Site "{site[1]}"]') == count
