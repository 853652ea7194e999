"""cliutil: the shared command-line pieces — file wording, version line, -h."""

from __future__ import annotations

import os
from pathlib import Path

import chess
import click
import pytest
from click.testing import CliRunner

from esochess.fen.cliutil import (
    CONTEXT_SETTINGS,
    InputFile,
    ToolError,
    file_problem,
    version_option,
)
from esochess.fen.exitcodes import ExitCode


@click.command("tool", context_settings=CONTEXT_SETTINGS)
@version_option("tool", "esochess-fen")
@click.argument("source", type=InputFile(allow_dash=True))
def tool(source: str) -> None:
    """Read SOURCE."""
    if source == "boom":
        raise ToolError("it went wrong", ExitCode.FAILURE)
    click.echo(source)


def test_file_problems_in_the_shared_wording(tmp_path: Path) -> None:
    (tmp_path / "ok").write_text("x")
    assert file_problem(str(tmp_path / "ok")) is None
    assert file_problem(str(tmp_path / "nope")) == f"cannot read {tmp_path / 'nope'}: no such file"
    assert file_problem(str(tmp_path)) == f"cannot read {tmp_path}: is a directory"
    if os.geteuid() != 0:
        (tmp_path / "secret").write_text("x")
        (tmp_path / "secret").chmod(0)
        assert file_problem(str(tmp_path / "secret")).endswith(": permission denied")  # type: ignore[union-attr]


def test_input_file_refuses_before_running(tmp_path: Path) -> None:
    result = CliRunner().invoke(tool, [str(tmp_path / "nope")])
    assert (result.exit_code, result.stderr) == (
        ExitCode.USAGE, f"tool: error: cannot read {tmp_path / 'nope'}: no such file\n"
    )
    assert CliRunner().invoke(tool, ["-"]).stdout == "-\n"


def test_version_and_help_options() -> None:
    version = CliRunner().invoke(tool, ["--version"])
    assert version.stdout == f"tool 0.1.0 (python-chess {chess.__version__})\n"
    assert CliRunner().invoke(tool, ["-h"]).stdout == CliRunner().invoke(tool, ["--help"]).stdout


def test_tool_error_names_the_command(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "boom").write_text("")
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(tool, ["boom"])
    assert (result.exit_code, result.stderr) == (1, "tool: error: it went wrong\n")
