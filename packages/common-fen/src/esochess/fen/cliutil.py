"""What makes the five commands (`esochess`, `chazz`, `chespel`, `gambit`, `cql`) one
product on the command line.

- `CONTEXT_SETTINGS`: `-h` as well as `--help`. Subcommands inherit it from their group.
- `version_option(prog, package)`: `--version` printing `NAME VERSION (python-chess X)`.
- `InputFile`: a click argument type for a file the command reads. A missing file, a
  directory or a file that cannot be read are refused before anything runs, with the
  one wording every tool uses (`TOOL: error: cannot read PATH: no such file`, exit 2);
  `file_problem` and `read_reason` give the same words to code that checks later.
"""

from __future__ import annotations

import errno
import os
import sys
from collections.abc import Callable
from typing import IO, TYPE_CHECKING, Any, TypeVar

import chess
import click

from esochess.fen.exitcodes import ExitCode
from esochess.fen.files import read_reason

F = TypeVar("F", bound=Callable[..., Any])

#: click settings for every command and group: `-h` as well as `--help`.
CONTEXT_SETTINGS: dict[str, Any] = {"help_option_names": ["-h", "--help"]}

def file_problem(path: str) -> str | None:
    """The shared message for a file that cannot be read (`cannot read PATH: REASON`),
    or None when it can be opened for reading."""
    if os.path.isdir(path):
        return f"cannot read {path}: {read_reason(IsADirectoryError(errno.EISDIR, ''))}"
    try:
        with open(path, "rb"):
            pass
    except OSError as exc:
        return f"cannot read {path}: {read_reason(exc)}"
    return None


def program_name(ctx: click.Context | None = None) -> str:
    """The name of the command being run (`cql`, `chespel`, `esochess`)."""
    ctx = ctx or click.get_current_context(silent=True)
    name = ctx.find_root().info_name if ctx is not None else os.path.basename(sys.argv[0])
    # `chazz from-bf` makes its own root context named after both words.
    return (name or "esochess").split(" ", 1)[0]


class ToolError(click.ClickException):
    """`TOOL: error: MESSAGE` on stderr and an `ExitCode`, without click's usage lines."""

    def __init__(self, message: str, code: ExitCode = ExitCode.USAGE) -> None:
        super().__init__(message)
        # click declares exit_code on the class; each error carries its own here.
        setattr(self, "exit_code", int(code))  # noqa: B010
        self.program = program_name()  # raised inside the command: its context is current

    def show(self, file: IO[Any] | None = None) -> None:
        """Print the one-line message on stderr."""
        click.echo(f"{self.program}: error: {self.message}", err=True, file=file)


# click made ParamType generic only recently; subscript it for the type checker alone.
if TYPE_CHECKING:
    _StrParam = click.ParamType[str]
else:
    _StrParam = click.ParamType


class InputFile(_StrParam):
    """A file to read: the value stays a `str`; `-` (stdin) is accepted with `allow_dash`."""

    name = "file"

    def __init__(self, *, allow_dash: bool = False) -> None:
        self.allow_dash = allow_dash

    def convert(
        self, value: Any, param: click.Parameter | None, ctx: click.Context | None
    ) -> str:
        """Check that `value` names a readable file; raise `ToolError` otherwise."""
        path = str(os.fspath(value))
        if self.allow_dash and path == "-":
            return path
        problem = file_problem(path)
        if problem is not None:
            raise ToolError(problem, ExitCode.USAGE)
        return path


def version_option(prog: str, package: str) -> Callable[[F], F]:
    """`--version` as every esochess command prints it: `NAME VERSION (python-chess X)`.

    The installed version is looked up only when `--version` is given: importlib.metadata
    (with email and zipfile) is not worth loading at every start-up.
    """

    def show(ctx: click.Context, param: click.Parameter, value: bool) -> None:
        if not value or ctx.resilient_parsing:
            return
        from importlib.metadata import PackageNotFoundError, version

        try:
            number = version(package)
        except PackageNotFoundError:  # a source tree without installed metadata
            number = "unknown"
        click.echo(f"{prog} {number} (python-chess {chess.__version__})", color=ctx.color)
        ctx.exit()

    return click.option(
        "--version",
        is_flag=True,
        expose_value=False,
        is_eager=True,
        callback=show,
        help="Show the version and exit.",
    )
