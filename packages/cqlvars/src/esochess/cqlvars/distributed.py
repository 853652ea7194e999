"""`--scheduler ADDRESS`: run the partitions on a `dask.distributed` cluster
(docs/cql.md#running-on-a-dask-cluster).

The client (the `cql` process) has already compiled the query. Here it connects, checks
that every worker runs the same `cql` and python-chess versions, and submits one task per
partition with `retries=2`. A task carries a picklable worker factory (query source plus
options) and the partition's raw bytes, so workers need no shared filesystem; with
`--shared-input` it carries a byte range of a file the worker reads itself (ranges.py). Results are
merged in game order by `parallel.merge`, exactly as for a local pool.
"""

from __future__ import annotations

import pickle
import threading
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from typing import Any

import chess

from esochess.cqlvars import __version__, ranges
from esochess.cqlvars.parallel import (
    GameWorker,
    OutcomeT,
    PartitionResult,
    WorkerFactory,
    merge,
    run_partition,
)
from esochess.cqlvars.ranges import Work
from esochess.fen import scheduler

# The `distributed` package is an optional extra, absent from a default install (and so
# from a default type check): it is imported at run time only, and its Client is `Any`.
Client = Any

#: Exit codes of docs/reference/cql.md#exit-statuses.
USAGE = 2
CLUSTER_FAILURE = 3

RETRIES = ranges.RETRIES
CONNECT_TIMEOUT = "10s"
#: Seconds to wait while the cluster has no worker (at start, or after every worker left):
#: then the run ends with exit 3 instead of waiting for ever (`--worker-wait`).
WORKER_WAIT = 30.0
#: How often a waiting client looks whether the cluster still has workers.
POLL = 2.0
TASKS_PER_THREAD = 2


class DistributedError(Exception):
    """A distributed-mode failure, with the exit code the CLI must use (2 or 3)."""

    def __init__(self, message: str, exit_code: int = CLUSTER_FAILURE) -> None:
        super().__init__(message)
        self.message = message
        self.exit_code = exit_code


def require_distributed() -> Any:
    """Import the optional `distributed` package, or raise DistributedError (exit 2)."""
    try:
        return scheduler.require_distributed()
    except scheduler.SchedulerError as exc:
        raise DistributedError(exc.message, USAGE) from None


def versions() -> tuple[str, str]:
    """This installation's (`cql` version, python-chess version), compared across workers."""
    return __version__, chess.__version__


def connect(
    address: str, *, timeout: str = CONNECT_TIMEOUT, worker_wait: float = WORKER_WAIT
) -> Client:
    """Connect to the scheduler and check every worker's versions (exit 3 on failure)."""
    try:
        client = scheduler.connect(address, timeout=timeout, worker_wait=worker_wait)
    except scheduler.SchedulerError as exc:
        raise DistributedError(exc.message, USAGE if exc.missing else CLUSTER_FAILURE) from None
    try:
        reported: dict[str, Any] = client.run(versions)
    except (OSError, TimeoutError) as exc:
        client.close()
        raise DistributedError(f"no usable worker at {address}: {exc}") from None
    try:
        check_versions(reported, versions())
    except DistributedError:
        client.close()
        raise
    return client


def check_versions(reported: dict[str, Any], mine: tuple[str, str]) -> None:
    """Raise DistributedError (exit 3) naming the first worker whose versions differ."""
    for worker, theirs in sorted(reported.items()):
        if tuple(theirs) != mine:
            raise DistributedError(
                f"worker {worker} runs cql {theirs[0]} with python-chess {theirs[1]}, "
                f"but this client runs cql {mine[0]} with python-chess {mine[1]}"
            )


# Each Dask worker thread keeps the evaluator it built for a query, so a query is
# compiled once per thread rather than once per partition. Per-thread, because a worker
# runs several tasks at once and an evaluator holds per-game state.
_LOCAL = threading.local()


def _cached_worker(factory: WorkerFactory[OutcomeT]) -> GameWorker[OutcomeT]:
    key = pickle.dumps(factory)
    cache: dict[bytes, GameWorker[OutcomeT]] = getattr(_LOCAL, "workers", None) or {}
    _LOCAL.workers = cache
    worker = cache.get(key)
    if worker is None:
        cache.clear()  # one query at a time is plenty; do not grow without bound
        worker = cache[key] = factory()
    return worker


def evaluate_partition(
    factory: WorkerFactory[OutcomeT], part: Work
) -> PartitionResult[OutcomeT]:
    """The task body run on a Dask worker: evaluate one partition."""
    return run_partition(_cached_worker(factory), part)


def run_dask(
    factory: WorkerFactory[OutcomeT],
    parts: Iterable[Work],
    client: Client,
    *,
    on_partition: Callable[[Work], None] | None = None,
    totals: dict[str, int] | None = None,
    worker_wait: float = WORKER_WAIT,
) -> Iterator[OutcomeT]:
    """Yield the outcomes of every game of `parts` evaluated on the cluster, in game order.

    Closing the iterator early (for `--limit`) cancels the outstanding futures. When the
    cluster has had no worker for `worker_wait` seconds, DistributedError (exit 3); a task
    whose workers died too often fails with the scheduler's KilledWorker, also exit 3.
    """
    results = _results(factory, parts, client, worker_wait)
    return merge(results, on_partition=on_partition, totals=totals)


def _wait(client: Client, future: Any, worker_wait: float) -> Any:
    """`future.result()`, but ending when the cluster stays without workers."""
    alone = 0.0
    while True:
        try:
            return future.result(timeout=POLL)
        except TimeoutError:
            pass
        if client.nthreads():
            alone = 0.0
            continue
        alone += POLL
        if alone >= worker_wait:
            raise DistributedError(
                f"every worker has left the cluster (waited {worker_wait:g} s for one)"
            )


def _results(
    factory: WorkerFactory[OutcomeT], parts: Iterable[Work], client: Client,
    worker_wait: float,
) -> Iterator[tuple[Work, PartitionResult[OutcomeT]]]:
    threads = sum(client.nthreads().values()) or 1
    window: deque[tuple[Work, Any]] = deque()
    source = iter(parts)

    def refill() -> None:
        while len(window) < threads * TASKS_PER_THREAD:
            part = next(source, None)
            if part is None:
                return
            future = client.submit(
                evaluate_partition, factory, part, retries=RETRIES, pure=False
            )
            window.append((part, future))

    try:
        refill()
        while window:
            part, future = window.popleft()
            try:
                result: PartitionResult[OutcomeT] = _wait(client, future, worker_wait)
            except DistributedError:
                raise
            except Exception as exc:  # noqa: BLE001 - any task failure after its retries
                raise DistributedError(
                    f"games {part.first_number}-{part.last_number} of {part.path} failed "
                    f"after {RETRIES} retries: {type(exc).__name__}: {exc}"
                ) from None
            refill()
            yield part, result
    finally:
        if window:
            client.cancel([future for _, future in window])
