"""`--jobs N`: evaluate partitions of consecutive games in a process pool, merged in game order.

The query is never pickled: each worker process builds its own evaluator once, in the pool
initializer, from a picklable *factory* (docs/cql.md#parallel-and-compressed-input). Whatever the
number of processes, the games come from the same `pgnio.partitions` split and the outcomes are
yielded strictly in game order, so everything written from them is byte-identical for every N.
"""

from __future__ import annotations

import os
import pickle
import traceback
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Generic, Protocol, TypeVar

from esochess.cqlvars.engine import (
    CompiledQuery,
    GameOutcome,
    RunOptions,
    RunState,
    compile_query,
    run_game,
)
from esochess.cqlvars.pgnio import GameText
from esochess.cqlvars.ranges import Work

if TYPE_CHECKING:
    import multiprocessing.context
    from concurrent.futures import Future

# The process pool (multiprocessing, concurrent.futures, esochess.fen.processes) is
# imported where a pool is started: a run in one process, as every query over an index
# that rules out most games is, does not pay for importing it
# (docs/performance.md#start-up-of-an-indexed-query).
OutcomeT = TypeVar("OutcomeT")
O_co = TypeVar("O_co", covariant=True)

#: Partitions in flight per worker: enough to keep every worker busy while the main
#: process merges, few enough that memory stays bounded by a handful of partitions.
IN_FLIGHT_PER_JOB = 2


class GameWorker(Protocol[O_co]):
    """What a factory builds in each process: evaluates one game at a time, in order."""

    def run_game(self, game: GameText) -> O_co:
        """Evaluate one game and return its picklable outcome record."""


WorkerFactory = Callable[[], GameWorker[OutcomeT]]


class PartitionFailed(Exception):
    """A partition stopped on an exception that could not travel back as itself."""

    def __init__(self, message: str, remote_traceback: str) -> None:
        super().__init__(message)
        self.remote_traceback = remote_traceback


@dataclass
class PartitionResult(Generic[OutcomeT]):
    """What evaluating one partition returns: its outcomes, in order, and how it ended.

    `partials[i]` is the worker's `take_partial()` after game i (the persistent reducible
    sums it added, docs/cql.md#running-on-a-dask-cluster) when the worker has one, so a merge
    stopped by `--limit` adds up exactly the games it wrote. `error` is the exception that stopped
    the partition, if any; the outcomes before it are kept so the merge can yield them first.
    """

    outcomes: list[OutcomeT] = field(default_factory=list)
    partials: list[Mapping[str, int]] = field(default_factory=list)
    error: BaseException | None = None
    remote_traceback: str = ""


def default_jobs() -> int:
    """CPUs available to this process (docs/reference/cql.md#command-line: sched_getaffinity where
    supported)."""
    if hasattr(os, "sched_getaffinity"):
        return max(1, len(os.sched_getaffinity(0)))
    return max(1, os.cpu_count() or 1)


def run_partition(worker: GameWorker[OutcomeT], part: Work) -> PartitionResult[OutcomeT]:
    """Evaluate every game of `part` with `worker`; stop at the first exception."""
    result: PartitionResult[OutcomeT] = PartitionResult()
    take: Callable[[], Mapping[str, int]] | None = getattr(worker, "take_partial", None)
    if take is not None:
        take()  # a retried task must start its sums from 0 again
    try:
        for game in part.games():
            result.outcomes.append(worker.run_game(game))
            if take is not None:
                result.partials.append(take())
    except Exception as exc:  # noqa: BLE001 - carried to the main process, re-raised there
        result.error = _portable(exc)
        result.remote_traceback = traceback.format_exc()
    return result


def _portable(exc: Exception) -> BaseException:
    # A runtime error (SourceError) must reach the main process as itself so it is
    # reported like a local one; anything unpicklable is described instead.
    try:
        pickle.loads(pickle.dumps(exc))
    except Exception:  # noqa: BLE001 - any pickling failure means "describe it"
        return PartitionFailed(f"{type(exc).__name__}: {exc}", traceback.format_exc())
    return exc


def raise_failure(result: PartitionResult[OutcomeT]) -> None:
    """Re-raise the exception that stopped a partition, with the worker's traceback noted."""
    if result.error is not None:
        if result.remote_traceback:
            result.error.add_note(result.remote_traceback)
        raise result.error


# Per-process state of a pool worker; set once by the initializer.
_WORKER: GameWorker[object] | None = None


def _init_worker(factory: WorkerFactory[object], parent: int) -> None:
    global _WORKER
    from esochess.fen import processes

    # A worker ends with the main process, however that ends (SIGKILL included), and
    # ignores Ctrl-C, which the main process handles by shutting the pool down.
    processes.die_with_parent(parent)
    _WORKER = factory()


def _run_in_worker(part: Work) -> PartitionResult[object]:
    if _WORKER is None:
        raise RuntimeError("pool worker used before its initializer ran")
    return run_partition(_WORKER, part)


def _context() -> multiprocessing.context.BaseContext:
    # fork starts a worker in milliseconds with everything already imported
    # (docs/performance.md#cql: start-up plus boundary scan within 1.5 s); spawn is the portable
    # fallback.
    import multiprocessing

    methods = multiprocessing.get_all_start_methods()
    return multiprocessing.get_context("fork" if "fork" in methods else "spawn")


def merge(
    results: Iterable[tuple[Work, PartitionResult[OutcomeT]]],
    *,
    on_partition: Callable[[Work], None] | None = None,
    totals: dict[str, int] | None = None,
) -> Iterator[OutcomeT]:
    """Yield the outcomes of partition results that arrive in partition order.

    Partials (reducible sums) of each yielded game are added into `totals`; the
    exception that stopped a partition is raised after the outcomes before it.
    """
    source = iter(results)
    try:
        for part, result in source:
            for index, outcome in enumerate(result.outcomes):
                if totals is not None and index < len(result.partials):
                    for name, value in result.partials[index].items():
                        totals[name] = totals.get(name, 0) + value
                yield outcome
            if on_partition is not None:
                on_partition(part)
            raise_failure(result)
    finally:
        # Stop the producer now (cancel its pending work), not whenever it is collected.
        close = getattr(source, "close", None)
        if close is not None:
            close()


def run_local(
    factory: WorkerFactory[OutcomeT],
    parts: Iterable[Work],
    jobs: int,
    *,
    on_partition: Callable[[Work], None] | None = None,
    worker: GameWorker[OutcomeT] | None = None,
) -> Iterator[OutcomeT]:
    """Yield the outcomes of every game of `parts`, in game order, using `jobs` processes.

    With `jobs <= 1` everything runs in this process with `worker` (or one built by
    `factory`), so persistent state lives where the caller can read it. Closing the
    iterator early (for `--limit`) cancels the partitions not yet started.
    `on_partition` is called in order after each partition's outcomes (progress).
    """
    if jobs <= 1:
        local = worker if worker is not None else factory()
        for part in parts:
            for game in part.games():
                yield local.run_game(game)
            if on_partition is not None:
                on_partition(part)
        return
    yield from merge(_pool_results(factory, parts, jobs), on_partition=on_partition)


def _pool_results(
    factory: WorkerFactory[OutcomeT], parts: Iterable[Work], jobs: int
) -> Iterator[tuple[Work, PartitionResult[OutcomeT]]]:
    from concurrent.futures import ProcessPoolExecutor
    from concurrent.futures.process import BrokenProcessPool

    from esochess.fen import processes

    executor = ProcessPoolExecutor(
        max_workers=jobs,
        mp_context=_context(),
        initializer=_init_worker,
        initargs=(factory, os.getpid()),
    )
    window: deque[tuple[Work, Future[PartitionResult[OutcomeT]]]] = deque()
    source = iter(parts)
    finished = False

    def refill() -> None:
        while len(window) < jobs * IN_FLIGHT_PER_JOB:
            part = next(source, None)
            if part is None:
                return
            window.append((part, executor.submit(_run_in_worker, part)))  # type: ignore[arg-type]

    try:
        refill()
        while window:
            part, future = window.popleft()
            try:
                result = processes.result_of(future)
            except BrokenProcessPool as exc:
                raise PartitionFailed(
                    f"a worker process died while evaluating games "
                    f"{part.first_number}-{part.last_number} of {part.path}",
                    "",
                ) from exc
            refill()
            yield part, result
        finished = True
    finally:
        if finished:
            executor.shutdown(wait=True)
        else:
            # Stopped early (--limit, an error, Ctrl-C, SIGTERM): the results still being
            # computed are not wanted, so end the workers now instead of waiting for them.
            processes.stop_pool(executor)


@dataclass(frozen=True)
class QueryJob:
    """What a worker needs to rebuild the compiled query: plain, picklable values.

    Calling it compiles the query (once per worker process, in the pool initializer, or
    once per Dask worker thread) and returns an `EngineWorker`.
    """

    path: str
    text: str
    assignments: tuple[tuple[str, str], ...]
    options: RunOptions

    def __call__(self) -> EngineWorker:
        """Compile the query and return a worker with fresh persistent state."""
        return EngineWorker(compile_query(self.path, self.text, dict(self.assignments),
                                          self.options))


class EngineWorker:
    """Runs the engine on one game at a time; the `GameWorker` the drivers use."""

    def __init__(self, compiled: CompiledQuery, state: RunState | None = None) -> None:
        self.compiled = compiled
        self.state = state if state is not None else compiled.new_state()
        self._sums = compiled.uses_persistent

    def run_game(self, game: GameText) -> GameOutcome:
        """Evaluate one game (docs/reference/cql.md#evaluation-model)."""
        return run_game(self.compiled, game, self.state)

    def take_partial(self) -> Mapping[str, int]:
        """The reducible sums added since the last call, reset to 0 (Dask only,
        docs/cql.md#running-on-a-dask-cluster)."""
        return self.state.take_sums() if self._sums else _NO_SUMS


_NO_SUMS: Mapping[str, int] = {}
