"""Exact beliefs of one seat in one game, in JAX: the numbers of ``batch.beliefs``, in float32.

Its NumPy twin: ckc_env/batch/beliefs.py (and, through it, the scalar ckc_env/reading/beliefs.py).

The model is the twin's: a *world* gives each of 5 slots a clue (slots 0..n-1 the seats, n..4 the
bag tiles in reveal order), i.e. a permutation p of the 5 features over the slots (120) and a chief
c (32): 3840 worlds. A seat's information set is a product over slots, a set ``cand[s]`` of the
10 clues each slot may hold, and the posterior is uniform over the worlds it allows.

The NumPy twin counts with 2.6 MB of 64-bit world masks; JAX runs in 32 bits and on accelerators,
so here the counts come from small constant tables instead, as exact int32 arithmetic:

- world (p, c) puts clue ``2 * p(s) + 1 - bit_{p(s)}(c)`` in slot s, so it is allowed when every
  slot's set holds that clue. Per slot and set a mask of the worlds it allows (32 chiefs x 128
  bits, 4 words each: :func:`slot_masks`) is two lookups in a 160 KB table (the set's low five
  clues and its high five: the masks of disjoint clues OR together); the five slots' masks ANDed
  and counted with ``population_count`` give the worlds per chief (:func:`chief_counts`): some
  2,500 word operations per position where ``(32, 120, 5)`` bit tests took 19,200, the same integers;
- with the permutation fixed, faces are independent: perm p has ``prod_s N[s, p(s)]`` worlds (N:
  the faces of the slot's feature its set allows), and slot s holds clue q in
  ``[q allowed] / N[s, q >> 1] * sum_{p: p(s) = q >> 1} count(p)`` of them.

Counts are exact integers (at most 3840); each probability is one float32 division of two of
them, the correctly rounded quotient (:func:`quotient`; the twin's float64 quotient rounded once
more: within one float32 ulp), so equal ratios give equal floats, as in the twin. Functions take one game (``jax.vmap`` adds the batch axis); :func:`count_worlds` and
:func:`clue_candidates` also take any leading axes, for readers that count many hypotheses.
"""

from __future__ import annotations

from functools import cache
from itertools import permutations
from math import factorial
from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from ..batch.state import MAX_BAG, SEATS
from ..engine.cards import CLUE_CATS, N_CATS, N_CLUES, N_FEATURES
from ..engine.state import SCORING
from .state import Rules, State

ALL_CLUES = (1 << N_CLUES) - 1
PERMS = np.array(list(permutations(range(N_FEATURES))), dtype=np.int32)
"""(120, 5): ``PERMS[p, s]`` is the feature in slot s under permutation p (the twin's order)."""
_SLOTS = np.arange(SEATS, dtype=np.int32)
_CLUE_CATS = np.array(CLUE_CATS, dtype=np.uint32)
_CHIEF_CLUE = (
    2 * np.arange(N_FEATURES)[None, :] + 1 - ((np.arange(N_CATS)[:, None] >> np.arange(N_FEATURES)) & 1)
).astype(np.int32)
"""(32, 5): ``_CHIEF_CLUE[c, f]``, the clue of feature f when c is the chief (side 0, value A, when bit f is set)."""
_WORLD_CLUE = _CHIEF_CLUE[:, PERMS]
"""(32, 120, 5): the clue slot s holds in world (p, c)."""
_SLOT_FEATURE = (PERMS[:, :, None] == np.arange(N_FEATURES)).astype(np.int32)
"""(120, 5, 5): ``[p, s, f]`` whether perm p puts feature f in slot s."""
_NEIGHBOURS = np.arange(N_CATS)[:, None] ^ (1 << np.arange(N_FEATURES))[None, :]
"""``_NEIGHBOURS[c]``: the five cats that differ from cat c in one feature (its assistants if c is
the chief, and the chiefs that make c an assistant)."""
_FACTORIALS = np.array([factorial(i) for i in range(SEATS + 1)], dtype=np.int32)
WORDS = 4
"""32-bit words per chief in a world mask: 120 permutations, padded to 128 bits."""


class Beliefs(NamedTuple):
    """The posterior of one seat (``batch.beliefs.BatchBeliefs`` per game), float32; seats absolute
    (``clue[s]``: seat s's clue distribution, zero rows for seats the game does not have)."""

    chief: jax.Array  # (32,) P(cat is the chief spy)
    assistant: jax.Array  # (32,) P(cat is an assistant)
    clue: jax.Array | None  # (5, 10) P(seat's clue = q); None when not asked for
    assignments: jax.Array  # () int32: consistent hidden assignments, counted as reading.beliefs counts them

    @property
    def innocent(self) -> jax.Array:
        return 1.0 - self.chief - self.assistant


def clue_candidates(rows: jax.Array, discards: jax.Array) -> jax.Array:
    """(...) int32 10-bit sets: the clues shown by every cat of a row and by no cat of a discard
    pile, for uint32 cat masks ``rows`` and ``discards`` of any (equal) shape."""
    rows = jnp.asarray(rows, jnp.uint32)[..., None]
    discards = jnp.asarray(discards, jnp.uint32)[..., None]
    shown = ((rows & ~_CLUE_CATS) == 0) & ((discards & _CLUE_CATS) == 0)
    return jnp.sum(shown.astype(jnp.int32) << np.arange(N_CLUES, dtype=np.int32), axis=-1)


def slot_candidates(state: State, seat: jax.Array) -> jax.Array:
    """(5,) int32: the clues each slot may hold in ``seat``'s information set.

    Reads only what the seat may know (``PlayerView``): every row and discard pile, its own clue
    (or tile, while the face is to be chosen), the clue face-up under the Stasi card, the public
    clues; once the round is scored, every clue and the whole bag.
    """
    seat = jnp.asarray(seat, jnp.int32)
    n = state.n.astype(jnp.int32)
    clues = state.clues.astype(jnp.int32)
    cand = clue_candidates(state.rows, state.discards)
    scored = state.phase >= SCORING
    known = (n > _SLOTS) & scored
    holder = state.stasi_exposed.astype(jnp.int32)
    exposed = (holder >= 0) & ~scored & (clues[jnp.clip(holder, 0)] >= 0)
    known = known | (exposed & (holder == _SLOTS))
    known = known | ((seat == _SLOTS) & (clues[seat] >= 0))
    cand = jnp.where(known, 1 << jnp.clip(clues, 0), cand)
    choosing = (seat == _SLOTS) & (clues[seat] < 0)
    own_faces = 3 << (2 * jnp.clip(state.tiles[seat].astype(jnp.int32), 0))
    cand = jnp.where(choosing, cand & own_faces, cand)
    # slots n.. are the bag tiles: revealed ones hold their clue, the others any
    revealed = jnp.where(scored, SEATS - n, state.public_count.astype(jnp.int32))
    bag = state.bag.astype(jnp.int32)
    for j in range(MAX_BAG):
        tile = jnp.where(j < revealed, 1 << jnp.clip(bag[j], 0), ALL_CLUES)
        cand = jnp.where(n + j == _SLOTS, tile, cand)
    return cand


@cache
def world_masks() -> np.ndarray:
    """(5, 10, 128) uint32: per slot and clue, the worlds putting that clue in that slot, word
    ``4 c + p // 32``, bit ``p % 32`` for chief c and permutation p (``PERMS``; bits 120..127 unused)."""
    bits = np.zeros((SEATS, N_CLUES, N_CATS, 32 * WORDS), dtype=np.uint8)
    for q in range(N_CLUES):
        bits[:, q, :, : len(PERMS)] = (q == _WORLD_CLUE).transpose(2, 0, 1)
    return np.packbits(bits, axis=-1, bitorder="little").view("<u4").reshape(SEATS, N_CLUES, N_CATS * WORDS)


@cache
def _half_set_masks() -> np.ndarray:
    """(2, 5, 32, 128) uint32: ``[h, s, m]`` the worlds whose clue in slot s is one of the five
    clues ``5 h + i`` with bit i of m set (the set's low half, h = 0, or high half, h = 1)."""
    masks = world_masks()
    out = np.zeros((2, SEATS, 32, N_CATS * WORDS), dtype=np.uint32)
    for half in range(2):
        for i in range(5):
            chosen = ((np.arange(32) >> i) & 1).astype(bool)[None, :, None]
            out[half] |= np.where(chosen, masks[:, 5 * half + i, None, :], np.uint32(0))
    return out


def slot_masks(cand: jax.Array) -> jax.Array:
    """(..., 5, 128) uint32: the worlds each slot's set of ``cand`` (..., 5) allows (one lookup per
    half of the 10-bit set: the masks of distinct clues are disjoint, so they OR together)."""
    cand = jnp.asarray(cand, jnp.int32)
    halves = jnp.asarray(_half_set_masks())
    return halves[0, _SLOTS, cand & 31] | halves[1, _SLOTS, (cand >> 5) & 31]


def chief_counts(cand: jax.Array) -> jax.Array:
    """(..., 32) int32: the worlds allowed by ``cand`` (..., 5), per chief (the slots' masks ANDed,
    their bits counted per chief)."""
    masks = slot_masks(cand)
    worlds = lax.reduce(masks, np.uint32(0xFFFFFFFF), lax.bitwise_and, (masks.ndim - 2,))
    return lax.population_count(worlds).astype(jnp.int32).reshape(*worlds.shape[:-1], N_CATS, WORDS).sum(-1)


def count_worlds(cand: jax.Array, clues: bool = True) -> tuple[jax.Array, jax.Array | None]:
    """Exact int32 counts over the worlds allowed by ``cand`` (..., 5): per chief (..., 32) and, with
    ``clues``, per slot and clue (..., 5, 10) (``batch.beliefs.count_worlds``, whose float64 arrays
    hold the same integers)."""
    cand = jnp.asarray(cand, jnp.int32)
    chiefs = chief_counts(cand)
    if not clues:
        return chiefs, None
    faces = ((cand[..., :, None] >> (2 * np.arange(N_FEATURES))) & 1) + (
        (cand[..., :, None] >> (2 * np.arange(N_FEATURES) + 1)) & 1
    )  # (..., slot, feature): the faces the slot's set allows, 0..2
    per_perm = jnp.prod(faces[..., _SLOTS, PERMS], axis=-1)  # (..., 120)
    by_slot_feature = jnp.sum(per_perm[..., :, None, None] * _SLOT_FEATURE, axis=-3)  # (..., 5, 5)
    feature = np.arange(N_CLUES) >> 1
    shown = (cand[..., :, None] >> np.arange(N_CLUES)) & 1  # (..., 5, 10)
    clue_counts = shown * (by_slot_feature[..., feature] // jnp.maximum(faces[..., feature], 1))
    return chiefs, clue_counts


def quotient(numerator: jax.Array, denominator: jax.Array) -> jax.Array:
    """``numerator / denominator`` in float32, correctly rounded (IEEE division), broadcasting.

    Why not ``/``: XLA rewrites a division by a broadcast value into a product with its reciprocal,
    a rounding more (one float32 ulp off in about a third of the quotients of world counts). Equal
    ratios must give equal floats, as in the twin's float64 (bayes_v1 compares a target's
    P(assistant) with the chance that the chief is undrawn), so the broadcast denominator is hidden
    behind an optimisation barrier, which the rewrite cannot see through."""
    numerator = jnp.asarray(numerator).astype(jnp.float32)
    denominator = jnp.asarray(denominator).astype(jnp.float32)
    shape = jnp.broadcast_shapes(numerator.shape, denominator.shape)
    return jnp.broadcast_to(numerator, shape) / lax.optimization_barrier(jnp.broadcast_to(denominator, shape))


def neighbour_sums(chief_counts: jax.Array) -> jax.Array:
    """(..., 32) the worlds in which each cat is an assistant: those of the five cats one feature
    away as the chief, from the worlds per chief (..., 32)."""
    return jnp.sum(chief_counts[..., _NEIGHBOURS], axis=-1)


def chief_and_assistant(chief_counts: jax.Array, total: jax.Array) -> tuple[jax.Array, jax.Array]:
    """P(chief) and P(assistant) (..., 32) float32 from the worlds counted per chief and their
    ``total`` (...): one correctly rounded division of exact integers each (:func:`quotient`)."""
    total = jnp.asarray(total)[..., None]
    return quotient(chief_counts, total), quotient(neighbour_sums(chief_counts), total)


def seat_beliefs(rules: Rules, state: State, seat: jax.Array, clues: bool = True) -> Beliefs:
    """The exact posterior of ``seat``'s information set in one game (``clue`` is None without
    ``clues``, which the scripted players do not read). Where the NumPy twin raises on an
    inconsistent information set (no world), the probabilities here are NaN (0 / 0)."""
    del rules  # the worlds do not depend on the options: kept for the signature shared by the readers
    cand = slot_candidates(state, seat)
    chiefs, clue_counts = count_worlds(cand, clues)
    total = jnp.sum(chiefs)
    chief, assistant = chief_and_assistant(chiefs, total)
    n = state.n.astype(jnp.int32)
    clue = None
    if clue_counts is not None:
        clue = jnp.where((n > _SLOTS)[:, None], quotient(clue_counts, total), 0.0)
    unrevealed = jnp.sum((n <= _SLOTS) & (cand == ALL_CLUES))
    assignments = total // jnp.asarray(_FACTORIALS)[unrevealed]
    return Beliefs(chief, assistant, clue, assignments)


__all__ = [
    "ALL_CLUES",
    "PERMS",
    "Beliefs",
    "chief_and_assistant",
    "chief_counts",
    "clue_candidates",
    "count_worlds",
    "quotient",
    "seat_beliefs",
    "slot_candidates",
    "slot_masks",
    "world_masks",
]
