"""The reward schemes, each written once for both engines.

The engines hand out each seat's points as chips change hands (``engine.pop_rewards``, the batched
state's ``rewards``): a chip's value when its owner receives it, a Cafe Adler swap's difference, the
Stasi chip's -2 while it is held. A scheme turns them into rewards:

| scheme | reward of a seat after a transition | over a game |
|---|---|---|
| ``"points"`` | its points gained | its final points |
| ``"margin"`` | its points gained less the mean of the other seats' | its final points less the others' mean |
| ``"win"`` | 0 until the game ends; then +1 shared by the winners, -1 shared by the others | +1/k for each of k winners |

The formulas below take Python numbers (the scalar engine, one game) or NumPy arrays (the batched
engine, a value per game) alike, so both engines compute the same numbers in the same order.
"""

from __future__ import annotations

from typing import Any

REWARDS = ("points", "win", "margin")


def points(gained: Any) -> Any:
    """``"points"``: the points gained."""
    return gained


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
    if isinstance(value, int):
        return max(value, 1)
    import numpy as np

    return np.maximum(value, 1)
