"""``bayes_v2``: bayes_v1's decision rule on a posterior that also reads the other players' decisions.

bayes_v1 infers the hidden clues from the cards alone. But every accusation and every pass of
another player is a decision that player took knowing its own clue: a player whose clue makes a
row cat likely to be the chief accuses it, one whose clue says the cat is innocent passes. bayes_v2
models each other player as bayes_v1 that follows its rule with probability ``follow`` and otherwise
takes a uniformly random legal action, and weighs every hidden assignment of clues by how likely
the decisions seen this round were under it (:func:`ckc_env.beliefs.weighted_beliefs`). Because a
player's decisions depend on its own clue and on public information only, the evidence factorises
into one likelihood per seat and clue.

What is seen of a decision comes from the public record of the round (the cards drawn in order and
when each accusation was made): after every card, each player who had not accused was asked (if
something could be accused) and passed, unless it accused in that window. Where the record does not
say in what order a window's players decided, a pass is judged on the table as the window opened.
The chip values a modelled player expects are taken as this seat's own (they differ only by the
values of the chips that player holds, which are hidden).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, fields

import numpy as np

from ..beliefs import beliefs, candidate_clues, weighted_beliefs
from ..engine.actions import ACCUSE, PASS
from ..engine.cards import INVESTIGATOR, N_CLUES, N_FEATURES
from ..engine.state import FORCED
from ..engine.view import PlayerView
from .bayes import BayesAgent, BayesParams, decide


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


class BayesV2Agent(BayesAgent):
    name = "bayes_v2"
    params_type = BayesV2Params

    def reset(self, seat: int, config) -> None:
        super().reset(seat, config)
        self.reader = TableReader(seat, self.params, self.params.follow)

    def accuse(self, view: PlayerView, forced: bool) -> int:
        values = self.chip_values(view)
        likelihood = self.reader.update(view, values)
        return decide(self.params, view, weighted_beliefs(view, likelihood), forced, values)


class TableReader:
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
        drawn = len(view.card_order)
        # A window's passes are known once it has closed (the next card was drawn, or the deck ran
        # out and the forced accusations began); its accusations are known at once.
        closed = drawn if view.phase >= FORCED else drawn - 1
        while self.windows_read < closed:
            self.windows_read += 1
            self._read_passes(view, self.windows_read)
        accusations = view.accusations
        for position in range(self.accusations_read, len(accusations)):
            self._read_accusation(view, position)
        self.accusations_read = len(accusations)
        likelihood = {}
        for seat, factors in self.log_factors.items():
            logs = np.array([math.fsum(f) for f in factors])
            likelihood[seat] = np.exp(logs - logs.max())
        self.likelihood = likelihood
        return likelihood

    def _read_passes(self, view: PlayerView, k: int) -> None:
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
            return
        for seat in range(view.num_players):
            if seat != self.seat and accused[seat] < 0 and accused_at[seat] != k:
                self._weigh(view, seat, table, targets, accused, PASS, forced=False)

    def _read_accusation(self, view: PlayerView, position: int) -> None:
        """An accusation, judged on the table as it lay when it was made."""
        accusations = view.accusations
        seat, cat = accusations[position]
        if seat == self.seat:
            return
        k = view.accused_at[seat]
        table = _table_after(view, k)
        accused = [-1] * view.num_players
        taken = 0
        for s, c in accusations[:position]:
            accused[s] = c
            taken |= 1 << c
        # On the last card an accusation may have been forced (the deck was empty): judged as forced.
        forced = k == len(view.card_order) and view.deck_size == 0
        self._weigh(view, seat, table, table.row_cats & ~taken, accused, ACCUSE + cat, forced)

    def _weigh(self, view: PlayerView, seat: int, table: _Table, targets: int, accused, action, forced) -> None:
        """Add the log-likelihood of ``action`` under each clue the seat may have held then."""
        factors = self.log_factors[seat]
        exposed = view.exposed_clues
        known = {*exposed.values(), *table.public_clues}
        free = ((1 << N_FEATURES) - 1) & ~sum(1 << (c >> 1) for c in known)
        legal = (0 if forced else 1) + targets.bit_count()
        follow = self.follow
        for clue in _bits(candidate_clues(table.rows[seat], table.discards[seat], free)):
            past = _PastView(
                view.num_players, seat, clue, clue >> 1, dict(exposed), table.public_clues, table.rows,
                table.discards, targets, accused, view.config, view.round_index,
            )  # fmt: skip
            try:
                predicted = decide(self.params, past, beliefs(past), forced, self.values)
            except ValueError:  # the seat could not have held this clue: its table would be inconsistent
                predicted = -1
            factors[clue].append(math.log(follow * (predicted == action) + (1 - follow) / legal))


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
