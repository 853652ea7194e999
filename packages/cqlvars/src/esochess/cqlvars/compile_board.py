"""Compiling the filters that read the board: move, pin, ray and the direction filters
(docs/reference/cql.md#filters)."""

from __future__ import annotations

import chess

from esochess.cqlvars import ast, rays
from esochess.cqlvars.closures import Fn, lift
from esochess.cqlvars.compile_base import CompilerBase
from esochess.cqlvars.model import Ctx


class BoardFilters(CompilerBase):
    """Compiling the filters that read the board: move, pin, ray and the direction filters"""

    # moves -------------------------------------------------------------------------
    def c_Move(self, node: ast.Move) -> Fn:
        """`move`: played, previous, legal or pseudo-legal moves under the constraints."""
        from_ = self.value(node.from_) if node.from_ is not None else None
        to = self.value(node.to) if node.to is not None else None
        capture = self.value(node.capture) if node.capture is not None else None
        promote = node.promote.pieces if isinstance(node.promote, ast.Designator) else None
        enpassant, castle, null, count = node.enpassant, node.castle, node.null, node.count
        mode, first, branch = node.mode, node.first, node.branch

        def candidates(ctx: Ctx) -> tuple[int, list[chess.Move]] | None:
            game = ctx.game
            if mode == "played":
                kids = game.children[ctx.pos]
                if branch is not None:
                    kids = kids[:1] if branch == "primary" else kids[1:]
                return ctx.pos, [game.moves[c] for c in kids]  # type: ignore[misc]
            if mode == "previous":
                if ctx.pos == 0:
                    return None
                if branch is not None:
                    main = game.children[game.parents[ctx.pos]][0] == ctx.pos
                    if main != (branch == "primary"):
                        return None
                return game.parents[ctx.pos], [game.moves[ctx.pos]]  # type: ignore[list-item]
            board = ctx.board()
            moves = board.legal_moves if mode == "legal" else board.pseudo_legal_moves
            return ctx.pos, list(moves)

        def move(ctx: Ctx) -> int | None:
            found = candidates(ctx)
            if found is None:
                return None
            where, moves = found
            saved = ctx.pos
            ctx.pos = where
            try:
                board = ctx.board()
                fs = from_(ctx) if from_ is not None else chess.BB_ALL
                ts = to(ctx) if to is not None else chess.BB_ALL
                cs = capture(ctx) if capture is not None else chess.BB_ALL
            finally:
                ctx.pos = saved
            if fs is None or ts is None or cs is None:
                return None
            n = 0
            value = 0
            for mv in moves:
                if not mv:
                    if null and not (from_ or to or capture or promote or enpassant or castle):
                        n += 1
                    continue
                if null:
                    continue
                if not chess.BB_SQUARES[mv.from_square] & fs:
                    continue
                if not chess.BB_SQUARES[mv.to_square] & ts:
                    continue
                cap_sq = None
                if capture is not None or first == "capture":
                    if board.is_en_passant(mv):
                        cap_sq = mv.to_square + (-8 if board.turn == chess.WHITE else 8)
                    elif board.is_capture(mv) and not board.is_castling(mv):
                        cap_sq = mv.to_square
                    if capture is not None and (cap_sq is None or not chess.BB_SQUARES[cap_sq] & cs):
                        continue
                if promote is not None:
                    if mv.promotion is None:
                        continue
                    letter = chess.piece_symbol(mv.promotion)
                    letter = letter.upper() if board.turn == chess.WHITE else letter
                    colour_any = "A" if board.turn == chess.WHITE else "a"
                    if letter not in promote and colour_any not in promote:
                        continue
                if enpassant and not board.is_en_passant(mv):
                    continue
                if castle == "o-o" and not board.is_kingside_castling(mv):
                    continue
                if castle == "o-o-o" and not board.is_queenside_castling(mv):
                    continue
                if castle == "castle" and not board.is_castling(mv):
                    continue
                n += 1
                if first == "to":
                    value |= chess.BB_SQUARES[mv.to_square]
                elif first == "capture":
                    value |= chess.BB_SQUARES[cap_sq] if cap_sq is not None else 0
                else:
                    value |= chess.BB_SQUARES[mv.from_square]
            if count:
                return n
            if n == 0:
                return None
            return value if value else (chess.BB_ALL if null else value)

        return move

    def c_Pin(self, node: ast.Pin) -> Fn:
        """`pin`: slider, pinned non-king piece and target on one line
        (docs/reference/cql.md#pin)."""
        default_from = lambda ctx: ctx.board().occupied  # noqa: E731
        from_ = self.value(node.from_) if node.from_ is not None else default_from
        through = self.value(node.through) if node.through is not None else default_from

        def kings(ctx: Ctx) -> int:
            return int(ctx.board().kings)

        to = self.value(node.to) if node.to is not None else kings
        first = node.first

        def pin(ctx: Ctx) -> int | None:
            ss, ts, us = from_(ctx), through(ctx), to(ctx)
            if ss is None or ts is None or us is None:
                return None
            board = ctx.board()
            pinners = pinned = targets = 0
            for s in chess.scan_forward(ss & board.occupied):
                color = board.color_at(s)
                for d in rays.slider_directions(board.piece_type_at(s)):
                    t = rays.first_occupied(board.occupied, s, d)
                    if t is None or not chess.BB_SQUARES[t] & ts:
                        continue
                    if board.color_at(t) == color or board.piece_type_at(t) == chess.KING:
                        continue
                    u = rays.first_occupied(board.occupied, t, d)
                    if u is None or not chess.BB_SQUARES[u] & us:
                        continue
                    if board.color_at(u) != board.color_at(t):
                        continue
                    pinners |= chess.BB_SQUARES[s]
                    pinned |= chess.BB_SQUARES[t]
                    targets |= chess.BB_SQUARES[u]
            if first == "from":
                return pinners
            if first == "to":
                return targets
            return pinned

        return pin

    def c_Ray(self, node: ast.Ray) -> Fn:
        """`ray`: squares in line in the given order with empty squares between."""
        args = [self.value(a) for a in node.args]
        dirs = node.directions

        def ray(ctx: Ctx) -> int | None:
            masks = [a(ctx) for a in args]
            if any(m is None for m in masks):
                return None
            return rays.ray(ctx.board().occupied, dirs, masks)

        return ray

    def c_Direction(self, node: ast.Direction) -> Fn:
        """`up 2 K`: the squares `low`..`high` steps from the operand's squares (pieces in
        between do not matter)."""
        operand = self.value(node.operand)
        steps = [ast.DIRECTION_STEPS[d] for d in node.directions]
        low, high = node.low, node.high

        def squares(mask: int) -> int:
            out = 0
            for sq in chess.scan_forward(mask):
                x, y = chess.square_file(sq), chess.square_rank(sq)
                for dx, dy in steps:
                    for n in range(low, high + 1):
                        tx, ty = x + n * dx, y + n * dy
                        if not (0 <= tx < 8 and 0 <= ty < 8):
                            break
                        out |= chess.BB_SQUARES[chess.square(tx, ty)]
            return out

        return lift(operand, squares)
