"""``bayes_v3``: bayes_v2 whose model of the other players is bayes_v2 itself (a second-order reading).

bayes_v2 reads each other player's accusations and passes as the decisions of bayes_v1, a player
who infers the clues from the cards alone. At a table of bayes_v2 players that model is wrong in a
way that can be predicted: each of them also reads the others' decisions (this seat's included), so
its passes and accusations follow a posterior that has already moved. bayes_v3 judges a decision of
seat ``j`` under each clue ``c`` that ``j`` may have held by asking what bayes_v2 would have done
there: bayes_v1's rule on ``j``'s posterior given ``c``, the cards, and what the decisions made
before it revealed, each of those read as bayes_v1's (``inner_follow``). The first-order readings
do not depend on who reads them (a decision depends on its maker's clue and on public information
only), so they are computed once per decision for every seat and shared.

Which earlier decisions a modelled decision may use follows what its maker knew: a pass in the
window after card k uses the passes of the windows before and the accusations made before card k;
an accusation uses those passes and the accusations before it. The modelled player's chip values
are taken as this seat's own, as bayes_v2 takes them. Everything else (the decision rule, its
parameters, ``follow``) is bayes_v2's.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..beliefs import beliefs, weighted_beliefs
from ..engine.cards import N_CLUES
from ..engine.view import PlayerView
from .bayes_v2 import BayesV2Agent, BayesV2Params, Decision, decisions_since, judge, likelihoods


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
        self.reader = SecondOrderReader(seat, self.params)


class SecondOrderReader:
    """What the other players' decisions this round reveal of their clues, seen from one seat, when
    each of them is modelled as bayes_v2: a likelihood per other seat and clue. Same interface and
    the same reading of the record (:func:`~ckc_env.agents.bayes_v2.decisions_since`) as
    :class:`~ckc_env.agents.bayes_v2.TableReader`."""

    def __init__(self, seat: int, params: BayesV3Params) -> None:
        self.seat = seat
        self.params = params
        self.round = -1

    def update(self, view: PlayerView, values: tuple[float, float, float]) -> dict[int, np.ndarray]:
        self.values = values
        if view.round_index != self.round:
            self.round = view.round_index
            self.first: list[tuple[Decision, np.ndarray]] = []  # every seat's decisions, read as bayes_v1's
            self.log_factors = {s: [[] for _ in range(N_CLUES)] for s in range(view.num_players) if s != self.seat}
            self.windows_read = 0
            self.accusations_read = 0
        new, self.windows_read, self.accusations_read = decisions_since(view, self.windows_read, self.accusations_read)
        for decision in new:
            logs = np.zeros(N_CLUES)  # 0 for the clues its maker cannot hold
            for clue, log_p in judge(self.params, values, self.params.inner_follow, view, decision, beliefs):
                logs[clue] = log_p
            self.first.append((decision, logs))
        for decision in new:
            if decision.seat != self.seat:
                self._weigh(view, decision)
        return likelihoods(self.log_factors)

    def _weigh(self, view: PlayerView, decision: Decision) -> None:
        """Add log P(decision | clue) for each clue its maker may have held, its maker read as bayes_v2:
        on its posterior given the first-order readings of the decisions it had seen."""
        seen: dict[int, np.ndarray] = {}
        for earlier, logs in self.first:
            if earlier.seat != decision.seat and decision.saw(earlier):
                seen[earlier.seat] = seen.get(earlier.seat, 0.0) + logs
        weights = {s: np.exp(logs - logs.max()) for s, logs in seen.items()}
        factors = self.log_factors[decision.seat]
        for clue, log_p in judge(
            self.params, self.values, self.params.follow, view, decision, lambda past: weighted_beliefs(past, weights)
        ):
            factors[clue].append(log_p)
