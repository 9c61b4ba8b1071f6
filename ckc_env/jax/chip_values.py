"""What a seat expects the next chip of each colour to be worth, for one game in JAX: read by the
bayes players and the players' posterior.

Its NumPy twin: ckc_env/batch/chip_values.py (scalar: ckc_env/reading/chip_values.py).
"""

from __future__ import annotations

from functools import cache

import jax
import jax.numpy as jnp
import numpy as np

from ..batch.chip_values import _VALUE_BY_COLOUR
from ..batch.state import BatchRules
from ..config import BLACK
from .state import Rules, State


def expected_chip_values(rules: Rules, state: State, seat: jax.Array) -> jax.Array:
    """(3,) float32 E[value] of the next chip of each colour over the chips ``seat`` has not seen:
    the pool's sums less the seat's own, as integers, divided once (the twin's quotients, rounded
    to float32)."""
    pool_sum, pool_count = _pool_sums(rules.numpy)
    own = state.value_counts[seat].astype(jnp.int32)  # by points -2..5: each value has one colour
    sums = pool_sum - jnp.sum(own[:, None] * _VALUE_BY_COLOUR.astype(np.int32), axis=0)
    counts = pool_count - state.chip_table[seat, :3].astype(jnp.int32)
    if rules.stasi_id >= 0:  # counts 0, or -2 in the last round, unless the seat holds it
        elsewhere = ~state.holdings[seat, rules.stasi_id]
        last_round = state.round_index.astype(jnp.int32) + 1 >= state.options.max_rounds
        sums = sums.at[BLACK].add(-2 * (elsewhere & last_round).astype(jnp.int32))
    ok = (counts > 0) & (state.supply_len > 0)
    return jnp.where(ok, sums.astype(jnp.float32) / jnp.where(ok, counts, 1).astype(jnp.float32), 0.0)


@cache
def _pool_sums(rules: BatchRules) -> tuple[np.ndarray, np.ndarray]:
    """Printed values summed by colour (the Stasi chip as 0) and chips by colour, of the whole pool (int32)."""
    values = np.where(np.arange(rules.n_chips) == rules.stasi_id, 0, rules.chip_value)
    sums = np.array([values[rules.chip_colour == c].sum() for c in range(3)], dtype=np.int32)
    counts = np.array([(rules.chip_colour == c).sum() for c in range(3)], dtype=np.int32)
    return sums, counts


__all__ = ["expected_chip_values"]
