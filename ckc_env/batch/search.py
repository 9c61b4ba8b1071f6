"""``search`` for batches: the scalar ``search`` player (``ckc_env.agents.search``), its
continuations played for every searched game and world at once on the batched engine.

At each call it decides every game it acts in:

1. The policy's distribution for all of them in one forward pass; where a window's choice is open
   (``agents.search.open_candidates``: the gate, the top actions), the game is searched.
2. For each searched game, its worlds are drawn as the scalar player draws them: the game read as a
   scalar state (``batch.positions.to_game``), ``agents.rollout.weighted_worlds`` with the seat's
   own stream (the scalar player's, word for word) and the players' reading's likelihoods
   (``batch.players_posterior.PlayersReader``, the scalar reader's numbers).
3. Every (game, world, candidate) becomes one game of a single continuation batch
   (``batch.positions.from_games``); the candidates are applied and the batch plays on, the policy at
   the searching seat (fresh readers: a fresh reading reads the round so far at once) and the
   model of the other seats (``opponents``) elsewhere, each game until its seat's ``horizon``-th
   next decision or its end. The critic scores the seat's observation where it stopped, in one pass.
4. ``agents.rollout.clear_gain`` per game, on the scores the scalar player would compute.

So a tournament of ``search`` on the batched engine plays the scalar player's games: the same worlds,
continuations and scores (``tests/test_search.py`` compares them game by game), at the cost of a
few batched steps per call instead of a scalar continuation per world and candidate.
"""

from __future__ import annotations

import copy
from typing import Any

import numpy as np

from ..agents.rollout import clear_gain, weighted_worlds
from ..agents.search import SearchParams, agent_path, open_candidates, training_terms
from ..engine.actions import WINDOW
from ..engine.chance import Stream, unit
from . import game as batch_game
from .agents import BatchAgent, BatchBayesAgent, BatchBayesV2Agent
from .chance import game_keys
from .observation import observe
from .players_posterior import PlayersReader
from .positions import from_games, to_game
from .second_order import LayoutReaders
from .state import SEATS, BatchState, subset

__all__ = ["BatchSearchAgent"]


class BatchSearchAgent(BatchAgent):
    """The ``search`` player for the batched engine (see the module docstring); its parameters are
    the scalar player's (:class:`~ckc_env.agents.search.SearchParams`)."""

    name = "search"
    params_type = SearchParams

    def __init__(self, seed: int | None = None, **params: Any) -> None:
        super().__init__(seed)
        from ..players.batch_policy import BatchPolicyAgent

        self.params = self.params_type.of(self.name, params)
        self.policy = BatchPolicyAgent(agent_path(self.params.agent), seed=seed)
        self.scheme, self.gamma = training_terms(self.policy.network)
        self.reader = PlayersReader()  # the players' reading, for the worlds' weights
        self.searched = self.decisions = self.departed = 0

    def start(self, games: np.ndarray, keys: np.ndarray) -> None:
        super().start(games, keys)
        self.policy.start(games, keys)
        self.reader.start(games)

    def act(self, state: BatchState, games: np.ndarray) -> np.ndarray:
        games = np.asarray(games, dtype=np.int64)
        observations, legal = self.policy.observe(state, games)
        probabilities = self.policy.network.probabilities(observations, legal)
        chosen = np.argmax(probabilities, axis=1)
        window = state.pending_kind[games] == WINDOW
        self.decisions += int(window.sum())
        open_ = {}
        for i in np.flatnonzero(window):
            candidates = open_candidates(probabilities[i], legal[i], self.params)
            if candidates:
                open_[i] = candidates
        if open_:
            self.searched += len(open_)
            rows = np.array(sorted(open_))
            picks = self._search(state, games[rows], [open_[i] for i in rows])
            chosen[rows] = [open_[i][pick] for i, pick in zip(rows, picks, strict=True)]
            self.departed += sum(pick > 0 for pick in picks)
        return chosen

    # ------------------------------------------------------------------ the searched games
    def _search(self, state: BatchState, games: np.ndarray, candidates: list[list[int]]) -> list[int]:
        """The index of each searched game's candidate to play (0: the policy's choice)."""
        seats = state.pending_seat[games].astype(np.int64)
        likelihoods = self.reader.likelihood(state, games, seats)
        self._grow(state.batch_size)
        worlds, weights, owner = [], [], []
        for k, (g, seat) in enumerate(zip(games, seats, strict=True)):
            stream = Stream(int(self.keys[g, seat]))  # the scalar player's stream, word for word
            stream.counter = int(self.counters[g, seat])
            position = to_game(state, int(g))
            likelihood = {other: likelihoods[k, other] for other in range(position.n) if other != seat}
            draw = lambda stream=stream: unit(stream.draw())  # noqa: E731
            for world, weight in weighted_worlds(position, int(seat), draw, likelihood, int(self.params.worlds)):
                worlds.append(world)
                weights.append(weight)
                owner.append(k)
            self.counters[g, seat] = np.uint64(stream.counter)
        owner = np.asarray(owner, dtype=np.int64)
        if not len(owner):
            return [0] * len(games)
        count = np.array([len(c) for c in candidates])
        # one continuation per (world, candidate), the candidates of a world side by side
        rows = np.repeat(np.arange(len(worlds)), count[owner])
        actions = np.concatenate([candidates[k] for k in owner])
        scores = self._play_on([worlds[r] for r in rows], seats[owner][rows], actions)
        picks, start = [], 0
        weights = np.asarray(weights)
        for k in range(len(games)):
            mine = np.flatnonzero(owner == k)
            part = scores[start : start + len(mine) * count[k]].reshape(len(mine), count[k])
            start += len(mine) * count[k]
            picks.append(clear_gain(part, weights[mine], self.params.confidence) if len(mine) >= 2 else 0)
        return picks

    def _play_on(self, worlds: list, seats: np.ndarray, actions: np.ndarray) -> np.ndarray:
        """Each world with its action, played on to its seat's horizon: what the scheme paid the seat
        plus the discounted critic's value there (the game's result where it ended)."""
        state = from_games(worlds)
        size = state.batch_size
        batch_game.apply(state, actions.astype(np.int64))  # legal in every world: a window's targets are public
        gained = state.rewards.copy()
        policy = copy.copy(self.policy)
        policy.readers = LayoutReaders(policy.layout)  # a fresh reading reads the round so far at once
        model = self._model(policy)
        # the scalar player's fresh models: seat s of a world seeded with the world's key + s
        seeds = state.key[:, None] + np.arange(SEATS, dtype=np.uint64)
        everyone = np.arange(size)
        model.start(everyone, game_keys(seeds.ravel()).reshape(size, SEATS))
        own, stopped = np.zeros(size, dtype=np.int64), np.zeros(size, dtype=bool)
        while True:
            pending = state.pending_kind >= 0
            at_own = pending & ~stopped & (state.pending_seat == seats)
            own[at_own] += 1
            stopped |= at_own & (own >= self.params.horizon)
            acting = pending & ~stopped
            if not acting.any():
                break
            mine = acting & (state.pending_seat == seats)
            moves = np.zeros(size, dtype=np.int64)
            if mine.any():
                moves[mine] = policy.act(state, everyone[mine])
            theirs = everyone[acting & ~mine]  # each game's acting seat: the model keeps them apart
            if len(theirs):
                moves[theirs] = model.act(state, theirs)
            batch_game.apply(state, moves, games=everyone[acting])
            gained[acting] += state.rewards[acting]
        n = state.n.astype(np.int64)[:, None]
        over = state.game_over[:, None]
        paid = self.scheme.pay_batch(gained, n, state.winners, over)[everyone, seats]
        values = np.zeros(size)
        live = np.flatnonzero(~state.game_over)
        if len(live):
            observations = observe(
                subset(state, live), seats[live], policy.layout, **policy.readers.posteriors(state, live, seats[live])
            )
            values[live] = self.policy.network.values(observations)
        return paid + self.gamma * values

    def _model(self, policy: BatchAgent) -> BatchAgent:
        """The other seats' player in a continuation (fresh: it reads each game afresh)."""
        if self.params.opponents == "policy":
            return policy
        return BatchBayesV2Agent() if self.params.opponents == "bayes_v2" else BatchBayesAgent()
