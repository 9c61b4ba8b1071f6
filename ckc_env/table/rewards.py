"""The reward schemes, each chosen once and written once for both engines.

The engines hand out each seat's points as chips change hands (``engine.pop_rewards``, the batched
state's ``rewards``): a chip's value when its owner receives it, a Cafe Adler swap's difference, the
Stasi chip's -2 while it is held. A scheme turns them into rewards:

| scheme | reward of a seat after a transition | over a game |
|---|---|---|
| ``"points"`` | its points gained | its final points |
| ``"margin"`` | its points gained less the mean of the other seats' | its final points less the others' mean |
| ``"win"`` | 0 until the game ends; then +1 shared by the winners, -1 shared by the others | +1/k for each of k winners |

Every front names its scheme by the option ``reward`` and takes it from :func:`scheme`, the one
check of that option; the front then asks the :class:`Scheme` what each seat is paid. The formulas
below take Python numbers (the scalar engine, one game) or NumPy arrays (the batched engine, a value
per game) alike, so both engines compute the same numbers in the same order.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from ..files import short


def margin(gained: Any, total: Any, n: Any) -> Any:
    """``"margin"``: the points gained less the mean of what the other ``n - 1`` seats gained
    (``total`` is what all ``n`` seats gained)."""
    return gained - (total - gained) / (n - 1)


def win(won: Any, winners: Any, n: Any) -> Any:
    """``"win"`` at the game's end: ``1 / winners`` for a winner, ``-1 / (n - winners)`` for the
    others (``won`` is 1 or 0, True or False, per seat)."""
    return won / _at_least_one(winners) - (1 - won) / _at_least_one(n - winners)


def win_share(won: Any, winners: Any) -> Any:
    """A seat's share of the win: ``1 / winners`` for a winner, else 0 (the tournaments' win rate)."""
    return won / _at_least_one(winners)


def _at_least_one(value: Any) -> Any:
    return max(value, 1) if isinstance(value, int) else np.maximum(value, 1)


@dataclass(frozen=True)
class Scheme:
    """A reward scheme: what each seat is paid for the points it gains, in one game (:meth:`pay`)
    or in a batch of games (:meth:`pay_batch`), and the range of a seat's return (:meth:`bounds`).
    Rewards are paid as points change hands, so a game's return is :meth:`pay` of the totals."""

    name: ClassVar[str]

    def pay(self, gained: Sequence[float], winners: Collection[int] | None) -> list[float] | None:
        """Every seat's reward for the points ``gained`` (one number per seat) in a transition of
        one game, or over the game so far; ``winners`` once the game is over, else None. None when
        no seat is paid anything."""
        raise NotImplementedError

    def pay_batch(self, gained: np.ndarray, n: np.ndarray, winners: np.ndarray, over: Any) -> np.ndarray:
        """(B, S) the same for a batch: ``gained`` per game and seat, ``n`` (B, 1) each game's player
        count, ``winners`` (B, S) its winners once over, ``over`` (B, 1) whether it is; 0 at the
        seats a game does not have."""
        raise NotImplementedError

    def bounds(self, low: float, high: float) -> tuple[float, float]:
        """The range of a seat's return over a game in which a seat ends with ``low`` to ``high`` points."""
        raise NotImplementedError


class Points(Scheme):
    name = "points"

    def pay(self, gained: Sequence[float], winners: Collection[int] | None) -> list[float] | None:
        return [float(g) for g in gained] if any(gained) else None

    def pay_batch(self, gained: np.ndarray, n: np.ndarray, winners: np.ndarray, over: Any) -> np.ndarray:
        return gained.astype(np.float64)

    def bounds(self, low: float, high: float) -> tuple[float, float]:
        return low, high


class Margin(Scheme):
    name = "margin"

    def pay(self, gained: Sequence[float], winners: Collection[int] | None) -> list[float] | None:
        if not any(gained):
            return None
        total, n = float(sum(gained)), len(gained)
        return [margin(float(g), total, n) for g in gained]

    def pay_batch(self, gained: np.ndarray, n: np.ndarray, winners: np.ndarray, over: Any) -> np.ndarray:
        present = n > np.arange(gained.shape[1])
        return np.where(present, margin(gained, gained.sum(1, keepdims=True), n), 0.0)

    def bounds(self, low: float, high: float) -> tuple[float, float]:
        return low - high, high - low


class Win(Scheme):
    name = "win"

    def pay(self, gained: Sequence[float], winners: Collection[int] | None) -> list[float] | None:
        if winners is None:
            return None
        n = len(gained)
        return [win(seat in winners, len(winners), n) for seat in range(n)]

    def pay_batch(self, gained: np.ndarray, n: np.ndarray, winners: np.ndarray, over: Any) -> np.ndarray:
        present = n > np.arange(gained.shape[1])
        winners = winners & present
        return np.where(over & present, win(winners, winners.sum(1, keepdims=True), n), 0.0)

    def bounds(self, low: float, high: float) -> tuple[float, float]:
        return -1.0, 1.0


SCHEMES: dict[str, Scheme] = {s.name: s for s in (Points(), Win(), Margin())}
REWARDS = tuple(SCHEMES)
"""The schemes' names, as the option ``reward`` takes them."""


def scheme(value: str | Scheme, option: str = "reward") -> Scheme:
    """The scheme ``value`` names (a :class:`Scheme` is taken as it is): the one check of every
    front's ``reward``; a ValueError names the option, the value and the accepted schemes."""
    if isinstance(value, Scheme):
        return value
    if not isinstance(value, str) or value not in SCHEMES:
        raise ValueError(f"invalid {option}={short(value)}: accepted values are {list(REWARDS)}")
    return SCHEMES[value]
