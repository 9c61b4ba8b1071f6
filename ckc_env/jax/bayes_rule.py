"""bayes_v1's decision rule in JAX (``reading.bayes_rule.decide``): in float32 in the twin's order
(:func:`accuse_or_pass`), or with ``exact=1`` on world counts in the twin's integers
(:func:`accuse_or_pass_exact`).

Its NumPy twin: ckc_env/batch/bayes_rule.py (scalar: ckc_env/reading/bayes_rule.py).

**With exact=1, on counts: exact.** The integers are the NumPy twin's
(``batch.bayes_rule.accuse_or_pass_exact``) and the scalar ``exact_decision``'s: a target's worth
(its expected chip value times ``total x D``) fits int32, and each threshold comparison
``a x b >= c x d`` is decided on the 64-bit products (:func:`compare_products`, 32-bit halves: JAX
runs without x64). So bayes_v1, and bayes_v2's model of the other players, decide exactly as on
the other engines, ties included. A weighted posterior (bayes_v2's own decision) is not a ratio of
counts and stays in float32.

**In float32** (the default, and a weighted posterior): the twin evaluates the scalar rule's
float64 expressions, so that every threshold comparison agrees with the scalar player. JAX runs in
float32 (a library must not switch on x64 for the process), and XLA contracts products and sums
into fused multiply-adds as it sees fit, so a comparison whose two sides differ by less than
float32 rounding (a near-tie: a target worth the bar to within ~1e-7, two targets worth about the
same) may go the other way; ``tests/test_jax_players.py`` counts them.

What float64 decides *exactly*, float32 keeps exact where the rule reads it:

- **Equal ratios, equal floats.** The probabilities are correctly rounded quotients of world counts
  (``beliefs.quotient``), and so is the chance that the chief is undrawn when its counts are given.
- **The bar is the twin's, rounded once** (a table over the player count and the players left).
- **The non-accuser ties with a target.** With one other player left, a target that cannot be the
  chief and is an assistant exactly when the chief is undrawn is worth what the non-accuser gets
  (``chief_in_deck``; with ``chief_uncaught``, a sure assistant is worth white): float64 finds them
  equal and accuses (``>=``). Here the non-accuser's value is computed as one more column of the
  targets' array (P(chief) 0, P(assistant) the chance of white), by the same fused code, so the tie
  holds bit for bit whatever XLA fuses. :func:`accuse_or_pass` therefore takes that chance
  (:func:`non_accuser_odds`) where the twin takes the value (:func:`non_accuser_value`).

Every function takes any leading axes: one position, or many (``players_posterior``'s model of the
other players, over the cats that may be accused): the candidate cats are the last axis.
"""

from __future__ import annotations

from functools import cache
from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from ..config import BLACK, GOLD, MAX_PLAYERS, WHITE
from ..engine.cards import N_CATS
from ..reading.bayes_rule import MAX_VALUE_COUNT, BayesParams, exact_params
from .beliefs import quotient

_BIT_INDEX = np.arange(N_CATS, dtype=np.uint32)
F32 = jnp.float32
I32 = jnp.int32
U32 = jnp.uint32
SEATS = MAX_PLAYERS
_DENOMINATORS = np.arange(1, MAX_VALUE_COUNT + 1, dtype=np.int32)


def expected_worth(chief: jax.Array, assistant: jax.Array, values: jax.Array) -> jax.Array:
    """(..., c) the expected value of the chip an accusation of each candidate earns:
    ``P(chief) E[gold] + P(assistant) E[white] + P(innocent) E[black]``, in the twin's order;
    ``values`` (..., 3)."""
    gold, white, black = values[..., GOLD, None], values[..., WHITE, None], values[..., BLACK, None]
    return chief * gold + assistant * white + (1.0 - chief - assistant) * black


def non_accuser_odds(
    chief: jax.Array, drawn: jax.Array, non_accuser_white: str | jax.Array, total: jax.Array | None = None
) -> jax.Array:
    """(...) the chance that a player who never accuses gets white: 1 with ``chief_uncaught`` (the option
    by name, or a bool: ``state.options.chief_uncaught``), else
    P(the chief is still in the deck), from ``chief``, the posterior over all 32 cats (..., 32), and
    ``drawn``, the cats drawn (...) uint32 bits.

    With ``total`` (...), ``chief`` holds exact integer weights (``beliefs.count_worlds``' chief
    counts) that ``total`` normalises: the chance is then one correctly rounded quotient, equal to
    a target's P(assistant) when their counts are equal, as the twin's float64 sum finds them
    (a float32 sum of 32 rounded quotients would miss by an ulp and flip the rule's ``>=``)."""
    uncaught = non_accuser_white == "chief_uncaught" if isinstance(non_accuser_white, str) else non_accuser_white
    undrawn = (jnp.asarray(drawn, jnp.uint32)[..., None] >> _BIT_INDEX) & 1 == 0
    p_undrawn = jnp.sum(jnp.where(undrawn, chief, 0), axis=-1)
    odds = quotient(p_undrawn, total) if total is not None else p_undrawn.astype(F32)
    return jnp.where(uncaught, jnp.ones_like(odds), odds)


def non_accuser_value(
    values: jax.Array,
    chief: jax.Array,
    drawn: jax.Array,
    non_accuser_white: str | jax.Array,
    total: jax.Array | None = None,
) -> jax.Array:
    """(...) what a player who never accuses expects to score (the twin's function): white while the
    chief is uncaught (``chief_uncaught``), else white while the chief may still be in the deck,
    black otherwise. Arguments as :func:`non_accuser_odds`, with ``values`` (..., 3)."""
    odds = non_accuser_odds(chief, drawn, non_accuser_white, total)
    return expected_worth(jnp.zeros_like(odds)[..., None], odds[..., None], values)[..., 0]


class Position(NamedTuple):
    """What bayes_v1's rule reads of a position (any leading axes; the twin's ``batch.bayes_rule.Position``)."""

    chief: jax.Array  # (..., c) each candidate's probability to be the chief
    assistant: jax.Array  # (..., c) ... the assistant
    allowed: jax.Array  # (..., c) bool: the candidates that may be accused
    values: jax.Array  # (..., 3) the expected value of the next chip of each colour
    others_left: jax.Array  # (...) the other players who may still accuse
    n: jax.Array  # (...) the player counts
    forced: jax.Array  # (...) bool: the accusation is forced


def accuse_or_pass(
    p: BayesParams, position: Position, non_accuser_white_odds: jax.Array
) -> tuple[jax.Array, jax.Array]:
    """(take, column): whether to accuse, and the candidate column to accuse (the best expected chip
    value among the ``allowed`` columns, ties to the likelier chief, then the first), given the
    ``position`` and the chance that a player who never accuses gets white (...;
    :func:`non_accuser_odds`: the twin takes ``non_accuser_value`` instead, see the module
    docstring). ``p`` is static."""
    chief, assistant, allowed, values, others_left, n, forced = position
    zero = jnp.zeros_like(non_accuser_white_odds)[..., None]
    worth = expected_worth(
        jnp.concatenate([chief, zero], axis=-1),
        jnp.concatenate([assistant, non_accuser_white_odds[..., None].astype(F32)], axis=-1),
        values,
    )
    ev, non_accuser = worth[..., :-1], worth[..., -1]
    best_ev = jnp.max(jnp.where(allowed, ev, -jnp.inf), axis=-1, keepdims=True)
    tied = allowed & (ev == best_ev)
    best_chief = jnp.max(jnp.where(tied, chief, -jnp.inf), axis=-1, keepdims=True)
    column = jnp.argmax(tied & (chief == best_chief), axis=-1).astype(jnp.int32)
    best_ev, best_chief = best_ev[..., 0], best_chief[..., 0]
    others_left = jnp.asarray(others_left, jnp.int32)
    bar = jnp.asarray(_bars(p))[jnp.clip(jnp.asarray(n, jnp.int32), 0, SEATS), jnp.clip(others_left, 0, SEATS)]
    take = jnp.where(others_left <= 1, best_ev >= non_accuser + F32(p.margin_last), best_ev >= bar)
    take = take | forced | (best_chief >= F32(p.sure))
    return take, column


@cache
def _bars(p: BayesParams) -> np.ndarray:
    """(6, 6) float32 ``[n, others_left]``: the moving bar (``reading.bayes_rule.moving_bar``), in
    float64 as the twin computes it, rounded once. Why a table: the bar of decimal parameters is not
    the float32 sum of their float32 roundings (0.8 + 1.2 * 0.5 is 1.4 in float64, an ulp off in
    float32), and a target worth exactly the bar (a sure assistant worth E[white] = 1.4) must tie."""
    bars = np.zeros((SEATS + 1, SEATS + 1), dtype=np.float32)
    for n in range(SEATS + 1):
        for others_left in range(SEATS + 1):
            share = (others_left - 1) / max(1, n - 2)
            bars[n, others_left] = p.bar_late + (p.bar_early - p.bar_late) * share
    return bars


class Counts(NamedTuple):
    """The world counts an exact position is a ratio of (the twin's ``batch.bayes_rule.Counts``), int32."""

    chief: jax.Array  # (..., c) worlds in which each candidate is the chief
    assistant: jax.Array  # (..., c) ... an assistant
    total: jax.Array  # (...) all the worlds
    undrawn: jax.Array  # (...) the worlds whose chief is not drawn (for the non-accuser's white)


def undrawn_worlds(chief_counts: jax.Array, drawn: jax.Array) -> jax.Array:
    """(...) the worlds whose chief is not among the cats ``drawn`` (...) uint32, from the worlds
    per chief (..., 32)."""
    undrawn = (jnp.asarray(drawn, U32)[..., None] >> _BIT_INDEX) & 1 == 0
    return jnp.sum(jnp.where(undrawn, chief_counts, 0), axis=-1)


def value_fractions(values: jax.Array) -> tuple[jax.Array, jax.Array]:
    """(numerators, denominators) (..., 3) int32 of the expected chip values (..., 3) float32: the
    smallest denominator below ``MAX_VALUE_COUNT`` that makes each an integer to within 1e-3 (the
    twin's ``value_fractions``; float32's error on a value of at most 5, times 24, is below 1e-5)."""
    scaled = values[..., None] * _DENOMINATORS.astype(np.float32)
    near = jnp.abs(scaled - jnp.round(scaled)) < 1e-3
    denominators = jnp.asarray(_DENOMINATORS)[jnp.argmax(near, axis=-1)]
    return jnp.round(values * denominators).astype(I32), denominators


def _wide_product(a: jax.Array, b: jax.Array) -> tuple[jax.Array, jax.Array]:
    """The 64-bit product of uint32 ``a`` and ``b`` as (high, low) uint32 words, from 16-bit halves."""
    a0, a1, b0, b1 = a & 0xFFFF, a >> 16, b & 0xFFFF, b >> 16
    low, cross0, cross1 = a0 * b0, a0 * b1, a1 * b0
    middle = (low >> 16) + (cross0 & 0xFFFF) + (cross1 & 0xFFFF)  # below 3 x 2**16
    return a1 * b1 + (cross0 >> 16) + (cross1 >> 16) + (middle >> 16), (low & 0xFFFF) | (middle << 16)


def compare_products(a: jax.Array, b: jax.Array, c: jax.Array, d: jax.Array) -> jax.Array:
    """The sign (-1, 0, 1) int32 of ``a x b - c x d`` for int32 arguments (above -2**31), exact: the
    products' magnitudes compared as 64-bit numbers, their signs apart."""
    a, b, c, d = (jnp.asarray(x, I32) for x in (a, b, c, d))
    left, right = jnp.sign(a) * jnp.sign(b), jnp.sign(c) * jnp.sign(d)
    high0, low0 = _wide_product(jnp.abs(a).astype(U32), jnp.abs(b).astype(U32))
    high1, low1 = _wide_product(jnp.abs(c).astype(U32), jnp.abs(d).astype(U32))
    larger = jnp.where(
        high0 != high1, jnp.where(high0 > high1, 1, -1), jnp.where(low0 > low1, 1, jnp.where(low0 < low1, -1, 0))
    )
    return jnp.where(left != right, jnp.sign(left - right), left * larger).astype(I32)


def accuse_or_pass_exact(
    p: BayesParams,
    counts: Counts,
    allowed: jax.Array,
    values: jax.Array,
    others_left: jax.Array,
    n: jax.Array,
    forced: jax.Array,
    chief_uncaught: str | bool | jax.Array,
) -> tuple[jax.Array, jax.Array]:
    """(take, column), as :func:`accuse_or_pass`, in the twin's integers (``accuse_or_pass_exact``):
    each candidate's worth ``total x D x E[chip]`` in int32 (at most 3,840 worlds times values of
    at most 100 over fewer than 24 chips a colour: below 7e8), each threshold compared on the wide
    products. ``chief_uncaught``: the option by name (``non_accuser_white``), its value, or a
    per-game bool. ``p`` is static."""
    if isinstance(chief_uncaught, str):
        chief_uncaught = chief_uncaught == "chief_uncaught"
    numerator, denominator = value_fractions(values)
    d = jnp.prod(denominator, axis=-1)
    k = numerator * (d[..., None] // denominator)  # each colour's value times D
    gold, white, black = k[..., GOLD, None], k[..., WHITE, None], k[..., BLACK, None]
    chief, assistant = counts.chief.astype(I32), counts.assistant.astype(I32)
    total, undrawn = counts.total.astype(I32), counts.undrawn.astype(I32)
    worth = chief * gold + assistant * white + (total[..., None] - chief - assistant) * black
    best_worth = jnp.max(jnp.where(allowed, worth, jnp.iinfo(np.int32).min), axis=-1, keepdims=True)
    tied = allowed & (worth == best_worth)
    best_chief = jnp.max(jnp.where(tied, chief, -1), axis=-1, keepdims=True)
    column = jnp.argmax(tied & (chief == best_chief), axis=-1).astype(I32)
    best_worth = jnp.where(jnp.any(allowed, axis=-1), best_worth[..., 0], 0)
    best_chief = best_chief[..., 0]
    scale, sure, bar_early, bar_late, margin_last = exact_params(p)
    unit = total * d
    white, black = white[..., 0], black[..., 0]
    non_accuser = jnp.where(chief_uncaught, total * white, undrawn * white + (total - undrawn) * black)
    others_left, n = jnp.asarray(others_left, I32), jnp.asarray(n, I32)
    m = jnp.maximum(1, n - 2)
    bar = bar_late * m + (bar_early - bar_late) * (others_left - 1)
    last = compare_products(best_worth - non_accuser, scale, margin_last, unit) >= 0
    early = compare_products(best_worth, scale * m, bar, unit) >= 0
    take = jnp.where(others_left <= 1, last, early)
    take = take | forced | (compare_products(best_chief, scale, sure, total) >= 0)
    return take, column


__all__ = [
    "Counts",
    "accuse_or_pass",
    "accuse_or_pass_exact",
    "compare_products",
    "expected_worth",
    "non_accuser_odds",
    "non_accuser_value",
    "undrawn_worlds",
    "value_fractions",
]
