"""``bayes_v1``: exact beliefs and an accusation rule that weighs the best target now against waiting.

At a window it takes the exact posterior of its information set (``reading.beliefs``) and decides
by bayes_v1's rule (``reading.bayes_rule``: the best target's expected chip against a bar that
moves as the other players accuse), with the chip values it expects (``reading.chip_values``),
remembered per round. Forced accusations take the best target; Cafe Adler chips are swapped at
once (a swap never loses in expectation, see ``simple.adler_swap_action``). The parameters'
defaults come from the search in ``training/commands/tune_bayes.py`` (results in docs/baselines.md).
"""

from __future__ import annotations

from ..engine.view import PlayerView
from ..reading.bayes_rule import BayesParams, decide
from ..reading.beliefs import beliefs
from ..reading.chip_values import expected_chip_values
from .simple import Accuser


class BayesAgent(Accuser):
    name = "bayes_v1"
    params_type = BayesParams

    def __init__(self, seed: int | None = None, **params: float) -> None:
        super().__init__(seed)
        self.params = self.params_type.of(self.name, params)
        self._chip_values: dict[int, tuple[float, float, float]] = {}

    def reset(self, seat: int, config) -> None:
        super().reset(seat, config)
        self._chip_values.clear()  # the pool may differ from the last game's

    def chip_values(self, view: PlayerView) -> tuple[float, float, float]:
        """``expected_chip_values``, remembered per round: accusations happen before the round's
        chips move (RULES.md 5, 7), so the pool, own chips and supply are fixed meanwhile."""
        values = self._chip_values.get(view.round_index)
        if values is None:
            values = self._chip_values[view.round_index] = expected_chip_values(view)
        return values

    def accuse(self, view: PlayerView, forced: bool) -> int:
        return decide(self.params, view, beliefs(view), forced, self.chip_values(view))
