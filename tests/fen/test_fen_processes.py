"""die_with_parent: pool workers end when the command that started them is killed."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

PARENT = """
import os, sys, time
from concurrent.futures import ProcessPoolExecutor
from multiprocessing import get_context
from esochess.fen import processes

def setup(parent, kernel):
    if not kernel:
        processes._kernel_watch = lambda: False
        processes.POLL_SECONDS = 0.1
    processes.die_with_parent(parent)

def pid():
    return os.getpid()

if __name__ == "__main__":
    kernel = sys.argv[1] == "kernel"
    pool = ProcessPoolExecutor(2, mp_context=get_context("fork"), initializer=setup,
                               initargs=(os.getpid(), kernel))
    workers = {pool.submit(pid).result() for _ in range(4)}
    print(" ".join(map(str, sorted(workers))), flush=True)
    time.sleep(120)
"""


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # A zombie re-parented to an init that reaps slowly counts as gone.
    try:
        with open(f"/proc/{pid}/stat") as handle:
            return handle.read().split(") ", 1)[1][0] != "Z"
    except FileNotFoundError:
        return False


@pytest.mark.skipif(sys.platform != "linux", reason="uses fork and /proc")
@pytest.mark.parametrize("watch", ["kernel", "thread"])
def test_workers_end_when_their_parent_is_killed(tmp_path: Path, watch: str) -> None:
    script = tmp_path / "parent.py"
    script.write_text(PARENT)
    proc = subprocess.Popen(
        [sys.executable, str(script), watch], stdout=subprocess.PIPE, text=True
    )
    assert proc.stdout is not None
    workers = [int(w) for w in proc.stdout.readline().split()]
    assert workers and all(_alive(w) for w in workers)
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=30)
    deadline = time.monotonic() + 30
    while any(_alive(w) for w in workers) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not any(_alive(w) for w in workers)


def _slow(seconds: float) -> float:
    time.sleep(seconds)
    return seconds


def test_stop_pool_ends_the_workers_and_the_manager_thread() -> None:
    # What is left running after stop_pool is what the interpreter's exit would race with
    # (a wake-up written to a pipe being closed): nothing may be.
    import threading
    from concurrent.futures import ProcessPoolExecutor
    from multiprocessing import get_context

    from esochess.fen.processes import stop_pool

    pool = ProcessPoolExecutor(2, mp_context=get_context("fork"))
    futures = [pool.submit(_slow, 30.0) for _ in range(4)]
    time.sleep(0.5)
    state = vars(pool)  # the executor's private parts: its processes and manager thread
    workers = list(state["_processes"].values())
    manager = state["_executor_manager_thread"]
    assert isinstance(manager, threading.Thread) and manager.is_alive()
    stop_pool(pool, grace=5.0)
    assert not manager.is_alive()
    assert not any(worker.is_alive() for worker in workers)
    assert all(future.done() for future in futures)


WAITS_FOR_A_BUSY_THREAD = """
import os, signal, sys, threading, time
from concurrent.futures import ThreadPoolExecutor
from esochess import launch
from esochess.fen import processes
launch.handle_sigterm()
pool = ThreadPoolExecutor(1)
started = threading.Event()
def work():
    started.set()
    time.sleep(60)
    return "finished"
future = pool.submit(work)
started.wait()
(worker,) = [t for t in threading.enumerate() if t is not threading.main_thread()]
# The kernel may hand a process's signal to any thread; here it goes to the pool's.
threading.Timer(0.3, signal.pthread_kill, (worker.ident, signal.SIGTERM)).start()
try:
    print(WAIT(future), flush=True)
except KeyboardInterrupt:
    print("handled", flush=True)
    os._exit(143)
"""


def test_result_of_lets_a_signal_taken_by_another_thread_stop_the_wait() -> None:
    # `future.result()` in its place waits the whole 60 s: the main thread sleeps in a
    # lock wait that a signal delivered to another thread does not interrupt.
    script = WAITS_FOR_A_BUSY_THREAD.replace("WAIT", "processes.result_of")
    started = time.monotonic()
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          timeout=30)
    assert (done.returncode, done.stdout) == (143, "handled\n")
    assert time.monotonic() - started < 20


def test_result_of_returns_results_and_raises_the_work_s_errors() -> None:
    from concurrent.futures import ThreadPoolExecutor

    from esochess.fen import processes

    def slow(value: int) -> int:
        time.sleep(0.3)
        return value

    def fails() -> None:
        raise TimeoutError("the work's own timeout")

    with ThreadPoolExecutor(2) as pool:
        assert processes.result_of(pool.submit(slow, 7), wake=0.05) == 7
        with pytest.raises(TimeoutError, match="the work's own"):
            processes.result_of(pool.submit(fails), wake=0.05)
        assert list(processes.results_in_order(pool, slow, [3, 1, 2])) == [3, 1, 2]
