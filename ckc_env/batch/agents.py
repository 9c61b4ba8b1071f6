"""The scripted baselines, deciding for a whole batch at once.

| name | as ``ckc_env.agents`` | batched |
|---|---|---|
| ``random`` | uniform over the legal actions | one draw per game from the legal mask |
| ``passive`` | passes; forced: the most likely chief; keeps Adler chips | the same rules as array operations |
| ``eager`` | the most likely chief at its first chance | the same |
| ``bayes_v1`` | exact beliefs, expected chip value against a moving bar | the same numbers (``batch.beliefs``) and the same float64 expressions in the same order, so every threshold comparison agrees |
| ``bayes_v2`` | bayes_v1's rule on a posterior that also reads the other players' decisions (a ``PlayersReader`` per game) | the same numbers from ``batch.players_posterior``: every decision of the round read for all games at once, each game's reading kept between its decisions as the scalar reader keeps it |
| ``cheater`` | reads the hidden clues (an upper bound) | the same |

A batched agent's ``act(state, games)`` returns the actions of the pending decisions of ``games``
(one seat per game: ``state.pending_seat[games]``). Its deterministic decisions (every window and
forced accusation of ``passive``, ``eager``, ``bayes_v1``, ``bayes_v2`` and ``cheater``) equal the scalar agent's
on the same position; its random ones (``random``, clue faces, which seat a Cafe Adler swap goes
to) come from the agent's own ``numpy`` Generator, so they are as likely as the scalar agent's but
not the same draws. Every agent but ``cheater`` reads only what the seat may know: the public
arrays, its own clue, tile and chips, and the posteriors of ``batch.beliefs`` and
``batch.players_posterior``.

    lineup = [make_batch_agent("bayes_v1", seed=s) for s in range(4)]
    actions = decide(state, lineup)               # one action per game
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ..agents.bayes_v2 import BayesV2Params
from ..agents.bayes_v3 import BayesV3Params
from ..engine.actions import (
    ACCUSE,
    CAFE_ADLER,
    CLUE_FACE,
    CLUE_FACE_A,
    FORCED_ACCUSATION,
    KEEP,
    PASS,
    SWAP,
    WINDOW,
)
from ..engine.cards import N_CATS
from ..engine.chance import GOLDEN, Stream, mix64
from ..reading.bayes_rule import BayesParams
from .bayes_rule import Counts, Position, accuse_or_pass, accuse_or_pass_exact, non_accuser_value, undrawn_worlds
from .beliefs import count_worlds, neighbour_sums, seat_beliefs, slot_candidates
from .chip_values import expected_chip_values
from .game import legal_action_mask
from .players_posterior import PlayersReader
from .scoring import chief_of, matches
from .second_order import SecondOrderReader
from .state import SEAT_RANGE, SEATS, BatchState
from .suspicion import targets

_BIT_INDEX = np.arange(N_CATS, dtype=np.uint32)


def target_matrix(state: BatchState, games: np.ndarray) -> np.ndarray:
    """(k, 32) bool: the cats each game's seat may accuse now."""
    return (targets(state, games)[:, None] >> _BIT_INDEX) & np.uint32(1) == 1


def _first(mask: np.ndarray) -> np.ndarray:
    return mask.argmax(1)


def most_likely_target(allowed: np.ndarray, chief: np.ndarray, assistant: np.ndarray) -> np.ndarray:
    """The target most likely to be the chief; ties by assistant probability, then the lowest cat
    (``agents.simple.most_likely_target``)."""
    top = np.where(allowed, chief, -np.inf).max(1, keepdims=True)
    tied = allowed & (chief == top)
    second = np.where(tied, assistant, -np.inf).max(1, keepdims=True)
    return _first(tied & (assistant == second))


class BatchAgent:
    """A player for batches; ``act`` decides the pending decision of each game in ``games``.

    Its random choices come from one stream per game and seat (``engine.chance``: word i of the key
    ``keys[game, seat]``), as a scalar player's come from its own stream: :meth:`start` gives the
    games' keys (a tournament gives each the key of the scalar player at that seat; the vector
    environment derives them from the game's key with :func:`seat_keys`). Games never started use
    keys derived from the player's seed and the game's index."""

    name = "agent"
    reads_hidden_state = False

    def __init__(self, seed: int | None = None) -> None:
        self.stream = Stream.seeded(seed)
        self.keys = np.zeros((0, SEATS), dtype=np.uint64)
        self.counters = np.zeros((0, SEATS), dtype=np.uint64)

    def start(self, games: np.ndarray, keys: np.ndarray) -> None:
        """New games in ``games``: their streams, (len(games), 5) keys by seat, start over."""
        games = np.asarray(games, dtype=np.int64)
        self._grow(int(games.max()) + 1 if len(games) else 0)
        self.keys[games] = keys
        self.counters[games] = 0

    def draw(self, state: BatchState, games: np.ndarray) -> np.ndarray:
        """(k,) one word per game from the stream of the seat that acts in it."""
        games = np.asarray(games, dtype=np.int64)
        self._grow(state.batch_size)
        seats = state.pending_seat[games].astype(np.int64)
        counters = self.counters[games, seats]
        self.counters[games, seats] = counters + np.uint64(1)
        return mix64(self.keys[games, seats] + counters * np.uint64(GOLDEN))

    def _grow(self, size: int) -> None:
        have = len(self.keys)
        if size > have:  # games never started: keys from the player's seed and the game's index
            fresh = seat_keys(mix64(np.uint64(self.stream.key) ^ np.arange(have, size, dtype=np.uint64)))
            self.keys = np.concatenate([self.keys, fresh])
            self.counters = np.concatenate([self.counters, np.zeros((size - have, SEATS), dtype=np.uint64)])

    def act(self, state: BatchState, games: np.ndarray) -> np.ndarray:
        raise NotImplementedError

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.name!r})"


_SEAT_SALTS = mix64(np.arange(1, SEATS + 1, dtype=np.uint64) * np.uint64(GOLDEN))


def seat_keys(game_keys: np.ndarray) -> np.ndarray:
    """(k, 5) the players' stream keys of each seat of games with these keys."""
    return mix64(np.asarray(game_keys, dtype=np.uint64)[:, None] ^ _SEAT_SALTS[None, :])


def uniform_legal(mask: np.ndarray, words: np.ndarray | np.random.Generator) -> np.ndarray:
    """One legal action per row, uniformly: the ``w % count``-th legal action of each row for its
    random word (``agents.base.uniform``); a NumPy Generator draws the words (rows with no legal
    action give 0)."""
    if isinstance(words, np.random.Generator):
        words = words.integers(0, np.iinfo(np.uint64).max, size=len(mask), dtype=np.uint64, endpoint=True)
    count = mask.sum(1).astype(np.uint64)
    pick = (words % np.maximum(count, np.uint64(1))).astype(np.int64)
    running = np.cumsum(mask, axis=1, dtype=np.int64)
    return np.argmax(running > pick[:, None], axis=1)


class BatchRandomAgent(BatchAgent):
    name = "random"

    def act(self, state: BatchState, games: np.ndarray) -> np.ndarray:
        return uniform_legal(legal_action_mask(state)[games], self.draw(state, games))


class BatchAccuser(BatchAgent):
    """Base of the players that accuse by their own rule: a random clue face, Cafe Adler chips
    swapped at once with a random eligible seat; ``accuse`` decides windows and forced accusations."""

    def act(self, state: BatchState, games: np.ndarray) -> np.ndarray:
        games = np.asarray(games, dtype=np.int64)
        kind = state.pending_kind[games]
        out = np.full(len(games), PASS, dtype=np.int64)
        accusing = (kind == WINDOW) | (kind == FORCED_ACCUSATION)
        if accusing.any():
            out[accusing] = self.accuse(state, games[accusing], kind[accusing] == FORCED_ACCUSATION)
        choosing = kind == CLUE_FACE
        if choosing.any():
            out[choosing] = CLUE_FACE_A + (self.draw(state, games[choosing]) % np.uint64(2)).astype(np.int64)
        adler = kind == CAFE_ADLER
        if adler.any():
            out[adler] = self.adler(state, games[adler])
        return out

    def adler(self, state: BatchState, games: np.ndarray) -> np.ndarray:
        """Swap with a random eligible seat (``agents.simple.adler_swap_action``)."""
        mask = legal_action_mask(state)[games].copy()
        mask[:, :SWAP] = 0
        out = np.full(len(games), KEEP, dtype=np.int64)
        swapping = mask.any(1)  # no swap possible: no draw (as the scalar player)
        if swapping.any():
            out[swapping] = uniform_legal(mask[swapping], self.draw(state, games[swapping]))
        return out

    def accuse(self, state: BatchState, games: np.ndarray, forced: np.ndarray) -> np.ndarray:
        """``ACCUSE + cat`` or (in a window) ``PASS`` per game."""
        raise NotImplementedError


class BatchPassiveAgent(BatchAgent):
    """Never accuses unless forced (then the most likely chief); keeps Adler chips."""

    name = "passive"

    def act(self, state: BatchState, games: np.ndarray) -> np.ndarray:
        games = np.asarray(games, dtype=np.int64)
        kind = state.pending_kind[games]
        out = np.full(len(games), KEEP, dtype=np.int64)
        out[kind == WINDOW] = PASS
        forced = kind == FORCED_ACCUSATION
        if forced.any():
            g = games[forced]
            b = seat_beliefs(state, g, state.pending_seat[g], clues=False)
            out[forced] = ACCUSE + most_likely_target(target_matrix(state, g), b.chief, b.assistant)
        choosing = kind == CLUE_FACE
        if choosing.any():
            out[choosing] = CLUE_FACE_A + (self.draw(state, games[choosing]) % np.uint64(2)).astype(np.int64)
        return out


class BatchEagerAgent(BatchAccuser):
    """Accuses the most likely chief at its first chance."""

    name = "eager"

    def accuse(self, state: BatchState, games: np.ndarray, forced: np.ndarray) -> np.ndarray:
        b = seat_beliefs(state, games, state.pending_seat[games], clues=False)
        return ACCUSE + most_likely_target(target_matrix(state, games), b.chief, b.assistant)


def bayes_v1_rule(p: BayesParams, position: Position, drawn: np.ndarray, non_accuser_white: str) -> np.ndarray:
    """bayes_v1's rule (``reading.bayes_rule.decide``) for k positions, with its float64 expressions in
    its order, so that every threshold comparison agrees: ``ACCUSE + cat`` or ``PASS`` per row, given the
    ``position`` (the posterior over the 32 cats) and the cats drawn (k,) uint32 (the rule itself in
    ``batch.bayes_rule``, which bayes_v2's model of the other players shares)."""
    non_accuser = non_accuser_value(position.values, position.chief, drawn, non_accuser_white)
    take, best = accuse_or_pass(p, position, non_accuser)
    return np.where(take, ACCUSE + best, PASS)


class BatchBayesAgent(BatchAccuser):
    """``bayes_v1`` (see ``agents.bayes``): the scalar agent's float64 expressions, or with ``exact``
    its integers on the world counts."""

    name = "bayes_v1"
    params_type: type[BayesParams] = BayesParams

    def __init__(self, seed: int | None = None, **params: float) -> None:
        super().__init__(seed)
        self.params = self.params_type.of(self.name, params)

    def accuse(self, state: BatchState, games: np.ndarray, forced: np.ndarray) -> np.ndarray:
        seats = state.pending_seat[games].astype(np.int64)
        values = expected_chip_values(state, games, seats)
        if not self.params.exact:
            b = seat_beliefs(state, games, seats, clues=False)
            return self.apply_rule(state, games, seats, b.chief, b.assistant, values, forced)
        chief, _ = count_worlds(slot_candidates(state, games, seats), clues=False)
        chief = chief.astype(np.int64)
        total = chief.sum(1)
        if np.any(total == 0):
            raise ValueError(f"inconsistent information sets (no assignment) in games {games[total == 0][:5].tolist()}")
        n, others_left, drawn, allowed = self._table(state, games)
        counts = Counts(chief, neighbour_sums(chief), total, undrawn_worlds(chief, drawn))
        chief_uncaught = state.rules.config.non_accuser_white == "chief_uncaught"
        take, best = accuse_or_pass_exact(self.params, counts, allowed, values, others_left, n, forced, chief_uncaught)
        return np.where(take, ACCUSE + best, PASS)

    def apply_rule(
        self,
        state: BatchState,
        games: np.ndarray,
        seats: np.ndarray,
        chief: np.ndarray,
        assistant: np.ndarray,
        values: np.ndarray,
        forced: np.ndarray,
    ) -> np.ndarray:
        """The rule in float64 on the table of ``games`` as it lies, for a posterior of the acting
        ``seats`` (bayes_v2 applies it to its own weighted one)."""
        n, others_left, drawn, allowed = self._table(state, games)
        position = Position(chief, assistant, allowed, values, others_left, n, forced)
        return bayes_v1_rule(self.params, position, drawn, state.rules.config.non_accuser_white)

    @staticmethod
    def _table(state: BatchState, games: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """The player counts, the other players who may still accuse, the cats drawn and the targets."""
        n = state.n[games].astype(np.int64)
        seated = n[:, None] > SEAT_RANGE
        others_left = ((state.accused_by[games] == -1) & seated).sum(1) - 1
        drawn = np.bitwise_or.reduce(state.rows[games] | state.discards[games], axis=1)
        return n, others_left, drawn, target_matrix(state, games)


class BatchBayesV2Agent(BatchBayesAgent):
    """``bayes_v2`` (see ``agents.bayes_v2``): bayes_v1's rule on the posterior that also reads the
    other players' decisions, kept per game and seat by a :class:`~ckc_env.batch.players_posterior.PlayersReader`
    (read at the seat's own decisions, as the scalar agent's ``PlayersReader``)."""

    name = "bayes_v2"
    params_type = BayesV2Params

    def __init__(self, seed: int | None = None, **params: float) -> None:
        super().__init__(seed, **params)
        self.reader = PlayersReader(self.params, self.params.follow)

    def start(self, games: np.ndarray, keys: np.ndarray) -> None:
        super().start(games, keys)
        self.reader.start(games)

    def accuse(self, state: BatchState, games: np.ndarray, forced: np.ndarray) -> np.ndarray:
        seats = state.pending_seat[games].astype(np.int64)
        values = expected_chip_values(state, games, seats)
        b = self.reader.beliefs(state, games, seats, values, clues=False)
        return self.apply_rule(state, games, seats, b.chief, b.assistant, values, forced)


class BatchBayesV3Agent(BatchBayesV2Agent):
    """``bayes_v3`` (see ``agents.bayes_v3``): bayes_v2 whose model of the other players is bayes_v2
    itself, read per game and seat by a :class:`~ckc_env.batch.second_order.SecondOrderReader`."""

    name = "bayes_v3"
    params_type = BayesV3Params

    def __init__(self, seed: int | None = None, **params: float) -> None:
        super().__init__(seed, **params)
        self.reader = SecondOrderReader(self.params, self.params.follow, self.params.inner_follow)


class BatchCheaterAgent(BatchAccuser):
    """Knows every clue: takes the chief once he is in a row, waits while he is in the deck, then
    takes the best cat left (``agents.cheater``)."""

    name = "cheater"
    reads_hidden_state = True

    def accuse(self, state: BatchState, games: np.ndarray, forced: np.ndarray) -> np.ndarray:
        chief = chief_of(state.clues[games], state.bag[games])  # cheating: the hidden clues
        allowed = target_matrix(state, games)
        matched = np.where(allowed, matches(np.arange(N_CATS)[None, :], chief[:, None]), -1)
        best = _first(matched == matched.max(1, keepdims=True))
        best_matches = matched.max(1)
        chief_taken = (state.accused_cats[games] >> chief.astype(np.uint32)) & np.uint32(1) == 1
        take = forced | (best == chief) | (chief_taken & (best_matches == 4))
        return np.where(take, ACCUSE + best, PASS)


def _search(seed: int | None = None, **params: Any) -> BatchAgent:
    """``search`` (``batch.search``, which loads an agent file: imported when first asked for)."""
    from .search import BatchSearchAgent

    return BatchSearchAgent(seed, **params)


BATCH_REGISTRY: dict[str, Callable[..., BatchAgent]] = {
    "random": BatchRandomAgent,
    "passive": BatchPassiveAgent,
    "eager": BatchEagerAgent,
    "bayes_v1": BatchBayesAgent,
    "bayes_v2": BatchBayesV2Agent,
    "bayes_v3": BatchBayesV3Agent,
    "cheater": BatchCheaterAgent,
    "search": _search,
}


def make_batch_agent(name: str, seed: int | None = None, **params: float) -> BatchAgent:
    """A batched baseline by its registered name (``ckc_env.agents`` names)."""
    if name not in BATCH_REGISTRY:
        raise ValueError(f"no batched agent {name!r}: batched agents are {sorted(BATCH_REGISTRY)}")
    return BATCH_REGISTRY[name](seed=seed, **params)


def decide(state: BatchState, lineup: Sequence[BatchAgent]) -> np.ndarray:
    """(B,) the action of every game's pending decision, ``lineup[s]`` deciding for seat s (games
    that are over get 0). Each agent is asked once, for all the games where its seat is to act."""
    actions = np.zeros(state.batch_size, dtype=np.int64)
    live = state.pending_kind >= 0
    for seat, agent in enumerate(lineup):
        games = np.flatnonzero(live & (state.pending_seat == seat))
        if len(games):
            actions[games] = agent.act(state, games)
    return actions


__all__ = [
    "BATCH_REGISTRY",
    "BatchAccuser",
    "BatchAgent",
    "BatchBayesAgent",
    "BatchBayesV2Agent",
    "BatchBayesV3Agent",
    "BatchCheaterAgent",
    "BatchEagerAgent",
    "BatchPassiveAgent",
    "BatchRandomAgent",
    "bayes_v1_rule",
    "decide",
    "make_batch_agent",
]
