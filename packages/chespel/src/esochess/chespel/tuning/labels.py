"""Training targets from a reference engine's search (`chespel tune --label ENGINE`).

A game's result says little about one of its positions: a game is won or lost by what
happens many moves later. A reference engine's score after a fixed-depth search of the
position is a far less noisy target. The engine's score (White's point of view) becomes an
expected result with the Elo formula, 1 / (1 + 10^(−cp/400)) (a mate is 1 or 0), and a
position's target is `weight` × that + (1 − `weight`) × the game's result.

The engine is any UCI engine (`uci:COMMAND[;OPTION=VALUE]…`, Stockfish for instance) or a
Chespel program (its own search's score); each worker process runs one.
"""

from __future__ import annotations

from dataclasses import dataclass

import chess
import chess.engine

from esochess.chespel.match import STARTUP, EngineSpec


class LabelError(Exception):
    """The reference engine could not be started or failed while labelling."""


@dataclass(frozen=True)
class LabelSettings:
    """The reference engine, the depth of its search and the weight of its score in the
    target (the rest is the game's result)."""

    engine: EngineSpec
    depth: int = 6
    weight: float = 1.0


def expected(score: chess.engine.PovScore) -> float:
    """An engine's score as White's expected result."""
    white = score.white()
    mate = white.mate()
    if mate is not None:
        return 1.0 if mate > 0 else 0.0
    centipawns = white.score()
    assert centipawns is not None
    return float(1.0 / (1.0 + 10.0 ** (-centipawns / 400.0)))


class Labeller:
    """One running reference engine."""

    def __init__(self, settings: LabelSettings) -> None:
        self.settings = settings
        spec = settings.engine
        try:
            self.engine = chess.engine.SimpleEngine.popen_uci(list(spec.command),
                                                              timeout=STARTUP, stderr=None)
        except (OSError, chess.engine.EngineError, TimeoutError) as exc:
            raise LabelError(f"cannot start engine {' '.join(spec.command)}: "
                             f"{exc or type(exc).__name__}") from None
        for key, value in spec.options:
            try:
                self.engine.configure({key: value})
            except (chess.engine.EngineError, ValueError) as exc:
                self.close()
                raise LabelError(f"label engine: option {key}={value}: {exc}") from None

    def target(self, board: chess.Board, result: float) -> float:
        """The blended target of a position whose game ended with `result` (for White)."""
        settings = self.settings
        try:
            info = self.engine.analyse(board, chess.engine.Limit(depth=settings.depth))
        except (chess.engine.EngineError, TimeoutError) as exc:
            raise LabelError(f"label engine failed on {board.fen()}: "
                             f"{exc or type(exc).__name__}") from None
        score = info.get("score")
        if score is None:
            raise LabelError(f"label engine gave no score for {board.fen()}")
        return settings.weight * expected(score) + (1.0 - settings.weight) * result

    def close(self) -> None:
        try:
            self.engine.quit()
        except (chess.engine.EngineError, TimeoutError, OSError):
            self.engine.close()
