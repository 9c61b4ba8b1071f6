"""The chance model of ``engine/chance.py`` in 32-bit JAX: SplitMix64 words as (high, low) uint32
pairs, exactly, so that a game seeded ``s`` is dealt the same tiles, clues, deck, chip supply and
window orders here as on the scalar and the NumPy engine.

JAX computes in 32 bits unless the process enables 64-bit mode, which a library must not impose;
and accelerators emulate 64-bit integers anyway. So a 64-bit word is the pair ``(hi, lo)`` of
uint32 arrays (the last axis, or two arrays), and the three operations SplitMix64 needs are
emulated: shifts, wrapping 64-bit products (a 32x32 product's high half from 16-bit halves), and
addition with carry. ``below`` reduces a word modulo a small bound as ``engine.chance`` does
(``w % bound``), and ``ordered`` sorts by the words' 64-bit values (a stable sort, as ``sorted``).

Word ``i`` of a game with key ``K`` is ``mix64(K + i * GOLDEN)``; a seed's key is
``mix64(seed ^ GOLDEN)``; the next game of a slot (automatic reset) gets ``mix64(K ^ M2)``.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from ..engine.chance import GOLDEN, M1, M2

U32 = jnp.uint32
_LOW16 = 0xFFFF


def _halves(value: int) -> tuple[int, int]:
    return value >> 32, value & 0xFFFFFFFF


GOLDEN_HI, GOLDEN_LO = _halves(GOLDEN)
M1_HI, M1_LO = _halves(M1)
M2_HI, M2_LO = _halves(M2)


def mul_hi(a: jax.Array, b: jax.Array) -> jax.Array:
    """The high 32 bits of the 64-bit product of two uint32 arrays."""
    a0, a1 = a & _LOW16, a >> 16
    b0, b1 = b & _LOW16, b >> 16
    low = a0 * b0
    cross1 = a1 * b0
    cross2 = a0 * b1
    carry = ((low >> 16) + (cross1 & _LOW16) + (cross2 & _LOW16)) >> 16
    return a1 * b1 + (cross1 >> 16) + (cross2 >> 16) + carry


def mul64(hi: jax.Array, lo: jax.Array, c_hi: int, c_lo: int) -> tuple[jax.Array, jax.Array]:
    """(hi, lo) * constant, wrapping modulo 2**64."""
    c_hi, c_lo = U32(c_hi), U32(c_lo)
    return mul_hi(lo, c_lo) + lo * c_hi + hi * c_lo, lo * c_lo


def add64(a_hi: jax.Array, a_lo: jax.Array, b_hi: jax.Array, b_lo: jax.Array) -> tuple[jax.Array, jax.Array]:
    lo = a_lo + b_lo
    return a_hi + b_hi + (lo < a_lo).astype(U32), lo


def _xorshift(hi: jax.Array, lo: jax.Array, k: int) -> tuple[jax.Array, jax.Array]:
    """x ^ (x >> k) for 0 < k < 32."""
    return hi ^ (hi >> k), lo ^ ((lo >> k) | (hi << (32 - k)))


def mix64(hi: jax.Array, lo: jax.Array) -> tuple[jax.Array, jax.Array]:
    """SplitMix64's finaliser (``engine.chance.mix64``) on (hi, lo) pairs."""
    hi, lo = _xorshift(hi, lo, 30)
    hi, lo = mul64(hi, lo, M1_HI, M1_LO)
    hi, lo = _xorshift(hi, lo, 27)
    hi, lo = mul64(hi, lo, M2_HI, M2_LO)
    return _xorshift(hi, lo, 31)


def words(key: jax.Array, start: jax.Array, count: int) -> tuple[jax.Array, jax.Array]:
    """Words ``start .. start + count - 1`` of the stream with ``key`` ((2,) uint32): (count,) hi and lo."""
    index = start.astype(U32) + jnp.arange(count, dtype=U32)
    step_hi, step_lo = mul64(jnp.zeros_like(index), index, GOLDEN_HI, GOLDEN_LO)
    return mix64(*add64(key[0], key[1], step_hi, step_lo))


def below(hi: jax.Array, lo: jax.Array, bound: jax.Array) -> jax.Array:
    """``w % bound`` (int32) for words (hi, lo) and small positive bounds (below 2**16)."""
    bound = jnp.maximum(jnp.asarray(bound).astype(U32), U32(1))
    base = ((U32(0xFFFFFFFF) % bound) + U32(1)) % bound  # 2**32 % bound
    return (((hi % bound) * base + lo % bound) % bound).astype(jnp.int32)


def ordered(hi: jax.Array, lo: jax.Array) -> jax.Array:
    """The permutation that sorts the words (along the last axis) by value, ties in index order:
    ``engine.chance.ordered``'s stable sort, as int32 indices.

    A word's place is the number of words before it (smaller, or equal at a lower index), counted
    over all pairs: for the few words of a deal (at most 32) this is a handful of vector compares,
    where a sort would call a comparator per comparison on a CPU backend."""
    size = hi.shape[-1]
    index = jnp.arange(size)
    h_i, h_j = hi[..., :, None], hi[..., None, :]
    l_i, l_j = lo[..., :, None], lo[..., None, :]
    before = (h_j < h_i) | ((h_j == h_i) & ((l_j < l_i) | ((l_j == l_i) & (index[None, :] < index[:, None]))))
    place = before.sum(-1)  # (..., size): where word i goes
    return (jnp.where(place[..., None, :] == index[:, None], index, 0)).sum(-1).astype(jnp.int32)


def key_of_seed(seed: jax.Array) -> jax.Array:
    """(..., 2) game keys from (..., 2) uint32 seeds (hi, lo): ``mix64(seed ^ GOLDEN)``."""
    hi, lo = mix64(seed[..., 0] ^ U32(GOLDEN_HI), seed[..., 1] ^ U32(GOLDEN_LO))
    return jnp.stack([hi, lo], -1)


def next_key(key: jax.Array) -> jax.Array:
    """The key of the next game of a slot (``engine.chance.next_key``)."""
    hi, lo = mix64(key[..., 0] ^ U32(M2_HI), key[..., 1] ^ U32(M2_LO))
    return jnp.stack([hi, lo], -1)


def keys_of_seeds(seeds: object) -> np.ndarray:
    """(B, 2) uint32 game keys of integer seeds in [0, 2**64), computed on the host with
    ``engine.chance.key_of`` (which checks each seed)."""
    from ..engine.chance import key_of
    from .state import split_keys

    return split_keys(np.array([key_of(int(s)) for s in seeds], dtype=np.uint64).reshape(-1))
