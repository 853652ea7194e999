"""Match statistics: Elo from a score, its 95 % interval, the LOS and the SPRT.

The SPRT uses the normal approximation of the generalised SPRT (the one engine-testing
frameworks use): with the outcomes' mean score `m` and variance `v` per unit (a game for the
trinomial model, a colour-reversed pair for the pentanomial one), `N` units and the expected
scores `s0`, `s1` of the two hypotheses, LLR = N (s1 - s0) (2m - s0 - s1) / (2v). Half a
game (or pair) is added to every outcome as a prior: it keeps the variance positive while
all results are equal, so that a handful of one-sided games cannot end a test on their own,
and it is negligible over the hundreds of games a real test plays.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

Model = Literal["pentanomial", "trinomial"]
MODELS: tuple[Model, ...] = ("pentanomial", "trinomial")
PSEUDO_COUNT = 0.5
"""Added to every outcome bin (see the module docstring)."""


def elo(score: float) -> float:
    """The logistic Elo difference that gives `score` (0 < score < 1)."""
    return -400 * math.log10(1 / score - 1)


def expected_score(difference: float) -> float:
    """The score an Elo difference predicts (inverse of `elo`)."""
    return 1 / (1 + 10 ** (-difference / 400))


def los(wins: int, losses: int) -> float:
    """Likelihood of superiority: the probability that the first engine is the stronger."""
    if wins + losses == 0:
        return 0.5
    return 0.5 * (1 + math.erf((wins - losses) / math.sqrt(2 * (wins + losses))))


def elo_interval(scores: Sequence[float]) -> tuple[float, float, float] | None:
    """The mean score and its 95 % interval (low, high), or None without games."""
    n = len(scores)
    if not n:
        return None
    s = sum(scores) / n
    sigma = math.sqrt(sum((x - s) ** 2 for x in scores) / n)
    return s, s - 1.96 * sigma / math.sqrt(n), s + 1.96 * sigma / math.sqrt(n)


def elo_text(scores: Sequence[float]) -> str:
    """`±E +/- M` for the 95 % interval, or `±inf` when one side scored everything."""
    found = elo_interval(scores)
    s, low, high = found if found else (0.5, 0.5, 0.5)
    if s <= 0:
        return "-inf"
    if s >= 1:
        return "+inf"
    margin = "inf" if low <= 0 or high >= 1 else f"{(elo(high) - elo(low)) / 2:.1f}"
    return f"{elo(s) + 0.0:+.1f} +/- {margin}"


@dataclass(frozen=True)
class Sprt:
    """A sequential probability ratio test of H0: Elo = elo0 against H1: Elo = elo1."""

    elo0: float
    elo1: float
    alpha: float = 0.05
    beta: float = 0.05
    model: Model = "pentanomial"

    @classmethod
    def parse(cls, text: str, model: Model = "pentanomial") -> Sprt:
        """`ELO0,ELO1[,ALPHA,BETA]` (raises ValueError with a readable message)."""
        parts = text.split(",")
        if len(parts) not in (2, 4):
            raise ValueError(f"bad SPRT bounds '{text}' (use ELO0,ELO1[,ALPHA,BETA])")
        try:
            numbers = [float(part) for part in parts]
        except ValueError:
            raise ValueError(f"bad SPRT bounds '{text}' (use ELO0,ELO1[,ALPHA,BETA])") from None
        if numbers[0] >= numbers[1]:
            raise ValueError(f"bad SPRT bounds '{text}': ELO0 must be below ELO1")
        if len(numbers) == 4 and not all(0 < x < 0.5 for x in numbers[2:]):
            raise ValueError(f"bad SPRT bounds '{text}': ALPHA and BETA lie between 0 and 0.5")
        alpha, beta = numbers[2:] if len(numbers) == 4 else (0.05, 0.05)
        return cls(numbers[0], numbers[1], alpha, beta, model)

    @property
    def lower(self) -> float:
        """Accept H0 at or below this log-likelihood ratio."""
        return math.log(self.beta / (1 - self.alpha))

    @property
    def upper(self) -> float:
        """Accept H1 at or above this log-likelihood ratio."""
        return math.log((1 - self.beta) / self.alpha)

    def llr(self, counts: Sequence[int]) -> float:
        """The log-likelihood ratio of outcome counts, worst to best.

        Trinomial: (losses, draws, wins) of games; pentanomial: pairs by the pair's points
        (0, 0.5, 1, 1.5, 2), both seen from the first engine.
        """
        if not any(counts):
            return 0.0  # no evidence yet (the pseudo-counts alone would look like Elo 0)
        bins = [count + PSEUDO_COUNT for count in counts]
        units = sum(bins)
        values = [i / (len(bins) - 1) for i in range(len(bins))]
        mean = sum(c * x for c, x in zip(bins, values, strict=True)) / units
        variance = sum(c * (x - mean) ** 2 for c, x in zip(bins, values, strict=True)) / units
        s0, s1 = expected_score(self.elo0), expected_score(self.elo1)
        return units * (s1 - s0) * (2 * mean - s0 - s1) / (2 * variance)

    def decision(self, llr: float) -> Literal["H0", "H1"] | None:
        """Which hypothesis the ratio accepts, or None to keep playing."""
        if llr >= self.upper:
            return "H1"
        if llr <= self.lower:
            return "H0"
        return None
