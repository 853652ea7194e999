"""Output (docs/reference/cql.md#output): comment merging, PGN export of matched games, sorting, statistics,
and the output file."""

from __future__ import annotations

import io
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import IO

import chess
import chess.pgn

from esochess.cqlvars.light import LightGame
from esochess.fen import files


def merge_comment(original: str, header: Sequence[str], match: str, users: Sequence[str]) -> str:
    """Join the comment parts of one node with single spaces, skipping empty parts
    (docs/reference/cql.md#output)."""
    parts = [original, *header, match]
    seen: set[str] = set()
    for text in users:
        if text not in seen:
            seen.add(text)
            parts.append(text)
    return " ".join(p for p in parts if p)


def in_scope_nodes(game: chess.pgn.Game, variations: bool) -> list[chess.pgn.GameNode]:
    """The nodes of a game tree in position-id order (pre-order, or the mainline only)."""
    if not variations:
        nodes: list[chess.pgn.GameNode] = [game]
        nodes.extend(game.mainline())
        return nodes
    out: list[chess.pgn.GameNode] = []
    stack: list[chess.pgn.GameNode] = [game]
    while stack:
        node = stack.pop()
        out.append(node)
        stack.extend(reversed(node.variations))
    return out


def known_san(before: chess.Board, after: chess.Board, move: chess.Move) -> str | None:
    """`before.san(move)` when it is cheap to get without python-chess's look-ahead, else None.

    `after` is the position after `move` (from the light reader's snapshot), so the check and
    mate suffix needs no push. Disambiguation is needed only when another piece of the same
    type attacks the target square; then, and for null moves, drops and castling, this gives
    None and the caller uses `board.san`. The text equals python-chess's `_algebraic` for
    every move it returns one for.
    """
    if not move or move.drop or before.is_castling(move):
        return None
    from_square = move.from_square
    to_square = move.to_square
    piece_type = before.piece_type_at(from_square)
    if not piece_type:
        return None
    capture = before.is_capture(move)
    if piece_type == chess.PAWN:
        san = chess.FILE_NAMES[chess.square_file(from_square)] + "x" if capture else ""
    else:
        turn = before.turn
        others = (
            before.attackers_mask(turn, to_square)
            & before.pieces_mask(piece_type, turn)
            & ~chess.BB_SQUARES[from_square]
        )
        if others:
            return None
        san = chess.piece_symbol(piece_type).upper() + ("x" if capture else "")
    san += chess.SQUARE_NAMES[to_square]
    if move.promotion:
        san += "=" + chess.piece_symbol(move.promotion).upper()
    if after.is_check():
        san += "#" if after.is_checkmate() else "+"
    return san


def render_game(
    game: chess.pgn.Game,
    *,
    variations: bool,
    matched: Sequence[int],
    user_comments: dict[int, list[str]],
    header_comments: Sequence[str],
    matchstring: str,
    quiet: bool,
    silent: bool,
) -> str:
    """The matched game as PGN text (FileExporter layout, 80 columns, trailing blank line)."""
    if not silent:
        nodes = in_scope_nodes(game, variations)
        matched_set = set(matched)
        for pos, node in enumerate(nodes):
            header = header_comments if pos == 0 else ()
            match = matchstring if pos in matched_set and not quiet else ""
            users = user_comments.get(pos, [])
            if header or match or users:
                node.comment = merge_comment(node.comment, header, match, users)
    out = io.StringIO()
    game.accept(chess.pgn.FileExporter(out, columns=80, headers=True, comments=True, variations=True))
    return out.getvalue()


_NODE, _VARIATION, _END = 0, 1, 2


def render_light(
    light: LightGame,
    headers: chess.pgn.Headers,
    *,
    matched: Sequence[int],
    user_comments: dict[int, list[str]],
    header_comments: Sequence[str],
    matchstring: str,
    quiet: bool,
    silent: bool,
) -> str:
    """`render_game` of the GameBuilder tree of a fully read light game, without the tree.

    Every node of `light` is in scope (the caller re-reads games with skipped variations).
    The FileExporter's visitor methods are called in the order `Game.accept` calls them,
    with boards built from the snapshots, so the text is the same byte for byte.
    """
    nodes = light.nodes
    comments = [node.comment for node in nodes]
    if not silent:
        matched_set = set(matched)
        for pos, index in enumerate(light.preorder()):
            header = header_comments if pos == 0 else ()
            match = matchstring if pos in matched_set and not quiet else ""
            users = user_comments.get(pos, [])
            if header or match or users:
                comments[index] = merge_comment(comments[index], header, match, users)
    out = io.StringIO()
    visitor = chess.pgn.FileExporter(out, columns=80, headers=True, comments=True, variations=True)
    visitor.begin_game()
    for tagname, tagvalue in headers.items():
        visitor.visit_header(tagname, tagvalue)
    visitor.end_headers()
    if comments[0]:
        visitor.visit_comment(comments[0])
    board = light.board
    # The walk of `ChildNode._accept`: a node, then (if it continues a line) its parent's
    # other variations, each between begin_variation and end_variation, then its first
    # child. Stack items: (index, _NODE / _VARIATION) or (-1, _END).
    stack: list[tuple[int, int]] = []
    if nodes[0].children:
        stack.append((nodes[0].children[0], _NODE))
    while stack:
        index, kind = stack.pop()
        if kind == _END:
            visitor.end_variation()
            continue
        if kind == _VARIATION:
            visitor.begin_variation()
        node = nodes[index]
        move = node.move
        assert move is not None
        if node.starting_comment:
            visitor.visit_comment(node.starting_comment)
        before = board(node.parent)
        if before.turn == chess.WHITE:
            visitor.write_token(str(before.fullmove_number) + ". ")
        elif visitor.force_movenumber:
            visitor.write_token(str(before.fullmove_number) + "... ")
        san = known_san(before, board(index), move)
        if san is None:
            san = before.san(move)
        visitor.write_token(san + " ")
        visitor.force_movenumber = False
        for nag in sorted(node.nags):
            visitor.visit_nag(nag)
        if comments[index]:
            visitor.visit_comment(comments[index])
        if node.children:
            stack.append((node.children[0], _NODE))
        if kind == _NODE:
            for sibling in reversed(nodes[node.parent].children[1:]):
                stack.append((-1, _END))
                stack.append((sibling, _VARIATION))
    visitor.visit_result(headers.get("Result", "*"))
    visitor.end_game()
    return out.getvalue()


def statistics_line(
    read: int, matched: int, errors: int, seconds: float, written_to: str | None = None
) -> str:
    """`cql: R games read, M matched, E with errors, T.TT s` (docs/reference/cql.md#output);
    `M matched (written to FILE)` names an output file the user did not name with `-o`."""
    where = f" (written to {written_to})" if written_to is not None else ""
    return (
        f"cql: {read} games read, {matched} matched{where}, {errors} with errors, "
        f"{seconds:.2f} s"
    )


@contextmanager
def output_file(path: str, inputs: Sequence[str]) -> Iterator[IO[str]]:
    """The output PGN: `-` streams to stdout, anything else goes through the shared writer.

    The writer (`esochess.fen.files.open_output`) makes a regular file appear only when the
    run finishes, writes devices and FIFOs in place, and refuses an output that is also one
    of `inputs` (`OutputError`) before anything is written.
    """
    if path != "-":
        with files.open_output(path, text=True, inputs=inputs) as handle:
            yield handle
        return
    if not hasattr(sys.stdout, "buffer"):
        yield sys.stdout
        return
    stream = io.TextIOWrapper(
        sys.stdout.buffer, encoding="utf-8", errors="surrogateescape", newline="\n",
        write_through=True,
    )  # fmt: skip
    try:
        yield stream
    finally:
        try:
            stream.flush()
        finally:
            stream.detach()
