"""`chespel` starts without the tuner's numerical libraries: numpy and scipy cost about
half a second of imports, and only `chespel tune` needs them."""

from __future__ import annotations

import subprocess
import sys

from child_processes import finish

PROBE = ("import sys, esochess.chespel.cli; "
         "print(sorted(m for m in ('numpy', 'scipy', 'esochess.chespel.tuning.tune') "
         "if m in sys.modules))")


def test_the_cli_imports_no_tuner() -> None:
    proc = subprocess.Popen([sys.executable, "-c", PROBE], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    out, err = finish(proc, 60)
    assert proc.returncode == 0, err
    assert out.strip() == "[]"
