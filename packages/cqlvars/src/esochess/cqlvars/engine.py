"""The engine API: compile a query once, then run it over games
(docs/reference/cql.md#evaluation-model and docs/cql.md#parallel-and-compressed-input).

This is the seam between the language and the drivers (the CLI here, the process pool
and Dask drivers of the scale work)::

    compiled = compile_query(path, text, assignments, RunOptions(...))   # SourceError
    state = compiled.new_state()                      # persistent variables of one run
    for outcome in run_games(compiled, games, state): # games: Iterable[GameText]
        ...                                           # GameOutcome, in input order

Per-game work touches no global state: everything lives in the compiled closures (read
only) and in the per-game context, so a pool worker compiles once in its initializer
(the arguments of `compile_query` are plain picklable values) and runs partitions.
`GameOutcome` carries what an ordered merge needs: game number, matched flag, output
PGN text, sort key, message lines and error records.
"""

from __future__ import annotations

import io
import logging
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

import chess
import chess.pgn

from esochess.cqlvars import ast
from esochess.cqlvars.checker import CheckedQuery, check_query
from esochess.cqlvars.conditions import ANY, Cond, RawTest, necessary, raw_test
from esochess.cqlvars.evaluator import Compiler
from esochess.cqlvars.filters import FILTERS
from esochess.cqlvars.lean import read_lean
from esochess.cqlvars.light import LightModel, LightVisitor
from esochess.cqlvars.model import Ctx, GameModel
from esochess.cqlvars.output import render_game, render_light
from esochess.cqlvars.parser import parse_query
from esochess.cqlvars.pgnio import GameText
from esochess.cqlvars.transforms import MAX_VARIANT_NODES, TooManyVariants, expand_body
from esochess.cqlvars.variables import CqlRuntimeError, PersistentStore
from esochess.fen import SourceError, source_line_at

# python-chess logs every PGN error it meets; cql reports them itself
# (docs/reference/cql.md#pgn-errors).
logging.getLogger("chess.pgn").setLevel(logging.CRITICAL)

STANDARD_VARIANTS = {"", "standard", "chess", "from position"}
TAG_ONLY = (ast.GameInfo,)


@dataclass(frozen=True)
class RunOptions:
    """Command-line settings that change evaluation; OR-ed/overriding the header
    (docs/reference/cql.md#command-line)."""

    quiet: bool = False
    silent: bool = False
    variations: bool = False
    matchcount: tuple[int, int | None] | None = None
    #: Comments are kept even where the filter that made them, or the body, failed.
    alwayscomment: bool = False


@dataclass(frozen=True)
class GameOutcome:
    """The result of one game: everything an ordered merge needs (picklable)."""

    number: int
    matched: bool = False
    pgn: str | None = None
    sort_key: tuple[Any, ...] = ()
    messages: tuple[str, ...] = ()
    error: str | None = None
    runtime_error: SourceError | None = None
    prefiltered: bool = False
    #: How many consecutive games, numbered from `number`, this outcome stands for: more
    #: than one only for a run of games an index ruled out (counted, never read).
    games: int = 1


@dataclass
class RunState:
    """State that outlives a game: the persistent variables of one run
    (docs/reference/cql.md#persistent)."""

    persistent: PersistentStore

    def persistent_lines(self) -> list[str]:
        """The `NAME: VALUE` lines to print at the end of a successful run."""
        return self.persistent.lines()

    def take_sums(self) -> dict[str, int]:
        """Return every (reducible, numeric) persistent value and reset it to 0
        (docs/cql.md#running-on-a-dask-cluster)."""
        values = self.persistent.values
        taken = {name: int(value) for name, value in values.items()}  # type: ignore[call-overload]
        for name in values:
            values[name] = 0
        return taken

    def add_sums(self, totals: Mapping[str, int]) -> None:
        """Add partial sums from other partitions into this state
        (docs/cql.md#running-on-a-dask-cluster)."""
        values = self.persistent.values
        for name, value in totals.items():
            values[name] = int(values.get(name, 0)) + value  # type: ignore[call-overload]


@dataclass
class CompiledQuery:
    """A checked, transformed and compiled query; not picklable (it holds closures)."""

    path: str
    source: str
    header: ast.Header
    checked: CheckedQuery
    options: RunOptions
    body: Any
    slot_count: int
    assigned_slots: dict[int, int | str]
    prefilters: list[Any]
    warnings: list[SourceError] = field(default_factory=list)
    keepalive: list[Any] = field(default_factory=list)
    needs_comments: bool = False
    #: What a game must have for the query to match in it (conditions.py).
    necessary: Cond = ANY
    #: The test of a game's raw text derived from `necessary`, if any.
    raw_prefilter: RawTest | None = None
    _header_ctx: Ctx | None = field(default=None, repr=False)

    @property
    def uses_persistent(self) -> bool:
        """True when the query declares persistent variables (forces one process)."""
        return bool(self.checked.persistent)

    @property
    def reducible_error(self) -> str | None:
        """None when every persistent variable is a reducible sum
        (docs/cql.md#running-on-a-dask-cluster), else the message."""
        return self.checked.reducible_error

    @property
    def variations(self) -> bool:
        """True when positions inside variations are in scope."""
        return self.options.variations or self.header.variations

    @property
    def quiet(self) -> bool:
        """The effective `quiet` flag."""
        return self.options.quiet or self.header.quiet

    @property
    def silent(self) -> bool:
        """The effective `silent` flag."""
        return self.options.silent or self.header.silent

    @property
    def matchcount(self) -> tuple[int, int | None]:
        """The effective matchcount range (default [1, ∞))."""
        return self.options.matchcount or self.header.matchcount or (1, None)

    def new_state(self) -> RunState:
        """Fresh persistent variables for one run (or one partition of a reducible sum)."""
        return RunState(
            PersistentStore.fresh(self.checked.persistent_kinds, self.checked.persistent)
        )

    def prefilter(self, headers: Mapping[str, str], number: int) -> bool:
        """False when the game cannot match judging by its tags alone (docs/performance.md#cql lever
        1)."""
        if self.header.result is not None and headers.get("Result") != self.header.result:
            return False
        if not self.prefilters:
            return True
        ctx = self._header_ctx
        if ctx is None:
            # Tag-only tests read nothing but the headers and the game number: one
            # context, re-pointed at each game's headers, serves every call.
            model = GameModel({}, chess.Board(), [-1], [None])
            ctx = Ctx(model, number, [None] * self.slot_count, self.new_state().persistent)
            self._header_ctx = ctx
        ctx.game.headers = headers
        ctx.number = number
        return all(test(ctx) for test in self.prefilters)


def compile_query(
    path: str,
    text: str,
    assignments: Mapping[str, str] | None = None,
    options: RunOptions | None = None,
) -> CompiledQuery:
    """Parse, check, expand transforms and compile a query; raises SourceError."""
    options = options or RunOptions()
    try:
        query = parse_query(text, path)
        checked = check_query(query, path, text, assignments)
        body = expand_body(checked.body, checked.types)
        compiler = Compiler(checked, path, text, always_comment=options.alwayscomment)
        tester = compiler.body(body)
    except RecursionError:
        # Every stage after the LALR parse recurses over the tree.
        raise SourceError(path, 1, 1, "the query is nested too deeply") from None
    except TooManyVariants as exc:
        raise SourceError(
            path, exc.span.line, exc.span.column,
            f"nested transforms expand this filter to more than {MAX_VARIANT_NODES:,} "
            "filters", source_line=source_line_at(text, exc.span.line),
        ) from None  # fmt: skip
    # Skipping a game must not change persistent values or message lines (docs/reference/cql.md#evaluation-model).
    effects = bool(checked.persistent) or _uses(body, ast.Emit)
    prefilters = [] if effects else [compiler.test(e) for e in body if _tag_only(e)]
    cond = necessary(body, effects=effects)
    assigned_slots = {
        compiler.slots.slot(name): value for name, value in checked.assigned.items()
    }
    return CompiledQuery(
        path=path,
        source=text,
        header=query.header,
        checked=checked,
        options=options,
        body=tester,
        slot_count=len(compiler.slots.index),
        assigned_slots=assigned_slots,
        prefilters=prefilters,
        warnings=list(checked.warnings),
        keepalive=[query, checked.body, body],
        needs_comments=_uses(body, ast.OriginalComment) or any(
            isinstance(n, ast.Filter) and n.name == "hascomment" for n in ast.walk(body)
        ),
        necessary=cond,
        raw_prefilter=raw_test(cond),
    )


def _uses(nodes: tuple[ast.Node, ...], kind: type) -> bool:
    """True if any node of the given class occurs in the trees."""
    return any(isinstance(n, kind) for n in ast.walk(nodes))


def _tag_only(node: ast.Node) -> bool:
    """True for a conjunct that depends only on tags/game number, with no side effects."""
    if isinstance(node, ast.GameInfo) or _tags_filter(node):
        return True
    if isinstance(node, ast.Binary) and node.op in ("and", "or"):
        return _tag_only(node.left) and _tag_only(node.right)
    if isinstance(node, ast.Compound) and node.elements:
        return all(_tag_only(e) for e in node.elements)
    if isinstance(node, ast.Variants) and not node.count:
        # e.g. `flipcolor player white "X"`: every variant reads tags only.
        return all(_tag_only(v) for v in node.variants)
    if isinstance(node, ast.Binary) and node.op in ("<", "<=", ">", ">=", "==", "!=", "in"):
        return all(
            isinstance(n, (ast.GameInfo, ast.IntLit, ast.StrLit)) or _tags_filter(n)
            for n in (node.left, node.right)
        )
    return False


def _sort_key(value: int | str, minimum: bool) -> Any:
    """The ascending key of a sort value: numbers and strings (docs/reference/cql.md#sort),
    largest first unless `sort min`."""
    if minimum:
        return value
    if isinstance(value, str):
        # Descending order of strings: negated code points, ended by 0 so that a string
        # comes after its own extensions ("abc" before "ab").
        return (*(-ord(ch) for ch in value), 0)
    return -value


def _tags_filter(node: ast.Node) -> bool:
    return isinstance(node, ast.Filter) and FILTERS[node.name].tags_only


def build_model(game: chess.pgn.Game, variations: bool) -> GameModel:
    """The in-scope positions of a parsed game as a GameModel."""
    nodes: list[chess.pgn.GameNode] = [game]
    parents = [-1]
    index = {id(game): 0}
    stack: list[chess.pgn.GameNode] = list(reversed(game.variations if variations else game.variations[:1]))
    while stack:
        node = stack.pop()
        index[id(node)] = len(nodes)
        assert node.parent is not None
        parents.append(index[id(node.parent)])
        nodes.append(node)
        kids = node.variations if variations else node.variations[:1]
        stack.extend(reversed(kids))
    moves = [None if isinstance(n, chess.pgn.Game) else n.move for n in nodes]
    comments = [n.comment for n in nodes]
    return GameModel(game.headers, game.board(), parents, moves, comments)


def skipped_game(item: GameText, problem: str, line: int | None = None) -> GameOutcome:
    """The outcome of a game that cannot be read: reported with file, line and number."""
    where = item.line if line is None else line
    return GameOutcome(
        item.number,
        error=f"{item.path}:{where}: game {item.number}: error: {problem} (game skipped)",
    )


def run_game(compiled: CompiledQuery, item: GameText, state: RunState) -> GameOutcome:
    """Evaluate one game; a game that cannot be read or written is reported and skipped.

    Nothing a game holds may end the run: whatever python-chess or the renderer raises
    while this game is read, evaluated or written costs this game only.
    """
    if item.problem is not None:
        line, message = item.problem
        return skipped_game(item, message, line)
    if item.skipped:
        return GameOutcome(item.number, prefiltered=True, games=item.skipped)
    raw = compiled.raw_prefilter
    if raw is not None and not raw(item.text):
        return GameOutcome(item.number, prefiltered=True)
    try:
        return _run_game(compiled, item, state)
    except RecursionError:
        return skipped_game(item, "the game is nested too deeply")
    except MemoryError:
        return skipped_game(item, "ran out of memory evaluating this game "
                                  "(a string or a set of positions grew too large)")
    except Exception as exc:  # noqa: BLE001 - per-game isolation (see above)
        return skipped_game(item, f"{type(exc).__name__}: {exc}")


def _run_game(compiled: CompiledQuery, item: GameText, state: RunState) -> GameOutcome:
    """Evaluate one game (docs/reference/cql.md#evaluation-model).

    The game is read with the light model (no GameNode tree; header prefilter first). A
    matched game's tree for output is built from the light nodes, or re-read with
    GameBuilder when it has variations that were not read.
    """
    variations = compiled.variations
    number = item.number
    game = None if variations else read_lean(
        item.text, lambda headers: compiled.prefilter(headers, number))
    if game is None:
        game = chess.pgn.read_game(
            io.StringIO(item.text),
            Visitor=lambda: _Reader(
                variations=variations,
                comments=True,
                prefilter=lambda headers: compiled.prefilter(headers, number),
            ),
        )
    if game is None:
        return GameOutcome(number)
    if game.skipped:
        return GameOutcome(number, prefiltered=True)
    variant = game.headers.get("Variant", "")
    problem = None
    if variant.strip().lower() not in STANDARD_VARIANTS:
        problem = f"unsupported variant {variant!r}"
    elif game.error is not None:
        problem = str(game.error)
    if problem is not None:
        return skipped_game(item, problem)
    model = LightModel(game)
    slots: list[Any] = [None] * compiled.slot_count
    for slot, value in compiled.assigned_slots.items():
        slots[slot] = value
    ctx = Ctx(model, item.number, slots, state.persistent)
    body = compiled.body
    keep_comments = compiled.options.alwayscomment
    matched: list[int] = []
    user_comments: dict[int, list[str]] = {}
    sort_values: dict[int, Any] = {}
    sorts = compiled.checked.sorts
    try:
        for pos in range(len(model)):
            ctx.pos = pos
            if body(ctx):
                matched.append(pos)
                for where, text in ctx.comments:
                    user_comments.setdefault(where, []).append(text)
                for index, value in ctx.sorts:
                    old = sort_values.get(index)
                    if old is None:
                        sort_values[index] = value
                    elif sorts[index].minimum:
                        sort_values[index] = min(old, value)
                    else:
                        sort_values[index] = max(old, value)
            elif ctx.comments and keep_comments:
                for where, text in ctx.comments:
                    user_comments.setdefault(where, []).append(text)
            if ctx.comments:
                ctx.comments.clear()
            if ctx.sorts:
                ctx.sorts.clear()
    except CqlRuntimeError as exc:
        err = SourceError(
            compiled.path,
            exc.line,
            exc.column,
            f"{exc.message} ({item.path} game {item.number}, ply {model.plies[ctx.pos]})",
            severity="runtime error",
        ).with_source(compiled.source)
        return GameOutcome(item.number, messages=tuple(ctx.messages), runtime_error=err)
    low, high = compiled.matchcount
    m = len(matched)
    if not (m >= 1 and m >= low and (high is None or m <= high)):
        return GameOutcome(item.number, messages=tuple(ctx.messages))
    header_comments: list[str] = []
    key: list[Any] = []
    if compiled.header.sort_matchcount:
        header_comments.append(f"matchcount: {m}")
        key.append(-m)
    for index, sort in enumerate(sorts):
        sort_value = sort_values.get(index)
        if sort_value is not None:
            header_comments.append(f"{sort.doc}: {sort_value}")
            key.append((0, _sort_key(sort_value, sort.minimum)))
        else:
            key.append((1, 0))
    key.append(item.number)
    if variations or "(" not in item.text:
        output_headers = chess.pgn.Game().headers
        output_headers.update(game.headers)
        pgn = render_light(
            game,
            output_headers,
            matched=matched,
            user_comments=user_comments,
            header_comments=header_comments,
            matchstring=compiled.header.matchstring,
            quiet=compiled.quiet,
            silent=compiled.silent,
        )
    else:
        # Variations out of scope were skipped, but the output keeps them
        # (docs/reference/cql.md#output).
        reread = chess.pgn.read_game(io.StringIO(item.text))
        assert reread is not None  # the light reader found this very game
        if reread.errors:
            # A bad variation the query did not look at: the game is still not writable.
            return skipped_game(item, f"in a variation: {reread.errors[0]}")
        pgn = render_game(
            reread,
            variations=variations,
            matched=matched,
            user_comments=user_comments,
            header_comments=header_comments,
            matchstring=compiled.header.matchstring,
            quiet=compiled.quiet,
            silent=compiled.silent,
        )
    return GameOutcome(
        item.number,
        matched=True,
        pgn=pgn,
        sort_key=tuple(key),
        messages=tuple(ctx.messages),
    )


class _Reader(LightVisitor):
    """The light reader, plus GameBuilder's rule that a movetext result fills in `*`."""

    def visit_result(self, result: str) -> None:
        """Like GameBuilder: the movetext result replaces a missing or `*` Result tag."""
        if self.game.headers.get("Result", "*") == "*":
            self.game.headers["Result"] = result


def run_games(
    compiled: CompiledQuery, games: Iterable[GameText], state: RunState | None = None
) -> Iterator[GameOutcome]:
    """Evaluate games in order, yielding one GameOutcome per input game."""
    state = state or compiled.new_state()
    for item in games:
        yield run_game(compiled, item, state)
