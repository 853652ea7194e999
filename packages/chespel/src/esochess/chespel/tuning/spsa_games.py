"""`chespel spsa`'s games: each iteration's pair played by two engines running the program
at θ+ and at θ− (docs/reference/chespel.md#spsa).

The two programs are written to a temporary folder for the pair and run as `chespel uci`
processes, one pair of engines per game pair, as `chespel match` plays a pair. Engines are
tracked so that a stopped run (Ctrl-C, an error in another pair) ends every game at once
instead of waiting for it.
"""

from __future__ import annotations

import tempfile
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from esochess.chespel import ast
from esochess.chespel.frontend import compile_source
from esochess.chespel.match import EngineSpec, MatchError, Seats, Settings, play_pair_on
from esochess.chespel.tuning.spsa import (
    Group,
    Pairing,
    SpsaError,
    SpsaSettings,
    find_groups,
    moves,
    optimise,
    program_for,
    table,
)
from esochess.fen.files import write_atomic


@dataclass(frozen=True)
class SpsaResult:
    """The multipliers found, the program written with them and its table."""

    theta: tuple[float, ...]
    source: str
    table: list[str]


class GamePlayer:
    """Plays pairings on engines of the variants written to `folder`; `stop` ends the games
    in play at once (their engines are stopped) and starts no more."""

    def __init__(self, path: str, text: str, groups: Sequence[Group], settings: SpsaSettings,
                 folder: str) -> None:
        self.stem, self.text, self.groups = Path(path).stem, text, groups
        self.settings, self.folder = settings, folder
        self.stopped = threading.Event()
        self.lock = threading.Lock()
        self.seats: set[Seats] = set()

    def __call__(self, pairing: Pairing) -> float:
        variants = [Path(self.folder) / f"{self.stem}-{pairing.iteration}-{side}.chp"
                    for side in ("plus", "minus")]
        for variant, theta in zip(variants, (pairing.plus, pairing.minus), strict=True):
            write_atomic(variant, program_for(self.text, self.groups, theta))
        specs = [EngineSpec.parse(str(variant)) for variant in variants]
        match = Settings(games=2, nodes=self.settings.nodes, max_plies=self.settings.max_plies,
                         openings=(pairing.opening,), jobs=1)
        seats = Seats(specs[0], specs[1], None)
        with self.lock:
            if self.stopped.is_set():
                raise MatchError("the run was stopped")
            self.seats.add(seats)
        try:
            records = play_pair_on(seats, 0, pairing.opening, match, self.stopped)
        finally:
            seats.close()
            with self.lock:
                self.seats.discard(seats)
            for variant in variants:
                variant.unlink(missing_ok=True)
        if len(records) != 2:
            raise MatchError("the run was stopped")
        return sum(record.score() for record in records) / 2

    def stop(self) -> None:
        """End every game in play."""
        with self.lock:
            self.stopped.set()
            seats = list(self.seats)
        for one in seats:
            one.close()


def spsa(path: str, text: str, program: ast.Program, settings: SpsaSettings,
         progress: Callable[[str], None]) -> SpsaResult:
    """Tune `program` (source `text`, read from `path`) by play; the result has been checked."""
    groups = find_groups(program, settings.freeze)
    if not groups:
        raise SpsaError(f"{path} has no score number to tune" +
                        (" outside the frozen rules" if settings.freeze else ""))
    began = time.monotonic()
    shown = 0

    def report(theta: tuple[float, ...], done: int) -> None:
        nonlocal shown
        if done - shown >= 10 or done == settings.iterations:
            shown = done
            progress(moves(groups, theta, done, settings.iterations, time.monotonic() - began))

    with tempfile.TemporaryDirectory(prefix="chespel-spsa-") as folder:
        player = GamePlayer(path, text, groups, settings, folder)
        theta = optimise(len(groups), settings, player, report, player.stop)
    source = program_for(text, groups, theta)
    check = compile_source(path, source)
    if not check.ok:
        raise SpsaError("the rewritten program does not check: " + str(check.errors[0]))
    return SpsaResult(theta, source, table(groups, theta))
