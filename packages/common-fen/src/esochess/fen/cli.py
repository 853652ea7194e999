"""The umbrella `esochess` command and its `fen` subcommands.

Language front ends plug in through the entry-point group `esochess.commands`, so this
core never imports them: `esochess chazz …` loads `esochess.chazz` only when used.
"""

from __future__ import annotations

import sys
from importlib.metadata import EntryPoint, entry_points

import chess
import click

from esochess.fen.cliutil import CONTEXT_SETTINGS, ToolError, version_option
from esochess.fen.diagnostics import SourceError, format_diagnostic
from esochess.fen.exitcodes import ExitCode
from esochess.fen.fen import parse_fen
from esochess.fen.files import OutputError, write_atomic
from esochess.fen.grid import Grid, parse_grid
from esochess.fen.render import RENDERERS

ENTRY_POINT_GROUP = "esochess.commands"


class PluginGroup(click.Group):
    """A click group whose subcommands are the `esochess.commands` entry points."""

    def _entry_points(self) -> dict[str, EntryPoint]:
        return {ep.name: ep for ep in entry_points(group=ENTRY_POINT_GROUP)}

    def list_commands(self, ctx: click.Context) -> list[str]:
        """List the installed front ends' commands, sorted."""
        return sorted(set(super().list_commands(ctx)) | set(self._entry_points()))

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        """Load a subcommand's module only when it is asked for."""
        command = super().get_command(ctx, cmd_name)
        if command is not None:
            return command
        ep = self._entry_points().get(cmd_name)
        if ep is None:
            return None
        loaded = ep.load()
        if not isinstance(loaded, click.Command):
            raise click.ClickException(f"entry point {ep.value!r} is not a click command")
        return loaded

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """List the subcommands without importing the front ends that are not loaded yet.

        Loading all of them (python-chess, lark and each pipeline) only to print one line
        each made `esochess --help` take half a second; such a command's line is its
        package's one-line summary instead.
        """
        names = self.list_commands(ctx)
        if not names:
            return
        limit = formatter.width - 6 - max(len(name) for name in names)
        eps = self._entry_points()
        rows: list[tuple[str, str]] = []
        for name in names:
            ep = eps.get(name)
            if name not in self.commands and ep is not None and ep.module not in sys.modules:
                summary = _package_summary(ep)
                if summary:
                    short = click.Command(name, help=summary).get_short_help_str(limit)
                    rows.append((name, short))
                    continue
            command = self.get_command(ctx, name)
            if command is not None and not command.hidden:
                rows.append((name, command.get_short_help_str(limit)))
        with formatter.section("Commands"):
            formatter.write_dl(rows)


def _package_summary(ep: EntryPoint) -> str | None:
    """The one-line summary of the distribution that declares `ep`, if it has one."""
    dist = ep.dist
    if dist is None:
        return None
    summary: str | None = dist.metadata["Summary"]  # None when the field is missing
    return summary.strip() or None if summary else None


@click.group(cls=PluginGroup, context_settings=CONTEXT_SETTINGS)
@version_option("esochess", "esochess-fen")
def main() -> None:
    """esochess: one toolchain for four chess languages (CHAZZ, Chespel, Gambit, CQL).

    Each language is a subcommand; `esochess COMMAND --help` explains it.
    """


def _fail(error: SourceError) -> None:
    click.echo(format_diagnostic(error), err=True)
    sys.exit(ExitCode.FAILURE)


def _read(words: tuple[str, ...], grid: bool) -> chess.Board | Grid:
    # A FEN may be passed as one quoted argument or as its separate fields; as in
    # python-chess, the fields after the placement may be left out.
    text = " ".join(words)
    try:
        if grid:
            return parse_grid(text, path="<fen>")
        return parse_fen(text, path="<fen>", min_fields=1)
    except SourceError as error:
        _fail(error)
        raise  # unreachable: _fail exits


@click.group("fen", context_settings=CONTEXT_SETTINGS)
def fen_group() -> None:
    """Check and draw chess positions (FEN) and CHAZZ grids."""


@fen_group.command("show")
@click.argument("fen", nargs=-1, required=True)
@click.option(
    "--format",
    "fmt",
    type=click.Choice(sorted(RENDERERS)),
    default="ascii",
    show_default=True,
    help="How to draw the board.",
)
@click.option(
    "-o", "--output", metavar="FILE", help="Write to FILE instead of stdout."
)
@click.option("--grid", is_flag=True, help="Read a permissive CHAZZ grid instead of a strict FEN.")
def show(fen: tuple[str, ...], fmt: str, output: str | None, grid: bool) -> None:
    """Draw the position FEN (quoted, or as separate fields; the fields after the
    placement may be left out: White to move, no castling, clocks 0 1)."""
    drawing = RENDERERS[fmt](_read(fen, grid))
    if not drawing.endswith("\n"):
        drawing += "\n"
    if output is None:
        click.echo(drawing, nl=False)
        return
    try:
        write_atomic(output, drawing)
    except OutputError as error:
        raise ToolError(str(error), ExitCode.FAILURE) from None


@fen_group.command("check")
@click.argument("fen", nargs=-1, required=True)
@click.option("--grid", is_flag=True, help="Check a permissive CHAZZ grid instead of a strict FEN.")
def check(fen: tuple[str, ...], grid: bool) -> None:
    """Exit 0 if FEN is a valid position; otherwise print where it is wrong and exit 1.

    As for `show`, the fields after the placement may be left out."""
    _read(fen, grid)
