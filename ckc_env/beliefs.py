"""Exact beliefs: the posterior over the hidden clues of a seat's information set.

What a seat knows of the round's clues: its own clue, the clue of a seat exposed by the Stasi
card, the public clues revealed from the bag, and every row and discard pile. Hidden are the clues
of the other seats and the faces of the tiles still in the bag. A *hidden assignment* gives every
unknown seat a distinct remaining feature with a face, and every tile left in the bag a face.

**Why every consistent assignment is equally likely.** The tiles are drawn uniformly at random,
so every way of dealing the remaining features to the unknown seats and the bag is equally likely;
each face is a fair coin (a toss by the rules, or a player's choice, which carries no strategic
weight because flipping a feature maps the deck onto itself, RULES.md 3.1); the deck is shuffled
independently of the clues. Given an assignment, the placement of every drawn cat (row or
discard) is determined, and an investigator card reveals each bag tile with the same chance. So
the likelihood of what was seen is the same constant for every assignment that agrees with it,
and zero otherwise: the posterior is uniform over the consistent assignments.

What this posterior ignores: other players' accusations and passes (their timing and targets
reveal something about their clues and beliefs, but modelling that needs a model of the players),
and anything from earlier rounds (each round is dealt afresh).

From the uniform posterior follow, for each of the 32 cats, P(chief), P(assistant) and
P(innocent), and for each seat P(its clue = each of the 10 clues). Results are cached per
information set (the candidate clues of each unknown seat, as bitmasks), since the same sets
recur constantly over a game and across games.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache, lru_cache
from itertools import permutations

import numpy as np

from .engine.cards import CLUE_CATS, N_CATS, N_CLUES, N_FEATURES
from .engine.view import PlayerView

_ASSISTANT_MATRIX = np.zeros((N_CATS, N_CATS), dtype=np.float64)
for _chief in range(N_CATS):
    for _f in range(N_FEATURES):
        _ASSISTANT_MATRIX[_chief, _chief ^ (1 << _f)] = 1.0


@dataclass(frozen=True)
class Beliefs:
    """Posterior of one seat. Seats are absolute (``clue[s]`` is seat s's clue distribution)."""

    chief: np.ndarray  # (32,) P(cat is the chief spy)
    assistant: np.ndarray  # (32,) P(cat is an assistant)
    innocent: np.ndarray  # (32,) P(cat is innocent)
    clue: np.ndarray  # (n, 10) P(seat's clue = c)
    assignments: int  # number of consistent hidden assignments


@lru_cache(maxsize=1 << 16)
def candidate_clues(row: int, discards: int, free_features: int) -> int:
    """Bitmask over the 10 clues a seat may hold: a free feature, shown by all its row cats and by
    none of its discards."""
    mask = 0
    for clue in range(N_CLUES):
        if (free_features >> (clue >> 1)) & 1 and row & ~CLUE_CATS[clue] == 0 and discards & CLUE_CATS[clue] == 0:
            mask |= 1 << clue
    return mask


@cache
def _assignments(unknown: int, free: tuple[int, ...]) -> tuple[np.ndarray, np.ndarray]:
    """Every hidden assignment for ``unknown`` seats and the free features, as arrays.

    Returns ``clue_of`` (assignments x unknown seats: each seat's clue) and ``chief_bits``
    (assignments: the chief's bits on the free features). An assignment is a face for every free
    feature (the seats' faces and the bag tiles' alike) and an injective map of the seats into them.
    """
    clue_rows, chief_rows = [], []
    for faces in range(1 << len(free)):  # bit j set: free feature j shows value B
        side = {f: (faces >> j) & 1 for j, f in enumerate(free)}
        chief = sum(1 << f for f in free if side[f] == 0)
        for seat_features in permutations(free, unknown):
            clue_rows.append([2 * f + side[f] for f in seat_features])
            chief_rows.append(chief)
    clue_of = np.array(clue_rows, dtype=np.int64).reshape(len(clue_rows), unknown)
    return clue_of, np.array(chief_rows, dtype=np.int64)


@lru_cache(maxsize=1 << 18)
def _posterior(fixed_chief_bits: int, free: tuple[int, ...], candidates: tuple[int, ...]) -> tuple:
    """Count the consistent hidden assignments of one information set.

    ``free``: the features whose value is unknown (sorted); ``candidates``: per unknown seat the
    bitmask of clues it may hold. Returns (count, chief weights by cat, clue weights per unknown seat).
    """
    clue_of, chief_bits = _assignments(len(candidates), free)
    if candidates:
        consistent = ((np.array(candidates, dtype=np.int64) >> clue_of) & 1).all(axis=1)
        clue_of, chief_bits = clue_of[consistent], chief_bits[consistent]
    count = len(chief_bits)
    chief_w = np.bincount(chief_bits | fixed_chief_bits, minlength=N_CATS)
    clue_w = [np.bincount(clue_of[:, i], minlength=N_CLUES) for i in range(len(candidates))]
    return count, chief_w, clue_w


def beliefs(view: PlayerView) -> Beliefs:
    """The exact posterior of ``view.seat``'s information set."""
    n = view.num_players
    known: dict[int, int] = dict(view.exposed_clues)
    if view.own_clue >= 0:
        known[view.seat] = view.own_clue
    fixed = list(known.values()) + list(view.public_clues)
    fixed_features = 0
    chief_bits = 0
    for clue in fixed:
        fixed_features |= 1 << (clue >> 1)
        if clue & 1 == 0:
            chief_bits |= 1 << (clue >> 1)
    free_mask = ((1 << N_FEATURES) - 1) & ~fixed_features
    free = tuple(f for f in range(N_FEATURES) if (free_mask >> f) & 1)
    unknown = [s for s in range(n) if s not in known]
    rows, discards = view.rows, view.discards
    candidates = []
    for s in unknown:
        mask = candidate_clues(rows[s], discards[s], free_mask)
        if s == view.seat:  # own clue face still to be chosen: the tile is known
            mask &= 0b11 << (2 * view.own_tile)
        candidates.append(mask)
    key = (n, tuple(known.items()), chief_bits, free, tuple(unknown), tuple(candidates))
    result = _BELIEFS.get(key)
    if result is None:
        if len(_BELIEFS) >= 1 << 17:
            _BELIEFS.clear()
        result = _BELIEFS[key] = _beliefs(n, known, chief_bits, free, unknown, candidates, view.seat)
    return result


_BELIEFS: dict[tuple, Beliefs] = {}
"""Whole results by information set (treat them as read-only): the same sets recur all the time."""


def clear_caches() -> None:
    """Forget every cached result (for measuring the cost of a first sight)."""
    _BELIEFS.clear()
    _posterior.cache_clear()
    candidate_clues.cache_clear()


def _beliefs(
    n: int,
    known: dict[int, int],
    chief_bits: int,
    free: tuple[int, ...],
    unknown: list[int],
    candidates: list[int],
    seat: int,
) -> Beliefs:
    count, chief_w, clue_w = _posterior(chief_bits, free, tuple(candidates))
    if count == 0:
        raise ValueError(f"seat {seat}'s information set admits no assignment: the position is inconsistent")
    chief = chief_w / count
    assistant = chief @ _ASSISTANT_MATRIX
    clue = np.zeros((n, N_CLUES))
    for s, c in known.items():
        clue[s, c] = 1.0
    for i, s in enumerate(unknown):
        clue[s] = clue_w[i] / count
    return Beliefs(chief=chief, assistant=assistant, innocent=1.0 - chief - assistant, clue=clue, assignments=count)
