"""`gambit playout --jobs N`: playout games spread over worker processes.

Every game depends on its seed alone, so the games are cut into contiguous chunks, each
worker compiles the program once from its source for the parent's engine (compiled code
does not cross process boundaries) and plays its chunks, and the outcomes come back in
game order: the summary is the same for any number of jobs. The pool is closed before this
returns, whatever happens, so no worker outlives the command.

Ctrl-C reaches the whole process group, but only the parent acts on it: the workers start
with SIGINT blocked (the mask is inherited through spawn's fork and exec) and then ignore
it, and a stopped run ends its workers with `stop_pool` instead of waiting for their
chunks. Without that, every worker printed its own KeyboardInterrupt traceback and the
command waited about 13 s for the chunks it no longer wanted.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor

from esochess.fen.processes import die_with_parent, result_of, stop_pool
from esochess.gambit.frontend import compile_source
from esochess.gambit.program import Program

# One finished playout game: decisions made, winners, draw; or the error text that ended it.
GameOutcome = tuple[int, tuple[int, ...], bool] | str
# Plays game `index` of `games`: (program, index, games, seed, seats, max_decisions).
PlayOne = Callable[[Program, int, int, int, int, int], GameOutcome]

_compiled: dict[tuple[str, str, str], Program] = {}


def _play_chunk(
    play: PlayOne, source: str, path: str, engine: str, start: int, stop: int, games: int,
    seed: int, seats: int, max_decisions: int,
) -> list[GameOutcome]:  # fmt: skip
    """In a worker: games start..stop-1, stopping after the first that fails."""
    program = _compiled.get((path, source, engine))
    if program is None:
        program, _ = compile_source(source, path, engine)
        assert program is not None, "the parent compiled this program without errors"
        _compiled[(path, source, engine)] = program
    out: list[GameOutcome] = []
    for i in range(start, stop):
        out.append(play(program, i, games, seed, seats, max_decisions))
        if isinstance(out[-1], str):
            break
    return out


def parallel_playouts(
    program: Program, games: int, seed: int, seats: int, max_decisions: int, jobs: int,
    play: PlayOne,
) -> Iterator[GameOutcome]:  # fmt: skip
    """The outcomes of games 0..games-1 in order, played by `jobs` worker processes."""
    size = max(1, games // (jobs * 4))
    bounds = [(a, min(a + size, games)) for a in range(0, games, size)]
    context = multiprocessing.get_context("spawn")
    pool = ProcessPoolExecutor(max_workers=jobs, mp_context=context,
                               initializer=die_with_parent, initargs=(os.getpid(),))
    finished = False
    try:
        # The workers are spawned by these submits: a Ctrl-C meanwhile waits for the unblock.
        blocked = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
        try:
            futures: list[Future[list[GameOutcome]]] = [
                pool.submit(_play_chunk, play, program.source, program.path, program.engine,
                            a, b, games, seed, seats, max_decisions)
                for a, b in bounds
            ]  # fmt: skip
        finally:
            signal.pthread_sigmask(signal.SIG_SETMASK, blocked)
        for future in futures:
            for outcome in result_of(future):
                yield outcome
                if isinstance(outcome, str):
                    return
        finished = True
    finally:
        if finished:
            pool.shutdown(wait=True)
        else:  # an error, Ctrl-C or a consumer that stopped early: no result is wanted
            stop_pool(pool)
