"""The scripted baselines, deciding for a whole batch at once.

| name | as ``ckc_env.agents`` | batched |
|---|---|---|
| ``random`` | uniform over the legal actions | one draw per game from the legal mask |
| ``passive`` | passes; forced: the most likely chief; keeps Adler chips | the same rules as array operations |
| ``eager`` | the most likely chief at its first chance | the same |
| ``bayes_v1`` | exact beliefs, expected chip value against a moving bar | the same numbers (``batch.beliefs``) and the same float64 expressions in the same order, so every threshold comparison agrees |
| ``cheater`` | reads the hidden clues (an upper bound) | the same |

``bayes_v2`` has no batched form: it reads each game's record of passes and accusations decision by
decision (a ``TableReader`` per game), which is Python work per game; it plays in scalar tables.

A batched agent's ``act(state, games)`` returns the actions of the pending decisions of ``games``
(one seat per game: ``state.pending_seat[games]``). Its deterministic decisions (every window and
forced accusation of ``passive``, ``eager``, ``bayes_v1`` and ``cheater``) equal the scalar agent's
on the same position; its random ones (``random``, clue faces, which seat a Cafe Adler swap goes
to) come from the agent's own ``numpy`` Generator, so they are as likely as the scalar agent's but
not the same draws. Every agent but ``cheater`` reads only what the seat may know: the public
arrays, its own clue, tile and chips, and the posterior of ``batch.beliefs``.

    lineup = [make_batch_agent("bayes_v1", seed=s) for s in range(4)]
    actions = decide(state, lineup)               # one action per game
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import cache

import numpy as np

from ..agents.bayes import BayesParams
from ..config import BLACK, GOLD, WHITE
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
from .beliefs import seat_beliefs
from .game import legal_action_mask
from .scoring import chief_of, matches
from .state import SEAT_RANGE, SEATS, BatchRules, BatchState
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


def expected_chip_values(state: BatchState, games: np.ndarray, seats: np.ndarray) -> np.ndarray:
    """(k, 3) E[value] of the next chip of each colour over the chips the seat has not seen
    (``agents.bayes.expected_chip_values``): the pool's sums less the seat's own, as integers,
    divided once."""
    rules = state.rules
    pool_sum, pool_count = _pool_sums(rules)
    own = state.value_counts[games, seats].astype(np.int64)  # by points -2..5: each value has one colour
    sums = pool_sum - own @ _VALUE_BY_COLOUR
    counts = pool_count - state.chip_table[games, seats, :3]
    if rules.stasi_id >= 0:  # counts 0, or -2 in the last round, unless the seat holds it
        elsewhere = (state.holdings[games, seats] >> np.uint64(rules.stasi_id)) & np.uint64(1) == 0
        last_round = state.round_index[games] + 1 >= rules.config.max_rounds
        sums[:, BLACK] -= 2 * (elsewhere & last_round)
    ok = (counts > 0) & (state.supply_len[games] > 0)
    return np.where(ok, sums / np.where(ok, counts, 1), 0.0)


_VALUE_BY_COLOUR = np.zeros((8, 3), dtype=np.int64)
"""``_VALUE_BY_COLOUR[points + 2, colour]``: the printed value of a chip counting those points, in
its colour's column (gold 3..5, white 1..2, black -1..0; -2 points is the Stasi chip, value 0)."""
for _points, _colour in zip(range(-2, 6), (BLACK, BLACK, BLACK, WHITE, WHITE, GOLD, GOLD, GOLD), strict=True):
    _VALUE_BY_COLOUR[_points + 2, _colour] = 0 if _points == -2 else _points


@cache
def _pool_sums(rules: BatchRules) -> tuple[np.ndarray, np.ndarray]:
    """Printed values summed by colour (the Stasi chip as 0) and chips by colour, of the whole pool."""
    values = np.where(np.arange(rules.n_chips) == rules.stasi_id, 0, rules.chip_value)
    sums = np.array([values[rules.chip_colour == c].sum() for c in range(3)], dtype=np.int64)
    counts = np.array([(rules.chip_colour == c).sum() for c in range(3)], dtype=np.int64)
    return sums, counts


class BatchBayesAgent(BatchAccuser):
    """``bayes_v1`` (see ``agents.bayes``), with the scalar agent's float64 expressions."""

    name = "bayes_v1"

    def __init__(self, seed: int | None = None, **params: float) -> None:
        super().__init__(seed)
        unknown = sorted(set(params) - set(BayesParams.names()))
        if unknown:
            raise ValueError(f"unknown bayes_v1 parameter(s) {unknown}: accepted are {list(BayesParams.names())}")
        self.params = BayesParams(**params)

    def accuse(self, state: BatchState, games: np.ndarray, forced: np.ndarray) -> np.ndarray:
        p = self.params
        seats = state.pending_seat[games].astype(np.int64)
        b = seat_beliefs(state, games, seats, clues=False)
        values = expected_chip_values(state, games, seats)
        gold, white, black = values[:, GOLD, None], values[:, WHITE, None], values[:, BLACK, None]
        chief, assistant = b.chief, b.assistant
        allowed = target_matrix(state, games)
        ev = chief * gold + assistant * white + (1.0 - chief - assistant) * black
        best_ev = np.where(allowed, ev, -np.inf).max(1, keepdims=True)
        tied = allowed & (ev == best_ev)
        best_chief = np.where(tied, chief, -np.inf).max(1, keepdims=True)
        best = _first(tied & (chief == best_chief))
        best_ev, best_chief = best_ev[:, 0], best_chief[:, 0]

        n = state.n[games].astype(np.int64)
        seated = n[:, None] > SEAT_RANGE
        others_left = ((state.accused_by[games] == -1) & seated).sum(1) - 1
        if state.rules.config.non_accuser_white == "chief_uncaught":
            non_accuser = white[:, 0]  # whoever is left takes white unless the chief is caught
        else:  # white while the chief may still be in the deck
            drawn = np.bitwise_or.reduce(state.rows[games] | state.discards[games], axis=1)
            undrawn = (drawn[:, None] >> _BIT_INDEX) & np.uint32(1) == 0
            p_undrawn = np.cumsum(np.where(undrawn, chief, 0.0), axis=1)[:, -1]  # Python's sum: left to right
            non_accuser = p_undrawn * white[:, 0] + (1 - p_undrawn) * black[:, 0]
        share = (others_left - 1) / np.maximum(1, n - 2)
        bar = p.bar_late + (p.bar_early - p.bar_late) * share
        take = np.where(others_left <= 1, best_ev >= non_accuser + p.margin_last, best_ev >= bar)
        take |= forced | (best_chief >= p.sure)
        return np.where(take, ACCUSE + best, PASS)


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


BATCH_REGISTRY: dict[str, Callable[..., BatchAgent]] = {
    "random": BatchRandomAgent,
    "passive": BatchPassiveAgent,
    "eager": BatchEagerAgent,
    "bayes_v1": BatchBayesAgent,
    "cheater": BatchCheaterAgent,
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
    "BatchCheaterAgent",
    "BatchEagerAgent",
    "BatchPassiveAgent",
    "BatchRandomAgent",
    "decide",
    "make_batch_agent",
]
