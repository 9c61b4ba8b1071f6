"""What a seat expects the next chip of each colour to be worth, for k games at once: the batched
form of ``reading.chip_values.expected_chip_values``, read by the batched bayes players and the
players' posterior.

Its scalar twin: ckc_env/reading/chip_values.py.
"""

from __future__ import annotations

from functools import cache

import numpy as np

from ..config import BLACK, GOLD, WHITE
from .state import BatchRules, BatchState


def expected_chip_values(state: BatchState, games: np.ndarray, seats: np.ndarray) -> np.ndarray:
    """(k, 3) E[value] of the next chip of each colour over the chips the seat has not seen
    (``reading.chip_values.expected_chip_values``): the pool's sums less the seat's own, as integers,
    divided once."""
    rules = state.rules
    pool_sum, pool_count = _pool_sums(rules)
    own = state.value_counts[games, seats].astype(np.int64)  # by points -2..5: each value has one colour
    sums = pool_sum - own @ _VALUE_BY_COLOUR
    counts = pool_count - state.chip_table[games, seats, :3]
    if rules.stasi_id >= 0:  # counts 0, or -2 in the last round, unless the seat holds it
        elsewhere = (state.holdings[games, seats] >> np.uint64(rules.stasi_id)) & np.uint64(1) == 0
        last_round = state.round_index[games] + 1 >= rules.config.max_rounds
        sums[:, BLACK] -= 2 * (elsewhere & last_round)
    ok = (counts > 0) & (state.supply_len[games] > 0)
    return np.where(ok, sums / np.where(ok, counts, 1), 0.0)


_VALUE_BY_COLOUR = np.zeros((8, 3), dtype=np.int64)
"""``_VALUE_BY_COLOUR[points + 2, colour]``: the printed value of a chip counting those points, in
its colour's column (gold 3..5, white 1..2, black -1..0; -2 points is the Stasi chip, value 0)."""
for _points, _colour in zip(range(-2, 6), (BLACK, BLACK, BLACK, WHITE, WHITE, GOLD, GOLD, GOLD), strict=True):
    _VALUE_BY_COLOUR[_points + 2, _colour] = 0 if _points == -2 else _points


@cache
def _pool_sums(rules: BatchRules) -> tuple[np.ndarray, np.ndarray]:
    """Printed values summed by colour (the Stasi chip as 0) and chips by colour, of the whole pool."""
    values = np.where(np.arange(rules.n_chips) == rules.stasi_id, 0, rules.chip_value)
    sums = np.array([values[rules.chip_colour == c].sum() for c in range(3)], dtype=np.int64)
    counts = np.array([(rules.chip_colour == c).sum() for c in range(3)], dtype=np.int64)
    return sums, counts
