"""launch: the console scripts start in a light module and exit quietly on early Ctrl-C."""

from __future__ import annotations

import importlib.metadata
import importlib.util
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from esochess import launch

COMMANDS = {
    "esochess": "esochess.fen.cli",
    "chazz": "esochess.chazz.cli",
    "chespel": "esochess.chespel.cli",
    "gambit": "esochess.gambit.cli",
    "cql": "esochess.cqlvars.cli",
}


@pytest.mark.parametrize(("command", "module"), sorted(COMMANDS.items()))
def test_every_script_goes_through_the_launcher(command: str, module: str) -> None:
    scripts = importlib.metadata.entry_points(group="console_scripts")
    (entry,) = [e for e in scripts if e.name == command]
    assert entry.value == f"esochess.launch:{command}"
    assert importlib.util.find_spec(module) is not None
    assert callable(importlib.import_module(module).main)


def test_run_calls_main_of_the_module(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "fake_cli.py").write_text("def main():\n    return 7\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    assert launch.run("fake_cli") == 7


def test_ctrl_c_during_the_import_exits_130_without_a_traceback(tmp_path: Path) -> None:
    # The module says it is importing, then waits; SIGINT arrives inside the import.
    (tmp_path / "slow_cli.py").write_text(
        "import sys, time\nprint('importing', flush=True)\ntime.sleep(30)\n"
        "def main():\n    return 0\n"
    )
    # The handler is set explicitly: a parent that ignores SIGINT (a background job) would
    # otherwise pass that on, and Python then keeps it ignored.
    code = (
        "import signal, sys; signal.signal(signal.SIGINT, signal.default_int_handler)\n"
        "from esochess import launch; sys.exit(launch.run('slow_cli'))"
    )
    proc = subprocess.Popen(
        [sys.executable, "-c", code], cwd=tmp_path, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, text=True,
        env={"PYTHONPATH": str(tmp_path), "PATH": "/usr/bin:/bin"},
    )
    assert proc.stdout is not None
    assert proc.stdout.readline() == "importing\n"
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=30)
    assert proc.returncode == launch.EXIT_INTERRUPTED
    assert err == ""
