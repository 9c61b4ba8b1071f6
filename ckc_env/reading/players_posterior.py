"""The players' posterior: what the other players' decisions this round reveal of their clues.

Its batched twin: ckc_env/batch/players_posterior.py.

The exact posterior (``beliefs``) infers the hidden clues from the cards alone. But every accusation
and every pass of another player is a decision that player took knowing its own clue: a player whose
clue makes a row cat likely to be the chief accuses it, one whose clue says the cat is innocent
passes. A :class:`PlayersReader` models each other player as bayes_v1 that follows its rule
(``bayes_rule``) with probability ``follow`` and otherwise takes a uniformly random legal action,
and gives a likelihood per seat and clue: how likely the decisions seen this round were under each
clue. Weighing every hidden assignment of clues by them (``beliefs.weighted_beliefs``) gives the
players' posterior; because a player's decisions depend on its own clue and on public
information only, the evidence factorises into one likelihood per seat and clue.

What is seen of a decision comes from the public record of the round (the cards drawn in order and
when each accusation was made): after every card, each player who had not accused was asked (if
something could be accused) and passed, unless it accused in that window. Where the record does not
say in what order a window's players decided, a pass is judged on the table as the window opened.
The chip values a modelled player expects are taken as the reading seat's own (they differ only by
the values of the chips that player holds, which are hidden).

bayes_v2 (``agents.bayes_v2``) decides by bayes_v1's rule on this posterior; ``second_order``
reads the same record with bayes_v2 as the model.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from ..engine.actions import ACCUSE, PASS
from ..engine.cards import INVESTIGATOR, N_CLUES, N_FEATURES
from ..engine.state import FORCED
from ..engine.view import PlayerView
from .bayes_rule import BayesParams, decide
from .beliefs import beliefs, candidate_clues


class PlayersReader:
    """What the other players' decisions this round reveal of their clues, seen from one seat: a
    likelihood per other seat and clue, under the model that each plays bayes_v1 with ``params``,
    following its rule with probability ``follow`` and otherwise taking a uniformly random legal
    action. Call :meth:`update` with the seat's view whenever it is to be used; it reads only what
    happened since the last call.

    Each decision is judged on the table as it lay then (the clues a seat may have held then, the
    targets, who had accused), and the factors are combined by an exactly rounded sum of logarithms,
    whose result does not depend on their order. One thing depends on when a reader is brought up to
    date: a window's passes are read once it has closed, so during the forced accusations a window
    read before a player's forced accusation counts its pass there, and one read after counts its
    accusation instead (114 of 51,908 positions in a test of played games). The observation encoder
    therefore reads every position with a fresh reader, which makes its result a function of the
    game's state, as observations must be; bayes_v2 keeps one reader and updates it at its own
    decisions, as the batched reader does.
    """

    def __init__(self, seat: int, params: BayesParams, follow: float) -> None:
        self.seat = seat
        self.params = params
        self.follow = follow
        self.round = -1

    def update(self, view: PlayerView, values: tuple[float, float, float]) -> dict[int, np.ndarray]:
        """The per-seat clue likelihoods (scaled so the largest is 1), brought up to date; ``values``
        are the chip values the modelled players are taken to expect (fixed within a round's
        accusations: chips move only at scoring)."""
        self.values = values
        n = view.num_players
        if view.round_index != self.round:
            self.round = view.round_index
            self.log_factors = {s: [[] for _ in range(N_CLUES)] for s in range(n) if s != self.seat}
            self.windows_read = 0
            self.accusations_read = 0
        decisions, self.windows_read, self.accusations_read = decisions_since(
            view, self.windows_read, self.accusations_read
        )
        for decision in decisions:
            if decision.seat != self.seat:
                self._weigh(view, decision)
        self.likelihood = likelihoods(self.log_factors)
        return self.likelihood

    def _weigh(self, view: PlayerView, decision: Decision) -> None:
        """Add the log-likelihood of the decision under each clue its maker may have held then."""
        factors = self.log_factors[decision.seat]
        for clue, log_p in judge(self.params, self.values, self.follow, view, decision, beliefs):
            factors[clue].append(log_p)


@dataclass
class Decision:
    """A decision on the round's public record: who took it, on what table (the targets left, who had
    accused what), and when: ``window``, the card after which it was taken; ``position``, its place
    among the round's accusations (None for a pass)."""

    seat: int
    table: _Table
    targets: int
    accused: list[int]
    action: int
    forced: bool
    window: int
    position: int | None

    def saw(self, earlier: Decision) -> bool:
        """Whether this decision's maker knew of ``earlier`` when it decided: a pass in the window
        after card k knows the windows before and the accusations before card k; an accusation
        those windows and the accusations before it."""
        if earlier.position is None or self.position is None:
            return earlier.window < self.window
        return earlier.position < self.position


def decisions_since(view: PlayerView, windows_read: int, accusations_read: int) -> tuple[list[Decision], int, int]:
    """The decisions of every seat that the record shows after ``windows_read`` closed windows and
    ``accusations_read`` accusations (the passes window by window, then the accusations), and the
    new counts. A window's passes are known once it has closed (the next card was drawn, or the deck
    ran out and the forced accusations began); its accusations are known at once."""
    drawn = len(view.card_order)
    closed = drawn if view.phase >= FORCED else drawn - 1
    decisions: list[Decision] = []
    for k in range(windows_read + 1, closed + 1):
        decisions += window_passes(view, k)
    for position in range(accusations_read, len(view.accusations)):
        decisions.append(accusation_at(view, position))
    return decisions, max(windows_read, closed), len(view.accusations)


def window_passes(view: PlayerView, k: int) -> list[Decision]:
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
    if not targets & ~in_window:  # who was asked before the window's accusations is not on record
        return []
    return [
        Decision(seat, table, targets, accused, PASS, False, k, None)
        for seat in range(view.num_players)
        if accused[seat] < 0 and accused_at[seat] != k
    ]


def accusation_at(view: PlayerView, position: int) -> Decision:
    """The round's accusation at ``position``, on the table as it lay when it was made."""
    accusations = view.accusations
    seat, cat = accusations[position]
    k = view.accused_at[seat]
    table = _table_after(view, k)
    accused = [-1] * view.num_players
    taken = 0
    for s, c in accusations[:position]:
        accused[s] = c
        taken |= 1 << c
    # On the last card an accusation may have been forced (the deck was empty): judged as forced.
    forced = k == len(view.card_order) and view.deck_size == 0
    return Decision(seat, table, table.row_cats & ~taken, accused, ACCUSE + cat, forced, k, position)


def judge(
    params: BayesParams, values: tuple[float, float, float], follow: float, view: PlayerView, decision: Decision,
    posterior: Callable[[_PastView], object],
) -> list[tuple[int, float]]:  # fmt: skip
    """``(clue, log P(action | clue))`` for each clue the decision's maker may have held then, the
    maker modelled as following bayes_v1's rule on ``posterior`` of its information set with that
    clue with probability ``follow``, else taking a uniformly random legal action."""
    table, seat = decision.table, decision.seat
    exposed = view.exposed_clues
    known = {*exposed.values(), *table.public_clues}
    free = ((1 << N_FEATURES) - 1) & ~sum(1 << (c >> 1) for c in known)
    legal = (0 if decision.forced else 1) + decision.targets.bit_count()
    out = []
    for clue in _bits(candidate_clues(table.rows[seat], table.discards[seat], free)):
        past = _PastView(
            view.num_players, seat, clue, clue >> 1, dict(exposed), table.public_clues, table.rows,
            table.discards, decision.targets, decision.accused, view.config, view.round_index,
        )  # fmt: skip
        try:
            predicted = decide(params, past, posterior(past), decision.forced, values)
        except ValueError:  # the seat could not have held this clue: its table would be inconsistent
            predicted = -1
        out.append((clue, math.log(follow * (predicted == decision.action) + (1 - follow) / legal)))
    return out


def likelihoods(log_factors: dict[int, list[list[float]]]) -> dict[int, np.ndarray]:
    """Per seat, the clues' likelihoods from their log-factors: an exactly rounded sum (its result
    does not depend on the factors' order), scaled so the largest is 1."""
    out = {}
    for seat, factors in log_factors.items():
        logs = np.array([math.fsum(f) for f in factors])
        out[seat] = np.exp(logs - logs.max())
    return out


@dataclass
class _PastView:
    """A seat's information set at an earlier decision of the round, with a supposed own clue: the
    attributes ``beliefs`` and bayes_v1's rule read, nothing else."""

    num_players: int
    seat: int
    own_clue: int
    own_tile: int
    exposed_clues: dict[int, int]
    public_clues: list[int]
    rows: list[int]
    discards: list[int]
    targets: int
    accused_by: list[int]
    config: object
    round_index: int


@dataclass
class _Table:
    rows: list[int]
    discards: list[int]
    public_clues: list[int]
    row_cats: int


def _table_after(view: PlayerView, k: int) -> _Table:
    """Rows, discards and public clues as they lay after the round's k-th card (rows and discard
    piles only grow, so a drawn cat lies now where it went then)."""
    n = view.num_players
    rows, discards = [0] * n, [0] * n
    revealed = row_cats = 0
    for seat, card in view.card_order[:k]:
        if card == INVESTIGATOR:
            revealed += 1
        elif (view.rows[seat] >> card) & 1:
            rows[seat] |= 1 << card
            row_cats |= 1 << card
        else:
            discards[seat] |= 1 << card
    return _Table(rows, discards, list(view.public_clues[:revealed]), row_cats)


def _bits(mask: int) -> list[int]:
    return [i for i in range(mask.bit_length()) if (mask >> i) & 1]
