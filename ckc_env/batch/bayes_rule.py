"""bayes_v1's decision rule for a batch of positions (``reading.bayes_rule.decide``): on world counts
in integers (:func:`accuse_or_pass_exact`, the scalar ``exact_decision``'s integers), on a weighted
posterior with the scalar rule's float64 expressions in its order (:func:`accuse_or_pass`), so
that every comparison agrees.

Its scalar twin: ckc_env/reading/bayes_rule.py.

Two players decide by it: ``batch.agents`` (bayes_v1 on its counts and bayes_v2 on its weighted
posterior, over all 32 cats) and ``batch.players_posterior`` (bayes_v2's model of the other
players, on counts, over the few cats that may be accused): the candidate cats are the columns,
whatever they are.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ..config import BLACK, GOLD, WHITE
from ..engine.cards import N_CATS
from ..reading.bayes_rule import MAX_VALUE_COUNT, BayesParams, exact_params

_BIT_INDEX = np.arange(N_CATS, dtype=np.uint32)
_DENOMINATORS = np.arange(1, MAX_VALUE_COUNT + 1)


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


class Counts(NamedTuple):
    """The world counts an exact position is a ratio of (its JAX twin: ``jax.bayes_rule.Counts``)."""

    chief: np.ndarray  # (k, c) int64 worlds in which each candidate is the chief
    assistant: np.ndarray  # (k, c) ... an assistant
    total: np.ndarray  # (k,) all the worlds
    undrawn: np.ndarray  # (k,) the worlds whose chief is not drawn (for the non-accuser's white)


def value_fractions(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(numerators, denominators) (k, 3) int64 of the expected chip values (k, 3): the scalar
    ``reading.bayes_rule.value_fractions``, the smallest denominator that makes each an integer."""
    scaled = values[..., None] * _DENOMINATORS
    near = np.abs(scaled - np.rint(scaled)) < 1e-3
    if not near.any(-1).all():
        raise ValueError(
            f"expected chip values {values[~near.any(-1)][:3]} are not means of fewer than {MAX_VALUE_COUNT} chips"
        )
    denominators = _DENOMINATORS[near.argmax(-1)]
    return np.rint(values * denominators).astype(np.int64), denominators.astype(np.int64)


def accuse_or_pass_exact(
    p: BayesParams,
    counts: Counts,
    allowed: np.ndarray,
    values: np.ndarray,
    others_left: np.ndarray,
    n: np.ndarray,
    forced: np.ndarray,
    chief_uncaught: bool,
) -> tuple[np.ndarray, np.ndarray]:
    """(take, column) per row, as :func:`accuse_or_pass`, in the integers of the scalar
    ``exact_decision``: a candidate's worth is its expected chip value times ``total x D`` (D the
    product of the values' denominators), each threshold is multiplied out the same way over the
    parameters' scale. ``chief_uncaught``: the ``non_accuser_white`` option's value."""
    numerator, denominator = value_fractions(values)
    d = denominator.prod(1)
    k = numerator * (d[:, None] // denominator)  # each colour's value times D
    gold, white, black = k[:, GOLD, None], k[:, WHITE, None], k[:, BLACK, None]
    chief, assistant, total = counts.chief, counts.assistant, counts.total
    worth = chief * gold + assistant * white + (total[:, None] - chief - assistant) * black
    low = np.iinfo(np.int64).min
    best_worth = np.where(allowed, worth, low).max(1, keepdims=True)
    tied = allowed & (worth == best_worth)
    best_chief = np.where(tied, chief, -1).max(1, keepdims=True)
    column = (tied & (chief == best_chief)).argmax(1)
    best_worth, best_chief = best_worth[:, 0], best_chief[:, 0]
    scale, sure, bar_early, bar_late, margin_last = exact_params(p)
    unit = total * d
    if chief_uncaught:
        non_accuser = total * white[:, 0]
    else:
        non_accuser = counts.undrawn * white[:, 0] + (total - counts.undrawn) * black[:, 0]
    m = np.maximum(1, n - 2)
    bar = bar_late * m + (bar_early - bar_late) * (others_left - 1)
    take = np.where(
        others_left <= 1, (best_worth - non_accuser) * scale >= margin_last * unit, best_worth * scale * m >= bar * unit
    )
    take |= forced | (best_chief * scale >= sure * total)
    return take, column


def undrawn_worlds(chief_counts: np.ndarray, drawn: np.ndarray) -> np.ndarray:
    """(k,) the worlds whose chief is not among the cats ``drawn`` (k,) uint32, from the worlds per
    chief (k, 32)."""
    undrawn = (drawn[:, None] >> _BIT_INDEX) & np.uint32(1) == 0
    return np.where(undrawn, chief_counts, 0).sum(1)
