"""Waiting for a child process a test started, without leaving it behind.

`Popen.communicate(timeout=...)` raises on a time-out and leaves the child running: a test
that fails that way (a loaded machine, a real hang) would leave an orphan that keeps
spinning after the suite. `finish` kills and reaps it first, then fails the test.
"""

from __future__ import annotations

import subprocess
from typing import Any


def finish(proc: subprocess.Popen[Any], timeout: float) -> tuple[Any, Any]:
    """`proc.communicate(timeout=timeout)`; on a time-out the child is killed and reaped
    and the test fails with what it had written."""
    try:
        return proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        out, err = proc.communicate()
        raise AssertionError(
            f"{proc.args!r} still ran after {timeout} s and was killed; "
            f"stdout {out!r:.300}, stderr {err!r:.300}") from None
