"""The `chazz` command (docs/reference/chazz.md#command-line) and `esochess chazz from-bf`: the only
layer that prints or exits."""

from __future__ import annotations

import os
import sys
import webbrowser
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO

import click

from esochess.chazz.brainfuck import TranslationError, translate
from esochess.chazz.engines import ENGINES, Engine, run
from esochess.chazz.html import DEFAULT_HTML, export_html
from esochess.chazz.loader import LoadError, load_program
from esochess.chazz.runtime import FLUSH_AT, LoopError, MachineIO, StepLimitReached
from esochess.fen import OutputError, SourceError, format_diagnostic, write_atomic
from esochess.fen.cliutil import CONTEXT_SETTINGS, InputFile, ToolError, version_option
from esochess.fen.exitcodes import ExitCode
from esochess.fen.files import read_reason

USAGE = "Usage: chazz <filename> [true|false]"


class _StdoutGone(Exception):
    """stdout was closed by the reader (a pipe into `head`, say)."""


def _writer(stream: BinaryIO) -> Any:
    def write(data: bytes | bytearray) -> None:
        try:
            stream.write(data)
            stream.flush()
        except BrokenPipeError as exc:
            raise _StdoutGone from exc

    return write


def _reader(stream: BinaryIO) -> Any:
    def read_byte() -> int:
        data = stream.read(1)
        return data[0] if data else -1

    return read_byte


def _error_lines(*lines: str) -> None:
    for line in lines:
        click.echo(line, err=True)


def _should_open(choice: bool | None) -> bool:
    if choice is not None:
        return choice
    return sys.stdin.isatty() and sys.stdout.isatty()


def _open_in_browser(path: str) -> None:
    try:
        webbrowser.open(Path(path).resolve().as_uri())
    # docs/reference/chazz.md#command-line: failing to open a browser is silent.
    except Exception:  # noqa: BLE001
        return


class _ChazzCommand(click.Command):
    """`chazz FILE …`, with `from-bf …` as a sub-command when it is the first word."""

    def make_context(
        self,
        info_name: str | None,
        args: list[str],
        parent: click.Context | None = None,
        **extra: Any,
    ) -> click.Context:
        """Hand `from-bf …` to its own command; everything else is a program to run."""
        if args and args[0] == "from-bf":
            name = f"{info_name} from-bf" if info_name else "from-bf"
            return from_bf.make_context(name, args[1:], parent=parent, **extra)
        return super().make_context(info_name, args, parent=parent, **extra)

    def invoke(self, ctx: click.Context) -> Any:
        """Run the command the context was made for."""
        if ctx.command is not self:
            return ctx.command.invoke(ctx)
        return super().invoke(ctx)


@click.command(
    "chazz",
    cls=_ChazzCommand,
    context_settings=CONTEXT_SETTINGS,
    epilog="Also: `chazz from-bf PROG.b [-o OUT.fen]` translates brainfuck to CHAZZ.",
)
@version_option("chazz", "esochess-chazz")
@click.argument("args", nargs=-1, metavar="FILE [FLAG]")
@click.option("--html", "html_path", metavar="PATH", help="Export the HTML board to PATH.")
@click.option(
    "--open/--no-open",
    "open_browser",
    default=None,
    help="Open the HTML board in a browser (default: only when stdin and stdout are terminals).",
)
@click.option("--trace", is_flag=True, help="Write one line per executed instruction to stderr.")
@click.option(
    "--max-steps",
    type=click.IntRange(min=0),
    metavar="N",
    help="Stop with exit status 1 after N executed instructions.",
)
@click.option(
    "--engine",
    type=click.Choice(ENGINES),
    default="compiler",
    show_default=True,
    help="The optimising compiler or the literal reference interpreter.",
)
@click.option("--no-prompt", is_flag=True, help="Do not print the `r` input prompt.")
def main(
    args: tuple[str, ...],
    html_path: str | None,
    open_browser: bool | None,
    trace: bool,
    max_steps: int | None,
    engine: Engine,
    no_prompt: bool,
) -> None:
    """Run the CHAZZ program in FILE: a FEN board whose pieces are instructions.

    FLAG `true` exports the board as output_chess_board.html (reference behaviour);
    further arguments are ignored. Exit status: 0, or 1 for a program that cannot be
    loaded or fails (a loop error, the step limit), 2 for a wrong option, 130 on Ctrl-C.
    """
    if not args:
        _error_lines(USAGE)
        sys.exit(ExitCode.FAILURE)
    options = _Options(html_path, open_browser, trace, max_steps, engine, no_prompt)
    stdout = sys.stdout.buffer
    try:
        code = _run(args, options, stdout)
    except KeyboardInterrupt:
        code = ExitCode.INTERRUPTED
    except _StdoutGone:
        # Nobody reads our output any more; leave quietly (and keep Python from
        # complaining about the closed pipe when it flushes at exit).
        os.dup2(os.open(os.devnull, os.O_WRONLY), stdout.fileno())
        code = ExitCode.FAILURE
    sys.exit(code)


@dataclass(frozen=True)
class _Options:
    """The options of one `chazz` run."""

    html_path: str | None
    open_browser: bool | None
    trace: bool
    max_steps: int | None
    engine: Engine
    no_prompt: bool


def _load_error(exc: LoadError) -> None:
    # The reference's lines first (scripts may match them), then the precise diagnostic.
    _error_lines(*exc.lines)
    match exc.detail:
        case SourceError() as error:
            _error_lines(format_diagnostic(error))
        case None:
            pass
        case unreadable:
            _error_lines(f"chazz: error: {unreadable}")


def _html_error(exc: OutputError) -> None:
    reason = os.strerror(exc.errno) if exc.errno else exc.reason
    _error_lines(f"Could not open HTML file for writing: {reason}", f"chazz: error: {exc}")


def _run(args: tuple[str, ...], options: _Options, stdout: BinaryIO) -> int:
    try:
        grid = load_program(args[0])
    except LoadError as exc:
        _load_error(exc)
        return ExitCode.FAILURE
    if options.html_path is not None or (len(args) > 1 and args[1] == "true"):
        target = options.html_path if options.html_path is not None else DEFAULT_HTML
        try:
            export_html(grid, target, inputs=[args[0]])
        except OutputError as exc:
            _html_error(exc)
        else:
            if _should_open(options.open_browser):
                _open_in_browser(target)
    stderr = sys.stderr
    io = MachineIO(
        write=_writer(stdout),
        read_byte=_reader(sys.stdin.buffer),
        prompt=not options.no_prompt,
        trace=(lambda line: stderr.write(line + "\n")) if options.trace else None,
        interactive=sys.stdin.isatty(),
        flush_at=1 if stdout.isatty() else FLUSH_AT,
    )
    write = io.write
    try:
        run(grid, io, engine=options.engine, max_steps=options.max_steps)
    except LoopError as exc:
        write(exc.message)
        return ExitCode.FAILURE
    except StepLimitReached as exc:
        stderr.flush()
        _error_lines(f"chazz: error: step limit {exc.limit} reached")
        return ExitCode.FAILURE
    finally:
        stderr.flush()
    write(b"\n")
    return ExitCode.OK


@click.command("from-bf", context_settings=CONTEXT_SETTINGS)
@click.argument("source", metavar="PROG.b", type=InputFile())
@click.option("-o", "--output", metavar="OUT.fen", help="Write the board here (default: stdout).")
def from_bf(source: str, output: str | None) -> None:
    """Translate the brainfuck program PROG.b into a CHAZZ board.

    Exit status: 0, 1 when the program does not fit a board or OUT.fen cannot be
    written, 2 for an unreadable PROG.b or unmatched brackets.
    """
    try:
        text = Path(source).read_bytes().decode("latin-1")
    except OSError as exc:  # vanished or unreadable since the argument was checked
        raise ToolError(f"cannot read {source}: {read_reason(exc)}") from None
    try:
        board = translate(text, path=source)
    except SourceError as exc:
        _error_lines(format_diagnostic(exc, text))
        sys.exit(ExitCode.USAGE)
    except TranslationError as exc:
        raise ToolError(f"{source}: {exc}", ExitCode.FAILURE) from None
    if output is None:
        click.echo(board)
        return
    try:
        write_atomic(output, board + "\n", inputs=[source])
    except OutputError as exc:
        raise ToolError(str(exc), ExitCode.FAILURE) from None
