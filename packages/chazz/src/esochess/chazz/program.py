"""The static structure of a CHAZZ program: its instructions from the start square on,
with every `B`/`b` matched by an ordinary bracket stack (docs/reference/chazz.md#instructions,
static equivalence).

This is the compiler's input. Nodes are frozen and keep their squares.
"""

from __future__ import annotations

from dataclasses import dataclass

from esochess.chazz.runtime import start_index
from esochess.fen import Grid


@dataclass(frozen=True)
class Instr:
    """One executed square: its piece letter and position in the padded grid."""

    piece: str
    row: int
    col: int


@dataclass(frozen=True)
class Loop:
    """A `B` and its matching `b`; `depth` is the number of `B`s open around it."""

    open: Instr
    close: Instr
    body: tuple[Node, ...]
    depth: int
    # Instructions in the body, nested loops' `B` and `b` included.
    body_size: int


@dataclass(frozen=True)
class OpenLoop:
    """A `B` that no `b` closes: it fails when run on 0, else it stays on the stack."""

    open: Instr
    depth: int


@dataclass(frozen=True)
class StrayClose:
    """A `b` with no `B` open before it: reaching it always underflows, so it ends the
    program's reachable code."""

    close: Instr


Node = Instr | Loop | OpenLoop | StrayClose


@dataclass(frozen=True)
class Program:
    """The reachable instructions of a grid as a tree of loops, plus the memory size."""

    body: tuple[Node, ...]
    memory_size: int


def node_size(node: Node) -> int:
    """Return how many instructions a node holds (a loop counts its `B` and `b`)."""
    return node.body_size + 2 if isinstance(node, Loop) else 1


def build_program(grid: Grid) -> Program:
    """Match the brackets of `grid` from its start square and return the loop tree."""
    cols = grid.cols
    # Each frame: the opening `B` (None for the top level), its depth, and its nodes.
    frames: list[tuple[Instr | None, list[Node]]] = [(None, [])]
    cells = grid.cells
    for index in range(start_index(cells, grid.side), len(cells)):
        piece = cells[index]
        if not piece:
            continue
        instr = Instr(piece, index // cols, index % cols)
        if piece == "B":
            frames.append((instr, []))
        elif piece == "b":
            opener, nodes = frames[-1]
            if opener is None:
                frames[-1][1].append(StrayClose(instr))
                break
            frames.pop()
            size = sum(node_size(n) for n in nodes)
            frames[-1][1].append(Loop(opener, instr, tuple(nodes), len(frames) - 1, size))
        else:
            frames[-1][1].append(instr)
    # Unclosed `B`s: each becomes an OpenLoop followed, at the same level, by what came
    # after it (innermost first, so the outer levels collect everything).
    while len(frames) > 1:
        opener, nodes = frames.pop()
        assert opener is not None
        frames[-1][1].append(OpenLoop(opener, len(frames) - 1))
        frames[-1][1].extend(nodes)
    return Program(tuple(frames[0][1]), len(cells))
