"""launch: the console scripts start in a light module and exit quietly on early Ctrl-C."""

from __future__ import annotations

import importlib.metadata
import importlib.util
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from child_processes import finish

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
    _, err = finish(proc, 30)
    assert proc.returncode == launch.EXIT_INTERRUPTED
    assert err == ""


def _start(tmp_path: Path, module_text: str, module: str = "slow_cli") -> subprocess.Popen[str]:
    (tmp_path / f"{module}.py").write_text(module_text)
    code = (
        "import signal, sys; signal.signal(signal.SIGINT, signal.default_int_handler)\n"
        f"from esochess import launch; sys.exit(launch.run({module!r}))"
    )
    return subprocess.Popen(
        [sys.executable, "-c", code], cwd=tmp_path, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, text=True,
        env={"PYTHONPATH": str(tmp_path), "PATH": "/usr/bin:/bin"},
    )


def test_exit_statuses_agree_with_the_shared_enum() -> None:
    from esochess.fen.exitcodes import ExitCode

    assert launch.EXIT_INTERRUPTED == ExitCode.INTERRUPTED
    assert launch.EXIT_TERMINATED == ExitCode.TERMINATED
    assert launch.EXIT_BROKEN_PIPE == ExitCode.FAILURE
    assert issubclass(launch.Terminated, KeyboardInterrupt)


def test_sigterm_while_writing_exits_143_quietly_and_leaves_no_temporary(tmp_path: Path) -> None:
    out = tmp_path / "out"
    out.mkdir()
    proc = _start(tmp_path, (
        "import time\nfrom esochess.fen.files import open_output\n"
        "def main():\n"
        "    with open_output('out/result.pgn', text=True) as handle:\n"
        "        handle.write('partial')\n"
        "        print('writing', flush=True)\n"
        "        time.sleep(60)\n"
    ))
    assert proc.stdout is not None
    assert proc.stdout.readline() == "writing\n"
    assert len(list(out.iterdir())) == 1  # the temporary file exists while writing
    proc.send_signal(signal.SIGTERM)
    _, err = finish(proc, 30)
    assert proc.returncode == launch.EXIT_TERMINATED
    assert err == ""
    assert list(out.iterdir()) == []


def test_sigterm_in_a_click_command_does_not_say_aborted(tmp_path: Path) -> None:
    proc = _start(tmp_path, (
        "import time, click\n"
        "@click.command()\n"
        "def main():\n"
        "    click.echo('running')\n"
        "    time.sleep(60)\n"
    ))
    assert proc.stdout is not None
    assert proc.stdout.readline() == "running\n"
    proc.send_signal(signal.SIGTERM)
    _, err = finish(proc, 30)
    assert (proc.returncode, err) == (launch.EXIT_TERMINATED, "")


def test_a_closed_stdout_ends_quietly(tmp_path: Path) -> None:
    (tmp_path / "chatty_cli.py").write_text(
        "import sys\ndef main():\n    while True:\n        sys.stdout.write('x' * 4096 + '\\n')\n"
    )
    code = "import sys; from esochess import launch; sys.exit(launch.run('chatty_cli'))"
    proc = subprocess.Popen(
        [sys.executable, "-c", code], cwd=tmp_path, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, env={"PYTHONPATH": str(tmp_path), "PATH": "/usr/bin:/bin"},
    )
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.read(10)
    proc.stdout.close()
    err = proc.stderr.read()
    assert proc.wait(timeout=30) == launch.EXIT_BROKEN_PIPE
    assert err == b""


SWALLOWS_THE_FIRST = """
import sys, time
from esochess import launch
launch.handle_sigterm()
try:
    try:
        print("ready", flush=True)
        while True:
            time.sleep(0.02)
    except KeyboardInterrupt:
        pass  # lost, as Python loses an exception raised inside a __del__
    while True:
        time.sleep(0.02)
except KeyboardInterrupt:
    sys.exit(143)
"""


def test_a_swallowed_sigterm_is_raised_again_instead_of_hanging() -> None:
    proc = subprocess.Popen([sys.executable, "-c", SWALLOWS_THE_FIRST],
                            stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None and proc.stdout.readline() == "ready\n"
    proc.send_signal(signal.SIGTERM)
    # Raised again after RAISE_AGAIN_AFTER seconds; the generous bound only guards a hang.
    assert proc.wait(timeout=60) == 143


SWALLOWS_EVERY_ONE = """
import time
def main():
    print("ready", flush=True)
    while True:
        try:
            time.sleep(0.02)
        except KeyboardInterrupt:
            pass  # every Terminated lost: only the watchdog's last step ends the process
"""


def test_a_sigterm_swallowed_every_time_still_ends_the_process_with_143(tmp_path: Path) -> None:
    # The last step runs on the watchdog thread, which may not call signal.signal: it
    # used to die there with a ValueError nobody saw, and the process ran on for ever.
    # (A Terminated that lands between the loop's `try`s reaches launch.run, which also
    # exits 143: that is the path of a real command.)
    (tmp_path / "swallowing_cli.py").write_text(SWALLOWS_EVERY_ONE)
    code = ("import sys; from esochess import launch; "
            "launch.RAISE_AGAIN_AFTER, launch.GIVE_UP_AFTER = 0.2, 0.5; "
            "sys.exit(launch.run('swallowing_cli'))")
    proc = subprocess.Popen([sys.executable, "-c", code], cwd=tmp_path, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True,
                            env={"PYTHONPATH": str(tmp_path), "PATH": "/usr/bin:/bin"})
    assert proc.stdout is not None and proc.stdout.readline() == "ready\n"
    proc.send_signal(signal.SIGTERM)
    _, err = finish(proc, 30)
    assert (proc.returncode, err) == (launch.EXIT_TERMINATED, "")
