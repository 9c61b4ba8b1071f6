"""The second-order reading: the other players' decisions read as bayes_v2's, who read the table too.

Its batched twin: ckc_env/batch/second_order.py.

bayes_v2 reads each other player's accusations and passes as the decisions of bayes_v1, a player
who infers the clues from the cards alone (``players_posterior``). At a table of bayes_v2 players
that model is wrong in a way that can be predicted: each of them also reads the others' decisions
(this seat's included), so its passes and accusations follow a posterior that has already moved. A
:class:`SecondOrderReader` judges a decision of seat ``j`` under each clue ``c`` that ``j`` may have
held by asking what bayes_v2 would have done there: bayes_v1's rule on ``j``'s posterior given
``c``, the cards, and what the decisions made before it revealed, each of those read as bayes_v1's
(``inner_follow``). The first-order readings do not depend on who reads them (a decision depends on
its maker's clue and on public information only), so they are computed once per decision for every
seat and shared.

Which earlier decisions a modelled decision may use follows what its maker knew: a pass in the
window after card k uses the passes of the windows before and the accusations made before card k;
an accusation uses those passes and the accusations before it. The modelled player's chip values
are taken as the reading seat's own, as ``players_posterior`` takes them. Everything else (the
decision rule, its parameters, ``follow``) is bayes_v2's. bayes_v3 (``agents.bayes_v3``) decides by
bayes_v1's rule on the posterior this reading weighs.
"""

from __future__ import annotations

import numpy as np

from ..engine.cards import N_CLUES
from ..engine.view import PlayerView
from .bayes_rule import BayesParams
from .beliefs import beliefs, weighted_beliefs
from .players_posterior import Decision, decisions_since, judge, likelihoods


class SecondOrderReader:
    """What the other players' decisions this round reveal of their clues, seen from one seat, when
    each of them is modelled as bayes_v2 (following its rule with probability ``follow``, its own
    model of the others following bayes_v1's with probability ``inner_follow``): a likelihood per
    other seat and clue. Same interface and the same reading of the record
    (:func:`~ckc_env.reading.players_posterior.decisions_since`) as
    :class:`~ckc_env.reading.players_posterior.PlayersReader`."""

    def __init__(self, seat: int, params: BayesParams, follow: float, inner_follow: float) -> None:
        self.seat = seat
        self.params = params
        self.follow = follow
        self.inner_follow = inner_follow
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
            for clue, log_p in judge(self.params, values, self.inner_follow, view, decision, beliefs):
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
            self.params, self.values, self.follow, view, decision, lambda past: weighted_beliefs(past, weights)
        ):
            factors[clue].append(log_p)
