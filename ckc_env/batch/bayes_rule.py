"""bayes_v1's decision rule for a batch of positions (``reading.bayes_rule.decide``), with the scalar
rule's float64 expressions in its order, so that every threshold comparison agrees.

Its scalar twin: ckc_env/reading/bayes_rule.py.

Two players decide by it: ``batch.agents`` (bayes_v1 and bayes_v2 on their own posteriors, over all
32 cats) and ``batch.players_posterior`` (bayes_v2's model of the other players, over the few cats
that may be accused): :func:`accuse_or_pass` takes the candidate cats as columns, whatever they are.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ..config import BLACK, GOLD, WHITE
from ..engine.cards import N_CATS
from ..reading.bayes_rule import BayesParams

_BIT_INDEX = np.arange(N_CATS, dtype=np.uint32)


def non_accuser_value(values: np.ndarray, chief: np.ndarray, drawn: np.ndarray, non_accuser_white: str) -> np.ndarray:
    """(k,) what a player who never accuses expects to score: white while the chief is uncaught
    (``chief_uncaught``), else white while the chief may still be in the deck; ``chief`` is the
    posterior over all 32 cats, ``drawn`` the cats drawn (uint32 bits)."""
    white, black = values[:, WHITE], values[:, BLACK]
    if non_accuser_white == "chief_uncaught":
        return white.copy()
    undrawn = (drawn[:, None] >> _BIT_INDEX) & np.uint32(1) == 0
    p_undrawn = np.cumsum(np.where(undrawn, chief, 0.0), axis=1)[:, -1]  # Python's sum: left to right
    return p_undrawn * white + (1 - p_undrawn) * black


class Position(NamedTuple):
    """What bayes_v1's rule reads of k positions (its JAX twin: ``jax.bayes_rule.Position``)."""

    chief: np.ndarray  # (k, c) each candidate's probability to be the chief
    assistant: np.ndarray  # (k, c) ... the assistant
    allowed: np.ndarray  # (k, c) bool: the candidates that may be accused
    values: np.ndarray  # (k, 3) the expected value of the next chip of each colour
    others_left: np.ndarray  # (k,) the other players who may still accuse
    n: np.ndarray  # (k,) the player counts
    forced: np.ndarray  # (k,) bool: the accusation is forced


def accuse_or_pass(p: BayesParams, position: Position, non_accuser: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(take, column) per row: whether to accuse, and the candidate column to accuse (the best
    expected chip value among the ``allowed`` columns, ties to the likelier chief, then the first),
    given the ``position`` and what a player who never accuses gets (``non_accuser_value``)."""
    chief, assistant, allowed, values, others_left, n, forced = position
    gold, white, black = values[:, GOLD, None], values[:, WHITE, None], values[:, BLACK, None]
    ev = chief * gold + assistant * white + (1.0 - chief - assistant) * black
    best_ev = np.where(allowed, ev, -np.inf).max(1, keepdims=True)
    tied = allowed & (ev == best_ev)
    best_chief = np.where(tied, chief, -np.inf).max(1, keepdims=True)
    column = (tied & (chief == best_chief)).argmax(1)
    best_ev, best_chief = best_ev[:, 0], best_chief[:, 0]
    share = (others_left - 1) / np.maximum(1, n - 2)
    bar = p.bar_late + (p.bar_early - p.bar_late) * share
    take = np.where(others_left <= 1, best_ev >= non_accuser + p.margin_last, best_ev >= bar)
    take |= forced | (best_chief >= p.sure)
    return take, column
