"""The players' posterior and bayes_v2 in JAX: what the other players' accusations and passes of
the round reveal of their clues, read by a pure function of one game, with fixed shapes.

Its NumPy twin: ckc_env/batch/players_posterior.py (scalar: ckc_env/reading/players_posterior.py);
bayes_v2's: ``batch.agents.BatchBayesV2Agent``.

The model is the twin's: each decision on the round's record (the passes of every window closed,
then the accusations, each on the table as it lay then) is judged under every clue its decider may
have held, by bayes_v1's rule (``jax.bayes_rule``) on the exact posterior of the decider's
information set then, followed with probability ``follow``; ``log(follow * hit + (1 - follow) /
legal)`` is added to the decider's log-likelihood of that clue. What changes for JAX:

- **Memory.** The twin's ``PlayersReader`` is a mutable object; here it is the pytree
  :class:`Reading` (per game: for each reading seat, the game's key and round read, the windows
  and accusations read, and the sums), carried by the caller and updated by :func:`read`. A seat
  read at the same decisions as the twin's reader reads the same decisions (a window's passes once
  it has closed, so during the forced accusations the timing matters, as there).
- **Fixed shapes.** New windows are read ``chunk`` at a time in a ``lax.while_loop`` (a kept
  reading usually finds one or two, a fresh one up to 34), each as 5 deciders x 10
  clues hypotheses, the new accusations (4 x 10) with the first pass. Masks stand for the twin's
  index arrays; under ``jax.vmap`` the loop runs as long as the game with most windows to read.
- **Counting.** A hypothesis's worlds (the twin's ``count_worlds``) are counted with 32-bit world
  masks (``jax.beliefs.world_masks`` and ``slot_masks``): per slot a (32 chiefs x 128 bits) mask of
  the worlds its set allows; the decider's slot is tried with each clue, the slots ANDed and
  counted per chief with ``population_count``, exact (a fresh reading judges up to 1,740).
- **Exact sums.** The twin sums a pair's factors as exact integer limbs and rounds once
  (``math.fsum``). Here each factor is a fixed-point int32, ``round(log * 2**scale)``, ``scale``
  the most bits that keep :data:`MAX_FACTORS` factors of the largest magnitude inside int32 (23 for
  follow 0.8): sums are exact and order-free too (a kept and a fresh reading add the same
  integers), each factor within ``2**-(scale + 1)`` of its log, and a log-likelihood, rounded once
  to float32, within about 1e-5 of the twin's (4e-6 in the tests).
- **Float32.** The model's rule is ``jax.bayes_rule``'s, on correctly rounded quotients of the
  world counts (equal ratios give equal floats, and the non-accuser's chance of white is one
  quotient too, as there). A prediction whose float64 margin is below float32 rounding (a
  near-tie) may still go the other way and flip one factor: mostly exact ties in real arithmetic
  that float64's rounding decides (3 players, all still to accuse: a target worth exactly the bar
  1.0); with ``exact=1`` the model compares the world counts as integers
  (``bayes_rule.accuse_or_pass_exact``) and predicts as the twin, ties included. The weighted
  posterior is computed in the log domain (each world's log-weight less the
  largest), so that products the twin forms in float64 do not underflow in float32.

    reading = players_posterior.init((B,))                      # what B games' seats have read
    step = jax.jit(jax.vmap(lambda r, s, seat: players_posterior.beliefs(rules, r, s, seat)))
    reading, posterior = step(reading, states, seats)            # kept: bring up to date, weigh
    fresh = jax.jit(jax.vmap(partial(players_posterior.observed_posterior, rules)))(states, seats)
    lineup = (make_player("bayes_v2"),) * 4                     # ``jax.registry.make_player``

``tests/test_jax_players_posterior.py`` compares every piece with the twin on played batches and
traces every difference to a near-tie.
"""

from __future__ import annotations

import math
from functools import cache
from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from ..agents.bayes_v2 import BayesV2Params
from ..batch.players_posterior import factor_logs
from ..batch.state import MAX_ACCUSATIONS, MAX_BAG, MAX_DECK, SEATS
from ..engine.actions import ACCUSE, FORCED_ACCUSATION, PASS, WINDOW
from ..engine.cards import INVESTIGATOR, N_CATS, N_CLUES, N_FEATURES
from ..engine.state import FORCED, SCORING
from ..observation import PLAYERS_FOLLOW
from ..reading.bayes_rule import BayesParams
from .bayes_rule import Counts, Position, accuse_or_pass, accuse_or_pass_exact, non_accuser_odds, undrawn_worlds
from .beliefs import (
    ALL_CLUES,
    PERMS,
    WORDS,
    Beliefs,
    chief_and_assistant,
    clue_candidates,
    neighbour_sums,
    quotient,
    seat_beliefs,
    slot_candidates,
    slot_masks,
    world_masks,
)
from .chip_values import expected_chip_values
from .players import Player, Streams, accuser, apply_rule, start_streams
from .state import Rules, State

I32, U32, F32 = jnp.int32, jnp.uint32, jnp.float32
MAX_LEGAL = N_CATS + 1
"""The most legal actions of a window decision: pass, or any of the 32 cats."""
MAX_FACTORS = MAX_DECK + MAX_ACCUSATIONS
"""More than the factors a (seat, clue) sum can get in a round: one per window, one per accusation."""
CHUNK = 4
"""Windows a kept reading reads per loop pass (it usually finds one or two new)."""
FRESH_CHUNK = 8
"""Windows a fresh reading reads per loop pass: on a CPU, 4 to 8 run fastest (all 34 at once
spill the caches); an accelerator may prefer more."""
_SLOTS = np.arange(SEATS, dtype=np.int32)
_CLUES = np.arange(N_CLUES, dtype=np.int32)
_BIT_INDEX = np.arange(N_CATS, dtype=np.uint32)
_CHIEF_CLUE = 2 * np.arange(N_FEATURES)[None, :] + 1 - ((np.arange(N_CATS)[:, None] >> np.arange(N_FEATURES)) & 1)
_WORLD_CLUE = _CHIEF_CLUE[:, PERMS].astype(np.int32)
"""(32, 120, 5): the clue slot s holds in world (chief c, permutation p)."""
_SLOT_FEATURE = (PERMS[:, :, None] == np.arange(N_FEATURES)).astype(np.float32)
"""(120, 5, 5): ``[p, s, f]`` whether perm p puts feature f in slot s."""
_CHIEF_SIDE = np.stack(
    [
        (np.arange(N_CATS)[:, None] >> np.arange(N_FEATURES)) & 1,
        1 - ((np.arange(N_CATS)[:, None] >> np.arange(N_FEATURES)) & 1),
    ],
    -1,
).astype(np.float32)
"""(32, 5, 2): ``[c, f, side]`` whether chief c shows feature f's clue ``2 f + side`` (side 0: bit f set)."""
_NEIGHBOURS = np.arange(N_CATS)[:, None] ^ (1 << np.arange(N_FEATURES))[None, :]
_FREE_CLUES = np.array([sum(0b11 << (2 * f) for f in range(N_FEATURES) if (m >> f) & 1) for m in range(32)], np.int32)
"""``_FREE_CLUES[m]``: the clues of the features in the bit set m."""
_AFTER = np.arange(MAX_DECK)[None, :] < np.arange(MAX_DECK + 1)[:, None]
"""(35, 34): ``[k, j]`` whether card j (0-based) is among the first k drawn."""
_FACTORIALS = np.array([math.factorial(i) for i in range(SEATS + 1)], dtype=np.float32)


@cache
def fixed_factors(follow: float) -> tuple[np.ndarray, int]:
    """(68,) int32 the factors of ``batch.players_posterior.factor_logs`` as ``round(log * 2**scale)``,
    at ``legal + (MAX_LEGAL + 1) * hit``, and ``scale``: the most bits that keep a sum of
    :data:`MAX_FACTORS` of them inside int32."""
    logs = factor_logs(float(follow))
    worst = float(np.abs(logs).max())
    scale = min(30, math.floor(math.log2((2**31 - 1) / (MAX_FACTORS * max(worst, 1e-9)))))
    return np.round(logs * 2.0**scale).astype(np.int32), scale


# ------------------------------------------------------------------------------ the reader's memory
class Reading(NamedTuple):
    """What the seats of one game have read of the round (the twin's ``PlayersReader`` rows of that
    game): per reading seat, the game's key and the round read (-1: none), the windows and the
    accusations read, and per other seat and clue the sum of the fixed-point log-factors."""

    key: jax.Array  # (5, 2) uint32
    round: jax.Array  # (5,) int32
    windows: jax.Array  # (5,) int32
    accusations: jax.Array  # (5,) int32
    sums: jax.Array  # (5, 5, 10) int32: [reader, decider, clue], units of 2**-scale


def init(batch_shape: tuple[int, ...] = ()) -> Reading:
    """A reading of nothing (of ``batch_shape`` games): the twin's ``PlayersReader.start``."""
    shape = tuple(batch_shape)
    return Reading(
        key=jnp.zeros((*shape, SEATS, 2), U32),
        round=jnp.full((*shape, SEATS), -1, I32),
        windows=jnp.zeros((*shape, SEATS), I32),
        accusations=jnp.zeros((*shape, SEATS), I32),
        sums=jnp.zeros((*shape, SEATS, SEATS, N_CLUES), I32),
    )


# ------------------------------------------------------------------------------ the tables of the round
class _Round(NamedTuple):
    """What every hypothesis of a reading needs: the table after each card, and what is fixed."""

    rows: jax.Array  # (35, 5) uint32: rows after the first k cards
    discards: jax.Array  # (35, 5) uint32
    revealed: jax.Array  # (35,) int32 public clues revealed by card k
    n: jax.Array
    holder: jax.Array  # the seat whose clue lies face-up (-1: none)
    exposed: jax.Array  # its clue (-1: none)
    bag: jax.Array  # (2,) int32
    values: jax.Array  # (3,) float32: the chip values the modelled players expect (the reader's)


def _round(state: State, values: jax.Array) -> _Round:
    """``batch.players_posterior.Tables`` and the fixed parts of ``hypotheses``: a drawn cat lies
    now where it went then (rows and discard piles only grow); cats are distinct, so sums of their
    bits are ORs."""
    deck = state.deck.astype(I32)
    drawer = state.card_drawer.astype(I32)
    drawn = jnp.arange(MAX_DECK) < state.deck_pos.astype(I32)
    bit = jnp.where(drawn & (deck >= 0) & (deck < N_CATS), U32(1) << jnp.clip(deck, 0, 31).astype(U32), U32(0))
    in_row = (state.rows[jnp.clip(drawer, 0)] & bit) != 0
    placed = jnp.where(drawer[:, None] == _SLOTS, bit[:, None], U32(0))
    after = jnp.asarray(_AFTER)[:, :, None]  # card j lies on the table after card k when j < k
    rows = jnp.sum(jnp.where(after & in_row[:, None], placed, U32(0)), axis=1, dtype=U32)
    discards = jnp.sum(jnp.where(after & ~in_row[:, None], placed, U32(0)), axis=1, dtype=U32)
    revealed = jnp.sum(_AFTER & (drawn & (deck == INVESTIGATOR)), axis=1, dtype=I32)
    clues = state.clues.astype(I32)
    holder = jnp.where(state.phase < SCORING, state.stasi_exposed.astype(I32), -1)
    exposed = jnp.where(holder >= 0, clues[jnp.clip(holder, 0)], -1)
    holder = jnp.where(exposed >= 0, holder, -1)
    return _Round(rows, discards, revealed, state.n.astype(I32), holder, exposed, state.bag.astype(I32), values)


def _or(bits: jax.Array, axis: int = -1) -> jax.Array:
    return lax.reduce(bits, U32(0), lax.bitwise_or, (axis % bits.ndim,))


# ------------------------------------------------------------------------------ the model's predictions
class _Card(NamedTuple):
    """The table after one card, as the deciders then saw it: what each slot may hold (its world
    masks) and the clues a seat may hold as its own."""

    masks: jax.Array  # (5, 128) uint32: the worlds each slot's candidate set allows
    own: jax.Array  # (5,) 10-bit sets: the clues each seat may have held (its row, discards, free features)
    drawn: jax.Array  # () uint32: the cats drawn


def _card(r: _Round, card: jax.Array) -> _Card:
    """The slots of an information set after ``card`` (``hypotheses``), for every decider at once:
    every row and discard pile, the clue face-up under the Stasi card, the public clues revealed."""
    card = jnp.clip(card, 0, MAX_DECK)
    rows, discards = r.rows[card], r.discards[card]
    seen = clue_candidates(rows, discards)  # (5,)
    public = jnp.arange(MAX_BAG) < r.revealed[card]
    feature_bit = jnp.where(r.bag >= 0, 1 << (jnp.clip(r.bag, 0) >> 1), 0)
    public_bits = jnp.sum(jnp.where(public, feature_bit, 0))  # distinct features: a sum is an OR
    known = jnp.where(r.exposed >= 0, 1 << (jnp.clip(r.exposed, 0) >> 1), 0) | public_bits
    own = seen & jnp.asarray(_FREE_CLUES)[31 & ~known]
    slots = jnp.where((r.holder == _SLOTS) & (r.holder >= 0), 1 << jnp.clip(r.exposed, 0), seen)
    for j in range(MAX_BAG):
        slots = jnp.where(r.n + j == _SLOTS, jnp.where(public[j], 1 << jnp.clip(r.bag[j], 0), ALL_CLUES), slots)
    return _Card(slot_masks(slots), own, _or(rows | discards))


def _hypotheses(c: _Card, decider: jax.Array) -> tuple[jax.Array, jax.Array]:
    """The clues ``decider`` may have held (10-bit set), and the worlds of its information set under
    each, (10, 32) int32 per chief: ``hypotheses`` and ``count_worlds``."""
    base = jnp.where((decider == _SLOTS)[:, None], U32(0xFFFFFFFF), c.masks)  # the decider's slot: each clue below
    base = lax.reduce(base, U32(0xFFFFFFFF), lax.bitwise_and, (0,))
    worlds = base[None, :] & jnp.asarray(world_masks())[decider]  # (10, 128)
    counts = lax.population_count(worlds).astype(I32).reshape(N_CLUES, N_CATS, WORDS).sum(-1)
    return c.own[decider], counts


def _predict(
    p: BayesParams,
    non_accuser_white: str | jax.Array,
    r: _Round,
    counts: jax.Array,
    drawn: jax.Array,
    targets: jax.Array,
    others: jax.Array,
    forced: jax.Array,
) -> jax.Array:
    """(10,) bayes_v1's action under each clue (``_predict`` and ``choose``), -1 where no world is
    left (the decider could not have held that clue)."""
    total = jnp.sum(counts, axis=-1)
    possible = total > 0
    total = jnp.maximum(total, 1)
    allowed = (targets >> _BIT_INDEX) & 1 == 1
    drawn = jnp.broadcast_to(drawn, total.shape)  # one per clue
    if p.exact:  # the rule in integers: NumPy's predictions, ties included
        exact = Counts(counts, neighbour_sums(counts), total, undrawn_worlds(counts, drawn))
        take, best = accuse_or_pass_exact(p, exact, allowed, r.values, others, r.n, forced, non_accuser_white)
        return jnp.where(possible, jnp.where(take, ACCUSE + best, PASS), -1).astype(I32)
    chief, assistant = chief_and_assistant(counts, total)  # correctly rounded quotients of integers
    odds = non_accuser_odds(counts, drawn, non_accuser_white, total)  # exact: ties with a target stay ties
    take, best = accuse_or_pass(p, Position(chief, assistant, allowed, r.values, others, r.n, forced), odds)
    return jnp.where(possible, jnp.where(take, ACCUSE + best, PASS), -1).astype(I32)


def _factors(
    p: BayesParams,
    non_accuser_white: str | jax.Array,
    fixed: jax.Array,
    r: _Round,
    cards: _Card,
    at: jax.Array,
    decider: jax.Array,
    action: jax.Array,
    forced: jax.Array,
    targets: jax.Array,
    others: jax.Array,
    valid: jax.Array,
) -> jax.Array:
    """(10,) int32 one item's fixed-point log-factor under each clue its decider may have held (0
    elsewhere), on the table ``cards`` row ``at``: ``factor_kinds`` and ``add_factors``."""
    card = jax.tree_util.tree_map(lambda x: x[at], cards)
    candidates, counts = _hypotheses(card, jnp.clip(decider, 0, SEATS - 1))
    predicted = _predict(p, non_accuser_white, r, counts, card.drawn, targets, others, forced)
    legal = (~forced).astype(I32) + lax.population_count(targets).astype(I32)
    kind = legal + (MAX_LEGAL + 1) * (predicted == action).astype(I32)
    return jnp.where(valid & ((candidates >> _CLUES) & 1 == 1), fixed[kind], 0)


def _add(sums: jax.Array, deciders: jax.Array, factors: jax.Array) -> jax.Array:
    """Add items' (k, 10) factors to the (5, 10) sums of their deciders."""
    at = (deciders[:, None] == _SLOTS)[:, :, None]
    return sums + jnp.sum(jnp.where(at, factors[:, None, :], 0), axis=0)


def _read_sums(
    p: BayesParams,
    follow: float,
    non_accuser_white: str | jax.Array,
    state: State,
    seat: jax.Array,
    values: jax.Array,
    windows: jax.Array,
    accusations: jax.Array,
    sums: jax.Array,
    chunk: int,
) -> jax.Array:
    """Add to ``sums`` (5, 10) the factors of every window closed after ``windows`` and every
    accusation after ``accusations``, other than ``seat``'s own (``decisions`` and ``_weigh``)."""
    fixed = jnp.asarray(fixed_factors(follow)[0])
    r = _round(state, values)
    n = r.n
    closed = state.deck_pos.astype(I32) - (state.phase < FORCED).astype(I32)
    made = state.accusation_count.astype(I32)
    position = jnp.arange(MAX_ACCUSATIONS, dtype=I32)
    acc_seat = state.accusation_seat.astype(I32)
    acc_cat = state.accusation_cat.astype(I32)
    accused_at = state.accused_at.astype(I32)
    made_mask = position < made
    acc_at = jnp.where(made_mask, accused_at[jnp.clip(acc_seat, 0)], -1)
    acc_bits = jnp.where(made_mask, U32(1) << jnp.clip(acc_cat, 0).astype(U32), U32(0))  # distinct cats
    accusers = state.accused_by >= 0
    row_cats = jnp.sum(r.rows, axis=1, dtype=U32)  # (35,) every cat in a row after card k

    # the accusations, each on the table as it lay when it was made (read in the first pass)
    a_card = accused_at[jnp.clip(acc_seat, 0)]
    earlier = position[None, :] < position[:, None]
    a_taken = jnp.sum(jnp.where(earlier, acc_bits[None, :], U32(0)), axis=1, dtype=U32)
    a_targets = row_cats[jnp.clip(a_card, 0, MAX_DECK)] & ~a_taken
    deck_pos = state.deck_pos.astype(I32)
    a_forced = (a_card == deck_pos) & (state.deck_len.astype(I32) == deck_pos)  # on the last card: judged as forced
    a_valid = (position >= accusations) & made_mask & (acc_seat != seat)

    def one_pass(carry: tuple[jax.Array, jax.Array, jax.Array]) -> tuple[jax.Array, jax.Array, jax.Array]:
        """The passes of ``chunk`` windows after ``last`` (and, in the first pass, the accusations)."""
        last, first, sums = carry
        card = last + 1 + jnp.arange(chunk, dtype=I32)  # (C,)
        before = (acc_at >= 0) & (acc_at[None, :] < card[:, None])  # (C, 4)
        taken = jnp.sum(jnp.where(before, acc_bits, U32(0)), axis=1, dtype=U32)
        in_window = jnp.sum(jnp.where(acc_at[None, :] == card[:, None], acc_bits, U32(0)), axis=1, dtype=U32)
        targets = row_cats[jnp.clip(card, 0, MAX_DECK)] & ~taken
        asked = ((targets & ~in_window) != 0) & (card <= closed)  # who was asked first is not on record
        judged = (
            asked[:, None] & (n > _SLOTS) & (seat != _SLOTS) & ~(accusers & (accused_at[None, :] <= card[:, None]))
        )  # (C, 5): every player asked who did not accuse in the window passed
        others = n - jnp.sum(before, axis=1) - 1
        spread = lambda x: jnp.repeat(x, SEATS)  # noqa: E731
        cards = jax.vmap(lambda k: _card(r, k))(jnp.concatenate([card, a_card]))  # the tables, once per card
        deciders = jnp.concatenate([jnp.tile(_SLOTS, chunk), acc_seat])

        def item(*args: jax.Array) -> jax.Array:
            return _factors(p, non_accuser_white, fixed, r, cards, *args)

        factors = jax.vmap(item)(
            jnp.concatenate([spread(jnp.arange(chunk)), chunk + position]),
            deciders,
            jnp.concatenate([jnp.full(chunk * SEATS, PASS, I32), ACCUSE + acc_cat]),
            jnp.concatenate([jnp.zeros(chunk * SEATS, bool), a_forced]),
            jnp.concatenate([spread(targets), a_targets]),
            jnp.concatenate([spread(others), n - position - 1]),
            jnp.concatenate([judged.reshape(-1), a_valid & first]),
        )
        return last + chunk, jnp.zeros((), bool), _add(sums, deciders, factors)

    carry = (windows, jnp.any(a_valid), sums)  # no pass at all when nothing is new
    return lax.while_loop(lambda c: c[1] | (c[0] < closed), one_pass, carry)[2]


def _model(params: BayesParams | None, follow: float | None) -> tuple[BayesParams, float]:
    params = params if params is not None else BayesParams()
    follow = float(follow if follow is not None else getattr(params, "follow", PLAYERS_FOLLOW))
    return params, follow


def read(
    rules: Rules,
    reading: Reading,
    state: State,
    seat: jax.Array,
    values: jax.Array | None = None,
    params: BayesParams | None = None,
    follow: float | None = None,
    chunk: int = CHUNK,
) -> tuple[Reading, jax.Array]:
    """Bring ``seat``'s reading of one game up to date (the twin's ``PlayersReader.likelihood``):
    the new reading and (5, 10) float32 log-likelihoods of every seat's clues, each seat's largest
    0 (rows of ``seat`` itself and of absent seats are not meaningful). A reading of another game
    or round (the key or round differ) starts over. ``values`` (3,) are the chip values the modelled
    players expect (default: the seat's own); ``params`` (static) the model's bayes_v1 parameters
    (default ``BayesParams()``), ``follow`` its follow rate (default ``params.follow`` if it has one,
    else ``PLAYERS_FOLLOW``); ``chunk`` (static) the windows read per loop pass."""
    params, follow = _model(params, follow)
    seat = jnp.asarray(seat, I32)
    if values is None:
        values = expected_chip_values(rules, state, seat)
    closed = state.deck_pos.astype(I32) - (state.phase < FORCED).astype(I32)
    made = state.accusation_count.astype(I32)
    key = state.key.astype(U32)
    round_index = state.round_index.astype(I32)
    windows, accusations = reading.windows[seat], reading.accusations[seat]
    stale = (
        (reading.round[seat] != round_index)
        | jnp.any(reading.key[seat] != key)
        | (windows > closed)
        | (accusations > made)
    )  # a new round (or game): nothing read yet
    windows = jnp.where(stale, 0, windows)
    accusations = jnp.where(stale, 0, accusations)
    sums = jnp.where(stale, 0, reading.sums[seat])
    sums = _read_sums(
        params, follow, state.options.chief_uncaught, state, seat, values, windows, accusations, sums, chunk
    )
    reading = Reading(
        key=reading.key.at[seat].set(key),
        round=reading.round.at[seat].set(round_index),
        windows=reading.windows.at[seat].set(jnp.maximum(windows, closed)),
        accusations=reading.accusations.at[seat].set(made),
        sums=reading.sums.at[seat].set(sums),
    )
    return reading, relative_logs(sums, follow)


def relative_logs(sums: jax.Array, follow: float = PLAYERS_FOLLOW) -> jax.Array:
    """(..., 10) float32 log-likelihoods from fixed-point sums (..., 10) read with ``follow`` (its
    scale), each row's largest 0: the difference is exact in int32, then rounded once."""
    scale = fixed_factors(float(follow))[1]
    return (sums - jnp.max(sums, axis=-1, keepdims=True)).astype(F32) * F32(2.0**-scale)


def likelihood(log_likelihood: jax.Array) -> jax.Array:
    """The twin's likelihoods (each seat's largest 1) from :func:`read`'s log-likelihoods."""
    return jnp.exp(log_likelihood)


# ------------------------------------------------------------------------------ the weighted posterior
def weighted_beliefs(state: State, seat: jax.Array, log_likelihood: jax.Array, clues: bool = True) -> Beliefs:
    """``seat``'s posterior in one game when each hidden assignment is weighted by ``prod_s
    likelihood[s, clue of s]`` over the seats whose clue it does not know, other than itself
    (``weighted_seat_beliefs``; ``log_likelihood`` (5, 10) as :func:`read` gives it). Over the
    3840 worlds of ``jax.beliefs``: a world's log-weight is the sum of its slots', less the largest,
    so no product underflows. ``assignments`` is the total weight (float32, the twin's: the worlds'
    sum over the orders of the unrevealed bag tiles; it underflows to 0 below about 1e-38, the
    probabilities do not); where no weight is left every probability is 0 (the twin raises)."""
    seat = jnp.asarray(seat, I32)
    n = state.n.astype(I32)
    cand = slot_candidates(state, seat)
    clue_of = state.clues.astype(I32)
    scored = state.phase >= SCORING
    holder = state.stasi_exposed.astype(I32)
    exposed = (holder >= 0) & ~scored & (clue_of[jnp.clip(holder, 0)] >= 0)
    known = scored | (exposed & (holder == _SLOTS)) | ((seat == _SLOTS) & (clue_of[seat] >= 0))
    weighed = (n > _SLOTS) & ~known & (seat != _SLOTS)
    member = ((cand[:, None] >> _CLUES) & 1) == 1
    slot_logs = jnp.where(member, jnp.where(weighed[:, None], log_likelihood.astype(F32), 0.0), -jnp.inf)
    world = jnp.sum(slot_logs[_SLOTS, _WORLD_CLUE], axis=-1)  # (32, 120)
    top = jnp.max(world)
    top = jnp.where(jnp.isfinite(top), top, 0.0)
    weight = jnp.exp(world - top)
    per_chief = jnp.sum(weight, axis=1)
    total = jnp.sum(per_chief)
    some = total > 0
    denominator = jnp.where(some, total, 1.0)
    chief = jnp.where(some, quotient(per_chief, denominator), 0.0)
    assistant = jnp.where(some, quotient(jnp.sum(per_chief[_NEIGHBOURS], axis=-1), denominator), 0.0)
    clue = None
    if clues:
        highest = lax.Precision.HIGHEST
        by_feature = jnp.einsum("cp,psf->csf", weight, _SLOT_FEATURE, precision=highest)
        by_clue = jnp.einsum("csf,cfb->sfb", by_feature, _CHIEF_SIDE, precision=highest).reshape(SEATS, N_CLUES)
        clue = jnp.where((n > _SLOTS)[:, None] & some, quotient(by_clue, denominator), 0.0)
    unrevealed = jnp.sum((n <= _SLOTS) & (cand == ALL_CLUES))
    mass = total * jnp.exp(top) / jnp.asarray(_FACTORIALS)[unrevealed]
    return Beliefs(chief, assistant, clue, mass)


def beliefs(
    rules: Rules,
    reading: Reading,
    state: State,
    seat: jax.Array,
    values: jax.Array | None = None,
    params: BayesParams | None = None,
    follow: float | None = None,
    clues: bool = True,
    chunk: int = CHUNK,
) -> tuple[Reading, Beliefs]:
    """``seat``'s reading brought up to date and its weighted posterior (the twin's
    ``PlayersReader.beliefs``); arguments as :func:`read`."""
    reading, logs = read(rules, reading, state, seat, values, params, follow, chunk)
    return reading, weighted_beliefs(state, seat, logs, clues)


def _observed(rules: Rules, state: State, seat: jax.Array, weighted: Beliefs, exact: Beliefs | None) -> Beliefs:
    if exact is None:
        exact = seat_beliefs(rules, state, seat)
    reading = (state.clues[seat] >= 0) & (state.phase < SCORING)
    return Beliefs(
        jnp.where(reading, weighted.chief, exact.chief),
        jnp.where(reading, weighted.assistant, exact.assistant),
        jnp.where(reading, weighted.clue, exact.clue),
        jnp.where(reading, weighted.assignments, exact.assignments.astype(F32)),
    )


def observed_posterior(
    rules: Rules, state: State, seat: jax.Array, exact: Beliefs | None = None, chunk: int = FRESH_CHUNK
) -> Beliefs:
    """The ``players_*`` pieces of the 964-entry layout (``OBSERVATION_WITH_PLAYER_BELIEFS``) for
    ``seat``, read afresh as the twin's ``observed_posterior`` reads without a reader: where the
    seat holds its clue and the round is not scored, the weighted posterior of a fresh reading
    (``chunk``, static: windows per loop pass), elsewhere the exact posterior (``exact`` if given).
    Seats absolute, as ``jax.observation.observe(players=...)`` takes them."""
    seat = jnp.asarray(seat, I32)
    _, logs = read(rules, init(), state, seat, chunk=chunk)
    return _observed(rules, state, seat, weighted_beliefs(state, seat, logs), exact)


def kept_observed_posterior(
    rules: Rules, reading: Reading, state: State, seat: jax.Array, exact: Beliefs | None = None
) -> tuple[Reading, Beliefs]:
    """:func:`observed_posterior` with a reading kept across steps (the twin's ``observed_posterior``
    with a reader), brought up to date only where the seat reads (it holds its clue, not scored)."""
    seat = jnp.asarray(seat, I32)
    updated, weighted = beliefs(rules, reading, state, seat)
    reads = (state.clues[seat] >= 0) & (state.phase < SCORING)
    reading = jax.tree_util.tree_map(lambda new, old: jnp.where(reads, new, old), updated, reading)
    return reading, _observed(rules, state, seat, weighted, exact)


def model_actions(
    rules: Rules,
    state: State,
    values: jax.Array,
    decider: jax.Array,
    card: jax.Array,
    targets: jax.Array,
    others: jax.Array,
    forced: jax.Array,
    params: BayesParams | None = None,
) -> tuple[jax.Array, jax.Array]:
    """One decision's hypotheses as the reader judges them: the clues ``decider`` may have held
    after card ``card`` (10-bit set) and bayes_v1's action under each (10,) (-1: no world). For
    differential tests (the twin's ``hypotheses`` and ``predictions``) and for tracing near-ties."""
    params, _ = _model(params, None)
    r = _round(state, values)
    table = _card(r, jnp.asarray(card, I32))
    candidates, counts = _hypotheses(table, jnp.asarray(decider, I32))
    targets = jnp.asarray(targets, U32)
    predicted = _predict(params, state.options.chief_uncaught, r, counts, table.drawn, targets, others, forced)
    return candidates, predicted


# ------------------------------------------------------------------------------ bayes_v2
class BayesV2Carry(NamedTuple):
    """bayes_v2's carry in one game: the players' streams and its kept reading."""

    streams: Streams
    reading: Reading


def start_bayes_v2(game_key: jax.Array) -> BayesV2Carry:
    """A new game's carry (``Player.start``)."""
    return BayesV2Carry(start_streams(game_key), init())


def _bayes_v2(rules: Rules, state: State, carry: BayesV2Carry, params: BayesV2Params) -> tuple[jax.Array, BayesV2Carry]:
    """``BatchBayesV2Agent.act``: bayes_v1's rule on the posterior that reads the other players,
    the reading brought up to date at the seat's windows and forced accusations only (the twin's
    ``accuse``); clue faces and Cafe Adler swaps as bayes_v1 (``jax.players.accuser``)."""
    kind = state.pending_kind
    seat = jnp.clip(state.pending_seat.astype(I32), 0)
    accusing = (kind == WINDOW) | (kind == FORCED_ACCUSATION)
    values = expected_chip_values(rules, state, seat)
    updated, b = beliefs(rules, carry.reading, state, seat, values, params, params.follow, clues=False)

    def accuse(rules: Rules, state: State, seat: jax.Array, forced: jax.Array, p: BayesV2Params) -> jax.Array:
        return apply_rule(p, rules, state, seat, b.chief, b.assistant, values, forced)

    action, streams = accuser(accuse)(rules, state, carry.streams, params)
    reading = jax.tree_util.tree_map(lambda new, old: jnp.where(accusing, new, old), updated, carry.reading)
    return action, BayesV2Carry(streams, reading)


def make_bayes_v2(**params: float) -> Player:
    """bayes_v2 with ``BayesV2Params`` (``follow`` and bayes_v1's); its carry is a :class:`BayesV2Carry`."""
    return Player("bayes_v2", _bayes_v2, BayesV2Params.of("bayes_v2", params), begin=start_bayes_v2)


__all__ = [
    "CHUNK",
    "FRESH_CHUNK",
    "BayesV2Carry",
    "Reading",
    "beliefs",
    "fixed_factors",
    "init",
    "kept_observed_posterior",
    "likelihood",
    "make_bayes_v2",
    "model_actions",
    "observed_posterior",
    "read",
    "relative_logs",
    "start_bayes_v2",
    "weighted_beliefs",
    "world_masks",
]
