"""`chespel match --scheduler ADDRESS`: the game pairs of a match on a Dask cluster
(docs/chespel.md#matches-on-a-cluster).

Each colour-reversed pair is one task. A `.chp` engine travels as its built executable
(the bytes of `chespel build`, scattered to the workers once): a worker writes it into a
temporary folder of the task, plays the pair with `python ENGINE --uci`, and removes the
folder, so workers need no copy of the program nor a shared filesystem. A `uci:COMMAND`
engine must exist on every worker. Results are read in pair order and counted by
`match.collect`, exactly as for a local match: the same summary, the same SPRT stop
(the tasks not yet finished are then cancelled).
"""

from __future__ import annotations

import tempfile
import threading
import uuid
from collections.abc import Callable, Iterator
from dataclasses import replace
from typing import Any

from esochess.chespel.match import (
    EngineSpec,
    GameRecord,
    MatchResult,
    Seats,
    Settings,
    collect,
    engine_timeout,
    pair_count,
    play_pair_on,
    shuffled_openings,
)
from esochess.fen import scheduler

# `distributed` is an optional dependency: imported at run time, its Client is `Any`.
Client = Any
CONNECT_TIMEOUT = "10s"
WORKER_WAIT = 30.0
"""Seconds to wait for the cluster's first worker."""


class ClusterError(Exception):
    """The cluster cannot be used (no `distributed`, unreachable, no worker)."""


def connect(address: str) -> Client:
    """A client of the scheduler at `address` that has at least one worker."""
    try:
        return scheduler.connect(address, timeout=CONNECT_TIMEOUT, worker_wait=WORKER_WAIT,
                                 hint=" (pip install 'esochess-chespel[dask]')")
    except scheduler.SchedulerError as exc:
        raise ClusterError(exc.message) from None


def play_remote_pair(first: EngineSpec, second: EngineSpec, settings: Settings, index: int,
                     opening: str) -> list[GameRecord]:
    """The task run on a worker: one pair, on engines started (and stopped) for it."""
    with tempfile.TemporaryDirectory(prefix="chespel-match-") as folder:
        seats = Seats(first.materialised(folder), second.materialised(folder),
                      engine_timeout(settings))
        try:
            return play_pair_on(seats, index, opening, settings, threading.Event())
        finally:
            seats.close()


def cluster_pairs(client: Client, first: EngineSpec, second: EngineSpec,
                  settings: Settings) -> Iterator[list[GameRecord]]:
    """Every pair's games, in pair order, played on the cluster's workers."""
    openings = shuffled_openings(settings)
    remote = replace(settings, scheduler=None, jobs=1)
    engines = client.scatter([first, second], broadcast=True, hash=False)
    run = uuid.uuid4().hex[:8]
    futures = [client.submit(play_remote_pair, engines[0], engines[1], remote, index,
                             openings[index % len(openings)], pure=False,
                             key=f"chespel-pair-{run}-{index}")
               for index in range(pair_count(settings))]
    try:
        for future in futures:
            yield future.result()
    finally:
        client.cancel([future for future in futures if not future.done()])


def run_cluster_match(first: EngineSpec, second: EngineSpec, settings: Settings,
                      emit: Callable[[str], None],
                      on_game: Callable[[GameRecord], None] | None = None) -> MatchResult:
    """`run_match` with the pairs played on the cluster at `settings.scheduler`."""
    assert settings.scheduler is not None
    client = connect(settings.scheduler)
    try:
        return collect(cluster_pairs(client, first, second, settings), settings, emit, on_game)
    finally:
        client.close()
