"""The scripted baselines as pure JAX functions of one game, deciding as their NumPy twins.

Its NumPy twin: ckc_env/batch/agents.py (scalar: ckc_env/agents).

| name | decides |
|---|---|
| ``random`` | uniform over the legal actions |
| ``passive`` | passes; forced: the most likely chief; keeps Adler chips |
| ``eager`` | the most likely chief at its first chance |
| ``bayes_v1`` | exact beliefs, expected chip value against a moving bar (``jax.bayes_rule``, float32) |
| ``cheater`` | reads the hidden clues (an upper bound) |

A :class:`Player` is static (frozen, hashable: a ``jax.jit`` static argument) and its
``act(rules, state, carry) -> (action, carry)`` decides one game's pending decision, branch-free
and with fixed shapes, so ``jax.jit(jax.vmap(...))`` takes it. The scripted players' carry is
their :class:`Streams`: their random choices (the random player's action, clue faces, which seat a
Cafe Adler swap goes to) come from one SplitMix64 stream per (game, seat), word ``counters[seat]``
of key ``keys[seat]``, exactly as ``BatchAgent.draw``: a player started with the same keys draws
the same words as its NumPy twin, and a decision that draws nothing there draws nothing here. So
every action equals the twin's on the same position and stream, but for bayes_v1's near-ties in
float32 (see ``jax.bayes_rule``).

    lineup = (make_player("bayes_v1"),) * 4 + (make_player("random"),)  # jax.registry.make_player
    carries = jax.vmap(lambda key: start(lineup, key))(game_keys)        # (B, 2) uint32 game keys
    act = jax.jit(jax.vmap(lambda s, c: decide(rules, s, lineup, c)))
    actions, carries = act(states, carries)

**Hook for players with memory.** :attr:`Player.start` builds a player's carry from the game's
key (default: its :class:`Streams`); a player that remembers more between its decisions (bayes_v2,
whose reading of the other players is kept per game, ``jax.players_posterior``) returns a larger
pytree from ``start`` and threads it through ``act``, and registers itself with :func:`register`.
:func:`decide` keeps one carry per distinct player of a lineup and updates it only where that
player acted.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from ..batch.state import SEATS
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
from ..engine.chance import GOLDEN
from ..engine.chance import mix64 as mix64_int
from ..reading.bayes_rule import BayesParams
from .bayes_rule import Counts, Position, accuse_or_pass, accuse_or_pass_exact, non_accuser_odds, undrawn_worlds
from .beliefs import chief_and_assistant, count_worlds, neighbour_sums, seat_beliefs, slot_candidates
from .chance import below, mix64, words
from .chip_values import expected_chip_values
from .game import legal_mask_one
from .scoring import chief_of, matches
from .state import Rules, State, split_keys
from .suspicion import targets

I32, U32 = jnp.int32, jnp.uint32
_BIT_INDEX = np.arange(N_CATS, dtype=np.uint32)
_SLOTS = np.arange(SEATS, dtype=np.int32)
_SEAT_SALTS = split_keys(np.array([mix64_int(s * GOLDEN % (1 << 64)) for s in range(1, SEATS + 1)], dtype=np.uint64))
"""(5, 2) ``batch.agents._SEAT_SALTS`` as (high, low) words."""


# ------------------------------------------------------------------------------ the players' streams
class Streams(NamedTuple):
    """A player's random streams in one game: word ``counters[s]`` of key ``keys[s]`` is seat s's
    next draw (``BatchAgent.keys`` and ``counters``, one game's row)."""

    keys: jax.Array  # (5, 2) uint32 (high, low)
    counters: jax.Array  # (5,) uint32


def seat_keys(game_key: jax.Array) -> jax.Array:
    """(5, 2) the players' stream keys of each seat of a game with key ``game_key`` ((2,) uint32):
    ``batch.agents.seat_keys``, which the vector environment starts its players with."""
    hi, lo = mix64(game_key[0] ^ _SEAT_SALTS[:, 0], game_key[1] ^ _SEAT_SALTS[:, 1])
    return jnp.stack([hi, lo], -1)


def start_streams(game_key: jax.Array) -> Streams:
    """Fresh streams for a new game (``BatchAgent.start`` with ``seat_keys``)."""
    return Streams(seat_keys(game_key), jnp.zeros(SEATS, U32))


def streams_of(agent: Any, games: np.ndarray) -> Streams:
    """Host side: the streams of a started NumPy ``BatchAgent`` in ``games``, as a batch of
    :class:`Streams` (for differential tests and for handing games over between the engines)."""
    games = np.asarray(games, dtype=np.int64)
    return Streams(jnp.asarray(split_keys(agent.keys[games])), jnp.asarray(agent.counters[games].astype(np.uint32)))


def draw(streams: Streams, seat: jax.Array, used: jax.Array) -> tuple[jax.Array, jax.Array, Streams]:
    """The next word (hi, lo) of ``seat``'s stream, and the streams advanced past it where ``used``
    (``BatchAgent.draw``; a decision that draws nothing leaves the counter as it is)."""
    hi, lo = words(streams.keys[seat], streams.counters[seat], 1)
    counters = streams.counters.at[seat].add(jnp.asarray(used).astype(U32))
    return hi[0], lo[0], streams._replace(counters=counters)


# ------------------------------------------------------------------------------ what the table allows
def target_matrix(state: State) -> jax.Array:
    """(32,) bool: the cats the acting seat may accuse now."""
    return (targets(state) >> _BIT_INDEX) & 1 == 1


def legal_mask(rules: Rules, state: State) -> jax.Array:
    """(40,) bool: the legal actions of the pending decision (the engine's ``legal_mask_one``)."""
    return legal_mask_one(rules, state)


def swap_mask(rules: Rules, state: State) -> jax.Array:
    """(4,) bool: the legal ``SWAP + k - 1`` actions of a pending Cafe Adler decision."""
    return legal_mask_one(rules, state)[SWAP:]


def uniform_legal(mask: jax.Array, hi: jax.Array, lo: jax.Array) -> jax.Array:
    """The ``w % count``-th True entry of ``mask`` for the word ``w = (hi, lo)`` (``batch.agents.uniform_legal``;
    0 when none is)."""
    count = jnp.sum(mask.astype(I32))
    pick = below(hi, lo, jnp.maximum(count, 1))
    return jnp.argmax(jnp.cumsum(mask.astype(I32)) > pick).astype(I32)


def most_likely_target(allowed: jax.Array, chief: jax.Array, assistant: jax.Array) -> jax.Array:
    """The target most likely to be the chief; ties by assistant probability, then the lowest cat
    (``batch.agents.most_likely_target``). The probabilities share a denominator, so their order is
    their counts' order, in float32 as in float64: the twin's choice exactly."""
    top = jnp.max(jnp.where(allowed, chief, -jnp.inf))
    tied = allowed & (chief == top)
    second = jnp.max(jnp.where(tied, assistant, -jnp.inf))
    return jnp.argmax(tied & (assistant == second)).astype(I32)


def _seat(state: State) -> jax.Array:
    return jnp.clip(state.pending_seat.astype(I32), 0)


# ------------------------------------------------------------------------------ the players
def _random(rules: Rules, state: State, streams: Streams, params: None) -> tuple[jax.Array, Streams]:
    live = state.pending_kind >= 0
    hi, lo, streams = draw(streams, _seat(state), live)
    return jnp.where(live, uniform_legal(legal_mask(rules, state), hi, lo), 0).astype(I32), streams


def _passive(rules: Rules, state: State, streams: Streams, params: None) -> tuple[jax.Array, Streams]:
    kind, seat = state.pending_kind, _seat(state)
    choosing = kind == CLUE_FACE
    hi, lo, streams = draw(streams, seat, choosing)
    b = seat_beliefs(rules, state, seat, clues=False)
    action = jnp.select(
        [kind == WINDOW, kind == FORCED_ACCUSATION, choosing, kind < 0],
        [
            PASS,
            ACCUSE + most_likely_target(target_matrix(state), b.chief, b.assistant),
            CLUE_FACE_A + below(hi, lo, 2),
            0,
        ],
        KEEP,
    )
    return action.astype(I32), streams


Accuse = Callable[[Rules, State, jax.Array, jax.Array, Any], jax.Array]
"""``(rules, state, seat, forced, params) -> ACCUSE + cat or PASS``: an accuser's window and
forced-accusation rule (``BatchAccuser.accuse``)."""


def accuser(accuse: Accuse) -> Callable[[Rules, State, Streams, Any], tuple[jax.Array, Streams]]:
    """A player that accuses by ``accuse`` (``BatchAccuser``): a random clue face, Cafe Adler chips
    swapped at once with a random eligible seat (kept, drawing nothing, when none is)."""

    def act(rules: Rules, state: State, streams: Streams, params: Any) -> tuple[jax.Array, Streams]:
        kind, seat = state.pending_kind, _seat(state)
        forced = kind == FORCED_ACCUSATION
        swaps = swap_mask(rules, state)
        can_swap = jnp.any(swaps)
        choosing, adler = kind == CLUE_FACE, kind == CAFE_ADLER
        hi, lo, streams = draw(streams, seat, choosing | (adler & can_swap))
        adler_action = jnp.where(can_swap, SWAP + uniform_legal(swaps, hi, lo), KEEP)
        action = jnp.select(
            [(kind == WINDOW) | forced, choosing, adler],
            [accuse(rules, state, seat, forced, params), CLUE_FACE_A + below(hi, lo, 2), adler_action],
            jnp.where(kind < 0, 0, PASS),
        )
        return action.astype(I32), streams

    return act


def _eager(rules: Rules, state: State, seat: jax.Array, forced: jax.Array, params: None) -> jax.Array:
    b = seat_beliefs(rules, state, seat, clues=False)
    return ACCUSE + most_likely_target(target_matrix(state), b.chief, b.assistant)


def bayes_v1_rule(
    p: BayesParams,
    position: Position,
    drawn: jax.Array,
    non_accuser_white: str | jax.Array,
    counts: tuple[jax.Array, jax.Array] | None = None,
) -> jax.Array:
    """bayes_v1's rule (``batch.agents.bayes_v1_rule``): ``ACCUSE + cat`` or ``PASS`` given the
    ``position`` (the posterior over the 32 cats) and the cats drawn (uint32); ``p`` is static,
    ``non_accuser_white`` the option or a per-game bool (``state.options.chief_uncaught``). ``counts``,
    the exact (chief counts, total) behind the posterior when it has them, makes the non-accuser's
    value exact (``bayes_rule.non_accuser_odds``)."""
    weights, total = (position.chief, None) if counts is None else counts
    odds = non_accuser_odds(weights, drawn, non_accuser_white, total)
    take, best = accuse_or_pass(p, position, odds)
    return jnp.where(take, ACCUSE + best, PASS)


def apply_rule(
    p: BayesParams,
    rules: Rules,
    state: State,
    seat: jax.Array,
    chief: jax.Array,
    assistant: jax.Array,
    values: jax.Array,
    forced: jax.Array,
    counts: tuple[jax.Array, jax.Array] | None = None,
) -> jax.Array:
    """bayes_v1's rule on the table as it lies, for a posterior of the acting ``seat``
    (``BatchBayesAgent.apply_rule``: bayes_v2 applies it to its own posterior; ``counts`` as in
    :func:`bayes_v1_rule`)."""
    n, others_left, drawn = _table(state)
    position = Position(chief, assistant, target_matrix(state), values, others_left, n, forced)
    return bayes_v1_rule(p, position, drawn, state.options.chief_uncaught, counts)


def _table(state: State) -> tuple[jax.Array, jax.Array, jax.Array]:
    """The player count, the other players who may still accuse, and the cats drawn (uint32)."""
    n = state.n.astype(I32)
    others_left = jnp.sum((state.accused_by == -1) & (n > _SLOTS)) - 1
    drawn = lax.reduce(state.rows | state.discards, U32(0), lax.bitwise_or, (0,))
    return n, others_left, drawn


def apply_exact_rule(
    p: BayesParams, state: State, chief_counts: jax.Array, values: jax.Array, forced: jax.Array
) -> jax.Array:
    """bayes_v1's rule in integers on the table as it lies, for the worlds per chief (32,) of the
    acting seat's information set (``BatchBayesAgent.accuse``)."""
    n, others_left, drawn = _table(state)
    counts = Counts(
        chief_counts, neighbour_sums(chief_counts), jnp.sum(chief_counts), undrawn_worlds(chief_counts, drawn)
    )
    allowed = target_matrix(state)
    take, best = accuse_or_pass_exact(p, counts, allowed, values, others_left, n, forced, state.options.chief_uncaught)
    return jnp.where(take, ACCUSE + best, PASS)


def _bayes_v1(rules: Rules, state: State, seat: jax.Array, forced: jax.Array, params: BayesParams) -> jax.Array:
    chief_counts, _ = count_worlds(slot_candidates(state, seat), clues=False)
    if params.exact:  # the rule in integers: every engine's decisions, ties included
        return apply_exact_rule(params, state, chief_counts, expected_chip_values(rules, state, seat), forced)
    total = jnp.sum(chief_counts)
    chief, assistant = chief_and_assistant(chief_counts, total)  # seat_beliefs' numbers, with their counts
    values = expected_chip_values(rules, state, seat)
    return apply_rule(params, rules, state, seat, chief, assistant, values, forced, (chief_counts, total))


def _cheater(rules: Rules, state: State, seat: jax.Array, forced: jax.Array, params: None) -> jax.Array:
    chief = chief_of(state.clues, state.bag)  # cheating: the hidden clues
    allowed = target_matrix(state)
    matched = jnp.where(allowed, matches(jnp.arange(N_CATS, dtype=I32), chief), -1)
    best_matches = jnp.max(matched)
    best = jnp.argmax(matched == best_matches).astype(I32)
    chief_taken = (state.accused_cats >> chief.astype(U32)) & 1 == 1
    take = forced | (best == chief) | (chief_taken & (best_matches == 4))
    return jnp.where(take, ACCUSE + best, PASS)


# ------------------------------------------------------------------------------ players and lineups
Act = Callable[[Rules, State, Any, Any], tuple[jax.Array, Any]]


@dataclass(frozen=True)
class Player:
    """A player of one game: ``act(rules, state, carry) -> (action int32, carry)`` decides the
    pending decision (0 once the game is over, the carry unchanged), ``start(game_key) -> carry``
    begins a game. ``choose(rules, state, carry, params)`` is the decision function and ``params``
    (hashable) what it is given besides; players compare equal when their name, functions and
    parameters do, so a lineup computes each distinct one once."""

    name: str
    choose: Act = field(repr=False)
    params: Any = None
    reads_hidden_state: bool = False
    begin: Callable[[jax.Array], Any] = field(default=start_streams, repr=False)

    def act(self, rules: Rules, state: State, carry: Any) -> tuple[jax.Array, Any]:
        return self.choose(rules, state, carry, self.params)

    def start(self, game_key: jax.Array) -> Any:
        return self.begin(game_key)


def _no_params(name: str, act: Act, reads_hidden_state: bool = False) -> Callable[..., Player]:
    def make(**params: Any) -> Player:
        if params:
            raise ValueError(f"{name} takes no parameters, got {sorted(params)}")
        return Player(name, act, None, reads_hidden_state)

    return make


def _make_bayes_v1(**params: float) -> Player:
    return Player("bayes_v1", _BAYES_V1, BayesParams.of("bayes_v1", params))


_BAYES_V1 = accuser(_bayes_v1)

SCRIPTED: dict[str, Callable[..., Player]] = {
    "random": _no_params("random", _random),
    "passive": _no_params("passive", _passive),
    "eager": _no_params("eager", accuser(_eager)),
    "bayes_v1": _make_bayes_v1,
    "cheater": _no_params("cheater", accuser(_cheater), reads_hidden_state=True),
}
"""The scripted players' factories by name (``batch.agents.BATCH_REGISTRY``'s names); with bayes_v2,
``jax.registry.REGISTRY`` (``make_player``)."""


def distinct(lineup: Sequence[Player]) -> tuple[Player, ...]:
    """The distinct players of a lineup, in order of first seat: one carry each."""
    out: list[Player] = []
    for player in lineup:
        if player not in out:
            out.append(player)
    return tuple(out)


def start(lineup: Sequence[Player], game_key: jax.Array) -> tuple[Any, ...]:
    """The carries of a lineup's distinct players for a new game with key ``game_key``."""
    return tuple(player.start(game_key) for player in distinct(lineup))


def decide(rules: Rules, state: State, lineup: Sequence[Player], carries: tuple[Any, ...]) -> tuple[jax.Array, tuple]:
    """The action of one game's pending decision, ``lineup[s]`` deciding for seat s (0 once over:
    ``batch.agents.decide``), and the carries, each advanced only where its player acted."""
    players = distinct(lineup)
    seat_player = np.array([players.index(p) for p in lineup] + [0] * (SEATS - len(lineup)), dtype=np.int32)
    acting = jnp.asarray(seat_player)[_seat(state)]
    live = state.pending_kind >= 0
    action = jnp.zeros((), I32)
    out = []
    for i, (player, carry) in enumerate(zip(players, carries, strict=True)):
        mine = live & (acting == i)
        chosen, moved = player.act(rules, state, carry)
        action = jnp.where(mine, chosen, action)
        out.append(jax.tree_util.tree_map(lambda new, old, mine=mine: jnp.where(mine, new, old), moved, carry))
    return action, tuple(out)


__all__ = [
    "SCRIPTED",
    "Player",
    "Streams",
    "accuser",
    "apply_exact_rule",
    "apply_rule",
    "bayes_v1_rule",
    "chief_of",
    "decide",
    "distinct",
    "draw",
    "legal_mask",
    "matches",
    "most_likely_target",
    "seat_keys",
    "start",
    "start_streams",
    "streams_of",
    "swap_mask",
    "target_matrix",
    "targets",
    "uniform_legal",
]
