"""The filter table: every keyword filter with a fixed parameter list, declared once.

Each `FilterSpec` says how the filter is written (`syntax`), what its parameters and
value are (`params`, `result`), how it compiles (`compile`) and what it becomes when a
transform reverses the colours (`reversed`). The lexer turns a table keyword into the
token of its syntax, the parser builds an `ast.Filter`, the checker checks the
arguments against `params`, transforms rename it by `reversed` (set arguments are
mapped like any other square set) and the evaluator calls `compile`. Adding such a
filter is one entry here plus its tests (`tests/cqlvars/test_filter_table.py` checks
every entry against every consumer); docs/architecture.md shows how.

Filters with their own syntax (`move`, `ray`, `line`, `find`, transforms, ...) keep
their own AST node.
"""

from __future__ import annotations

import enum
import math
import re
from collections.abc import Callable
from dataclasses import dataclass

import chess

from esochess.cqlvars import ast, pawns, rays
from esochess.cqlvars.closures import Fn, all_of, cached, in_check, is_mate, is_stalemate, lift
from esochess.cqlvars.model import Ctx, PathFrame
from esochess.cqlvars.qtypes import LOGICAL, NUMERIC, POSITION, SET, STRING
from esochess.cqlvars.variables import MAX_VALUE, CqlRuntimeError
from esochess.fen import SourceError
from esochess.fen.files import UnreadableFile, read_source


class Syntax(enum.Enum):
    """How a table filter is written; the value is the lexer's token type."""

    BARE = "FILTER"  # `check`
    ARGS = "FILTERARGS"  # `between (S T)`: parenthesised arguments
    OPTIONAL_ARGS = "FILTEROPT"  # `child` or `child (N)`
    PREFIX_65 = "FILTER65"  # `assert X == 0`: one operand at the power of `not`
    PREFIX_110 = "FILTER110"  # `abs N`: one operand, parsed at operator power 110
    PREFIX_140 = "FILTER140"
    PREFIX_160 = "FILTER160"
    PREFIX_190 = "FILTER190"


@dataclass(frozen=True)
class Site:
    """What a filter's compile function receives: its compiled arguments, their static
    types and the filter's source span."""

    args: tuple[Fn, ...]
    types: tuple[str, ...]
    span: ast.Span


@dataclass(frozen=True)
class FilterSpec:
    """One table filter (see the module docstring)."""

    keyword: str
    syntax: Syntax
    #: The accepted types of each parameter; with `variadic` the last one repeats.
    params: tuple[tuple[str, ...], ...]
    result: str
    compile: Callable[[Site], Fn]
    summary: str
    variadic: bool = False
    #: The filter this one becomes when a transform reverses the colours (wtm -> btm).
    reversed: str | None = None
    #: Reads piece identities (the evaluator then tracks them per position).
    piece_ids: bool = False
    #: Depends on the game's tags and number only (a pre-filter may skip the game's moves).
    tags_only: bool = False
    #: The game feature (`summary.FEATURES`) that holds in every position where the filter
    #: matches: the necessary condition the index and the prefilters test for it.
    implies: str | None = None
    #: Fewest arguments (OPTIONAL_ARGS filters may have none).
    min_args: int | None = None
    #: The result type from the argument types, for a filter whose type depends on them
    #: (`ascii`); `result` is then its type for the first accepted argument type.
    result_of: Callable[[tuple[str, ...]], str] | None = None

    def result_for(self, types: tuple[str, ...]) -> str:
        return self.result if self.result_of is None else self.result_of(types)

    @property
    def fewest(self) -> int:
        if self.min_args is not None:
            return self.min_args
        return len(self.params)


def _truth(test: Callable[[Ctx], bool]) -> Callable[[Site], Fn]:
    return lambda site: lambda ctx: True if test(ctx) else None


def _constant(value: object) -> Callable[[Site], Fn]:
    return lambda site: lambda ctx: value


def _on_value(g: Callable[..., object]) -> Callable[[Site], Fn]:
    """A filter computed from its arguments' values alone."""
    return lambda site: all_of(site.args, lambda ctx, *values: g(*values))


def _one_square(v: int) -> int | None:
    return chess.lsb(v) if chess.popcount(v) == 1 else None


def _coordinate(of: Callable[[int], int]) -> Callable[[Site], Fn]:
    def number(v: int) -> int | None:
        sq = _one_square(v)
        return None if sq is None else of(sq) + 1

    return lambda site: lift(site.args[0], number)


PIECE_VALUES = {chess.PAWN: 1, chess.KNIGHT: 3, chess.BISHOP: 3, chess.ROOK: 5, chess.QUEEN: 9}


def _power(site: Site) -> Fn:
    f = site.args[0]

    def power(ctx: Ctx) -> int | None:
        mask = f(ctx)
        if mask is None:
            return None
        board = ctx.board()
        return sum(
            PIECE_VALUES.get(board.piece_type_at(sq) or 0, 0)
            for sq in chess.scan_forward(mask & board.occupied)
        )

    return power


def _pieceid(site: Site) -> Fn:
    f = site.args[0]

    def pieceid(ctx: Ctx) -> int | None:
        mask = f(ctx)
        if not mask or chess.popcount(mask) != 1:
            return None
        return ctx.game.piece_ids(ctx.pos).get(chess.lsb(mask))

    return pieceid


def _piece_on(describe: Callable[[chess.Piece | None], object]) -> Callable[[Site], Fn]:
    """A value describing the content of the one square of the argument."""

    def compile_(site: Site) -> Fn:
        arg = site.args[0]

        def on(ctx: Ctx) -> object:
            mask = arg(ctx)
            if mask is None or chess.popcount(mask) != 1:
                return None
            return describe(ctx.board().piece_at(chess.lsb(mask)))

        return on

    return compile_


INT_RE = re.compile(r"[+-]?[0-9]+")


def int_of(text: str) -> int | None:
    """The integer a string spells (optional sign, digits only), within CQL's range."""
    if not INT_RE.fullmatch(text):
        return None
    value = int(text)
    return value if -MAX_VALUE <= value <= MAX_VALUE else None


def _makesquare(f: int, r: int) -> int | None:
    return chess.BB_SQUARES[chess.square(f - 1, r - 1)] if 1 <= f <= 8 and 1 <= r <= 8 else None


def _between(ss: int, ts: int) -> int:
    out = 0
    for s in chess.scan_forward(ss):
        for t in chess.scan_forward(ts):
            out |= chess.between(s, t)
    return out


def _xray(site: Site) -> Fn:
    return all_of(site.args, lambda ctx, *masks: rays.xray(ctx.board(), list(masks)))


def _pawn_structure(name: str) -> Callable[[Site], Fn]:
    structure = pawns.FILTERS[name]
    return lambda site: lambda ctx: cached(ctx, name, lambda: structure(ctx.board()))


# tree navigation (docs/reference/cql.md#tree-navigation) ------------------------------
def _ancestor(ctx: Ctx, a: int, b: int) -> bool:
    """Whether position a is b or one of b's ancestors (pre-order ids: a's subtree is
    the id range [a, subtree_end[a]))."""
    return a <= b < ctx.game.subtree_end[a]


def _lca(ctx: Ctx, a: int, b: int) -> int:
    parents = ctx.game.parents
    while not _ancestor(ctx, a, b):
        a = parents[a]
    return a


def _distance(ctx: Ctx, a: int, b: int) -> int:
    plies = ctx.game.plies
    common = _lca(ctx, a, b)
    return plies[a] + plies[b] - 2 * plies[common]


def _moves_from(ctx: Ctx, ancestor: int, pos: int) -> list[chess.Move | None]:
    """The moves played from an ancestor to a position, in order."""
    moves, parents = ctx.game.moves, ctx.game.parents
    out = []
    while pos != ancestor:
        out.append(moves[pos])
        pos = parents[pos]
    out.reverse()
    return out


def _consecutive(ctx: Ctx, a: int, b: int) -> int:
    """The longest run of moves played in the same order on both paths from the two
    positions' latest common ancestor (longest common substring, by dynamic programming)."""
    common = _lca(ctx, a, b)
    s, t = _moves_from(ctx, common, a), _moves_from(ctx, common, b)
    best = 0
    previous = [0] * (len(t) + 1)
    for move in s:
        row = [0] * (len(t) + 1)
        for j, other in enumerate(t, 1):
            if move == other:
                row[j] = previous[j - 1] + 1
                best = max(best, row[j])
        previous = row
    return best


def _path_status(read: Callable[[PathFrame], int | str | None]) -> Fn:
    """A status filter: the path being evaluated, else the last one that matched."""

    def status(ctx: Ctx) -> int | str | None:
        frame = ctx.paths[-1] if ctx.paths else ctx.last_path
        return None if frame is None else read(frame)

    return status


def _path_debug(frame: PathFrame) -> str:
    return (f"pathstart {frame.start} pathcount {frame.count} "
            f"pathcountunfocused {frame.unfocused}"
            + ("" if frame.last is None else f" pathlastposition {frame.last}"))


def _depth(ctx: Ctx) -> int:
    def compute() -> int:
        pos, parents, children = ctx.pos, ctx.game.parents, ctx.game.children
        depth = 0
        while pos != 0:
            parent = parents[pos]
            if children[parent][0] != pos:
                depth += 1
            pos = parent
        return depth

    return int(cached(ctx, "depth", compute))


def _child(site: Site) -> Fn:
    if not site.args:
        return lambda ctx: ctx.game.children[ctx.pos][0] if ctx.game.children[ctx.pos] else None
    index = site.args[0]

    def child(ctx: Ctx) -> int | None:
        n = index(ctx)
        kids = ctx.game.children[ctx.pos]
        return kids[n] if n is not None and 0 <= n < len(kids) else None

    return child


def _tag(name: str) -> Callable[[Ctx], str | None]:
    return lambda ctx: ctx.game.headers.get(name)


def _year(site: Site) -> Fn:
    def year(ctx: Ctx) -> int | None:
        date = ctx.game.headers.get("Date", "")
        return int(date[:4]) if len(date) >= 4 and date[:4].isdigit() else None

    return year


def _matched(value: object, type_: str) -> bool:
    """Whether a filter's value counts as a match (an empty set does not)."""
    return value is not None and (type_ != SET or bool(value))


#: Most evaluations of one `loop` body in one position (a body that never fails would
#: otherwise run forever).
MAX_LOOP = 1_000_000


def _loop(site: Site) -> Fn:
    body, type_, span = site.args[0], site.types[0], site.span

    def loop(ctx: Ctx) -> bool | None:
        for count in range(MAX_LOOP + 1):
            if not _matched(body(ctx), type_):
                return True if count else None
        raise CqlRuntimeError(
            span.line, span.column, f"'loop' body still matched after {MAX_LOOP} evaluations"
        )

    return loop


def _assert(site: Site) -> Fn:
    test, type_, span = site.args[0], site.types[0], site.span

    def assert_(ctx: Ctx) -> bool:
        if not _matched(test(ctx), type_):
            raise CqlRuntimeError(span.line, span.column, "assertion failed")
        return True

    return assert_


def _ascii(value: object) -> object:
    """A one-character string's code, or the character of a code (0-0x10FFFF)."""
    if isinstance(value, str):
        return ord(value) if len(value) == 1 else None
    assert isinstance(value, int)
    return chr(value) if 0 <= value <= 0x10FFFF else None


def _readfile(site: Site) -> Fn:
    name_of, span = site.args[0], site.span
    texts: dict[str, str] = {}  # read once per run and worker

    def readfile(ctx: Ctx) -> str | None:
        name = name_of(ctx)
        if name is None:
            return None
        if name not in texts:
            try:
                texts[name] = read_source(name)
            except UnreadableFile as exc:
                raise CqlRuntimeError(span.line, span.column, str(exc)) from None
            except SourceError as exc:
                raise CqlRuntimeError(
                    span.line, span.column, f"cannot read {name}: {exc.message}"
                ) from None
        return texts[name]

    return readfile


def _hascomment(site: Site) -> Fn:
    return all_of(site.args, lambda ctx, text: True if text in ctx.game.comments[ctx.pos] else None)


TYPE_NAMES = {t: chess.piece_name(t) for t in chess.PIECE_TYPES}
ANY_VALUE = (LOGICAL, NUMERIC, SET, POSITION, STRING)

_SPECS = (
    # logical, no parameter ------------------------------------------------------------
    FilterSpec("check", Syntax.BARE, (), LOGICAL, _truth(in_check), "the side to move is in check"),
    FilterSpec("mate", Syntax.BARE, (), LOGICAL, _truth(is_mate), "checkmate",
               implies="mate"),
    FilterSpec("stalemate", Syntax.BARE, (), LOGICAL, _truth(is_stalemate), "stalemate",
               implies="stalemate"),
    FilterSpec("wtm", Syntax.BARE, (), LOGICAL, _truth(lambda ctx: ctx.board().turn),
               "White to move", reversed="btm"),
    FilterSpec("btm", Syntax.BARE, (), LOGICAL, _truth(lambda ctx: not ctx.board().turn),
               "Black to move", reversed="wtm"),
    FilterSpec("sidetomove", Syntax.BARE, (), NUMERIC,
               lambda site: lambda ctx: 1 if ctx.board().turn else -1,
               "the side to move: 1 for White, -1 for Black"),
    FilterSpec("initial", Syntax.BARE, (), LOGICAL, _truth(lambda ctx: ctx.pos == 0),
               "the game's first position"),
    FilterSpec("terminal", Syntax.BARE, (), LOGICAL,
               _truth(lambda ctx: not ctx.game.children[ctx.pos]), "a position without a move after it"),
    FilterSpec("true", Syntax.BARE, (), LOGICAL, _constant(True), "always matches"),
    FilterSpec("false", Syntax.BARE, (), LOGICAL, _constant(None), "never matches"),
    # numbers and positions of the game --------------------------------------------------
    FilterSpec("ply", Syntax.BARE, (), NUMERIC, lambda site: lambda ctx: ctx.game.plies[ctx.pos],
               "half-moves from the start"),
    FilterSpec("movenumber", Syntax.BARE, (), NUMERIC,
               lambda site: lambda ctx: ctx.board().fullmove_number or 1, "the move number"),
    FilterSpec("positionid", Syntax.BARE, (), NUMERIC, lambda site: lambda ctx: ctx.pos,
               "the position's number in the game (pre-order)"),
    FilterSpec("currentposition", Syntax.BARE, (), POSITION, lambda site: lambda ctx: ctx.pos,
               "the current position"),
    FilterSpec("initialposition", Syntax.BARE, (), POSITION, _constant(0), "the first position"),
    FilterSpec("parent", Syntax.BARE, (), POSITION,
               lambda site: lambda ctx: None if ctx.pos == 0 else ctx.game.parents[ctx.pos],
               "the position before this one"),
    FilterSpec("gamenumber", Syntax.BARE, (), NUMERIC, lambda site: lambda ctx: ctx.number,
               "the game's number in the input", tags_only=True),
    FilterSpec("currenttransform", Syntax.BARE, (), STRING, _constant("<>"),
               "the transform elements acting on the filter; <> outside any transform"),
    FilterSpec("fen", Syntax.BARE, (), STRING, lambda site: lambda ctx: ctx.board().fen(),
               "the FEN of the position"),
    FilterSpec("year", Syntax.BARE, (), NUMERIC, _year, "the year of the Date tag",
               tags_only=True),
    FilterSpec("eventdate", Syntax.BARE, (), STRING,
               lambda site: _tag("EventDate"), "the EventDate tag", tags_only=True),
    FilterSpec("hascomment", Syntax.PREFIX_190, ((STRING,),), LOGICAL, _hascomment,
               "the position's PGN comment contains a string"),
    # tree navigation -------------------------------------------------------------------
    FilterSpec("child", Syntax.OPTIONAL_ARGS, ((NUMERIC,),), POSITION, _child,
               "the next position of the main continuation, or child (N): the N-th (0 = main)",
               min_args=0),
    FilterSpec("depth", Syntax.BARE, (), NUMERIC, lambda site: _depth,
               "how many variations deep the position is (0 on the main line)"),
    FilterSpec("variation", Syntax.BARE, (), LOGICAL, _truth(lambda ctx: _depth(ctx) > 0),
               "the position is inside a variation (not on the main line)"),
    FilterSpec("mainline", Syntax.BARE, (), LOGICAL, _truth(lambda ctx: _depth(ctx) == 0),
               "the position is on the main line"),
    FilterSpec("ancestor", Syntax.ARGS, ((POSITION,), (POSITION,)), LOGICAL,
               lambda site: all_of(site.args, lambda ctx, a, b: True if _ancestor(ctx, a, b) else None),
               "the first position is the second or comes before it on its path"),
    FilterSpec("descendant", Syntax.ARGS, ((POSITION,), (POSITION,)), LOGICAL,
               lambda site: all_of(site.args, lambda ctx, a, b: True if _ancestor(ctx, b, a) else None),
               "the first position is the second or comes after it on its path"),
    FilterSpec("lca", Syntax.ARGS, ((POSITION,), (POSITION,)), POSITION,
               lambda site: all_of(site.args, _lca), "the latest common ancestor of two positions"),
    FilterSpec("distance", Syntax.ARGS, ((POSITION,), (POSITION,)), NUMERIC,
               lambda site: all_of(site.args, _distance),
               "half-moves between two positions through their latest common ancestor"),
    FilterSpec("consecutivemoves", Syntax.ARGS, ((POSITION,), (POSITION,)), NUMERIC,
               lambda site: all_of(site.args, _consecutive),
               "the longest run of identical consecutive moves on the two paths from the "
               "positions' latest common ancestor"),
    # path status (docs/reference/cql.md#path) ----------------------------------------------
    FilterSpec("pathstart", Syntax.BARE, (), POSITION, lambda site: _path_status(lambda f: f.start),
               "the start of the path being evaluated, else of the last path that matched"),
    FilterSpec("pathcount", Syntax.BARE, (), NUMERIC, lambda site: _path_status(lambda f: f.count),
               "the moves a path has matched so far (focused moves only)"),
    FilterSpec("pathcountunfocused", Syntax.BARE, (), NUMERIC,
               lambda site: _path_status(lambda f: f.unfocused),
               "the moves a path has gone so far, out-of-focus moves included"),
    FilterSpec("pathlastposition", Syntax.BARE, (), POSITION,
               lambda site: lambda ctx: None if ctx.last_path is None else ctx.last_path.last,
               "the position the last matching path ended at"),
    FilterSpec("pathdebug", Syntax.BARE, (), STRING, lambda site: _path_status(_path_debug),
               "the path status as text: start, count, unfocused count, last position"),
    # squares ------------------------------------------------------------------------------
    FilterSpec("light", Syntax.PREFIX_190, ((SET,),), SET,
               lambda site: lift(site.args[0], lambda v: v & chess.BB_LIGHT_SQUARES),
               "the light squares of a set"),
    FilterSpec("dark", Syntax.PREFIX_190, ((SET,),), SET,
               lambda site: lift(site.args[0], lambda v: v & chess.BB_DARK_SQUARES),
               "the dark squares of a set"),
    FilterSpec("file", Syntax.PREFIX_160, ((SET,),), NUMERIC, _coordinate(chess.square_file),
               "the file (1-8) of a single square"),
    FilterSpec("rank", Syntax.PREFIX_160, ((SET,),), NUMERIC, _coordinate(chess.square_rank),
               "the rank (1-8) of a single square"),
    FilterSpec("makesquare", Syntax.ARGS, ((NUMERIC,), (NUMERIC,)), SET, _on_value(_makesquare),
               "the square on file F and rank R (1-8)"),
    FilterSpec("between", Syntax.ARGS, ((SET,), (SET,)), SET, _on_value(_between),
               "the squares strictly between aligned pairs of squares"),
    FilterSpec("xray", Syntax.ARGS, ((SET,), (SET,)), SET, _xray,
               "line pieces that see through the pieces of each later set in order",
               variadic=True),
    # pieces -------------------------------------------------------------------------------
    FilterSpec("power", Syntax.PREFIX_160, ((SET,),), NUMERIC, _power,
               "the material value of the pieces on a set"),
    FilterSpec("pieceid", Syntax.PREFIX_160, ((SET,),), NUMERIC, _pieceid,
               "the identity of the piece on a single square", piece_ids=True),
    FilterSpec("type", Syntax.PREFIX_160, ((SET,),), NUMERIC,
               _piece_on(lambda p: None if p is None else p.piece_type),
               "the type of the piece on a single square: pawn 1 ... king 6"),
    FilterSpec("colortype", Syntax.PREFIX_160, ((SET,),), NUMERIC,
               _piece_on(lambda p: 0 if p is None else p.piece_type * (1 if p.color else -1)),
               "the piece type, positive for White, negative for Black, 0 for empty"),
    FilterSpec("typename", Syntax.PREFIX_160, ((SET,),), STRING,
               _piece_on(lambda p: None if p is None else TYPE_NAMES[p.piece_type]),
               "the name of the type of the piece on a single square"),
    # numbers and strings ----------------------------------------------------------------
    FilterSpec("abs", Syntax.PREFIX_110, ((NUMERIC,),), NUMERIC,
               lambda site: lift(site.args[0], abs), "absolute value"),
    FilterSpec("sqrt", Syntax.PREFIX_110, ((NUMERIC,),), NUMERIC,
               lambda site: lift(site.args[0], lambda v: math.isqrt(v) if v >= 0 else None),
               "integer square root (no value for a negative number)"),
    FilterSpec("int", Syntax.PREFIX_110, ((STRING,),), NUMERIC, lambda site: lift(site.args[0], int_of),
               "the integer a string spells"),
    FilterSpec("ascii", Syntax.PREFIX_140, ((STRING, NUMERIC),), NUMERIC, _on_value(_ascii),
               "the code of a one-character string, or the character of a code",
               result_of=lambda types: STRING if types[0] == NUMERIC else NUMERIC),
    FilterSpec("readfile", Syntax.PREFIX_140, ((STRING,),), STRING, _readfile,
               "the text of a UTF-8 file (a path relative to the current directory)"),
    # control ---------------------------------------------------------------------------
    FilterSpec("loop", Syntax.PREFIX_65, (ANY_VALUE,), LOGICAL, _loop,
               "evaluate the body until it fails; matches if it matched at least once"),
    FilterSpec("assert", Syntax.PREFIX_65, ((NUMERIC, LOGICAL, SET, POSITION, STRING),), LOGICAL, _assert,
               "stop the run with a located error unless the argument matches"),
    FilterSpec("lowercase", Syntax.PREFIX_140, ((STRING,),), STRING,
               lambda site: lift(site.args[0], str.lower), "a string in lower case"),
    FilterSpec("uppercase", Syntax.PREFIX_140, ((STRING,),), STRING,
               lambda site: lift(site.args[0], str.upper), "a string in upper case"),
) + tuple(
    FilterSpec(name, Syntax.BARE, (), SET, _pawn_structure(name), f"pawn structure: {name}")
    for name in pawns.FILTERS
)

#: Every table filter by keyword.
FILTERS: dict[str, FilterSpec] = {spec.keyword: spec for spec in _SPECS}
