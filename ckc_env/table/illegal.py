"""An illegal action, one rule for every front.

An action the seat to act may not take now (not among the legal actions, out of range, not an
integer) ends the game at once, and nothing of it is applied:

| | |
|---|---|
| the offender | :data:`PENALTY` (-1), or the front's ``illegal_penalty``, for that step |
| the other seats | 0 for that step; what they earned before stands (:func:`rewards`) |
| the episode | over for every seat (``terminated``) |
| the info | ``info["illegal_action"] = True`` with the ``action`` and the ``legal_actions`` (:func:`info`) |

The AEC environment's ``env()`` is PettingZoo's ``TerminateIllegalWrapper(illegal_reward=-1)``: the
same ending, with the wrapper's truncations and no info; the vector environment marks the slot's
``final_info["illegal_action"]``. ``raw_env`` refuses the action instead, as PettingZoo's raw
environments do, with :func:`refusal`'s ValueError.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, TypeVar

from ..files import short

PENALTY = -1.0
"""The offender's reward unless a front is given another ``illegal_penalty``."""
KEY = "illegal_action"
"""The info key that marks a game ended by an illegal action."""

Seat = TypeVar("Seat")


def rewards(offender: Seat, seats: Iterable[Seat], penalty: float = PENALTY) -> dict[Seat, float]:
    """The step's rewards: ``penalty`` to the offender, 0 to every other seat of ``seats``."""
    return {**dict.fromkeys(seats, 0.0), offender: penalty}


def info(action: Any, legal_actions: Sequence[int]) -> dict[str, Any]:
    """The offender's info: the mark, the action it sent and the actions it could have taken."""
    return {KEY: True, "action": action, "legal_actions": legal_actions}


def refusal(action: Any, agent: str, legal: str) -> ValueError:
    """The error of a front that refuses an illegal action rather than ending the game on it
    (``legal``: the legal actions, numbered and named)."""
    return ValueError(f"illegal action {short(action)} for {agent}: legal actions are {legal}")
