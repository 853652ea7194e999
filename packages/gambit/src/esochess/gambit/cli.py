"""The `gambit` command line (docs/reference/gambit.md#command-line): check and run Gambit programs.

This is the only layer that prints or exits. Exit codes (docs/reference/gambit.md#exit-statuses): 0
ok, 1 run-time error, 2 usage or compile error, 4 human input ended, 5 replay error, 70 internal
error, 130 interrupted.
"""

from __future__ import annotations

import os
import secrets
import sys
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import Any, NoReturn, TypeVar

import click

from esochess.fen import SourceError, files, format_diagnostic
from esochess.fen.cliutil import CONTEXT_SETTINGS, ToolError, version_option
from esochess.fen.exitcodes import ExitCode
from esochess.gambit.frontend import ENGINES, compile_source
from esochess.gambit.program import Program
from esochess.gambit.replay import Record

EXIT_COMPILE = ExitCode.USAGE
EXIT_INTERNAL = ExitCode.INTERNAL
EXIT_INTERRUPTED = ExitCode.INTERRUPTED
EXTENSIONS = (".gmb", ".gambit")

F = TypeVar("F", bound=Callable[..., Any])


def _usage(message: str) -> NoReturn:
    raise click.UsageError(message)


def resolve_file(arg: str) -> Path:
    """The program file for a FILE argument (docs/reference/gambit.md#command-line), or a usage
    error."""
    path = Path(arg)
    if path.is_dir():
        raise ToolError(f"cannot read {arg}: is a directory")
    if path.suffix == "" and not path.exists():
        for ext in EXTENSIONS:
            candidate = Path(arg + ext)
            if candidate.exists():
                return candidate
        raise ToolError(f"cannot read {arg}: no such file (also tried {arg}.gmb and {arg}.gambit)")
    if not path.exists():
        raise ToolError(f"cannot read {arg}: no such file")
    if path.suffix not in EXTENSIONS:
        _usage(f"'{arg}' is not a Gambit program: the file name must end in .gmb or .gambit")
    return path


def read_source(path: Path) -> str:
    """The file's text; a usage error if it cannot be read, exit 2 if it is not UTF-8."""
    try:
        return files.read_source(path)
    except files.UnreadableFile as err:
        raise ToolError(str(err)) from None
    except SourceError as err:
        click.echo(format_diagnostic(err), err=True)
        sys.exit(EXIT_COMPILE)


def load(arg: str, engine: str = "compiled") -> tuple[Program, str, str]:
    """Check a program: print diagnostics to stderr; exit 2 when there are errors."""
    path = resolve_file(arg)
    source = read_source(path)
    program, diags = compile_source(source, arg, engine)
    text = source.lstrip("\ufeff")
    for d in diags:
        click.echo(format_diagnostic(d, text), err=True)
    if program is None:
        sys.exit(EXIT_COMPILE)
    return program, arg, text


def guarded(f: F) -> F:
    """Turn interpreter bugs into exit 70 and Ctrl-C into exit 130
    (docs/reference/gambit.md#run-time-errors)."""

    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return f(*args, **kwargs)
        except (click.exceptions.Exit, click.ClickException, SystemExit):
            raise
        except KeyboardInterrupt:
            click.echo("interrupted", err=True)
            sys.exit(EXIT_INTERRUPTED)
        except BrokenPipeError:
            # `gambit run … | head`: the reader left; stop quietly (no flush to the pipe).
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
            sys.exit(1)
        except Exception as exc:  # noqa: BLE001 - the last line of defence
            click.echo(f"gambit: internal error: {exc} (please report this)", err=True)
            if os.environ.get("GAMBIT_DEBUG") == "1":
                click.echo(traceback.format_exc(), err=True)
            sys.exit(EXIT_INTERNAL)

    wrapper.__name__ = f.__name__
    wrapper.__doc__ = f.__doc__
    return wrapper  # type: ignore[return-value]


@click.group("gambit", context_settings=CONTEXT_SETTINGS)
@version_option("gambit", "esochess-gambit")
def main() -> None:
    """Gambit: check and play games written in the Gambit language."""


@main.command()
@click.argument("file")
@guarded
def check(file: str) -> None:
    """Check FILE for errors without running it (exit 0 when it is clean)."""
    load(file)


engine_option = click.option(
    "--engine", type=click.Choice(ENGINES), default="compiled", show_default=True,
    help="compiled: the program as generated Python; interpreter: the reference engine.",
)


@main.command("compile")
@click.argument("file")
@click.option("--emit-python", is_flag=True, help="Print the Python source the program became.")
@guarded
def compile_command(file: str, emit_python: bool) -> None:
    """Check FILE and compile it to Python (exit 0 when it compiles)."""
    program, _, _ = load(file)
    if emit_python:
        click.echo(program.python(), nl=False)


@main.command()
@click.argument("file")
@click.option("--players", "players_text", metavar="LIST",
              help="Controllers per seat: human, random, mcts or mcts:N (comma-separated).")
@click.option("--seed", type=click.IntRange(min=0), help="Seed of the chance RNG.")
@click.option("--record", "record_path", metavar="F", help="Write the game's record file to F.")
@click.option("--replay", "replay_path", metavar="F", help="Replay the record file F.")
@click.option("--input", "input_file", type=click.File("rb"), help="Read human input from a file.")
@click.option("--trace", is_flag=True, help="Trace the real execution on stderr.")
@click.option("--quiet", is_flag=True, help="No AI or replay echo lines.")
@click.option("--hash", "show_hash", is_flag=True, help="Print the final state hash.")
@click.option("--max-decisions", type=click.IntRange(min=1), help="End the game after N decisions.")
@engine_option
@guarded
def run(
    file: str, players_text: str | None, seed: int | None, record_path: str | None,
    replay_path: str | None, input_file: Any, trace: bool, quiet: bool, show_hash: bool,
    max_decisions: int | None, engine: str,
) -> None:  # fmt: skip
    """Check FILE and play one game (human players by default)."""
    from esochess.gambit.players import parse_players
    from esochess.gambit.session import RunConfig, StreamConsole, run_game

    if record_path is not None:
        directory = os.path.dirname(os.path.abspath(record_path))
        if not os.path.isdir(directory):  # say so now, not after the whole game
            raise ToolError(f"cannot write {record_path}: no such directory")
    program, name, _ = load(file, engine)
    low, high = program.players_range
    record = None
    if replay_path is not None:
        if seed is not None or players_text is not None:
            _usage("--replay takes the seed and the players from the record file; "
                   "do not combine it with --seed or --players")
        record = load_record(replay_path)
        seed = record.seed
        players_text = ",".join(record.players)
    try:
        specs = parse_players(players_text) if players_text else []
    except ValueError as err:
        _usage(str(err))
    seats = low
    if len(specs) > 1:
        if not low <= len(specs) <= high:
            want = str(low) if low == high else f"{low} to {high}"
            _usage(f"--players lists {len(specs)} controllers, but the game has {want} seats")
        seats = len(specs)
    if not specs:
        specs = parse_players("human")
    if len(specs) == 1:
        specs = specs * seats
    if seed is None:
        seed = secrets.randbits(32)
    inp = input_file if input_file is not None else sys.stdin.buffer
    echo = not (hasattr(inp, "isatty") and inp.isatty())
    console = StreamConsole(sys.stdout, sys.stderr, inp, name, echo)
    config = RunConfig(
        program=program, program_name=name, seats=seats, seed=seed, players=specs,
        trace=trace, quiet=quiet, show_hash=show_hash, max_decisions=max_decisions,
        record_path=record_path, replay=record,
    )  # fmt: skip
    report = run_game(config, console)
    sys.stdout.flush()
    if report.message:
        click.echo(report.message, err=True)
    sys.exit(report.exit_code)


def load_record(path: str) -> Record:
    """Read a `--replay` record file; a missing or malformed one is a usage error."""
    from esochess.gambit.replay import RecordFormatError, parse_record

    try:
        text = files.read_source(path)
    except files.UnreadableFile as err:
        raise ToolError(str(err)) from None
    except SourceError as err:
        _usage(f"record file {err.path}:{err.line}:{err.column}: {err.message}")
    try:
        return parse_record(text, path)
    except RecordFormatError as err:
        _usage(str(err))


def seat_count(program: Program, seats: int | None) -> int:
    """The player count for playout/moves: `--seats` within `players A..B`, default A."""
    low, high = program.players_range
    if seats is None:
        return low
    if not low <= seats <= high:
        want = str(low) if low == high else f"{low} to {high}"
        _usage(f"--seats {seats}: the game has {want} seats")
    return seats


@main.command()
@click.argument("file")
@click.option("-n", "games", type=click.IntRange(min=1), required=True, help="Number of games.")
@click.option("--seed", type=click.IntRange(min=0), default=0, show_default=True,
              help="Seed of game 1; game i uses SEED + i - 1.")
@click.option("--seats", type=click.IntRange(min=1), help="Player count for 'players A..B'.")
@click.option("--max-decisions", type=click.IntRange(min=1), default=10_000, show_default=True,
              help="End a game after N decisions (no result).")
@click.option("--progress", is_flag=True, help="Show progress on stderr even when not a terminal.")
@click.option("--jobs", type=click.IntRange(min=1), default=1, show_default=True,
              help="Play the games in N processes (the summary is the same for any N).")
@engine_option
@guarded
def playout(
    file: str, games: int, seed: int, seats: int | None, max_decisions: int, progress: bool,
    jobs: int, engine: str,
) -> None:
    """Play N silent games with random players and print a summary."""
    from esochess.gambit.session import playout as run_playouts

    program, _, _ = load(file, engine)
    count = seat_count(program, seats)
    show = progress or sys.stderr.isatty()

    def tick(done: int, total: int) -> None:
        if done == total or done % max(1, total // 100) == 0:
            click.echo(f"\rplayout: {done}/{total} games", err=True, nl=done == total)

    stats, report = run_playouts(
        program, games, seed, count, max_decisions, tick if show else None, jobs
    )
    if report.exit_code != 0:
        if show:
            click.echo("", err=True)
        click.echo(report.message, err=True)
        sys.exit(report.exit_code)
    click.echo("\n".join(stats.lines()))


@main.command()
@click.argument("file")
@click.option("--seed", type=click.IntRange(min=0), default=0, show_default=True,
              help="Seed of the chance RNG.")
@click.option("--seats", type=click.IntRange(min=1), help="Player count for 'players A..B'.")
@click.option("--after", "after_text", metavar="LIST", default="",
              help="Option indices to replay first, e.g. 5,1,3+4 (+ joins a choose[K]).")
@engine_option
@guarded
def moves(file: str, seed: int, seats: int | None, after_text: str, engine: str) -> None:
    """Show the pending decision and its legal options after --after."""
    from esochess.gambit.game import parse_after
    from esochess.gambit.session import EXIT_REPLAY, pending_moves

    program, _, _ = load(file, engine)
    count = seat_count(program, seats)
    try:
        after = parse_after(after_text)
    except ValueError:
        click.echo(f"gambit: error: invalid --after list '{after_text}' "
                   "(use option indices like 5,1,3+4)", err=True)  # fmt: skip
        sys.exit(EXIT_REPLAY)
    report = pending_moves(program, seed, count, after)
    if report.exit_code != 0:
        click.echo(report.message, err=True)
        sys.exit(report.exit_code)
    click.echo(report.message)
