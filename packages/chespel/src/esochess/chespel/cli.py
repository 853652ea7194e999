"""The `chespel` command (also `esochess chespel`): thin click layer over the front end.

Subcommands read a program with `load_program`, which prints the diagnostics of
docs/reference/chespel.md#diagnostics on standard error and exits 2 when the program has errors or
cannot be read (docs/reference/chespel.md#command-line). This is the only module that prints or
exits.
"""

from __future__ import annotations

import dataclasses
import sys
from contextlib import ExitStack
from typing import Literal

import click

from esochess.chespel.ablate import ablate, table
from esochess.chespel.build import (
    SHEBANG,
    BuildError,
    archive_bytes,
    default_output,
    read_book,
    write_executable,
)
from esochess.chespel.cluster import ClusterError, run_cluster_match
from esochess.chespel.codegen import CodegenError, generate_checked, load
from esochess.chespel.cost import SAMPLE, cost_report, rule_costs
from esochess.chespel.frontend import CheckResult, compile_source, format_report
from esochess.chespel.match import (
    EngineSpec,
    GameRecord,
    MatchError,
    Settings,
    game_pgn,
    parse_tc,
    read_openings,
    run_match,
)
from esochess.chespel.runtime.evaluation import Program
from esochess.chespel.runtime.main import run_repl, run_uci
from esochess.chespel.runtime.positions import FenError, parse_fen
from esochess.chespel.runtime.repl import Repl
from esochess.chespel.runtime.values import ChespelRuntimeError
from esochess.chespel.stats import MODELS, Model, Sprt
from esochess.fen import SourceError, files, format_diagnostic
from esochess.fen.cliutil import CONTEXT_SETTINGS, InputFile, version_option
from esochess.fen.exitcodes import ExitCode
from esochess.fen.suggest import with_suggestion

EXIT_RUNTIME = ExitCode.FAILURE
EXIT_USAGE = ExitCode.USAGE


def read_source(path: str) -> str:
    """Read a program file, or exit 2: `chespel: error: cannot read FILE: REASON`, or the
    position of its first byte that is not UTF-8."""
    try:
        return files.read_source(path)
    except files.UnreadableFile as exc:
        click.echo(f"chespel: error: {exc}", err=True)
    except SourceError as err:
        click.echo(format_diagnostic(err), err=True)
    sys.exit(EXIT_USAGE)


def load_program(path: str) -> CheckResult:
    """Read and check `path`; print its diagnostics; exit 2 if it has errors."""
    result = compile_source(path, read_source(path))
    report = format_report(result)
    if report:
        click.echo(report, err=True)
    if not result.ok:
        sys.exit(EXIT_USAGE)
    return result


class _Commands(click.Group):
    """The subcommands; `repl` is another name for `run`, not listed separately."""

    ALIASES = {"repl": "run"}

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        return super().get_command(ctx, self.ALIASES.get(cmd_name, cmd_name))

    def resolve_command(self, ctx: click.Context, args: list[str],
                        ) -> tuple[str | None, click.Command | None, list[str]]:
        name, command, rest = super().resolve_command(ctx, args)
        return (command.name if command is not None else name), command, rest

    def invoke(self, ctx: click.Context) -> object:
        # click would turn Ctrl-C into "Aborted!" and exit 1; like every esochess command,
        # a stopped chespel command exits 130 (143 for SIGTERM, set by esochess.launch)
        # once its own clean-up (engines, pools, temporary files) has run.
        try:
            return super().invoke(ctx)
        except KeyboardInterrupt:
            click.echo("chespel: interrupted", err=True)
            sys.exit(ExitCode.INTERRUPTED)


@click.group("chespel", cls=_Commands, context_settings=CONTEXT_SETTINGS)
@version_option("chespel", "esochess-chespel")
def main() -> None:
    """Chespel: chess evaluation rules compiled into a chess engine."""


@main.command()
@click.argument("file", type=InputFile())
def check(file: str) -> None:
    """Check FILE.chp and print only its diagnostics (exit 0 when it has no error)."""
    load_program(file)


def generated_source(file: str) -> str:
    """The generated Python module of FILE (exit 2 on compile errors or implementation limits)."""
    result = load_program(file)
    try:
        return generate_checked(result)
    except CodegenError as exc:
        click.echo(f"chespel: error: {file}: program too complex to compile ({exc})", err=True)
        sys.exit(EXIT_USAGE)


def compiled(file: str) -> Program:
    """FILE compiled in memory, ready to run."""
    return Program.from_module(load(generated_source(file), file))


@main.command()
@click.argument("file", type=InputFile())
@click.option("-o", "output", metavar="NAME", help="Executable to write (default: FILE without .chp).")
@click.option("--book", "book_file", type=InputFile(), metavar="FILE.bin",
              help="A Polyglot opening book to build into the engine (the program's own "
                   "opening rules still come first).")
def build(file: str, output: str | None, book_file: str | None) -> None:
    """Compile FILE.chp into a self-contained executable engine."""
    source = generated_source(file)
    target = output or default_output(file)
    try:
        write_executable(source, target, inputs=[file],
                         book=read_book(book_file) if book_file else None)
    except BuildError as exc:
        click.echo(f"chespel: error: {exc}", err=True)
        sys.exit(EXIT_USAGE)
    click.echo(f"wrote {target}")


@main.command(name="eval")
@click.argument("file", type=InputFile())
@click.argument("fen", nargs=-1)
@click.option("-v", "verbose", is_flag=True, help="Also print the justification lines.")
@click.option("--cost", is_flag=True,
              help="Print the CPU time of each rule per evaluation, over FEN or a built-in "
                   "set of positions.")
def eval_command(file: str, fen: tuple[str, ...], verbose: bool, cost: bool) -> None:
    """Print what the engine prints for `eval [v] FEN` (exit 1 on a bad FEN or run-time error)."""
    if not fen and not cost:
        raise click.UsageError("missing argument 'FEN...'")
    program = compiled(file)
    if cost:
        sys.exit(print_costs(program, " ".join(fen)))
    repl = Repl(program, sys.stdin, sys.stdout)
    text = " ".join(fen)
    repl.command("eval", f"v {text}" if verbose else text, "")
    sys.exit(EXIT_RUNTIME if repl.failures else ExitCode.OK)


def print_costs(program: Program, text: str) -> int:
    """`eval --cost`: the rule costs over one FEN (or the built-in set); the exit status."""
    try:
        boards = [parse_fen(text)] if text else [parse_fen(f) for f in SAMPLE]
        costs, total = rule_costs(program, boards)
    except FenError as exc:
        click.echo(f"error: invalid FEN: {exc}")
        return EXIT_RUNTIME
    except ChespelRuntimeError as exc:
        click.echo(exc.render(program.source_path))
        return EXIT_RUNTIME
    for line in cost_report(costs, total, len(boards)):
        click.echo(line)
    return 0


@main.command(name="run")
@click.argument("file", type=InputFile())
def run_command(file: str) -> None:
    """Run the engine's REPL on FILE.chp without building it (alias: repl)."""
    program = compiled(file)
    sys.exit(run_repl(program, sys.stdin, sys.stdout, sys.stdin.isatty()))



@main.command()
@click.argument("file", type=InputFile())
def uci(file: str) -> None:
    """Run FILE.chp as a UCI engine, like `./NAME --uci`."""
    sys.exit(run_uci(compiled(file), sys.stdin, sys.stdout))


@main.command()
@click.argument("first")
@click.argument("second")
@click.option("--games", default=10, show_default=True, type=click.IntRange(1),
              help="How many games (colours alternate).")
@click.option("--movetime", default=1.0, show_default=True, type=click.FloatRange(0.01),
              help="Seconds per move, without --tc.")
@click.option("--tc", metavar="BASE+INC", help="Real clocks, in seconds.")
@click.option("--depth", type=click.IntRange(1, 64), help="Fixed search depth.")
@click.option("--nodes", type=click.IntRange(1),
              help="Fixed node count per move (UCI `go nodes`): the same games on any "
                   "machine and at any load. With --depth, whichever is reached first.")
@click.option("--openings", "openings_file", type=InputFile(),
              help="Openings: one per line (moves from the start position, a FEN or an EPD "
                   "line), or a .pgn file whose games' main lines are the openings. Each "
                   "opening is played twice, colours reversed.")
@click.option("--seed", type=int, help="Shuffle the openings with this seed.")
@click.option("--max-plies", default=300, show_default=True, type=click.IntRange(1),
              help="Adjudicate a draw after this many half-moves.")
@click.option("--jobs", default=1, show_default=True, type=click.IntRange(1),
              help="Games played at once, each on its own engine processes.")
@click.option("--sprt", "sprt_text", metavar="ELO0,ELO1[,ALPHA,BETA]",
              help="Stop as soon as the SPRT accepts Elo=ELO0 or Elo=ELO1 (alpha and beta "
                   "0.05 by default); --games is then the limit.")
@click.option("--sprt-model", type=click.Choice(MODELS), default="pentanomial",
              show_default=True, help="Count game pairs (pentanomial) or single games.")
@click.option("--pgn", "pgn_file", metavar="FILE",
              help="Write the games here, with move times, clocks and the termination.")
@click.option("--scheduler", metavar="ADDRESS",
              help="Play the game pairs on this Dask cluster (tcp://HOST:PORT); .chp engines "
                   "are built and shipped to the workers. --jobs is then ignored.")
def match(first: str, second: str, games: int, movetime: float, tc: str | None,
          depth: int | None, nodes: int | None, openings_file: str | None, seed: int | None,
          max_plies: int,
          jobs: int, sprt_text: str | None, sprt_model: Model, pgn_file: str | None,
          scheduler: str | None) -> None:
    """Play a match between two engines: FILE.chp or uci:COMMAND[;OPTION=VALUE]...."""
    sources = {engine: generated_source(engine) for engine in (first, second)
               if not engine.startswith("uci:")}
    try:
        sprt = Sprt.parse(sprt_text, sprt_model) if sprt_text else None
    except ValueError as exc:
        click.echo(f"chespel: error: {exc}", err=True)
        sys.exit(EXIT_USAGE)
    try:
        # A .chp engine is built once here and run from its built file, locally or on the
        # cluster's workers.
        engines = [EngineSpec.parse(name).built(SHEBANG + archive_bytes(sources[name]))
                   if name in sources else EngineSpec.parse(name) for name in (first, second)]
        settings = Settings(
            games=games, movetime=movetime, tc=parse_tc(tc) if tc else None, depth=depth,
            nodes=nodes, max_plies=max_plies, seed=seed, jobs=jobs, sprt=sprt, scheduler=scheduler,
            **({"openings": read_openings(openings_file)} if openings_file else {}))
        with ExitStack() as stack:
            # Opened first, so an unwritable FILE is reported before any game is played.
            pgn = stack.enter_context(files.open_output(pgn_file, text=True)) if pgn_file else None

            def record(game: GameRecord) -> None:
                if pgn is not None:
                    pgn.write(game_pgn(game))
                    pgn.flush()

            play = run_cluster_match if scheduler is not None else run_match
            play(engines[0], engines[1], settings, click.echo, record)
    except MatchError as exc:
        click.echo(f"chespel: error: {exc}", err=True)
        sys.exit(EXIT_USAGE)
    except ClusterError as exc:
        click.echo(f"chespel: error: {exc}", err=True)
        sys.exit(ExitCode.CLUSTER)
    except files.OutputError as exc:
        click.echo(f"chespel: error: {exc}", err=True)
        sys.exit(EXIT_RUNTIME)


@main.command(name="ablate")
@click.argument("file", type=InputFile())
@click.option("--games", default=20, show_default=True, type=click.IntRange(1),
              help="Games per rule (the limit, with --sprt).")
@click.option("--depth", default=2, show_default=True, type=click.IntRange(1, 64),
              help="Fixed search depth of both sides.")
@click.option("--max-plies", default=200, show_default=True, type=click.IntRange(1),
              help="Adjudicate a draw after this many half-moves.")
@click.option("--jobs", default=1, show_default=True, type=click.IntRange(1),
              help="Games played at once, each on its own engine processes.")
@click.option("--openings", "openings_file", type=InputFile(),
              help="Openings, as for `chespel match`.")
@click.option("--sprt", "sprt_text", metavar="ELO0,ELO1[,ALPHA,BETA]",
              help="Stop each rule's match when this SPRT decides.")
@click.option("--rule", "rules", multiple=True, metavar="NAME",
              help="Only this rule (repeatable).")
def ablate_command(file: str, games: int, depth: int, max_plies: int, jobs: int,
                   openings_file: str | None, sprt_text: str | None,
                   rules: tuple[str, ...]) -> None:
    """What each rule of FILE.chp is worth: FILE against FILE with the rule switched off,
    one rule at a time, as a table of Elo with its 95 % interval (positive: the rule helps)."""
    generated_source(file)
    result = load_program(file)
    assert result.program is not None
    known = {rule.name for module in result.program.modules for rule in module.rules}
    for name in rules:
        if name not in known:
            click.echo("chespel: error: " + with_suggestion(f"{file} has no rule '{name}'", name,
                                                            sorted(known)), err=True)
            sys.exit(EXIT_USAGE)
    try:
        sprt = Sprt.parse(sprt_text) if sprt_text else None
        settings = Settings(games=games, depth=depth, max_plies=max_plies, jobs=jobs, sprt=sprt)
        if openings_file:
            settings = dataclasses.replace(settings, openings=read_openings(openings_file))
        rows = ablate(file, read_source(file), result.program, settings,
                      lambda line: click.echo(line, err=True), rules)
    except (MatchError, ValueError) as exc:
        click.echo(f"chespel: error: {exc}", err=True)
        sys.exit(EXIT_USAGE)
    for line in table(rows):
        click.echo(line)


@main.command(name="tune")
@click.argument("file", type=InputFile())
@click.argument("more_games", nargs=-1, type=InputFile(), metavar="[FILE.pgn]...")
@click.option("--games", "games", multiple=True, type=InputFile(), metavar="FILE.pgn",
              help="Finished games to learn from (repeatable; more PGN files may follow).")
@click.option("--positions", type=click.IntRange(1), metavar="N",
              help="Use N positions drawn at random from the games (default: all).")
@click.option("--freeze", "freeze", multiple=True, metavar="NAME",
              help="Keep this rule's numbers as written (repeatable).")
@click.option("-o", "output", metavar="OUT.chp",
              help="Tuned program to write (default: FILE with .tuned.chp).")
@click.option("--jobs", default=2, show_default=True, type=click.IntRange(1),
              help="Processes computing the positions' features.")
@click.option("--seed", default=0, show_default=True, type=int,
              help="Seed of the random choice of positions.")
@click.option("--label", "label", metavar="ENGINE",
              help="Learn from this engine's search score of each position (a .chp program "
                   "or uci:COMMAND[;OPTION=VALUE]...) blended with the game's result.")
@click.option("--label-depth", default=6, show_default=True, type=click.IntRange(1),
              help="Depth of the --label engine's search.")
@click.option("--label-weight", default=1.0, show_default=True,
              type=click.FloatRange(0.0, 1.0),
              help="Share of the engine's score in a position's target (the rest: the result).")
@click.option("--ridge", type=click.FloatRange(min=0.0), metavar="LAMBDA",
              help="Ridge strength: the penalty per squared pawn a number moves from the value "
                   "written (default: chosen on held-out games).")
@click.option("--objective", type=click.Choice(["texel", "moves"]), default="texel",
              show_default=True,
              help="texel: fit each position's score to the game's result (or --label); "
                   "moves: fit the numbers so that the move played in each position scores "
                   "above the other moves (comparison training; --positions then counts "
                   "the positions whose moves are compared).")
@click.option("--alternatives", default=6, show_default=True, type=click.IntRange(0),
              metavar="K",
              help="With --objective moves: other moves compared with the one played, per "
                   "position, drawn at random (0: all of them).")
def tune_command(file: str, more_games: tuple[str, ...], games: tuple[str, ...],
                 positions: int | None, freeze: tuple[str, ...], output: str | None, jobs: int,
                 seed: int, label: str | None, label_depth: int, label_weight: float,
                 ridge: float | None, objective: Literal["texel", "moves"],
                 alternatives: int) -> None:
    """Tune the numbers of FILE.chp's rules on the positions of finished games
    (`--games A.pgn B.pgn ...`) and write the same program with the tuned numbers (layout
    and comments kept). The Texel objective fits scores to results; the moves objective
    fits them to rank the moves the players chose first."""
    # The tuner (numpy, scipy: about half a second of imports) is loaded only here, so
    # that every other command starts without it.
    from esochess.chespel.tuning.labels import LabelSettings
    from esochess.chespel.tuning.tune import TuneError, TuneSettings, tune

    games = games + more_games
    if not games:
        raise click.UsageError("missing option '--games'")
    if objective == "moves" and label is not None:
        raise click.UsageError("--label gives targets for --objective texel only")
    result = load_program(file)
    generated_source(file)
    assert result.program is not None
    known = sorted({rule.name for module in result.program.modules for rule in module.rules})
    for name in freeze:
        if name not in known:
            click.echo("chespel: error: " + with_suggestion(f"{file} has no rule '{name}'",
                                                            name, known), err=True)
            sys.exit(EXIT_USAGE)
    target = output or default_output(file) + ".tuned.chp"
    try:
        labels = (None if label is None else
                  LabelSettings(EngineSpec.parse(label), label_depth, label_weight))
    except MatchError as exc:
        click.echo(f"chespel: error: {exc}", err=True)
        sys.exit(EXIT_USAGE)
    settings = TuneSettings(games=games, positions=positions, freeze=freeze, jobs=jobs,
                            seed=seed, label=labels, ridge=ridge, objective=objective,
                            alternatives=alternatives)
    try:
        found = tune(file, read_source(file), result, settings,
                     lambda line: click.echo(line, err=True))
        files.write_atomic(target, found.source, inputs=[file, *games])
    except TuneError as exc:
        click.echo(f"chespel: error: {exc}", err=True)
        sys.exit(EXIT_USAGE)
    except files.OutputError as exc:
        click.echo(f"chespel: error: {exc}", err=True)
        sys.exit(EXIT_RUNTIME)
    counts = found.games
    if counts.bad:
        click.echo(f"chespel: skipped {counts.bad} unreadable game(s), e.g. "
                   + "; ".join(counts.bad_examples or []), err=True)
    for line in found.runtime_errors:
        click.echo(f"chespel: position skipped: run-time error at {line}", err=True)
    for line in found.table:
        click.echo(line)
    what = "positions with their moves compared" if found.agreement else "quiet positions"
    click.echo(f"{found.positions} {what} from {counts.used} games "
               f"({found.dropped} dropped after the capture search); "
               f"{found.tuned} numbers tuned, {found.frozen} frozen, "
               f"{found.untouched} left as written (not a linear score weight, or unused)")
    if found.agreement:
        click.echo(f"T = {found.k:g} pawns, ridge {found.ridge:g}; loss "
                   f"{found.error_before:.6f} -> {found.error_after:.6f}; played move best on "
                   f"held-out games {100 * found.agreement[0]:.2f}% -> "
                   f"{100 * found.agreement[1]:.2f}%")
    else:
        click.echo(f"K = {found.k:.4f} per pawn, ridge {found.ridge:g}; error "
                   f"{found.error_before:.6f} -> {found.error_after:.6f}")
    click.echo(f"wrote {target}")


@main.command(name="spsa")
@click.argument("file", type=InputFile())
@click.option("--iterations", default=500, show_default=True, type=click.IntRange(1),
              help="Game pairs to play (one pair per iteration).")
@click.option("--nodes", default=1000, show_default=True, type=click.IntRange(1),
              help="Fixed node count per move of both sides.")
@click.option("--perturbation", "perturbation", default=0.25, show_default=True,
              type=click.FloatRange(0.0, min_open=True), metavar="C",
              help="How far each multiplier is pushed up and down for a pair.")
@click.option("--step", default=0.01, show_default=True,
              type=click.FloatRange(0.0, min_open=True), metavar="A",
              help="Step size: a pair won 2-0 moves each multiplier by A/(2C).")
@click.option("--seed", default=0, show_default=True, type=int,
              help="Seed of the random directions.")
@click.option("--max-plies", default=200, show_default=True, type=click.IntRange(1),
              help="Adjudicate a draw after this many half-moves.")
@click.option("--openings", "openings_file", type=InputFile(),
              help="Openings, as for `chespel match` (used in file order, one per iteration, "
                   "round and round).")
@click.option("--freeze", "freeze", multiple=True, metavar="NAME",
              help="Keep this rule's numbers as written (repeatable).")
@click.option("--jobs", default=2, show_default=True, type=click.IntRange(1),
              help="Pairs played at once, each on its own engine processes (a batch shares "
                   "one starting point).")
@click.option("-o", "output", metavar="OUT.chp",
              help="Tuned program to write (default: FILE with .spsa.chp).")
def spsa_command(file: str, iterations: int, nodes: int, perturbation: float, step: float,
                 seed: int, max_plies: int, openings_file: str | None,
                 freeze: tuple[str, ...], jobs: int, output: str | None) -> None:
    """Tune the score numbers of FILE.chp by play (SPSA) and write the same program with the
    new numbers (layout and comments kept).

    Each list of numbers (a piece-square table) shares one multiplier, and every other
    score number has its own; all start at 1. Each iteration pushes every multiplier up or
    down by C at random, plays the pushed-up program against the pushed-down one (a game
    pair with colours reversed, at fixed nodes) and moves the multipliers towards the side
    that scored better. Multipliers stay between 0 and 3. Progress goes to stderr, the
    table of multipliers to stdout.
    """
    from esochess.chespel.tuning.spsa import SpsaError, SpsaSettings
    from esochess.chespel.tuning.spsa_games import spsa

    generated_source(file)  # its diagnostics, and exit 2 on errors
    text = read_source(file)
    result = compile_source(file, text)
    assert result.program is not None
    target = output or default_output(file) + ".spsa.chp"
    try:
        settings = SpsaSettings(
            iterations=iterations, nodes=nodes, perturbation=perturbation, step=step, seed=seed,
            max_plies=max_plies, freeze=freeze, jobs=jobs,
            **({"openings": read_openings(openings_file)} if openings_file else {}))
        # Opened first, so that an unwritable OUT.chp is reported before any game is played;
        # it appears only when the run has finished.
        with files.open_output(target, text=True, inputs=[file]) as out:
            found = spsa(file, text, result.program, settings,
                         lambda line: click.echo(line, err=True))
            out.write(found.source)
    except KeyboardInterrupt:
        # The games in play were ended and the temporary folder removed on the way out.
        click.echo(f"chespel: interrupted; {target} not written", err=True)
        sys.exit(ExitCode.INTERRUPTED)
    except (SpsaError, MatchError) as exc:
        click.echo(f"chespel: error: {exc}", err=True)
        sys.exit(EXIT_USAGE)
    except files.OutputError as exc:
        click.echo(f"chespel: error: {exc}", err=True)
        sys.exit(EXIT_RUNTIME)
    for line in found.table:
        click.echo(line)
    click.echo(f"wrote {target}")
