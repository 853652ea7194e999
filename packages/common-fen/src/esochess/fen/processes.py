"""Worker processes that never outlive the command that started them.

`die_with_parent()` is meant for a process pool's initializer: when the parent dies,
however it dies (SIGTERM, SIGKILL, a crash), the worker receives SIGTERM and, with the
default action restored, ends at once. On Linux the kernel delivers it
(`prctl(PR_SET_PDEATHSIG)`); elsewhere a daemon thread checks once a second whether the
parent is still there.

Linux sends the signal when the *thread* that forked the worker exits, so start pools
from the main thread (as `ProcessPoolExecutor.submit` and `multiprocessing.Pool` do when
called from it).
"""

from __future__ import annotations

import ctypes
import os
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Executor, Future, ProcessPoolExecutor
from multiprocessing.process import BaseProcess
from typing import TypeVar

_T = TypeVar("_T")
_In = TypeVar("_In")

#: From <linux/prctl.h>.
PR_SET_PDEATHSIG = 1
#: How often the portable fallback looks at its parent, in seconds.
POLL_SECONDS = 1.0


def _kernel_watch() -> bool:
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return int(libc.prctl(PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0)) == 0
    except (OSError, AttributeError):
        return False


def watch_parent(parent: int, interval: float = POLL_SECONDS) -> threading.Thread:
    """Start a daemon thread that sends this process SIGTERM once `parent` is gone."""

    def loop() -> None:
        while os.getppid() == parent:
            time.sleep(interval)
        os.kill(os.getpid(), signal.SIGTERM)

    thread = threading.Thread(target=loop, name="esochess-parent-watch", daemon=True)
    thread.start()
    return thread


def die_with_parent(parent: int | None = None) -> None:
    """End this process with SIGTERM when its parent process dies.

    `parent` is the parent's pid as the parent saw it (`os.getpid()` passed through the
    initializer's arguments); it closes the race of a parent dying before this call.
    SIGTERM gets its default action, so a worker forked from a command that raises
    `Terminated` on SIGTERM simply ends; SIGINT is ignored (Ctrl-C reaches the whole
    process group, and the parent handles it).
    """
    expected = os.getppid() if parent is None else parent
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if _kernel_watch():
        if os.getppid() != expected:  # the parent died before the kernel was told
            os.kill(os.getpid(), signal.SIGTERM)
        return
    if os.getppid() != expected:
        os.kill(os.getpid(), signal.SIGTERM)
        return
    watch_parent(expected)


#: Seconds a pool worker is given to end on SIGTERM before it is killed.
WORKER_GRACE = 2.0


def stop_pool(executor: ProcessPoolExecutor, grace: float = WORKER_GRACE) -> None:
    """End a process pool whose outstanding results are not wanted (a run stopped early).

    The workers get SIGTERM, then SIGKILL after `grace` seconds, so neither this process's
    exit (which joins the pool's manager thread) nor the machine waits for them. A worker
    ended while writing a result would leave half a message in the result pipe, and the
    manager thread would wait for the rest for ever; only the workers write to that pipe,
    but this process holds a copy of its write end, so that copy is closed first: the
    workers' deaths then leave no writer, the manager reads end-of-file and winds the pool
    down as broken (dropping only results nobody wants).

    That manager thread is then waited for (at most `grace` seconds more). Until Python
    3.13, the interpreter's exit, and the executor's collection, wake that thread through a
    pipe without the lock the thread takes to close the pipe: a wake-up racing the close
    wrote to a closed descriptor and printed an `OSError: [Errno 9]` traceback after the
    command's own last words. Once the thread has ended, those wake-ups do nothing.
    """
    manager = getattr(executor, "_executor_manager_thread", None)
    results = getattr(executor, "_result_queue", None)
    writer = getattr(results, "_writer", None)
    if writer is not None:
        writer.close()
    workers: list[BaseProcess] = list((getattr(executor, "_processes", None) or {}).values())
    for process in workers:
        process.terminate()
    deadline = time.monotonic() + grace
    for process in workers:
        process.join(max(deadline - time.monotonic(), 0.0))
        if process.is_alive():
            process.kill()
            process.join(grace)
    executor.shutdown(wait=False, cancel_futures=True)
    if isinstance(manager, threading.Thread):
        manager.join(grace)


#: How often a thread waiting for a pool's result wakes up, in seconds.
WAKE_SECONDS = 0.2


def result_of(future: Future[_T], wake: float = WAKE_SECONDS) -> _T:
    """`future.result()`, for the main thread: it wakes every `wake` seconds.

    A signal sent to the process (Ctrl-C, SIGTERM) may be handed by the kernel to any of
    its threads, such as a pool's manager or queue-feeder thread. Python then only notes
    it; the handler runs when the main thread next runs Python code, and a main thread
    blocked in an unbounded wait for a lock never does. A `cql -j 2` once ignored SIGTERM
    that way until it was killed.
    """
    while True:
        try:
            return future.result(timeout=wake)
        except TimeoutError:
            if future.done():  # the work itself raised TimeoutError
                raise


def results_in_order(executor: Executor, function: Callable[[_In], _T],
                     items: Iterable[_In]) -> Iterator[_T]:
    """`executor.map(function, items)`, its results waited for with `result_of`; the work
    not yet started is cancelled when the iterator is closed or left early."""
    futures = [executor.submit(function, item) for item in items]
    try:
        for future in futures:
            yield result_of(future)
    finally:
        for future in futures:
            future.cancel()
