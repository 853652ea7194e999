"""The five commands as one product: -h/--help, one --version line, one wording and one
exit status for files they cannot read, help text on every option (run as real processes
through the console scripts, and walked as click commands)."""

from __future__ import annotations

import importlib
import re
import subprocess
import sys
from pathlib import Path

import chess
import click
import pytest

BIN = Path(sys.executable).parent
TOOLS = {
    "esochess": "esochess.fen.cli",
    "chazz": "esochess.chazz.cli",
    "chespel": "esochess.chespel.cli",
    "gambit": "esochess.gambit.cli",
    "cql": "esochess.cqlvars.cli",
}
VERSION = re.compile(r"^(\S+) (\d+\.\d+\S*) \(python-chess (\S+)\)\n\Z")


def run(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(BIN / args[0]), *args[1:]], capture_output=True, text=True, timeout=120,
        cwd=cwd, stdin=subprocess.DEVNULL,
    )


@pytest.mark.parametrize("tool", sorted(TOOLS))
def test_version_line(tool: str) -> None:
    result = run(tool, "--version")
    assert result.returncode == 0
    match = VERSION.match(result.stdout)
    assert match is not None, result.stdout
    assert match[1] == tool and match[3] == chess.__version__


@pytest.mark.parametrize("tool", sorted(TOOLS))
def test_short_and_long_help(tool: str) -> None:
    short, long = run(tool, "-h"), run(tool, "--help")
    assert (short.returncode, long.returncode) == (0, 0)
    assert short.stdout == long.stdout and "-h, --help" in long.stdout


def _commands(command: click.Command, path: str) -> list[tuple[str, click.Command]]:
    found = [(path, command)]
    if isinstance(command, click.Group):
        ctx = click.Context(command, info_name=path)
        for name in command.list_commands(ctx):
            sub = command.get_command(ctx, name)
            if sub is not None and name == sub.name:  # an alias is listed once
                found += _commands(sub, f"{path} {name}")
    return found


ALL_COMMANDS = [
    pair
    for tool, module in sorted(TOOLS.items())
    if tool != "esochess"  # its subcommands are the other tools (and `fen`, walked below)
    for pair in _commands(importlib.import_module(module).main, tool)
] + _commands(importlib.import_module("esochess.fen.cli").fen_group, "esochess fen")


@pytest.mark.parametrize(("path", "command"), ALL_COMMANDS, ids=[p for p, _ in ALL_COMMANDS])
def test_every_option_has_help_and_h_works(path: str, command: click.Command) -> None:
    missing = [
        "/".join(p.opts) for p in command.params
        if isinstance(p, click.Option) and not p.hidden and not (p.help or "").strip()
    ]
    assert missing == []
    result = run(*path.split(), "-h")
    assert result.returncode == 0 and "Usage:" in result.stdout, result.stderr


def test_chespel_lists_run_once_with_repl_as_its_alias() -> None:
    listing = run("chespel", "-h").stdout.split("Commands:")[1]
    names = [line.split()[0] for line in listing.splitlines() if line.strip()]
    assert "run" in names and "repl" not in names
    assert run("chespel", "repl", "-h").stdout.replace("repl", "run") == run(
        "chespel", "run", "-h"
    ).stdout.replace("repl", "run")


# The commands that read one named file, and how to ask each to read PATH.
READERS = {
    "chazz from-bf": lambda path: ("chazz", "from-bf", path),
    "chespel check": lambda path: ("chespel", "check", path),
    "chespel build": lambda path: ("chespel", "build", path, "-o", "engine"),
    "gambit check": lambda path: ("gambit", "check", path),
    "gambit run": lambda path: ("gambit", "run", path),
    "cql": lambda path: ("cql", "-o", "out.pgn", path, "games.pgn"),
}


@pytest.mark.parametrize("reader", sorted(READERS))
@pytest.mark.parametrize(("name", "reason"), [("missing.x", "no such file"), (".", "is a directory")])
def test_one_wording_for_a_file_that_cannot_be_read(
    tmp_path: Path, reader: str, name: str, reason: str
) -> None:
    (tmp_path / "games.pgn").write_text("")
    args = READERS[reader](name)
    result = run(*args, cwd=tmp_path)
    assert result.returncode == 2
    assert result.stderr.splitlines()[0] == f"{args[0]}: error: cannot read {name}: {reason}"
    assert "Traceback" not in result.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["games.pgn"]


def test_chazz_keeps_the_reference_lines_then_the_shared_wording(tmp_path: Path) -> None:
    result = run("chazz", "missing.fen", cwd=tmp_path)
    assert (result.returncode, result.stdout) == (1, "")
    assert result.stderr.splitlines() == [
        "Could not open file: No such file or directory",
        "Failed to read FEN file",
        "chazz: error: cannot read missing.fen: no such file",
    ]
