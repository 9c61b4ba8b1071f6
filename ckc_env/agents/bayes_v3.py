"""``bayes_v3``: bayes_v2 whose model of the other players is bayes_v2 itself (a second-order reading).

bayes_v2 reads each other player's accusations and passes as the decisions of bayes_v1. At a table
of bayes_v2 players each of them also reads the others' decisions, so bayes_v3 reads them as
bayes_v2's (``reading.second_order.SecondOrderReader``: a decision of seat ``j`` judged under each
clue ``j`` may have held by bayes_v1's rule on ``j``'s posterior weighted by the first-order
readings, with ``inner_follow``, of the decisions ``j`` had seen). Everything else (the decision
rule, its parameters, ``follow``) is bayes_v2's.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..reading.second_order import SecondOrderReader
from .bayes_v2 import BayesV2Agent, BayesV2Params


@dataclass(frozen=True)
class BayesV3Params(BayesV2Params):
    inner_follow: float = 0.8  # how often a modelled player's own model of the others follows bayes_v1

    def __post_init__(self) -> None:
        super().__post_init__()
        if not 0.0 <= self.inner_follow < 1.0:
            raise ValueError(f"bayes_v3 parameter inner_follow={self.inner_follow!r} must lie in [0, 1)")


class BayesV3Agent(BayesV2Agent):
    name = "bayes_v3"
    params_type = BayesV3Params

    def reset(self, seat: int, config) -> None:
        super().reset(seat, config)
        self.reader = SecondOrderReader(seat, self.params, self.params.follow, self.params.inner_follow)
