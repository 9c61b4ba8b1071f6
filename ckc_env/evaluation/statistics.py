"""The statistics of every evaluation, declared once: a mean over games with its 95% interval.

Every figure the tournaments (:mod:`~ckc_env.evaluation.tournament`), the paired comparisons
(:mod:`~ckc_env.evaluation.paired`), the training evaluations (``training/evaluation/evaluations.py``), the
plots and ``ckc-play --games`` report comes from here:

| figure | interval | function |
|---|---|---|
| a rate in [0, 1] (win share, chief caught per round) | Wilson's score interval | :meth:`Stat.of_rate`, :func:`wilson` |
| any other mean (points, chips) | normal: mean ± Z95 standard errors | :meth:`Stat.of` |
| two players' difference on the same games (duplicate play) | normal, on the per-game differences | :meth:`Stat.paired` |
| the same difference from two independent tournaments | normal, the two variances added | :func:`unpaired_half_width` |
| the first place's lead over the second at one table | normal, on the per-game differences | :func:`lead` |

``Z95`` is 1.96, the quantile as usually quoted, not the exact 1.959963984540054: the committed
result files (``docs/results/``, ``checkpoints/``) were made with 1.96 for every tournament, comparison
and Wilson interval, and with the exact value only for the training runs' paired differences
(``vs_start``, ``vs_best``, whose widths differ by a factor 1.00002: 2e-7 at the widths shipped, no
figure the docs print). With 1.96 everywhere every figure the docs print is reproduced as it stands.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

Z95 = 1.96
"""The normal quantile of a two-sided 95% interval (rounded, as usually quoted: see the module docstring)."""


@dataclass(frozen=True)
class Stat:
    """A mean over games with its 95% interval [low, high].

    Rates lie in [0, 1] and get Wilson's score interval (:meth:`of_rate`), which stays inside [0, 1]
    and is not degenerate at 0 or 1 (0 wins in 2000 games: [0, 0.0019], where the normal interval
    would say 0 ± 0). Other means get the normal interval (:meth:`of`), mean ± 1.96 standard errors.
    """

    mean: float
    low: float
    high: float
    rate: bool = False

    @property
    def half_width(self) -> float:
        """Half the interval's width (for a rate the interval is not centred on the mean)."""
        return (self.high - self.low) / 2

    @classmethod
    def of(cls, values: Sequence[float]) -> Stat:
        """The normal interval of a mean (NaN bounds with fewer than two values)."""
        array = np.asarray(values, dtype=np.float64)
        if len(array) < 2:
            mean = float(array.mean()) if len(array) else float("nan")
            return cls(mean, float("nan"), float("nan"))
        mean = float(array.mean())
        half = Z95 * float(array.std(ddof=1)) / math.sqrt(len(array))
        return cls(mean, mean - half, mean + half)

    @classmethod
    def of_rate(cls, values: Sequence[float]) -> Stat:
        """Wilson's score interval of a rate from per-game values in [0, 1] (a shared win counts
        1/k). For per-game shares such as the chief rate, whose games vary less than a coin toss
        does, the interval is conservative."""
        array = np.asarray(values, dtype=np.float64)
        n = len(array)
        if n == 0:
            return cls(float("nan"), float("nan"), float("nan"), rate=True)
        if array.min() < 0 or array.max() > 1:
            raise ValueError(f"a rate's values lie in [0, 1], got values from {array.min()} to {array.max()}")
        low, high = wilson(float(array.mean()), n)
        return cls(float(array.mean()), low, high, rate=True)

    @classmethod
    def paired(cls, first: Sequence[float], second: Sequence[float]) -> Stat:
        """``first`` less ``second``, game by game over the same games, with the normal interval of
        the per-game differences: duplicate play's interval, in which the luck the two share cancels."""
        return cls.of(np.asarray(first, dtype=np.float64) - np.asarray(second, dtype=np.float64))

    def __str__(self) -> str:
        if self.rate:
            return f"{self.mean:.3f} [{self.low:.3f}, {self.high:.3f}]"
        return f"{self.mean:.3f} ± {self.half_width:.3f}"


def wilson(p: float, n: int, z: float = Z95) -> tuple[float, float]:
    """Wilson's score interval for a proportion ``p`` observed over ``n`` trials."""
    if n <= 0:
        raise ValueError(f"a proportion needs at least one trial, got n={n}")
    denominator = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denominator
    half = z * math.sqrt(max(p * (1 - p), 0.0) / n + z * z / (4 * n * n)) / denominator
    return max(0.0, centre - half), min(1.0, centre + half)


def unpaired_half_width(first: Sequence[float], second: Sequence[float]) -> float:
    """The half-width the difference of two means would have from independent games (two
    tournaments of these sizes): what pairing the games saves, for comparison."""
    a, b = np.asarray(first, dtype=np.float64), np.asarray(second, dtype=np.float64)
    return Z95 * math.sqrt(a.var(ddof=1) / len(a) + b.var(ddof=1) / len(b))


def lead(wins: Sequence[Sequence[float]]) -> tuple[int, int, Stat]:
    """The first place's lead at one table: ``wins[k]`` is player k's per-game wins over the table's
    games; returns the first and second places (by mean) and the first's lead over the second with
    its paired interval. Their wins exclude each other, so the difference varies more than either
    rate, and the two players' own intervals do not say whether the first is clear of the second.
    A lead lies in [-1, 1]: the normal interval, which passes those bounds only on a handful of
    games, is cut at them."""
    means = [float(np.mean(w)) for w in wins]
    first, second = sorted(range(len(wins)), key=lambda k: -means[k])[:2]
    stat = Stat.paired(wins[first], wins[second])
    return first, second, Stat(stat.mean, max(stat.low, -1.0), min(stat.high, 1.0))
