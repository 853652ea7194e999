"""The exit statuses every esochess command uses, in one place."""

from __future__ import annotations

from enum import IntEnum


class ExitCode(IntEnum):
    """Process exit statuses shared by `esochess`, `chazz`, `chespel`, `gambit` and `cql`.

    0–2 mean the same in every tool; 3 and above are documented per tool; 70, 130 and
    143 follow the usual Unix conventions. A closed stdout (`cql … | head -1`) ends a
    command quietly with FAILURE, as click and Python's own recipe do (`esochess.launch`).
    """

    OK = 0
    #: The user's program failed at run time, or bad data was met.
    FAILURE = 1
    #: A usage mistake or a compile error: nothing ran.
    USAGE = 2
    #: cql, chespel match: the cluster could not be reached or lost its workers.
    CLUSTER = 3
    #: gambit: the input ran out while a human seat was asked to choose.
    INPUT_ENDED = 4
    #: gambit: a replayed record does not fit the program.
    REPLAY = 5
    #: A defect in esochess itself (EX_SOFTWARE), never a user's mistake.
    INTERNAL = 70
    #: Stopped by SIGINT (Ctrl-C).
    INTERRUPTED = 130
    #: Stopped by SIGTERM.
    TERMINATED = 143
