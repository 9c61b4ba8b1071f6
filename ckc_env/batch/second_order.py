"""bayes_v3's second-order reading for a batch: what the scalar ``SecondOrderReader`` reads of
the other players' decisions, for many (game, seat) pairs at once, with the scalar reader's numbers
bit for bit.

Its scalar twin: ckc_env/reading/second_order.py.

The scalar reader judges each decision of seat j under each clue j may have held by what bayes_v2
would have done there: bayes_v1's rule on j's posterior given that clue and the cards, each hidden
assignment weighted by the first-order readings (bayes_v1 as the model, ``inner_follow``) of the
decisions j had seen, the other seats' only. Here, as in ``batch.players_posterior`` (whose items,
hypotheses, exact sums and weighted posterior it reuses):

- **First-order readings, kept.** Each pair keeps, per seat, the first-order log-likelihoods of the
  seat's passes summed window by window (``prefix[w]``: windows 1 to w) and of its accusation. A
  seat's passes all come before its accusation, and the scalar reader adds a seat's readings in the
  order it read them, window by window and then the accusation, so ``prefix[k - 1]`` plus the
  accusation when it was seen is the scalar sum, rounded alike. Only windows before the last card
  drawn are kept: their passes no longer change (a decision sees the windows before its own).
- **What a decision saw.** A pass in the window after card k sees the windows before k and the
  accusations made before card k; an accusation, those windows and the accusations before it.
- **The weighted posterior of each hypothesis** (decider, table then, supposed clue) is
  ``players_posterior.weighted_posterior`` of that information set: the same products in the same
  order and the same BLAS call per hypothesis as ``reading.beliefs.weighted_beliefs``. bayes_v1's rule
  decides on it, and the factor ``log(follow * hit + (1 - follow) / legal)`` is summed exactly.

The first-order readings use the reading seat's chip values, as the scalar reader's do; so they are
kept per pair, not per game.
"""

from __future__ import annotations

import numpy as np

from ..engine.cards import N_CLUES, N_FEATURES
from ..observation import PLAYERS_FOLLOW
from ..reading.bayes_rule import BayesParams
from .bayes_rule import Position
from .beliefs import ALL_CLUES, seat_beliefs
from .players_posterior import (
    CLUE_FEATURE_BIT,
    FREE_CLUES,
    PlayersReader,
    Tables,
    add_factors,
    choose,
    decisions,
    factor_kinds,
    factor_logs,
    hypotheses,
    observed_posterior,
    predictions,
    weighted_posterior,
)
from .state import MAX_ACCUSATIONS, MAX_DECK, SEAT_RANGE, SEATS, BatchState

_KEY, _ROUND, _WINDOWS, _ACCUSATIONS = range(4)
_CLUE_RANGE = np.arange(N_CLUES)


class SecondOrderReader(PlayersReader):
    """The scalar ``SecondOrderReader`` for every (game, seat) of a batch: the other players'
    decisions of the round read as bayes_v2's, each of them modelled as bayes_v1 with ``params`` on
    a posterior that reads the decisions it had seen as bayes_v1's (following its rule with
    probability ``inner_follow``), following that rule with probability ``follow``. Kept per pair
    as :class:`~ckc_env.batch.players_posterior.PlayersReader` keeps its reading."""

    def __init__(
        self, params: BayesParams | None = None, follow: float = PLAYERS_FOLLOW, inner_follow: float = PLAYERS_FOLLOW
    ) -> None:
        super().__init__(params, follow)
        self.inner_follow = float(inner_follow)
        self.inner_logs = factor_logs(self.inner_follow)
        # per game and seat: the game's key, the round, windows and accusations read at the first order
        self.first = np.zeros((0, SEATS, 4), dtype=np.int64)
        self.prefix = np.zeros((0, SEATS, MAX_DECK + 1, SEATS, N_CLUES))  # passes, windows 1..w, per seat
        self.accused = np.zeros((0, SEATS, MAX_ACCUSATIONS, N_CLUES))  # the round's accusations in order

    def start(self, games: np.ndarray) -> None:
        super().start(games)
        games = np.asarray(games, dtype=np.int64)
        if len(games):
            self.first[games, :, _ROUND] = -1

    def _grow(self, size: int) -> None:
        have = len(self.first)
        super()._grow(size)
        if size > have:
            fresh = np.zeros((size - have, SEATS, 4), dtype=np.int64)
            fresh[:, :, _ROUND] = -1
            self.first = np.concatenate([self.first, fresh])
            self.prefix = np.concatenate([self.prefix, np.zeros((size - have, *self.prefix.shape[1:]))])
            self.accused = np.concatenate([self.accused, np.zeros((size - have, *self.accused.shape[1:]))])

    def _read_first(
        self, state: BatchState, games: np.ndarray, seats: np.ndarray, values: np.ndarray, tables: Tables
    ) -> None:
        """Bring the first-order readings of the pairs up to date: every seat's passes in the windows
        before the last card drawn, and every accusation."""
        read = self.first[games, seats]
        key = state.key[games].view(np.int64)
        last_window = state.deck_pos[games].astype(np.int64) - 1
        stale = (
            (read[:, _ROUND] != state.round_index[games])
            | (read[:, _KEY] != key)
            | (read[:, _WINDOWS] > np.maximum(last_window, 0))
            | (read[:, _ACCUSATIONS] > state.accusation_count[games])
        )
        if stale.any():  # a new round (or game): nothing read yet
            zero = np.zeros(int(stale.sum()), dtype=np.int64)
            read[stale] = np.stack([key[stale], state.round_index[games[stale]], zero, zero], 1)
            self.prefix[games[stale], seats[stale], 0] = 0.0
        everyone = np.full(len(games), -1)
        found = decisions(state, games, everyone, read[:, _WINDOWS], read[:, _ACCUSATIONS], last_window, tables)
        if found is not None:
            tables, items = found
            hyp = hypotheses(state, games, tables, items)
            kinds = factor_kinds(items, hyp, predictions(state, games, items, hyp, values, self.params))
            logs = np.zeros((len(items["pair"]), N_CLUES))  # 0 for the clues its maker cannot hold
            logs[hyp.item, hyp.clue] = self.inner_logs[kinds]
            pair, card, seat, position = items["pair"], items["card"], items["seat"], items["position"]
            accusation = position >= 0
            p = pair[accusation]
            self.accused[games[p], seats[p], position[accusation]] = logs[accusation]
            # passes: add window by window, as the scalar reader adds them (each seat at most once a window)
            start = read[:, _WINDOWS]
            end = np.maximum(last_window, start)
            span = int((end - start).max())
            passes = np.zeros((len(games), span, SEATS, N_CLUES))  # windows start+1 .. end of each pair
            p, k = pair[~accusation], card[~accusation]
            passes[p, k - start[p] - 1, seat[~accusation]] = logs[~accusation]
            for step in range(span):
                now = np.flatnonzero(start + step < end)
                w = start[now] + step + 1
                g, s = games[now], seats[now]
                self.prefix[g, s, w] = self.prefix[g, s, w - 1] + passes[now, step]
            read[:, _WINDOWS] = end
        read[:, _ACCUSATIONS] = state.accusation_count[games]
        self.first[games, seats] = read

    def _weigh(
        self,
        state: BatchState,
        games: np.ndarray,
        seats: np.ndarray,
        tables: Tables,
        items: dict[str, np.ndarray],
        values: np.ndarray,
        sums: np.ndarray,
    ) -> np.ndarray:
        """Add the factor of each item's action under each clue its decider may have held then, the
        decider read as bayes_v2 (``SecondOrderReader._weigh``); returns the flat entries added to."""
        self._read_first(state, games, seats, values, tables)
        found = hypotheses(state, games, tables, items)
        pair, card, seat, position = items["pair"], items["card"], items["seat"], items["position"]
        g, s = games[pair], seats[pair]

        # what each decider had seen: every other seat's passes before its window, and the accusations
        logs = self.prefix[g, s, card - 1].copy()  # (m, 5, 10)
        made = state.accusation_count[g].astype(np.int64)
        accusers = state.accusation_seat[g].astype(np.int64)  # (m, 4)
        accused_at = np.take_along_axis(state.accused_at[g].astype(np.int64), accusers.clip(0), 1)
        for q in range(MAX_ACCUSATIONS):
            saw = (q < made) & np.where(position < 0, accused_at[:, q] < card, q < position)
            saw &= accusers[:, q] != seat
            r = np.flatnonzero(saw)
            logs[r, accusers[r, q]] += self.accused[g[r], s[r], q]
        logs[np.arange(len(pair)), seat] = 0.0  # its own decisions are not evidence to it
        weights = np.exp(logs - logs.max(2, keepdims=True))

        # each hypothesis's information set: its clue known, the exposed one (unless its own) and the public ones
        item, clue = found.item, found.clue
        decider = seat[item]
        holder = found.holder[item]
        exposed = np.where(holder != decider, found.exposed[item], -1)
        clue_bit = CLUE_FEATURE_BIT[clue]
        fixed = found.public[item] | clue_bit | CLUE_FEATURE_BIT[exposed]
        value_a = found.public_a[item] | np.where(clue & 1 == 0, clue_bit, 0)
        value_a |= np.where((exposed >= 0) & (exposed & 1 == 0), CLUE_FEATURE_BIT[exposed], 0)
        free_mask = ((1 << N_FEATURES) - 1) & ~fixed
        n = found.n[item]
        unknown = (n[:, None] > SEAT_RANGE) & (decider[:, None] != SEAT_RANGE)
        unknown &= ~((holder[:, None] == SEAT_RANGE) & (exposed[:, None] >= 0))
        have = found.seen[item] & FREE_CLUES[free_mask][:, None]
        have = np.where(unknown, have, ALL_CLUES)
        weights_of = np.where((have[:, :, None] >> _CLUE_RANGE) & 1 == 1, weights[item], 0.0)
        chief, assistant, mass = weighted_posterior(unknown, free_mask, value_a, weights_of)

        cats, valid = found.cats[item], found.valid[item]
        position = Position(
            np.take_along_axis(chief, cats, 1),
            np.take_along_axis(assistant, cats, 1),
            valid,
            values[pair[item]],
            items["others"][item],
            n,
            items["forced"][item],
        )
        non_accuser_white = state.rules.config.non_accuser_white
        predicted = choose(
            self.params, position, lambda last: chief[last], cats, found.drawn[item], non_accuser_white, mass > 0
        )
        return add_factors(items, found, factor_kinds(items, found, predicted), self.limbs, sums)


class LayoutReaders:
    """The readers an observation layout's posterior pieces need for a batch, kept per (game, seat)
    across steps as the scalar ``Table`` keeps a ``TableReading`` per seat: a ``PlayersReader`` for
    the ``players_*`` pieces, a :class:`SecondOrderReader` for the ``second_order_*`` pieces."""

    def __init__(self, layout) -> None:
        self.players = PlayersReader() if "players_chief" in layout.offsets else None
        self.second_order = SecondOrderReader() if "second_order_chief" in layout.offsets else None

    def __bool__(self) -> bool:
        return self.players is not None or self.second_order is not None

    def start(self, games: np.ndarray) -> None:
        """New games in ``games``: forget what was read there."""
        for reader in (self.players, self.second_order):
            if reader is not None:
                reader.start(games)

    def posteriors(self, state: BatchState, games: np.ndarray, seats: np.ndarray) -> dict[str, object]:
        """``batch.observe``'s ``players`` and ``second_order`` arguments for ``seats`` in ``games``,
        the readers brought up to date, and the ``exact`` posterior they start from."""
        if not self:
            return {}
        exact = seat_beliefs(state, games, seats)
        out = {"exact": exact}
        if self.players is not None:
            out["players"] = observed_posterior(state, games, seats, self.players, exact)
        if self.second_order is not None:
            out["second_order"] = observed_posterior(state, games, seats, self.second_order, exact)
        return out


__all__ = ["LayoutReaders", "SecondOrderReader"]
