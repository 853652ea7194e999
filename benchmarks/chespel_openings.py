"""Varied openings for self-play: the position after the first 8–12 half-moves of games
drawn at random from a PGN file, one FEN per line, no position twice.

`chespel tune` learns best from positions like those the engine meets in its own games;
these openings make a self-play match (`chespel match A.chp A.chp --openings FILE`) play
many different games instead of the twelve built-in openings. Usage:

    python benchmarks/chespel_openings.py GAMES.pgn COUNT [SEED] > openings.epd
"""

from __future__ import annotations

import random
import sys

import chess.pgn


def openings(path: str, count: int, seed: int) -> list[str]:
    """`count` distinct FENs (fewer if the file runs out), in the file's order."""
    rng = random.Random(seed)
    found: list[str] = []
    seen: set[str] = set()
    with open(path, encoding="utf-8", errors="replace") as handle:
        while len(found) < count:
            game = chess.pgn.read_game(handle)
            if game is None:
                break
            if rng.random() > 0.05:  # about one game in twenty, spread over the file
                continue
            board = game.board()
            plies = rng.randrange(8, 13)
            for move in list(game.mainline_moves())[:plies]:
                board.push(move)
            if board.ply() < plies or board.is_game_over():
                continue
            key = board.epd()
            if key not in seen:
                seen.add(key)
                found.append(board.fen())
    return found


def main() -> None:
    path, count = sys.argv[1], int(sys.argv[2])
    seed = int(sys.argv[3]) if len(sys.argv) > 3 else 0
    for fen in openings(path, count, seed):
        print(fen)


if __name__ == "__main__":
    main()
