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

import math
from dataclasses import dataclass

import numpy as np

from ..beliefs import beliefs, candidate_clues, weighted_beliefs
from ..engine.actions import ACCUSE, PASS
from ..engine.cards import N_CLUES, N_FEATURES
from ..engine.state import FORCED
from ..engine.view import PlayerView
from .bayes import decide
from .bayes_v2 import BayesV2Agent, BayesV2Params, _bits, _PastView, _Table, _table_after


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


@dataclass
class _Decision:
    """A decision on the round's record: who took it, on what table, and which earlier decisions its
    maker had seen (``window``: the card after which it was taken; ``position``: its place among the
    round's accusations, None for a pass)."""

    seat: int
    table: _Table
    targets: int
    accused: list[int]
    action: int
    forced: bool
    window: int
    position: int | None

    def saw(self, earlier: _Decision) -> bool:
        """Whether this decision's maker knew of ``earlier`` when it decided."""
        if earlier.position is None or self.position is None:
            return earlier.window < self.window
        return earlier.position < self.position


class SecondOrderReader:
    """What the other players' decisions this round reveal of their clues, seen from one seat, when
    each of them is modelled as bayes_v2: a likelihood per other seat and clue. Same interface and
    same reading of the record as :class:`~ckc_env.agents.bayes_v2.TableReader`."""

    def __init__(self, seat: int, params: BayesV3Params) -> None:
        self.seat = seat
        self.params = params
        self.round = -1

    def update(self, view: PlayerView, values: tuple[float, float, float]) -> dict[int, np.ndarray]:
        self.values = values
        n = view.num_players
        if view.round_index != self.round:
            self.round = view.round_index
            self.first: list[tuple[_Decision, np.ndarray]] = []  # every seat's decisions, read as bayes_v1's
            self.log_factors = {s: [[] for _ in range(N_CLUES)] for s in range(n) if s != self.seat}
            self.windows_read = 0
            self.accusations_read = 0
        new: list[_Decision] = []
        drawn = len(view.card_order)
        closed = drawn if view.phase >= FORCED else drawn - 1
        while self.windows_read < closed:
            self.windows_read += 1
            new += self._passes(view, self.windows_read)
        for position in range(self.accusations_read, len(view.accusations)):
            new.append(self._accusation(view, position))
        self.accusations_read = len(view.accusations)
        for decision in new:
            self.first.append((decision, self._first_order(view, decision)))
        for decision in new:
            if decision.seat != self.seat:
                self._weigh(view, decision)
        likelihood = {}
        for seat, factors in self.log_factors.items():
            logs = np.array([math.fsum(f) for f in factors])
            likelihood[seat] = np.exp(logs - logs.max())
        return likelihood

    def _passes(self, view: PlayerView, k: int) -> list[_Decision]:
        """Every player asked in the window after card k who did not accuse in it passed."""
        accused_at, accusations = view.accused_at, view.accusations
        table = _table_after(view, k)
        accused = [-1] * view.num_players
        taken = in_window = 0
        for seat, cat in accusations:
            if accused_at[seat] < k:
                accused[seat] = cat
                taken |= 1 << cat
            elif accused_at[seat] == k:
                in_window |= 1 << cat
        targets = table.row_cats & ~taken
        if not targets & ~in_window:
            return []
        return [
            _Decision(seat, table, targets, accused, PASS, False, k, None)
            for seat in range(view.num_players)
            if accused[seat] < 0 and accused_at[seat] != k
        ]

    def _accusation(self, view: PlayerView, position: int) -> _Decision:
        accusations = view.accusations
        seat, cat = accusations[position]
        k = view.accused_at[seat]
        table = _table_after(view, k)
        accused = [-1] * view.num_players
        taken = 0
        for s, c in accusations[:position]:
            accused[s] = c
            taken |= 1 << c
        forced = k == len(view.card_order) and view.deck_size == 0
        return _Decision(seat, table, table.row_cats & ~taken, accused, ACCUSE + cat, forced, k, position)

    def _past(self, view: PlayerView, d: _Decision, clue: int) -> _PastView:
        return _PastView(
            view.num_players, d.seat, clue, clue >> 1, dict(view.exposed_clues), d.table.public_clues,
            d.table.rows, d.table.discards, d.targets, d.accused, view.config, view.round_index,
        )  # fmt: skip

    def _candidates(self, view: PlayerView, d: _Decision) -> list[int]:
        known = {*view.exposed_clues.values(), *d.table.public_clues}
        free = ((1 << N_FEATURES) - 1) & ~sum(1 << (c >> 1) for c in known)
        return _bits(candidate_clues(d.table.rows[d.seat], d.table.discards[d.seat], free))

    def _first_order(self, view: PlayerView, d: _Decision) -> np.ndarray:
        """log P(decision | clue) for each clue, its maker read as bayes_v1 (0 for clues it cannot hold)."""
        out = np.zeros(N_CLUES)
        legal = (0 if d.forced else 1) + d.targets.bit_count()
        follow = self.params.inner_follow
        for clue in self._candidates(view, d):
            past = self._past(view, d, clue)
            try:
                predicted = decide(self.params, past, beliefs(past), d.forced, self.values)
            except ValueError:
                predicted = -1
            out[clue] = math.log(follow * (predicted == d.action) + (1 - follow) / legal)
        return out

    def _weigh(self, view: PlayerView, d: _Decision) -> None:
        """Add log P(decision | clue) for each clue its maker may have held, its maker read as bayes_v2."""
        seen: dict[int, np.ndarray] = {}
        for earlier, logs in self.first:
            if earlier.seat != d.seat and d.saw(earlier):
                seen[earlier.seat] = seen.get(earlier.seat, 0.0) + logs
        weights = {s: np.exp(logs - logs.max()) for s, logs in seen.items()}
        legal = (0 if d.forced else 1) + d.targets.bit_count()
        follow = self.params.follow
        factors = self.log_factors[d.seat]
        for clue in self._candidates(view, d):
            past = self._past(view, d, clue)
            try:
                predicted = decide(self.params, past, weighted_beliefs(past, weights), d.forced, self.values)
            except ValueError:
                predicted = -1
            factors[clue].append(math.log(follow * (predicted == d.action) + (1 - follow) / legal))
