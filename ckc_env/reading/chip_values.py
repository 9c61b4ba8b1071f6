"""What a seat expects the next chip of each colour to be worth: the chip values that bayes_v1's
rule (``bayes_rule``) weighs its targets by.

Its batched twin: ckc_env/batch/chip_values.py.
"""

from __future__ import annotations

from ..engine.chips import STASI
from ..engine.view import PlayerView


def expected_chip_values(view: PlayerView) -> tuple[float, float, float]:
    """E[value] of the next chip of each colour, over the chips this seat has not seen.

    The Stasi chip counts 0 (it goes back after the round) except in the last round (``max_rounds``),
    where it counts -2: an approximation, since a game can also end earlier (RULES.md 6).
    Colours whose supply is empty are worth 0: nobody gets a chip.
    """
    last_round = view.round_index + 1 >= view.config.max_rounds
    return _expected_chip_values(view.pool, last_round, view.own_chips, [n > 0 for n in view.supply_counts])


def _expected_chip_values(
    pool, last_round: bool, own_chips: list[int], in_supply: list[bool]
) -> tuple[float, float, float]:
    sums, counts = [0.0, 0.0, 0.0], [0, 0, 0]
    for chip in range(len(pool)):
        if chip in own_chips:
            continue
        colour = pool.colour[chip]
        sums[colour] += (-2 if last_round else 0) if pool.kind[chip] == STASI else pool.value[chip]
        counts[colour] += 1
    return tuple(sums[c] / counts[c] if counts[c] and in_supply[c] else 0.0 for c in range(3))
