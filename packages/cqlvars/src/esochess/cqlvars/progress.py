"""The progress indicator of docs/cql.md#parallel-and-compressed-input: one self-overwriting stderr
line, or a line every 5 s.

```
[#######.............]  4512/12902 games  35%  231 games/s  ETA 0:36
```

The fraction done comes from the game count once the boundary scan has found every game,
and before that from how far the scan has read into the input files (bytes on disk, so it
works for compressed input too). With neither (standard input), only the count and rate show.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TextIO

BAR_WIDTH = 20
TTY_INTERVAL = 0.1  # at most 10 refreshes a second
PLAIN_INTERVAL = 5.0  # a plain line every 5 s when stderr is not a terminal


@dataclass(frozen=True)
class Snapshot:
    """The figures one progress line shows."""

    games: int
    matches: int
    elapsed: float
    total: int | None = None
    fraction: float | None = None


def format_duration(seconds: float) -> str:
    """`H:MM:SS` above an hour, else `M:SS` (the ETA format of
    docs/cql.md#parallel-and-compressed-input)."""
    whole = max(0, int(round(seconds)))
    hours, rest = divmod(whole, 3600)
    minutes, secs = divmod(rest, 60)
    if hours:
        return f"{hours}:{minutes:02d}:{secs:02d}"
    return f"{minutes}:{secs:02d}"


def render(snap: Snapshot) -> str:
    """Return the progress line for `snap` (no carriage return, no newline)."""
    rate = snap.games / snap.elapsed if snap.elapsed > 0 else 0.0
    fraction = snap.fraction
    if snap.total:
        fraction = min(1.0, snap.games / snap.total)
    count = f"{snap.games}/{snap.total} games" if snap.total else f"{snap.games} games"
    tail = f"{count}  {snap.matches} matched  {rate:.0f} games/s"
    if fraction is None:
        return tail
    filled = round(fraction * BAR_WIDTH)
    bar = "[" + "#" * filled + "." * (BAR_WIDTH - filled) + "]"
    line = f"{bar}  {count}  {fraction * 100:.0f}%  {rate:.0f} games/s"
    # Below 0.1 % done the estimate is noise (and can overflow): show no ETA yet.
    if 0.001 <= fraction < 1 and snap.elapsed > 0:
        line += f"  ETA {format_duration(snap.elapsed * (1 - fraction) / fraction)}"
    return f"{line}  {snap.matches} matched"


class Progress:
    """Counts finished games and repaints the indicator on `stream` when it is due.

    `sizes` are the input files' sizes on disk (None for stdin), used for the fraction
    before the total is known. Nothing below the CLI creates one unless asked to.
    """

    def __init__(
        self,
        stream: TextIO,
        *,
        tty: bool,
        sizes: Sequence[int | None] = (),
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.stream = stream
        self.tty = tty
        self.clock = clock
        self.start = clock()
        self.games = 0
        self.matches = 0
        self.total: int | None = None
        self._sizes = list(sizes)
        self._known = bool(self._sizes) and all(s is not None for s in self._sizes)
        self._all_bytes = sum(s or 0 for s in self._sizes)
        self._done_bytes = 0
        self._last_paint = self.start
        self._painted = False
        self._width = 0

    def game(self, matched: bool, games: int = 1) -> None:
        """Record a finished game (or a run of `games` games an index ruled out) and
        repaint if the interval has passed."""
        self.games += games
        if matched:
            self.matches += 1
        self.tick()

    def reached(self, file_index: int, position: int) -> None:
        """Record that games up to byte `position` of input file `file_index` are done."""
        if self._known:
            before = sum(s or 0 for s in self._sizes[:file_index])
            self._done_bytes = max(self._done_bytes, before + position)

    def scan_finished(self, total: int) -> None:
        """The boundary scan has found every game: show `done/total` from now on."""
        self.total = total

    def snapshot(self) -> Snapshot:
        """The current figures."""
        fraction = None
        if self._known and self._all_bytes > 0:
            fraction = min(1.0, self._done_bytes / self._all_bytes)
        return Snapshot(self.games, self.matches, self.clock() - self.start, self.total, fraction)

    def tick(self) -> None:
        """Repaint when due: every 0.1 s on a terminal, every 5 s otherwise."""
        now = self.clock()
        if now - self._last_paint < (TTY_INTERVAL if self.tty else PLAIN_INTERVAL):
            return
        self._last_paint = now
        line = render(self.snapshot())
        if self.tty:
            pad = " " * max(0, self._width - len(line))
            self.stream.write("\r" + line + pad)
            self._width = len(line)
            self._painted = True
        else:
            self.stream.write("cql: progress: " + line + "\n")
        self.stream.flush()

    def close(self) -> None:
        """Erase the line (terminal only) so the final output starts on a clean line."""
        if self.tty and self._painted:
            self.stream.write("\r" + " " * self._width + "\r")
            self.stream.flush()
            self._painted = False
