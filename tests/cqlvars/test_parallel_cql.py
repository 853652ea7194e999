"""parallel: ordered merging of partitions evaluated in a process pool (spec §1.4)."""

from __future__ import annotations

import functools
import io
import os
import subprocess
import sys
from dataclasses import dataclass

import chess.pgn
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pgn_data import LICHESS as LICHESS_PATH

from esochess.cqlvars import parallel, pgnio, runs
from esochess.cqlvars.pgnio import GameText
from esochess.fen import SourceError

LICHESS = str(LICHESS_PATH)


@dataclass(frozen=True)
class Outcome:
    """A stand-in for the engine's outcome record."""

    number: int
    matched: bool
    plies: int
    pid: int


class PlyCounter:
    """A stand-in game worker: counts mainline plies; 'matches' games longer than `cut`."""

    def __init__(self, cut: int, fail_at: int = 0) -> None:
        self.cut = cut
        self.fail_at = fail_at
        self.sum = 0

    def run_game(self, game: GameText) -> Outcome:
        if game.number == self.fail_at:
            raise SourceError("q.cql", 1, 5, f"overflow in game {game.number}", "runtime error")
        parsed = chess.pgn.read_game(io.StringIO(game.text))
        plies = parsed.end().ply() if parsed is not None else 0
        self.sum += plies
        return Outcome(game.number, plies > self.cut, plies, os.getpid())

    def take_partial(self) -> dict[str, int]:
        taken, self.sum = self.sum, 0
        return {"Plies": taken}


def _run(jobs: int, **kw: int) -> list[Outcome]:
    factory = functools.partial(PlyCounter, 80, **kw)
    parts = pgnio.partitions([LICHESS], last=300, max_games=16)
    return list(parallel.run_local(factory, parts, jobs))


def _strip(outcomes: list[Outcome]) -> list[tuple[int, bool, int]]:
    return [(o.number, o.matched, o.plies) for o in outcomes]


def test_outcomes_are_identical_and_in_game_order_for_every_jobs() -> None:
    one = _run(1)
    assert [o.number for o in one] == list(range(1, 301))
    for jobs in (2, 3):
        many = _run(jobs)
        assert _strip(many) == _strip(one)
        assert len({o.pid for o in many}) > 1  # really ran in several processes


def test_runtime_error_comes_after_earlier_outcomes() -> None:
    for jobs in (1, 2):
        seen: list[int] = []
        with pytest.raises(SourceError, match="overflow in game 40") as info:
            for outcome in _run_iter(jobs, fail_at=40):
                seen.append(outcome.number)
        assert seen == list(range(1, 40))
        assert info.value.severity == "runtime error"


def _run_iter(jobs: int, **kw: int):  # type: ignore[no-untyped-def]
    factory = functools.partial(PlyCounter, 80, **kw)
    return parallel.run_local(factory, pgnio.partitions([LICHESS], last=300, max_games=16), jobs)


def test_closing_early_stops_the_pool() -> None:
    outcomes = _run_iter(2)
    first = [next(outcomes) for _ in range(5)]
    outcomes.close()
    assert [o.number for o in first] == [1, 2, 3, 4, 5]


def test_on_partition_is_called_in_order() -> None:
    seen: list[int] = []
    factory = functools.partial(PlyCounter, 80)
    parts = pgnio.partitions([LICHESS], last=100, max_games=16)
    list(parallel.run_local(factory, parts, 2, on_partition=lambda p: seen.append(p.first_number)))
    assert seen == [1, 17, 33, 49, 65, 81, 97]


def test_partials_are_summed_for_yielded_games_only() -> None:
    worker = PlyCounter(80)
    part = next(pgnio.partitions([LICHESS], last=20, max_games=20))
    result = parallel.run_partition(worker, part)
    assert len(result.partials) == 20
    totals: dict[str, int] = {}
    merged = parallel.merge([(part, result)], totals=totals)
    taken = [next(merged) for _ in range(3)]
    assert totals == {"Plies": sum(o.plies for o in taken)}


def test_unpicklable_errors_are_described() -> None:
    class Odd(Exception):
        def __reduce__(self) -> str:
            raise TypeError("no pickling")

    class Failing:
        def run_game(self, game: GameText) -> int:
            raise Odd("strange")

    part = next(pgnio.partitions([LICHESS], last=2))
    result = parallel.run_partition(Failing(), part)
    assert isinstance(result.error, parallel.PartitionFailed)
    assert "Odd: strange" in str(result.error)


def test_default_jobs_is_positive() -> None:
    assert parallel.default_jobs() >= 1


@settings(deadline=None, max_examples=15)
@given(st.integers(1, 40), st.integers(1, 60))
def test_merge_order_does_not_depend_on_partition_size(max_games: int, last: int) -> None:
    factory = functools.partial(PlyCounter, 80)
    parts = pgnio.partitions([LICHESS], last=last, max_games=max_games)
    outcomes = list(parallel.run_local(factory, parts, 1))
    assert [o.number for o in outcomes] == list(range(1, last + 1))


def test_evaluate_reports_progress_and_uses_one_process_for_one_partition() -> None:
    from esochess.cqlvars.progress import Progress

    out = io.StringIO()
    bar = Progress(out, tty=False, sizes=[os.path.getsize(LICHESS)])
    factory = functools.partial(PlyCounter, 80)
    small = list(runs.evaluate(factory, [LICHESS], jobs=3, last=100, progress=bar))
    assert {o.pid for o in small} == {os.getpid()}
    assert bar.games == 100 and bar.total == 100
    assert bar.matches == sum(o.matched for o in small)
    assert bar.snapshot().fraction is not None and 0 < bar.snapshot().fraction < 1
    big = list(runs.evaluate(factory, [LICHESS], jobs=2, last=600))
    assert [o.number for o in big] == list(range(1, 601))
    assert os.getpid() not in {o.pid for o in big}


def test_query_job_pickles_and_its_worker_returns_reducible_sums() -> None:
    import pickle

    from esochess.cqlvars.engine import RunOptions

    job = parallel.QueryJob(
        "q.cql", "cql(quiet) if move capture . then persistent Captures += 1  false\n", (),
        RunOptions(),
    )
    worker = pickle.loads(pickle.dumps(job))()
    part = next(pgnio.partitions([LICHESS], last=5))
    result = parallel.run_partition(worker, part)
    assert [o.number for o in result.outcomes] == [1, 2, 3, 4, 5]
    assert not any(o.matched for o in result.outcomes)
    per_game = [p["Captures"] for p in result.partials]
    assert len(per_game) == 5 and all(n >= 0 for n in per_game) and sum(per_game) > 0
    assert worker.take_partial() == {"Captures": 0}


def test_engine_outcomes_do_not_depend_on_partition_size() -> None:
    from esochess.cqlvars.engine import RunOptions

    job = parallel.QueryJob("q.cql", "cql() check  message(ply)\n", (), RunOptions())
    reference = None
    for size in (1, 7, 50):
        parts = pgnio.partitions([LICHESS], last=50, max_games=size)
        got = list(parallel.run_local(job, parts, 2 if size < 50 else 1))
        if reference is None:
            reference = got
        assert got == reference
    assert reference is not None and any(o.matched for o in reference)


STOP_WHILE_WORKERS_SEND = """
import sys
from esochess.cqlvars import parallel, pgnio

class Bulky:
    # Outcomes far larger than a pipe holds: the workers are still sending when stopped.
    def run_game(self, game):
        return b"x" * 4_000_000

for attempt in range(5):
    outcomes = parallel.run_local(Bulky, pgnio.partitions([sys.argv[1]], last=64, max_games=4), 2)
    next(outcomes)
    outcomes.close()
print("stopped")
"""


def test_stopping_while_workers_send_results_lets_the_process_exit() -> None:
    # A worker ended half-way through writing a result used to leave the pool's manager
    # thread waiting for the rest of it, and the command hung after its last line.
    proc = subprocess.run([sys.executable, "-c", STOP_WHILE_WORKERS_SEND, LICHESS],
                          capture_output=True, text=True, timeout=120)
    assert (proc.returncode, proc.stdout) == (0, "stopped\n"), proc.stderr
