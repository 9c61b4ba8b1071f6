"""``bayes_v2``: bayes_v1's decision rule on a posterior that also reads the other players' decisions.

bayes_v1 infers the hidden clues from the cards alone. bayes_v2 also reads every accusation and
every pass of the other players this round, each modelled as bayes_v1 that follows its rule with
probability ``follow`` and otherwise takes a uniformly random legal action
(``reading.players_posterior.PlayersReader``: a likelihood per seat and clue), weighs every hidden
assignment of clues by it (``reading.beliefs.weighted_beliefs``) and decides by bayes_v1's rule
(``reading.bayes_rule``) on that posterior. It keeps one reader and brings it up to date at its own
decisions.
"""

from __future__ import annotations

from dataclasses import dataclass, fields

from ..engine.view import PlayerView
from ..reading.bayes_rule import BayesParams, decide
from ..reading.beliefs import weighted_beliefs
from ..reading.players_posterior import PlayersReader
from .bayes import BayesAgent


@dataclass(frozen=True)
class BayesV2Params(BayesParams):
    follow: float = 0.8  # how often a modelled player takes bayes_v1's action

    def __post_init__(self) -> None:
        super().__post_init__()
        if not 0.0 <= self.follow < 1.0:
            raise ValueError(f"bayes_v2 parameter follow={self.follow!r} must lie in [0, 1)")

    @classmethod
    def names(cls) -> tuple[str, ...]:
        return tuple(f.name for f in fields(cls))


class BayesV2Agent(BayesAgent):
    name = "bayes_v2"
    params_type = BayesV2Params

    def reset(self, seat: int, config) -> None:
        super().reset(seat, config)
        self.reader = PlayersReader(seat, self.params, self.params.follow)

    def accuse(self, view: PlayerView, forced: bool) -> int:
        values = self.chip_values(view)
        likelihood = self.reader.update(view, values)
        return decide(self.params, view, weighted_beliefs(view, likelihood), forced, values)
