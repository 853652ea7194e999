"""The `cql` command (docs/reference/cql.md#command-line): thin click wrapper around engine.py.

This is the only module that prints or exits.
"""

from __future__ import annotations

import os
import re
import sys
import time
import traceback
from typing import IO, Any, NoReturn

import click

from esochess.cqlvars import cqldb, distributed, pgnio, ranges
from esochess.cqlvars.checker import name_problem
from esochess.cqlvars.engine import (
    CompiledQuery,
    GameOutcome,
    RunOptions,
    compile_query,
)
from esochess.cqlvars.output import output_file, statistics_line
from esochess.cqlvars.parallel import EngineWorker, QueryJob, default_jobs
from esochess.cqlvars.progress import Progress
from esochess.cqlvars.runs import evaluate
from esochess.fen import SourceError, files, format_diagnostic
from esochess.fen.cliutil import CONTEXT_SETTINGS, version_option
from esochess.fen.exitcodes import ExitCode

USAGE = "usage: cql [OPTIONS] QUERY.cql [PGN ...]"
RANGE_RE = re.compile(r"([0-9]+)(?:-([0-9]*))?")


def usage_error(message: str) -> NoReturn:
    """Print `cql: error: MESSAGE` plus the usage line and exit 2
    (docs/reference/cql.md#diagnostics)."""
    click.echo(f"cql: error: {message}\n{USAGE}", err=True)
    sys.exit(2)


def parse_range(text: str, option: str, minimum: int = 1) -> tuple[int, int | None]:
    """`N`, `LO-HI` or `LO-` (docs/reference/cql.md#command-line); a bad range is a usage error."""
    m = RANGE_RE.fullmatch(text.strip())
    if not m:
        usage_error(f"invalid {option} range {text!r}")
    low = int(m.group(1))
    if m.group(2) is None:
        high: int | None = low
    elif m.group(2) == "":
        high = None
    else:
        high = int(m.group(2))
    if low < minimum or (high is not None and high < low):
        usage_error(f"invalid {option} range {text!r}")
    return low, high


def _check_inputs(paths: list[str]) -> None:
    """A missing or unreadable input is a usage error, before any work
    (docs/reference/cql.md#exit-statuses)."""
    for path in paths:
        try:
            pgnio.check_readable(path)
        except pgnio.InputError as exc:
            usage_error(f"cannot read {exc}")
        if cqldb.is_index(path):
            try:
                cqldb.check(path)
            except pgnio.InputError as exc:
                usage_error(str(exc))


class _WithIndex(click.Command):
    """`cql QUERY.cql …`, and `cql index DB.cqldb GAMES…` (the `index` command)."""

    def main(  # type: ignore[override]  # click's overloads: the same arguments, passed on
        self, args: Any = None, prog_name: str | None = None, **extra: Any
    ) -> Any:
        """Hand `cql index …` to the index command."""
        argv = list(sys.argv[1:] if args is None else args)
        if argv[:1] == ["index"]:
            return index_main.main(argv[1:], prog_name="cql index", **extra)
        return super().main(argv, prog_name=prog_name, **extra)


@click.command(
    "cql",
    cls=_WithIndex,
    context_settings=CONTEXT_SETTINGS,
    help="Run a CQL query over PGN files (or index databases made by `cql index`) and "
    "write the matching games.",
)
@click.argument("query")  # read by files.read_source: its errors use the shared wording
@click.argument("pgn", nargs=-1)
@click.option(
    "-o", "--output", "output",
    help="Output PGN file ('-' for stdout; default: the query's `output`, else "
    "QUERY-out.pgn in the current directory).",
)  # fmt: skip
@click.option("--gamenumber", help="Examine only games N, LO-HI or LO-.")
@click.option("--matchcount", help="Required number of matched positions: N, LO-HI or LO-.")
@click.option("-j", "--jobs", type=int, default=None, help="Number of worker processes.")
@click.option("--progress", is_flag=True, help="Show progress on stderr.")
@click.option("--scheduler", metavar="ADDRESS", help="Run on a Dask cluster (tcp://HOST:PORT).")
@click.option(
    "--worker-wait", type=click.FloatRange(min=0.1), default=distributed.WORKER_WAIT,
    metavar="SECONDS", show_default=True,
    help="With --scheduler: give up (exit 3) after this long without any worker.",
)
@click.option(
    "--shared-input", is_flag=True,
    help="With --scheduler: the workers read the plain PGN files themselves, at the same "
    "absolute paths (a shared filesystem), instead of this process sending them the games.",
)
@click.option(
    "--split-size", type=click.IntRange(min=1), default=None, metavar="BYTES",
    help=f"With --shared-input: bytes of input per worker task (default {ranges.SPLIT_SIZE}).",
)
@click.option("--quiet", is_flag=True, help="Suppress the automatic match comment.")
@click.option("--silent", is_flag=True, help="Suppress every comment cql adds.")
@click.option("--alwayscomment", is_flag=True,
              help="Keep comments even where the filter that made them did not match.")
@click.option("--variations", is_flag=True, help="Positions inside variations are in scope.")
@click.option("--limit", type=int, default=None, help="Stop after the first N matching games.")
@click.option("-a", "--assign", "assigns", multiple=True, help="Pre-bind NAME=VALUE.")
@version_option("cql", "esochess-cqlvars")
def main(
    query: str,
    pgn: tuple[str, ...],
    output: str | None,
    gamenumber: str | None,
    matchcount: str | None,
    jobs: int | None,
    progress: bool,
    scheduler: str | None,
    worker_wait: float,
    shared_input: bool,
    split_size: int | None,
    quiet: bool,
    silent: bool,
    alwayscomment: bool,
    variations: bool,
    limit: int | None,
    assigns: tuple[str, ...],
) -> None:
    """Entry point of the `cql` console script."""
    if shared_input and scheduler is None:
        usage_error("--shared-input needs --scheduler")
    if split_size is not None and not shared_input:
        usage_error("--split-size needs --shared-input")
    split = (split_size or ranges.SPLIT_SIZE) if shared_input else None
    try:
        _main(query, pgn, output, gamenumber, matchcount, jobs, quiet, silent, variations,
              limit, assigns, progress, scheduler, worker_wait, alwayscomment,
              split)  # fmt: skip
    except distributed.DistributedError as exc:
        click.echo(f"cql: error: {exc.message}", err=True)
        sys.exit(exc.exit_code)
    except KeyboardInterrupt:
        sys.exit(130)
    except SystemExit:
        raise
    # the last line of defence (docs/reference/cql.md#run-time-errors)
    except Exception as exc:  # noqa: BLE001
        if os.environ.get("CQL_DEBUG") == "1":
            traceback.print_exc()
        click.echo(f"cql: internal error: {exc} (set CQL_DEBUG=1 for a traceback)", err=True)
        sys.exit(1)


def _main(
    query: str,
    pgn: tuple[str, ...],
    output: str | None,
    gamenumber: str | None,
    matchcount: str | None,
    jobs: int | None,
    quiet: bool,
    silent: bool,
    variations: bool,
    limit: int | None,
    assigns: tuple[str, ...],
    progress: bool = False,
    scheduler: str | None = None,
    worker_wait: float = distributed.WORKER_WAIT,
    alwayscomment: bool = False,
    split: int | None = None,
) -> None:
    started = time.monotonic()
    if jobs is not None and jobs < 1:
        usage_error("--jobs must be at least 1")
    if limit is not None and limit < 1:
        usage_error("--limit must be at least 1")
    assignments: dict[str, str] = {}
    for item in assigns:
        name, sep, value = item.partition("=")
        if not sep or not name:
            usage_error(f"--assign expects NAME=VALUE, got {item!r}")
        problem = name_problem(name)
        if problem is not None:
            usage_error(f"--assign {name}: {problem}")
        assignments[name] = value
    try:
        source = files.read_source(query)
    except files.UnreadableFile as exc:
        usage_error(str(exc))
    except SourceError as err:
        click.echo(format_diagnostic(err), err=True)
        sys.exit(2)
    game_range = parse_range(gamenumber, "--gamenumber") if gamenumber else None
    count_range = parse_range(matchcount, "--matchcount") if matchcount else None
    options = RunOptions(quiet=quiet, silent=silent, variations=variations, matchcount=count_range,
                         alwayscomment=alwayscomment)
    try:
        compiled = compile_query(query, source, assignments, options)
    except SourceError as err:
        click.echo(format_diagnostic(err, source), err=True)
        sys.exit(2)
    for warning in compiled.warnings:
        click.echo(format_diagnostic(warning, source), err=True)
    header = compiled.header
    inputs = list(pgn) or list(header.inputs)
    if not inputs:
        usage_error("no PGN input: give PGN files or 'input' in the query header")
    if game_range is None and header.gamenumber is not None:
        game_range = header.gamenumber
    # A file the user did not name with -o is named in the summary line.
    unnamed = output is None
    if output is None:
        output = header.output or os.path.basename(query).removesuffix(".cql") + "-out.pgn"
    workers = jobs if jobs is not None else default_jobs()
    if scheduler is not None:
        if "-" in inputs:
            usage_error("--scheduler cannot be combined with standard input")
        if compiled.reducible_error is not None:
            usage_error(compiled.reducible_error)
        distributed.require_distributed()
        if jobs is not None:
            click.echo("cql: note: --jobs is ignored with --scheduler", err=True)
        workers = 1
    elif compiled.uses_persistent and workers > 1:
        click.echo("cql: note: running in a single process (persistent variables)", err=True)
        workers = 1
    elif "-" in inputs and workers > 1:
        click.echo("cql: note: running in a single process (standard input)", err=True)
        workers = 1
    _check_inputs(inputs)
    if output != "-":
        directory = os.path.dirname(os.path.abspath(output))
        if not os.path.isdir(directory) or not os.access(directory, os.W_OK):
            usage_error(f"cannot write {output}")
    report_to = sys.stderr if output == "-" else sys.stdout
    bar = None
    if progress or sys.stderr.isatty():
        sizes = [pgnio.input_size(path) for path in inputs]
        bar = Progress(sys.stderr, tty=sys.stderr.isatty(), sizes=sizes)
    job = QueryJob(query, source, tuple(assignments.items()), options)
    client = None
    if scheduler is not None:
        client = distributed.connect(scheduler, worker_wait=worker_wait)
    try:
        _run(compiled, job, inputs, workers, client, bar, output, game_range, limit,
             report_to, started, worker_wait, split,
             output if unnamed and output != "-" else None)  # fmt: skip
    finally:
        if client is not None:
            client.close()


def _run(
    compiled: CompiledQuery,
    job: QueryJob,
    inputs: list[str],
    workers: int,
    client: object,
    bar: Progress | None,
    output: str,
    game_range: tuple[int, int | None] | None,
    limit: int | None,
    report_to: IO[str],
    started: float,
    worker_wait: float = distributed.WORKER_WAIT,
    split: int | None = None,
    written_to: str | None = None,
) -> None:
    state = compiled.new_state()
    read = matched = errors = 0
    sorted_output = bool(compiled.header.sort_matchcount or compiled.checked.sorts)
    kept: list[GameOutcome] = []
    first, last = game_range if game_range is not None else (1, None)
    totals: dict[str, int] = {}
    outcomes = evaluate(
        job, inputs, jobs=workers, client=client, first=first, last=last, progress=bar,
        worker=EngineWorker(compiled, state), totals=totals, worker_wait=worker_wait,
        indexed=cqldb.IndexInput(compiled.necessary), shared_input=split is not None,
        split_size=split or ranges.SPLIT_SIZE,
    )

    def emit(line: str, err: bool = False) -> None:
        if bar is not None:
            bar.close()  # erase the progress line first; it repaints on the next tick
        stream = sys.stderr if err else report_to
        stream.write(line + "\n")
        stream.flush()

    try:
        with output_file(output, [path for path in inputs if path != pgnio.STDIN]) as handle:
            for outcome in outcomes:
                read += outcome.games
                for line in outcome.messages:
                    emit(line)
                if outcome.runtime_error is not None:
                    raise outcome.runtime_error
                if outcome.error is not None:
                    errors += 1
                    emit(outcome.error, err=True)
                if outcome.matched and outcome.pgn is not None:
                    matched += 1
                    if sorted_output:
                        kept.append(outcome)
                    else:
                        handle.write(outcome.pgn)
                    if limit is not None and matched >= limit:
                        break
            for outcome in sorted(kept, key=lambda o: o.sort_key):
                assert outcome.pgn is not None
                handle.write(outcome.pgn)
    except SourceError as err:
        emit(format_diagnostic(err, compiled.source), err=True)
        sys.exit(1)
    except pgnio.InputError as exc:
        emit(f"cql: error: {exc}", err=True)
        sys.exit(1)
    except BrokenPipeError:
        # `cql -o - … | head`: the reader left; stop quietly, like other Unix tools.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        sys.exit(ExitCode.FAILURE)
    except files.OutputError as exc:
        click.echo(f"cql: error: {exc}", err=True)
        sys.exit(ExitCode.USAGE if exc.reason == files.ALSO_AN_INPUT else ExitCode.FAILURE)
    except OSError as exc:
        click.echo(f"cql: error: cannot write {output}: {exc.strerror}", err=True)
        sys.exit(ExitCode.FAILURE)
    finally:
        outcomes.close()  # stop outstanding partitions (e.g. after --limit)
    if bar is not None:
        bar.close()
    if client is not None:
        state.add_sums(totals)
    for line in state.persistent_lines():
        emit(line)
    emit(statistics_line(read, matched, errors, time.monotonic() - started, written_to))
    sys.exit(1 if errors else 0)


@click.command(
    "cql index",
    context_settings=CONTEXT_SETTINGS,
    help="Build an index database of PGN files (DB must end in .cqldb), or append the games "
    "to an existing one. `cql QUERY.cql DB.cqldb` then reads only the games the query can "
    "match, with the same output as over the PGN files.",
)
@click.argument("database", metavar="DB.cqldb")
@click.argument("games", nargs=-1, required=True, metavar="PGN...")
def index_main(database: str, games: tuple[str, ...]) -> None:
    """Entry point of `cql index`."""
    started = time.monotonic()
    if not cqldb.is_index(database):
        _index_usage(f"the index database must end in {cqldb.SUFFIX}: {database!r}")
    if pgnio.STDIN in games:
        _index_usage("cql index cannot read standard input")
    for path in games:
        if cqldb.is_index(path):
            _index_usage(f"{path}: an index database cannot be indexed")
        try:
            pgnio.check_readable(path)
        except pgnio.InputError as exc:
            _index_usage(f"cannot read {exc}")
    if os.path.exists(database):
        try:
            cqldb.check(database)
        except pgnio.InputError as exc:
            _index_usage(str(exc))
    try:
        added, total = cqldb.build(database, list(games))
    except pgnio.InputError as exc:
        click.echo(f"cql: error: {exc}", err=True)
        sys.exit(ExitCode.FAILURE)
    except KeyboardInterrupt:
        sys.exit(130)
    click.echo(f"cql index: {added} games added to {database} ({total} in all), "
               f"{time.monotonic() - started:.2f} s")


def _index_usage(message: str) -> NoReturn:
    click.echo(f"cql: error: {message}\nusage: cql index DB.cqldb PGN...", err=True)
    sys.exit(2)
