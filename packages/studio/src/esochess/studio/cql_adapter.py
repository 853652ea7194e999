"""The studio's one door into CQL: check a query, run it over a PGN file, show a match.

Calls only what `cql`'s command line calls: `engine.compile_query` with
`engine.RunOptions` (check), `pgnio.iter_games` / `pgnio.games_in_text` (the games of a
file or of uploaded text, cut exactly as the command line cuts them),
`engine.run_games` (one outcome per game, its PGN with CQL's comments) and
`output.statistics_line` (the summary line). A matched game's PGN is read back with
python-chess for browsing. CQL appends its comments to the game's own, so a position
CQL marked is one whose comment grew: the game's text from the input, read the same
way, gives the comments it already had.
"""

from __future__ import annotations

import io
import time
from dataclasses import dataclass

import chess
import chess.pgn

from esochess.cqlvars.engine import CompiledQuery, GameOutcome, RunOptions, compile_query, run_games
from esochess.cqlvars.output import statistics_line
from esochess.cqlvars.pgnio import GameText, InputError, games_in_text, iter_games
from esochess.fen import SourceError, format_diagnostic
from esochess.studio.jobs import Report, UserError

#: Matched games sent to the page; the counts cover every game.
MAX_SHOWN = 200
MAX_ERRORS_SHOWN = 50


@dataclass(frozen=True)
class Ply:
    """One position of a matched game: the move that led to it, its FEN, the game's own
    comment and the comment CQL added (empty unless CQL marked the position)."""

    san: str
    uci: str
    fen: str
    comment: str
    cql: str


@dataclass(frozen=True)
class Match:
    """A matched game: number, a one-line title, the start position and its plies."""

    number: int
    title: str
    start_fen: str
    start_cql: str
    plies: tuple[Ply, ...]
    pgn: str


@dataclass(frozen=True)
class QueryRun:
    """The result of a run: matched games, error lines and the statistics line."""

    matches: tuple[Match, ...]
    errors: tuple[str, ...]
    messages: tuple[str, ...]
    summary: str


def _compile(name: str, text: str) -> CompiledQuery:
    try:
        return compile_query(name, text, {}, RunOptions())
    except SourceError as err:
        raise UserError(format_diagnostic(err, text)) from None


def check(_report: Report, name: str, text: str) -> tuple[bool, str]:
    """What `cql` prints about the query before reading any game: errors or warnings."""
    try:
        compiled = _compile(name, text)
    except UserError as exc:
        return False, exc.text
    return True, "\n".join(format_diagnostic(w, text) for w in compiled.warnings)


def _added(before: str, after: str) -> str:
    """The part of a comment that CQL appended."""
    return after[len(before) :].strip() if after.startswith(before) else after


def _match(outcome: GameOutcome, original: GameText) -> Match:
    assert outcome.pgn is not None
    game = chess.pgn.read_game(io.StringIO(outcome.pgn))
    source = chess.pgn.read_game(io.StringIO(original.text))
    assert game is not None and source is not None
    h = game.headers
    title = f"{h.get('White', '?')} – {h.get('Black', '?')} {h.get('Result', '*')} ({h.get('Event', '?')})"
    plies: list[Ply] = []
    board = game.board()
    before = [node.comment for node in source.mainline()]
    for index, node in enumerate(game.mainline()):
        had = before[index] if index < len(before) else ""
        plies.append(
            Ply(
                board.san(node.move),
                node.move.uci(),
                node.board().fen(),
                had,
                _added(had, node.comment),
            )
        )
        board.push(node.move)
    start = _added(source.comment, game.comment)
    return Match(outcome.number, title, game.board().fen(), start, tuple(plies), outcome.pgn)


def run(
    report: Report, name: str, text: str, pgn_path: str | None, pgn_name: str, pgn_text: str | None
) -> QueryRun:
    """Run the query over the games of `pgn_path` (or of uploaded `pgn_text`)."""
    started = time.monotonic()
    compiled = _compile(name, text)
    try:
        games: list[GameText] = (
            list(iter_games([pgn_path]))
            if pgn_path is not None
            else list(games_in_text(pgn_name, pgn_text or ""))
        )
    except InputError as exc:
        raise UserError(f"cql: error: {exc}") from None
    total = len(games)
    kept: list[GameOutcome] = []
    errors: list[str] = []
    messages: list[str] = []
    read = 0
    report((0, total))
    try:
        for outcome in run_games(compiled, games):
            read += 1
            messages.extend(outcome.messages)
            if outcome.runtime_error is not None:
                raise UserError(format_diagnostic(outcome.runtime_error, compiled.source))
            if outcome.error is not None:
                errors.append(outcome.error)
            if outcome.matched and outcome.pgn is not None:
                kept.append(outcome)
            if read % 10 == 0 or read == total:
                report((read, total))
    except SourceError as err:
        raise UserError(format_diagnostic(err, compiled.source)) from None
    if compiled.header.sort_matchcount or compiled.checked.sorts:
        kept.sort(key=lambda o: o.sort_key)
    summary = statistics_line(read, len(kept), len(errors), time.monotonic() - started)
    by_number = {g.number: g for g in games}
    return QueryRun(
        tuple(_match(o, by_number[o.number]) for o in kept[:MAX_SHOWN]),
        tuple(errors[:MAX_ERRORS_SHOWN]),
        tuple(messages),
        summary,
    )
