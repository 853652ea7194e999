"""The suite's own helper for waiting on children: a hung child is killed, not left behind."""

from __future__ import annotations

import subprocess
import sys

import pytest
from child_processes import finish


def test_a_child_that_ends_gives_its_output() -> None:
    proc = subprocess.Popen([sys.executable, "-c", "print('hi')"], stdout=subprocess.PIPE)
    assert finish(proc, 60) == (b"hi\n", None)


def test_a_hung_child_is_killed_and_reaped_before_the_test_fails() -> None:
    proc = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    with pytest.raises(AssertionError, match="was killed"):
        finish(proc, 0.5)
    assert proc.returncode is not None
