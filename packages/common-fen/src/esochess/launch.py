"""Console-script entry points: quiet, well-defined deaths for every esochess command.

A command imports python-chess, lark, click and its own pipeline before it can handle
Ctrl-C itself (about 0.2 s). A KeyboardInterrupt raised by those imports would print a
Python traceback, so the scripts start here, in a module that imports nothing heavy, and
import the real `main` inside a `try`. This module is deliberately outside `esochess.fen`,
whose package import loads python-chess.

How a command ends when it is stopped from outside (the same for all five):

- Ctrl-C (SIGINT): exit 130, the command's own message if it prints one.
- SIGTERM: raised as `Terminated`, a KeyboardInterrupt, so every `finally` block and
  every Ctrl-C path runs (temporary files are removed, pools shut down); nothing more is
  printed on stderr and the exit status is 143. A second SIGTERM during that clean-up is
  ignored; SIGKILL remains the way to stop a process at once. A command that swallowed
  `Terminated` (raised inside a `__del__`, say) gets it again after 3 s and, if still
  running after 10 s, leaves with 143 without further clean-up.
- A closed stdout (`cql … | head -1`): exit 1 without a message, as click and the Python
  documentation's recipe do (stdout is pointed at /dev/null so the final flush is silent).
"""

from __future__ import annotations

import importlib  # already loaded by the interpreter itself: nothing to wait for
import os
import signal
import sys
import time
from types import FrameType

#: The exit status of a process ended by SIGINT, as the commands use it themselves.
EXIT_INTERRUPTED = 130
#: The exit status of a process ended by SIGTERM.
EXIT_TERMINATED = 143
#: The exit status when the reader of stdout went away.
EXIT_BROKEN_PIPE = 1


class Terminated(KeyboardInterrupt):
    """SIGTERM arrived: raised like Ctrl-C so that clean-up code runs."""


_terminated_in: int | None = None  # the pid that received SIGTERM, if any


def terminated() -> bool:
    """Whether this process has received SIGTERM."""
    return _terminated_in == os.getpid()


def _on_sigterm(signum: int, frame: FrameType | None) -> None:
    global _terminated_in
    if _handler_pid != os.getpid():
        # A forked child that inherited the handler dies as SIGTERM means by default.
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        os.kill(os.getpid(), signal.SIGTERM)
        return
    if _terminated_in is not None:
        if _raise_again:
            _stop_raising_again()
            raise Terminated
        return  # already stopping: let the clean-up finish
    _terminated_in = os.getpid()
    # Quiet from here on: what click or a command would say about an interruption is
    # not wanted when the process was told to stop.
    sys.stderr = open(os.devnull, "w")  # noqa: SIM115 - lives until the process exits
    _start_watchdog()
    raise Terminated


#: Seconds after SIGTERM before `Terminated` is raised a second time, then before the
#: process ends itself with SIGTERM's default action.
RAISE_AGAIN_AFTER = 3.0
GIVE_UP_AFTER = 10.0
_raise_again = False


def _stop_raising_again() -> None:
    global _raise_again
    _raise_again = False


def _start_watchdog() -> None:
    # A signal handler's exception surfaces at whatever bytecode runs next; when that is a
    # __del__ or a weakref callback, Python swallows it and the command would wait for
    # ever with SIGTERM ignored. So: raise once more after a while, and in the end leave
    # with status 143 at once (pool workers follow through their parent-death signal).
    # That last step cannot restore SIGTERM's default action and signal this process
    # again: only the main thread may call signal.signal, and this is not it.
    import threading

    main = threading.main_thread().ident

    def watch() -> None:
        global _raise_again
        time.sleep(RAISE_AGAIN_AFTER)
        if main is not None:
            _raise_again = True
            signal.pthread_kill(main, signal.SIGTERM)
        time.sleep(GIVE_UP_AFTER - RAISE_AGAIN_AFTER)
        os._exit(EXIT_TERMINATED)

    threading.Thread(target=watch, name="esochess-sigterm-watchdog", daemon=True).start()


_handler_pid: int | None = None


def handle_sigterm() -> None:
    """Raise `Terminated` in the main thread when SIGTERM arrives (main thread only)."""
    global _handler_pid
    _handler_pid = os.getpid()
    signal.signal(signal.SIGTERM, _on_sigterm)


def _quiet_stdout() -> None:
    # The reader is gone: send whatever is still buffered to /dev/null so that the
    # interpreter's final flush does not complain.
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):
        pass


def _interrupted() -> int:
    return EXIT_TERMINATED if terminated() else EXIT_INTERRUPTED


def run(module: str, attr: str = "main") -> object:
    """Import `module`, then call its `attr`, ending as the module's docstring says."""
    handle_sigterm()
    try:
        try:
            entry = getattr(importlib.import_module(module), attr)
        except KeyboardInterrupt:
            return _interrupted()
        try:
            return entry()
        except SystemExit as exc:
            if terminated():
                return EXIT_TERMINATED
            raise exc from None
        except KeyboardInterrupt:
            return _interrupted()
        except BrokenPipeError:
            _quiet_stdout()
            return EXIT_BROKEN_PIPE
    except KeyboardInterrupt:  # a SIGTERM or Ctrl-C while ending, after the above
        return _interrupted()


def esochess() -> object:
    """`esochess`: the umbrella command."""
    return run("esochess.fen.cli")


def chazz() -> object:
    """`chazz`: the CHAZZ interpreter."""
    return run("esochess.chazz.cli")


def chespel() -> object:
    """`chespel`: the Chespel compiler."""
    return run("esochess.chespel.cli")


def gambit() -> object:
    """`gambit`: the Gambit interpreter."""
    return run("esochess.gambit.cli")


def cql() -> object:
    """`cql`: the CQL query engine."""
    return run("esochess.cqlvars.cli")
