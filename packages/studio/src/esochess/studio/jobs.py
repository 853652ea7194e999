"""Running a page's request in a child process with a wall-clock limit.

Everything a page sends (a CHAZZ board, a Chespel or Gambit program, a CQL query) runs
in a forked worker process, never in the server itself: a program that loops forever or
a query that takes too long is killed when its time is up, and the server answers with a
message instead of hanging. Workers come from a `forkserver` that has already imported
the four languages, so starting one costs milliseconds, not an interpreter start-up.
A worker may send progress messages before its result; the caller receives them.
"""

from __future__ import annotations

import multiprocessing
import multiprocessing.connection
import multiprocessing.forkserver
import threading
import time
from collections.abc import Callable, Generator
from dataclasses import dataclass
from typing import Any

#: Modules every worker needs: imported once, in the fork server.
PRELOAD = [
    "esochess.studio.chazz_adapter",
    "esochess.studio.chespel_adapter",
    "esochess.studio.gambit_adapter",
    "esochess.studio.cql_adapter",
]
#: How many workers may run at once; further requests wait their turn.
MAX_WORKERS = 2

_context: Any = None
_context_lock = threading.Lock()
_slots = threading.BoundedSemaphore(MAX_WORKERS)


class UserError(Exception):
    """A mistake in what the page sent; `text` is the message the command line prints."""

    def __init__(self, text: str) -> None:
        super().__init__(text)
        self.text = text


class JobTimeout(UserError):
    """The work did not finish within its time limit and was stopped."""


@dataclass(frozen=True)
class Progress:
    """A message a worker sends before its result (e.g. games read so far)."""

    value: Any


Report = Callable[[Any], None]


def _mp() -> Any:
    global _context
    with _context_lock:
        if _context is None:
            context = multiprocessing.get_context("forkserver")
            context.set_forkserver_preload(PRELOAD)
            _context = context
        return _context


def start() -> None:
    """Start the fork server now, so that the first request does not wait for its imports."""
    _mp()
    multiprocessing.forkserver.ensure_running()


def _child(
    conn: multiprocessing.connection.Connection, fn: Callable[..., Any], args: tuple[Any, ...]
) -> None:
    def report(value: Any) -> None:
        conn.send(("progress", value))

    try:
        result = fn(report, *args)
    except UserError as exc:
        conn.send(("user", exc.text))
    except Exception as exc:  # noqa: BLE001 - the server shows a message, never a traceback
        conn.send(("internal", f"{type(exc).__name__}: {exc}"))
    else:
        conn.send(("result", result))
    conn.close()


def stream(
    fn: Callable[..., Any], *args: Any, timeout: float
) -> Generator[Progress | Any, None, None]:
    """Run `fn(report, *args)` in a worker; yield each `Progress`, then the result.

    Raises `UserError` (the worker's), `JobTimeout` when `timeout` seconds pass, and
    `RuntimeError` for a failure of the worker itself. Closing the iterator early kills
    the worker; no worker outlives the call.
    """
    with _slots:
        context = _mp()
        parent, child = context.Pipe(duplex=False)
        process = context.Process(target=_child, args=(child, fn, args), daemon=True)
        process.start()
        child.close()
        deadline = time.monotonic() + timeout
        try:
            while True:
                left = deadline - time.monotonic()
                if left <= 0:
                    raise JobTimeout(f"error: stopped after the time limit of {timeout:g} s")
                if not parent.poll(min(left, 0.1)):
                    continue
                try:
                    kind, value = parent.recv()
                except EOFError:
                    raise RuntimeError("the worker process ended unexpectedly") from None
                if kind == "progress":
                    yield Progress(value)
                elif kind == "result":
                    yield value
                    return
                elif kind == "user":
                    raise UserError(value)
                else:
                    raise RuntimeError(value)
        finally:
            parent.close()
            if process.is_alive():
                process.kill()
            process.join()


def run(fn: Callable[..., Any], *args: Any, timeout: float) -> Any:
    """Run `fn(report, *args)` in a worker and return its result (progress is dropped)."""
    result: Any = None
    for item in stream(fn, *args, timeout=timeout):
        if not isinstance(item, Progress):
            result = item
    return result
