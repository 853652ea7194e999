"""Workers: results and progress come back, user mistakes keep their text, and a worker
that runs over its time, or whose caller stops listening, is killed."""

from __future__ import annotations

import multiprocessing
import time
from pathlib import Path

import pytest

from esochess.studio import chazz_adapter, cql_adapter, jobs

REPO = Path(__file__).resolve().parents[2]
# An endless CHAZZ loop: K sets the cell to 1, and B…b repeats while it is not 0.
ENDLESS = "KBb w"


def test_result_and_user_error_come_back() -> None:
    snap = jobs.run(chazz_adapter.snapshot, "RR w", b"", 1, True, timeout=30)
    assert snap.step == 1
    with pytest.raises(jobs.UserError, match="^Error: Invalid FEN format$"):
        jobs.run(chazz_adapter.snapshot, "x w", b"", 1, True, timeout=30)


def test_a_worker_over_its_time_is_killed() -> None:
    started = time.monotonic()
    with pytest.raises(jobs.JobTimeout, match="time limit of 0.5 s"):
        jobs.run(chazz_adapter.snapshot, ENDLESS, b"", chazz_adapter.MAX_STEPS, True, timeout=0.5)
    assert time.monotonic() - started < 10
    assert multiprocessing.active_children() == []


def test_progress_streams_and_closing_early_kills_the_worker() -> None:
    pgn = str(REPO / "examples/pgn/lichess-carlsen-2018.pgn")
    stream = jobs.stream(cql_adapter.run, "q.cql", "cql() mate", pgn, "", None, timeout=120)
    first = next(stream)
    assert first == jobs.Progress((0, 1089))
    stream.close()
    assert multiprocessing.active_children() == []
