"""`chespel tune`: tuning of a program's numbers from games (docs/chespel.md#tuning).

The pipeline flows one way: games → candidate positions (samples.py) → a random choice of
them → quiet positions and their features, computed once per position by a traced
evaluation (tracing.py), spread over worker processes → the fit (fit.py for the Texel
objective; moves.py for the moves objective, whose positions are the leaves of each
chosen position's moves) → the source with the new numbers (weights.py), checked again
before it is returned.
"""

from __future__ import annotations

import io
import multiprocessing
import multiprocessing.util
import os
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from functools import partial
from typing import Literal, TypeVar

import chess
import numpy as np
import numpy.typing as npt
from scipy import sparse

from esochess.chespel.check_result import CheckResult
from esochess.chespel.frontend import compile_source
from esochess.chespel.runtime.evaluation import Program
from esochess.chespel.runtime.values import ChespelRuntimeError
from esochess.chespel.tuning.fit import Data, error, texel
from esochess.chespel.tuning.labels import LabelError, Labeller, LabelSettings
from esochess.chespel.tuning.moves import (
    ALTERNATIVES,
    TEMPERATURE,
    comparison,
    loss,
    pairs,
    root_leaves,
)
from esochess.chespel.tuning.samples import (
    Candidate,
    GameCount,
    GameText,
    choose,
    quiet,
    read_candidates,
    split_games,
)
from esochess.chespel.tuning.tracing import Gradient, Tracer, features, traced_program
from esochess.chespel.tuning.weights import (
    Weight,
    clamp_weight,
    find_weights,
    rewrite,
    score_literals,
    weight_table,
)
from esochess.fen import files
from esochess.fen.processes import die_with_parent, results_in_order, stop_pool

CHUNK = 1000
"""Positions per unit of work sent to a worker process."""
_In = TypeVar("_In")
_Out = TypeVar("_Out")


Objective = Literal["texel", "moves"]
OBJECTIVES: tuple[Objective, ...] = ("texel", "moves")


class TuneError(Exception):
    """A problem with the input that stops tuning (no usable position, unreadable games)."""


@dataclass(frozen=True)
class TuneSettings:
    """The options of `chespel tune`."""

    games: tuple[str, ...]
    positions: int | None = None
    freeze: tuple[str, ...] = ()
    jobs: int = 2
    seed: int = 0
    label: LabelSettings | None = None
    """Targets from a reference engine's search instead of game results alone."""
    ridge: float | None = None
    """The ridge λ; None: chosen on held-out games."""
    objective: Objective = "texel"
    """`texel`: fit the score to the result (or label); `moves`: rank the played move first."""
    alternatives: int = ALTERNATIVES
    """The moves objective's alternatives per position (0: every one)."""


@dataclass(frozen=True)
class TuneResult:
    """What tuning found: the new source, the table of numbers and the fit's summary."""

    source: str
    table: list[str]
    k: float
    ridge: float
    error_before: float
    error_after: float
    positions: int
    games: GameCount
    tuned: int
    frozen: int
    untouched: int
    dropped: int = 0
    runtime_errors: list[str] = field(default_factory=list)
    agreement: tuple[float, float] | None = None
    """The moves objective: the share of held-out positions whose played move scores best,
    before and after (the error and K are then the comparison loss and T)."""


@dataclass
class _Chunk:
    """Features of a run of positions, as sparse triplets (row within the chunk). `results`
    are the targets (Texel objective) or the leaves' roles (moves objective, moves.py:
    the played move's, then each other move's of the same position)."""

    results: list[float] = field(default_factory=list)
    games: list[int] = field(default_factory=list)
    scores: list[int] = field(default_factory=list)
    rows: list[int] = field(default_factory=list)
    columns: list[int] = field(default_factory=list)
    coefficients: list[float] = field(default_factory=list)
    entangled: set[int] = field(default_factory=set)
    dropped: int = 0
    errors: list[str] = field(default_factory=list)

    def add(self, target: float, game: int, score: int, grad: Gradient, sign: int = 1) -> None:
        """A row: its target, game, score and features (times `sign`)."""
        row = len(self.results)
        self.results.append(target)
        self.games.append(game)
        self.scores.append(sign * score)
        for column, coefficient in grad.items():
            if coefficient:
                self.rows.append(row)
                self.columns.append(column)
                self.coefficients.append(sign * coefficient)

    def skip(self, candidate: Candidate, exc: ChespelRuntimeError) -> None:
        """A position whose evaluation failed: counted, and the first few reported."""
        self.dropped += 1
        if len(self.errors) < 5:
            self.errors.append(f"{candidate.fen}: {exc.message} "
                               f"(line {exc.line}, column {exc.column})")

    def packed(self) -> _Rows:
        """The chunk as arrays: what a worker hands back and the parent keeps until the fit
        (a Python list holds a pointer and a boxed number per entry, about seven times the
        bytes; a million-position tune held gigabytes of them)."""
        return _Rows(
            results=np.array(self.results, dtype=np.float64),
            games=np.array(self.games, dtype=np.int64),
            scores=np.array(self.scores, dtype=np.int64),
            rows=np.array(self.rows, dtype=np.int32),
            columns=np.array(self.columns, dtype=np.int32),
            coefficients=np.array(self.coefficients, dtype=np.float64),
            entangled=frozenset(self.entangled), dropped=self.dropped, errors=tuple(self.errors))


@dataclass(frozen=True)
class _Rows:
    """A packed `_Chunk`: the same rows, targets and features as arrays."""

    results: npt.NDArray[np.float64]
    games: npt.NDArray[np.int64]
    scores: npt.NDArray[np.int64]
    rows: npt.NDArray[np.int32]
    columns: npt.NDArray[np.int32]
    coefficients: npt.NDArray[np.float64]
    entangled: frozenset[int]
    dropped: int
    errors: tuple[str, ...]


class _Worker:
    """The traced program one process computes features with, and its reference engine
    (started on first use, closed when the process ends)."""

    traced: Program
    label: LabelSettings | None = None
    labeller: Labeller | None = None

    @classmethod
    def setup(cls, path: str, text: str, parent: int | None = None,
              label: LabelSettings | None = None) -> None:
        if parent is not None:
            die_with_parent(parent)
        cls.label = label
        result = compile_source(path, text)
        assert result.program is not None
        weights, ids = find_weights(result.program)
        wanted = score_literals(result.program)
        cls.traced = traced_program(result, {key: index for key, index in ids.items()
                                             if key in wanted}, [w.millis for w in weights])

    @classmethod
    def target(cls, board: chess.Board, result: float) -> float:
        """A position's target: the game's result, or the blend with the engine's score."""
        if cls.label is None:
            return result
        if cls.labeller is None:
            cls.labeller = Labeller(cls.label)
            if multiprocessing.parent_process() is not None:
                multiprocessing.util.Finalize(cls, cls.close, exitpriority=10)
        return cls.labeller.target(board, result)

    @classmethod
    def close(cls) -> None:
        if cls.labeller is not None:
            cls.labeller.close()
            cls.labeller = None


def _features(candidates: Sequence[Candidate]) -> _Rows:
    chunk = _Chunk()
    Tracer.take()
    for candidate in candidates:
        try:
            found = quiet(candidate)
            if found is None:
                chunk.dropped += 1
                continue
            score, grad = features(_Worker.traced, *found)
            target = _Worker.target(found[0], candidate.result)
        except ChespelRuntimeError as exc:
            chunk.skip(candidate, exc)
            continue
        chunk.add(target, candidate.game, score, grad)
    chunk.entangled = Tracer.take()
    return chunk.packed()


def _leaf_features(candidates: Sequence[Candidate], alternatives: int, seed: int) -> _Rows:
    """The leaves of each position's moves (moves.py), scored for the side to move there."""
    chunk = _Chunk()
    Tracer.take()
    for candidate in candidates:
        try:
            leaves = root_leaves(candidate, alternatives, seed)
            if leaves is None or len(leaves) < 2:
                chunk.dropped += 1
                continue
            found = [features(_Worker.traced, leaf.board, leaf.flags) for leaf in leaves]
        except ChespelRuntimeError as exc:
            chunk.skip(candidate, exc)
            continue
        for leaf, (score, grad) in zip(leaves, found, strict=True):
            chunk.add(leaf.role, candidate.game, score, grad, leaf.sign)
    chunk.entangled = Tracer.take()
    return chunk.packed()


def _chunks(candidates: Sequence[Candidate]) -> Iterator[Sequence[Candidate]]:
    for start in range(0, len(candidates), CHUNK):
        yield candidates[start:start + CHUNK]


def _read(part: GameText) -> tuple[list[Candidate], GameCount]:
    count = GameCount()
    found = list(read_candidates(io.StringIO(part.text), part.path, count, part.first))
    return found, count


class _Pool:
    """The worker processes of one tuning run (none with one job): `map` keeps the order."""

    def __init__(self, path: str, text: str, jobs: int,
                 label: LabelSettings | None = None) -> None:
        self.executor: ProcessPoolExecutor | None = None
        if jobs <= 1:
            _Worker.setup(path, text, None, label)
            return
        context = multiprocessing.get_context(
            "fork" if "fork" in multiprocessing.get_all_start_methods() else "spawn")
        self.executor = ProcessPoolExecutor(max_workers=jobs, mp_context=context,
                                            initializer=_Worker.setup,
                                            initargs=(path, text, os.getpid(), label))

    def map(self, function: Callable[[_In], _Out], items: Iterable[_In]) -> Iterator[_Out]:
        if self.executor is None:
            return map(function, items)
        return results_in_order(self.executor, function, items)

    def close(self, finished: bool) -> None:
        _Worker.close()
        if self.executor is None:
            return
        if finished:
            self.executor.shutdown(wait=True)
        else:
            stop_pool(self.executor)  # a worker ended mid-result must not hang the exit


def _all_features(pool: _Pool, candidates: Sequence[Candidate], settings: TuneSettings,
                  progress: Callable[[str], None]) -> Iterator[_Rows]:
    total = len(candidates)
    done = shown = 0
    step = max(total // 10, 1)
    work: Callable[[Sequence[Candidate]], _Rows] = _features
    if settings.objective == "moves":
        work = partial(_leaf_features, alternatives=settings.alternatives, seed=settings.seed)
    for chunk, part in zip(pool.map(work, _chunks(candidates)), _chunks(candidates), strict=True):
        done += len(part)
        if done - shown >= step or done == total:
            shown = done
            progress(f"features: {done}/{total} positions")
        yield chunk


def _candidates(pool: _Pool, paths: Sequence[str], count: GameCount) -> list[Candidate]:
    parts: list[GameText] = []
    first = 0
    for path in paths:
        try:
            with open(path, encoding="utf-8", errors="replace") as handle:
                text = handle.read()
        except OSError as exc:
            raise TuneError(f"cannot read {path}: {files.read_reason(exc)}") from None
        for part in split_games(path, text, first):
            parts.append(part)
            first = part.first + part.games
    found: list[Candidate] = []
    for candidates, counted in pool.map(_read, parts):
        found.extend(candidates)
        count.add(counted)
    return found


def tune(path: str, text: str, result: CheckResult, settings: TuneSettings,
         progress: Callable[[str], None]) -> TuneResult:
    """Tune the program `result` (read from `path`, source `text`) on the settings' games."""
    assert result.program is not None
    weights, _ = find_weights(result.program)
    count = GameCount()
    pool = _Pool(path, text, settings.jobs, settings.label)
    finished = False
    try:
        candidates = _candidates(pool, settings.games, count)
        chosen = choose(candidates, settings.positions, settings.seed)
        del candidates
        progress(f"{count.candidates} candidate positions in {count.used} games; "
                 f"using {len(chosen)}")
        if not chosen:
            raise TuneError("the games hold no position to tune on (finished games needed)")
        chunks = list(_all_features(pool, chosen, settings, progress))
        finished = True
    except LabelError as exc:
        raise TuneError(str(exc)) from None
    finally:
        pool.close(finished)
    frozen = {w.index for w in weights if w.rule in settings.freeze}
    entangled = set().union(*(chunk.entangled for chunk in chunks))
    data, tuned = _data(chunks, weights, frozen | entangled)
    if not len(data.y):
        raise TuneError("no position was left after the capture search")
    start = np.array([weights[i].millis / 1000 for i in tuned], dtype=np.float64)
    agreement: tuple[float, float] | None = None
    if settings.objective == "moves":
        comparisons = pairs(data)
        if not comparisons.roots:
            raise TuneError("no position with an alternative move was left")
        moves = comparison(comparisons, start, settings.ridge)
        fitted, k, chosen_ridge, before = moves.weights, TEMPERATURE, moves.ridge, moves.loss_before
        agreement = (moves.agreement_before, moves.agreement_after)
    else:
        fit = texel(data, start, settings.ridge)
        fitted, k, chosen_ridge, before = fit.weights, fit.k, fit.ridge, fit.error_before
    values = {index: clamp_weight(value * 1000) for index, value in zip(tuned, fitted, strict=True)}
    rounded = np.array([values[i] / 1000 for i in tuned], dtype=np.float64)
    after = (loss(comparisons.fitted(), rounded) if settings.objective == "moves"
             else error(data, k, rounded))
    new_source = rewrite(text, weights, values)
    check = compile_source(path, new_source)
    if not check.ok:
        raise TuneError("the rewritten program does not check: " + str(check.errors[0]))
    return TuneResult(
        source=new_source,
        table=weight_table(weights, values, frozen),
        k=k, ridge=chosen_ridge, error_before=before, error_after=after,
        positions=comparisons.roots if settings.objective == "moves" else len(data.y), games=count, tuned=len(tuned), frozen=len(frozen),
        untouched=len(weights) - len(tuned) - len(frozen),
        dropped=sum(chunk.dropped for chunk in chunks),
        runtime_errors=[e for chunk in chunks for e in chunk.errors][:5], agreement=agreement)


def _data(chunks: Sequence[_Rows], weights: Sequence[Weight],
          excluded: set[int]) -> tuple[Data, list[int]]:
    """The fit's data: columns are the weights some position depends on, minus `excluded`
    (whose contribution joins the constant part)."""
    offsets = np.cumsum([0] + [len(chunk.results) for chunk in chunks[:-1]])
    rows = np.concatenate([chunk.rows.astype(np.int64) + offset
                           for chunk, offset in zip(chunks, offsets, strict=True)])
    columns = np.concatenate([chunk.columns for chunk in chunks])
    coefficients = np.concatenate([chunk.coefficients for chunk in chunks])
    results = np.concatenate([chunk.results for chunk in chunks])
    used = sorted(set(np.unique(columns).tolist()) - excluded)
    position = np.full(len(weights), -1, dtype=np.int64)
    position[used] = np.arange(len(used))
    keep = position[columns] >= 0
    matrix = sparse.csr_matrix(
        (coefficients[keep], (rows[keep], position[columns[keep]])),
        shape=(len(results), len(used)))
    start = np.array([weights[i].millis / 1000 for i in used], dtype=np.float64)
    scores = np.concatenate([chunk.scores for chunk in chunks]).astype(np.float64)
    c = scores / 1000 - matrix @ start
    return Data(results, c, matrix, np.concatenate([chunk.games for chunk in chunks])), used
