"""Choosing the runner of a whole run: a Dask cluster (distributed.py) or local worker
processes (parallel.py), over the same `pgnio` partitions, outcomes in game order."""

from __future__ import annotations

import itertools
from collections.abc import Generator, Iterator, Sequence
from typing import Any

from esochess.cqlvars import pgnio, ranges
from esochess.cqlvars.distributed import WORKER_WAIT, run_dask
from esochess.cqlvars.parallel import GameWorker, OutcomeT, WorkerFactory, run_local
from esochess.cqlvars.progress import Progress
from esochess.cqlvars.ranges import Work


def evaluate(
    factory: WorkerFactory[OutcomeT],
    paths: Sequence[str],
    *,
    jobs: int = 1,
    client: Any = None,
    first: int = 1,
    last: int | None = None,
    progress: Progress | None = None,
    worker: GameWorker[OutcomeT] | None = None,
    totals: dict[str, int] | None = None,
    worker_wait: float | None = None,
    indexed: pgnio.Indexed | None = None,
    shared_input: bool = False,
    split_size: int = ranges.SPLIT_SIZE,
) -> Generator[OutcomeT, None, None]:
    """Evaluate every game of `paths` (within `[first, last]`); yield outcomes in game order.

    `client` (a connected `distributed.Client`) runs the partitions on a cluster;
    otherwise `jobs` local processes do. An input that fits in one partition is evaluated
    in this process whatever `jobs` says (docs/reference/cql.md#command-line: fewer workers for small inputs).
    `indexed` reads the inputs that are index databases. With a client, `shared_input`
    lets the workers read plain files themselves, in ranges of `split_size` bytes.
    `progress` is told about each finished game and partition. Closing the iterator
    early (`--limit`) stops the work still outstanding. `worker_wait`: how long a cluster
    may stay without workers before the run fails (default `distributed.WORKER_WAIT`).
    """
    work: Iterator[Work]
    if client is not None and shared_input:
        work = ranges.plan(
            paths, client, split_size=split_size, first=first, last=last, indexed=indexed
        )
    else:
        work = pgnio.partitions(paths, first=first, last=last, indexed=indexed)
    parts = _counted(work, progress)
    on_partition = None
    if progress is not None:
        bar = progress

        def on_partition(part: Work) -> None:
            bar.reached(part.file_index, part.end_pos)

    if client is not None:
        outcomes = run_dask(
            factory, parts, client, on_partition=on_partition, totals=totals,
            worker_wait=WORKER_WAIT if worker_wait is None else worker_wait,
        )  # fmt: skip
    else:
        head = list(itertools.islice(parts, 2))
        if len(head) < 2:
            jobs = 1
        outcomes = run_local(
            factory, itertools.chain(head, parts), jobs, on_partition=on_partition, worker=worker
        )
    try:
        for outcome in outcomes:
            if progress is not None:
                progress.game(bool(getattr(outcome, "matched", False)),
                              getattr(outcome, "games", 1))
            yield outcome
    finally:
        close = getattr(outcomes, "close", None)
        if close is not None:
            close()


def _counted(parts: Iterator[Work], progress: Progress | None) -> Iterator[Work]:
    # The total number of games is known once the boundary scan reaches the end.
    total = 0
    for part in parts:
        total += len(part)
        yield part
    if progress is not None:
        progress.scan_finished(total)


