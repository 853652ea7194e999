"""The lean reader: the common game read without python-chess's `read_game` loop.

Most games are plain: tag lines, one empty line, then moves, move numbers, `{comments}`
(lichess `[%clk]` ones included), NAGs and a result. `read_lean` reads such a game into the
same `LightGame` that `light.LightVisitor` builds when variations are out of scope: one
regex pass splits comments from the rest, python-chess's own token regex finds the tokens,
`san.parse_san` reads each move, and a simple move (not a promotion, en passant or
castling) is applied straight to the board's bitboards, exactly as `Board.push` would
change them, without saving the undo state that nobody asks for here.

Anything else — a `FEN` or variant tag, a variation, a `;` or `%` comment, a null move, an
unclosed comment, a move python-chess would reject, a layout the header rules of
`read_game` treat specially — returns None, and the caller reads the game with the light
reader, so results never change. `tests/cqlvars/test_lean_cql.py` compares the two readers on
every shipped game.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping

import chess
import chess.pgn

from esochess.cqlvars.light import LightGame, LightNode, snapshot
from esochess.cqlvars.san import parse_san

_TAG = chess.pgn.TAG_REGEX.match
_TOKENS = chess.pgn.MOVETEXT_REGEX.finditer
#: A comment, or a stretch of movetext without one.
_CHUNKS = re.compile(r"\{([^}]*)\}|[^{]+")
#: An empty line (whitespace only) inside a stretch of movetext: the end of the game.
_EMPTY_LINE = re.compile(r"\n[^\S\n]*(?:\n|\Z)")
_RESULTS = frozenset({"1-0", "0-1", "1/2-1/2", "*"})
_NAGS = {"?": chess.pgn.NAG_MISTAKE, "??": chess.pgn.NAG_BLUNDER, "!": chess.pgn.NAG_GOOD_MOVE,
         "!!": chess.pgn.NAG_BRILLIANT_MOVE, "!?": chess.pgn.NAG_SPECULATIVE_MOVE,
         "?!": chess.pgn.NAG_DUBIOUS_MOVE}
#: What sends a game to the light reader when found in its movetext.
_UNUSUAL = re.compile(r"[;()@]|--|Z0|0000|\n%|^%")
_BB = chess.BB_SQUARES
_PAWN, _KING = chess.PAWN, chess.KING


class _Unusual(Exception):
    """The game is not in the common form: read it with the light reader."""


def read_lean(
    text: str, prefilter: Callable[[Mapping[str, str]], bool] | None = None
) -> LightGame | None:
    """The game of `text` as `LightVisitor(comments=True)` with the movetext result rule
    reads it, or None when the game is not in the common form (see the module docstring)."""
    try:
        return _read(text, prefilter)
    except _Unusual:
        return None


def _read(text: str, prefilter: Callable[[Mapping[str, str]], bool] | None) -> LightGame:
    headers, moves_at = _headers(text)
    game = LightGame(headers, linear=True)
    if prefilter is not None and not prefilter(headers):
        game.skipped = True
        return game
    board = chess.Board()
    nodes = game.nodes
    node = LightNode(None, -1, snapshot(board))
    nodes.append(node)
    current = 0
    line_start = True
    pos = moves_at
    while pos < len(text):
        chunk = _CHUNKS.match(text, pos)
        if chunk is None:
            raise _Unusual  # a comment that is never closed
        pos = chunk.end()
        comment = chunk.group(1)
        if comment is not None:
            if comment.startswith(" "):
                comment = comment[1:]
            if comment.endswith(" "):
                comment = comment[:-1]
            node.comment = f"{node.comment} {comment}" if node.comment and comment else (
                node.comment or comment)
            line_start = False
            continue
        movetext = chunk.group(0)
        end = _end_of_game(movetext, line_start)
        if end is not None:
            if text[chunk.start() + end :].strip():
                raise _Unusual  # more after the empty line that ends the game
            movetext = movetext[:end]
        if _UNUSUAL.search(movetext):
            raise _Unusual
        for match in _TOKENS(movetext):
            token = match.group(0)
            if token in _RESULTS:
                if headers.get("Result", "*") == "*":
                    headers["Result"] = token
            elif token in _NAGS:
                node.nags.append(_NAGS[token])
            elif token.startswith("$"):
                node.nags.append(int(token[1:]))
            else:
                try:
                    move = parse_san(board, token)
                except ValueError:
                    raise _Unusual from None  # the light reader reports it exactly
                _push(board, move)
                node = LightNode(move, current, snapshot(board))
                nodes.append(node)
                nodes[current].children.append(len(nodes) - 1)
                current = len(nodes) - 1
        if end is not None:
            break
        line_start = movetext.endswith("\n")
    return game


def _headers(text: str) -> tuple[chess.pgn.Headers, int]:
    """The tags of a game laid out as tag lines, one empty line, movetext; and where the
    movetext starts."""
    headers = chess.pgn.Headers({})
    pos = len(text) - len(text.lstrip("\n"))
    while True:
        end = text.find("\n", pos)
        if end < 0:
            raise _Unusual
        line = text[pos : end + 1]
        if line == "\n":
            break
        match = _TAG(line)
        if match is None:
            raise _Unusual
        headers[match.group(1)] = match.group(2)
        pos = end + 1
    if not headers or "FEN" in headers or headers.get("Variant", "Standard").lower() != "standard":
        raise _Unusual
    start = end + 1
    if text.startswith(("[", "%", "\n"), start) or text[start:start + 1].isspace():
        raise _Unusual
    return headers, start


def _end_of_game(movetext: str, line_start: bool) -> int | None:
    """Where the empty line that ends the game starts in a stretch of movetext, if any
    (`line_start`: the stretch begins a line, as after the tags, not after a comment)."""
    found = _EMPTY_LINE.search("\n" + movetext if line_start else movetext)
    if found is None:
        return None
    return found.start() + (0 if line_start else 1)


def _push(board: chess.Board, move: chess.Move) -> None:
    """`board.push(move)` without the undo state: bitboards, castling rights, en passant
    square and clocks change exactly as python-chess changes them. Castling, promotions
    and en passant go through `Board.push` itself."""
    from_square, to_square = move.from_square, move.to_square
    from_bb, to_bb = _BB[from_square], _BB[to_square]
    turn = board.turn
    pawn = board.pawns & from_bb
    capture = board.occupied_co[not turn] & to_bb
    king = board.kings & from_bb
    if (move.promotion or (pawn and not capture and (to_square - from_square) % 8)
            or (king and abs((to_square & 7) - (from_square & 7)) > 1)):
        board.push(move)  # a promotion, en passant, castling
        return
    board.ep_square = None
    board.halfmove_clock = 0 if pawn or capture else board.halfmove_clock + 1
    if not turn:
        board.fullmove_number += 1
    board.castling_rights &= ~to_bb & ~from_bb
    if king:
        board.castling_rights &= ~(chess.BB_RANK_1 if turn else chess.BB_RANK_8)
    if capture:  # the taken piece (never a king: the move is legal)
        _toggle(board, to_bb, to_bb)
        board.occupied_co[not turn] ^= to_bb
        board.occupied ^= to_bb
        board.promoted &= ~to_bb
    both = from_bb | to_bb
    _toggle(board, from_bb, both)
    if pawn:
        if to_square - from_square == 16 and from_square < 16:
            board.ep_square = from_square + 8
        elif from_square - to_square == 16 and from_square >= 48:
            board.ep_square = from_square - 8
    board.occupied_co[turn] ^= both
    board.occupied ^= both
    if board.promoted & from_bb:
        board.promoted ^= both
    board.turn = not turn


def _toggle(board: chess.Board, at: int, mask: int) -> None:
    """Flip `mask` in the bitboard of the piece type standing on `at`."""
    if board.pawns & at:
        board.pawns ^= mask
    elif board.knights & at:
        board.knights ^= mask
    elif board.bishops & at:
        board.bishops ^= mask
    elif board.rooks & at:
        board.rooks ^= mask
    elif board.queens & at:
        board.queens ^= mask
    else:
        board.kings ^= mask
