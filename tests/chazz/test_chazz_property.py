"""Acceptance check 15 (spec §8): on random boards, random sides and random stdin,
`--engine compiler` and `--engine interpreter` agree, bounded by `--max-steps`."""

from __future__ import annotations

from pathlib import Path

from chazz_helpers import run_grid
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from esochess.chazz.cli import main
from esochess.fen import Grid

PIECES = "PNBRQKpnbrqk"


@st.composite
def grids(draw: st.DrawFn, max_rows: int = 5, max_cols: int = 12) -> Grid:
    """A random board of up to `max_rows` × `max_cols` squares.

    Each board draws from its own few pieces (and empty squares), so that some boards
    are all loops and pointer moves, others all pawns and output, and so on.
    """
    rows = draw(st.integers(1, max_rows))
    cols = draw(st.integers(1, max_cols))
    alphabet = draw(st.lists(st.sampled_from(PIECES), min_size=1, max_size=6, unique=True))
    square = st.sampled_from(alphabet) | st.just("")
    cells = draw(st.lists(square, min_size=rows * cols, max_size=rows * cols))
    return Grid(rows, cols, tuple(cells), draw(st.sampled_from(["w", "b"])))


# Well-bracketed code, so that loops really run: transfer loops, clear loops, `if`s.
FLAT = st.text(alphabet="PPppNnKkRQq", max_size=6)
CODE = st.recursive(
    FLAT,
    lambda inner: st.lists(inner | inner.map(lambda body: "B" + body + "b"), max_size=4).map(
        "".join
    ),
    max_leaves=12,
)


@st.composite
def structured_grids(draw: st.DrawFn) -> Grid:
    """A board holding well-bracketed code, laid out in ranks with random gaps."""
    code = draw(CODE)
    cols = draw(st.integers(1, 10))
    cells: list[str] = []
    for piece in code:
        cells.extend([""] * draw(st.integers(0, 2)))
        cells.append(piece)
    cells.extend([""] * (-len(cells) % cols))
    if not cells:
        cells = [""] * cols
    return Grid(len(cells) // cols, cols, tuple(cells), draw(st.sampled_from(["w", "b"])))


STDIN = st.binary(max_size=6)
LIMIT = st.integers(0, 3000)


@settings(max_examples=300, deadline=None)
@given(grids(), STDIN, LIMIT)
def test_engines_agree_under_a_step_limit(grid: Grid, stdin: bytes, limit: int) -> None:
    compiled = run_grid(grid, stdin, engine="compiler", max_steps=limit)
    interpreted = run_grid(grid, stdin, engine="interpreter", max_steps=limit)
    assert compiled == interpreted


@settings(max_examples=300, deadline=None)
@given(structured_grids(), STDIN, LIMIT)
def test_engines_agree_on_structured_loops(grid: Grid, stdin: bytes, limit: int) -> None:
    compiled = run_grid(grid, stdin, engine="compiler", max_steps=limit)
    assert compiled == run_grid(grid, stdin, engine="interpreter", max_steps=limit)
    if compiled.status != "limit":
        assert run_grid(grid, stdin, engine="compiler") == compiled


@settings(max_examples=100, deadline=None)
@given(grids() | structured_grids(), STDIN, LIMIT, st.booleans())
def test_engines_trace_the_same_steps(grid: Grid, stdin: bytes, limit: int, prompt: bool) -> None:
    compiled = run_grid(grid, stdin, engine="compiler", max_steps=limit, trace=True, prompt=prompt)
    interpreted = run_grid(
        grid, stdin, engine="interpreter", max_steps=limit, trace=True, prompt=prompt
    )
    assert compiled == interpreted
    assert len(compiled.trace) <= limit


@settings(max_examples=200, deadline=None)
@given(grids(), STDIN)
def test_the_uncounted_fast_code_agrees_when_the_program_ends(grid: Grid, stdin: bytes) -> None:
    bounded = run_grid(grid, stdin, engine="interpreter", max_steps=3000)
    if bounded.status != "limit":  # the program ends: the unbounded run is safe
        assert run_grid(grid, stdin, engine="compiler") == bounded


@settings(max_examples=40, deadline=None)
@given(grids(max_rows=3, max_cols=8), STDIN, LIMIT)
def test_the_cli_engines_agree_on_stdout_status_and_html(
    tmp_path_factory: object, grid: Grid, stdin: bytes, limit: int
) -> None:
    assert hasattr(tmp_path_factory, "mktemp")
    folder: Path = tmp_path_factory.mktemp("chazz15")
    program = folder / "prog.fen"
    program.write_text(grid.text() + "\n")
    results = []
    for engine in ("compiler", "interpreter"):
        page = folder / f"{engine}.html"
        result = CliRunner().invoke(
            main,
            [str(program), "false", "--html", str(page), "--engine", engine,
             "--max-steps", str(limit)],
            input=stdin,
        )  # fmt: skip
        results.append(
            (result.stdout_bytes, result.stderr_bytes, result.exit_code, page.read_bytes())
        )
    assert results[0] == results[1]
    assert results[0][2] in (0, 1)


@settings(max_examples=200, deadline=None)
@given(grids() | structured_grids(), STDIN, st.integers(0, 6000), st.booleans())
def test_the_tiered_compiler_engine_agrees(
    grid: Grid, stdin: bytes, limit: int, interactive: bool
) -> None:
    # The CLI's default: a short interpreted trial, then the compiled code from the start
    # (replaying the input the trial read). Limits around the trial budget matter most.
    tiered = run_grid(grid, stdin, max_steps=limit, tiered=True, interactive=interactive)
    assert tiered == run_grid(grid, stdin, engine="interpreter", max_steps=limit)
    if tiered.status != "limit":
        assert run_grid(grid, stdin, tiered=True, interactive=interactive) == tiered
