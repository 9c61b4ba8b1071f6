"""The players' posterior for a batch: what the scalar ``PlayersReader`` reads of the other
players' decisions, for many (game, seat) pairs at once, with the scalar reader's numbers bit for bit.

Its scalar twin: ckc_env/reading/players_posterior.py.

The scalar reader judges every decision of the round on the table as it lay then: after card k,
each player asked passed unless it accused; each accusation was taken on the table of its window.
Under each clue q the decider may have held, a model of it (bayes_v1 following its rule with
probability ``follow``) predicts an action, and ``log(follow * hit + (1 - follow) / legal)`` is
added to the decider's factors for q. Here the same happens for all pairs at once:

- **Decisions.** Every window closed and every accusation made since a pair was last read becomes
  an item (decider, table k, action, targets, who had accused), read from the record as the scalar
  reader reads it (``accused_at``, the accusations in order, the cards drawn in order).
- **The model's predictions.** Each item and candidate clue is an information set of the decider,
  a product over slots as in ``batch.beliefs``: its clue, the clue face-up under the Stasi card, the
  public clues revealed by card k, every row and discard pile after card k. Its worlds are counted
  (``batch.beliefs.count_worlds``: the scalar posterior, bit for bit) and bayes_v1's rule predicts
  from that posterior (``batch.bayes_rule.accuse_or_pass``, evaluated at the few target cats only).
- **Exact sums.** A factor is one of 68 values (hit or not, 1 to 33 legal actions). Each is an exact
  integer multiple of a power of two, kept as 26-bit limbs; a pair's factors per seat and clue are
  summed as integers and rounded once, which is what ``math.fsum`` returns, whatever the order.
- **The weighted posterior.** ``reading.beliefs.weighted_beliefs`` multiplies the seats'
  likelihoods in seat order and sums the assignments with one matrix-vector product; here the
  products are taken in the same order and each pair's sum is the same BLAS ``gemv`` call (a
  stacked ``matmul``), so the sums are rounded alike.

What a reading depends on: like the scalar reader, a :class:`PlayersReader` remembers per game and
seat which windows and accusations it has read, and reads a window's passes once it has closed.
During the forced accusations that matters: a window read before a player's forced accusation
counts its pass there, one read after counts its accusation in that window instead, so a reader
gives the scalar reader's numbers when both are brought up to date at the same decisions (the
players' own, for ``bayes_v2`` and a policy). :func:`players_beliefs` reads each position afresh
(a fresh scalar ``PlayersReader``), as ``observation.encode_observation`` does.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from functools import cache

import numpy as np

from ..config import WHITE
from ..engine.actions import ACCUSE, PASS
from ..engine.cards import INVESTIGATOR, N_CATS, N_CLUES, N_FEATURES
from ..engine.state import FORCED, SCORING
from ..observation import PLAYERS_FOLLOW
from ..reading.bayes_rule import BayesParams
from ..reading.beliefs import XOR, hidden_assignments
from .bayes_rule import Counts, Position, accuse_or_pass, accuse_or_pass_exact, non_accuser_value, undrawn_worlds
from .beliefs import ALL_CLUES, BatchBeliefs, clue_candidates, count_worlds, seat_beliefs
from .chip_values import expected_chip_values
from .state import CAT_BITS, MAX_ACCUSATIONS, MAX_DECK, SEAT_RANGE, SEATS, BatchState

_BIT_INDEX = np.arange(N_CATS, dtype=np.uint32)
MAX_LEGAL = N_CATS + 1
"""The most legal actions of a window decision: pass, or any of the 32 cats."""
LIMB_BITS = 26
"""Limbs of 26 bits: four hold more than the 55 bits a correct rounding needs, and two fit a float64 exactly."""
HYPOTHESES_PER_CHUNK = 1 << 15
"""Predictions made at once (bounds the temporary arrays at a few MB each)."""
CLUE_FEATURE_BIT = np.array([1 << (q >> 1) for q in range(N_CLUES)] + [0], dtype=np.int64)
"""``CLUE_FEATURE_BIT[q]``: the bit of clue q's feature; index -1 (no clue) gives 0."""
_CLUE_BIT = np.array([1 << q for q in range(N_CLUES)] + [0], dtype=np.int64)
_CLUE_RANGE = np.arange(N_CLUES)


@cache
def factor_logs(follow: float) -> np.ndarray:
    """(68,) the factors ``log(follow * hit + (1 - follow) / legal)`` at ``legal + (MAX_LEGAL + 1) * hit``:
    the scalar reader's ``math.log`` of the same expression."""
    logs = np.zeros(2 * (MAX_LEGAL + 1))
    for hit in (False, True):
        for legal in range(1, MAX_LEGAL + 1):
            logs[legal + (MAX_LEGAL + 1) * hit] = math.log(follow * hit + (1 - follow) / legal)
    return logs


@cache
def factor_limbs(follow: float) -> tuple[np.ndarray, int]:
    """The factors of :func:`factor_logs`, each as exact integer limbs of ``2 ** -scale``: (68, K)
    int64 (the top limb signed) and ``scale``."""
    exact = [Fraction(v) for v in factor_logs(follow).tolist()]
    scale = max(f.denominator.bit_length() - 1 for f in exact)
    integers = [int(f * (1 << scale)) for f in exact]
    # a pair sums per seat and clue at most one factor per window and one per accusation (< 40): 7 bits spare
    bits = max(abs(i) for i in integers).bit_length() + 7
    count = -(-bits // LIMB_BITS) + 1
    mask = (1 << LIMB_BITS) - 1
    limbs = np.array(
        [
            [(i >> (LIMB_BITS * j)) & mask for j in range(count - 1)] + [i >> (LIMB_BITS * (count - 1))]
            for i in integers
        ],
        dtype=np.int64,
    )
    return limbs, scale


def _normalise(limbs: np.ndarray) -> None:
    """Carry each limb's excess into the next (in place): all limbs but the top in [0, 2**26)."""
    for j in range(limbs.shape[-1] - 1):
        carry = limbs[..., j] >> LIMB_BITS
        limbs[..., j] -= carry << LIMB_BITS
        limbs[..., j + 1] += carry


def round_sums(limbs: np.ndarray, scale: int) -> np.ndarray:
    """The float64 nearest (ties to even) to each exact sum ``sum_j limbs[..., j] * 2**(26 j - scale)``:
    ``math.fsum`` of the factors summed there."""
    shape = limbs.shape[:-1]
    x = limbs.reshape(-1, limbs.shape[-1]).copy()
    _normalise(x)
    negative = x[:, -1] < 0
    x[negative] = -x[negative]
    _normalise(x)
    width = x.shape[1]
    nonzero = x != 0
    top = width - 1 - np.argmax(nonzero[:, ::-1], axis=1)  # the highest non-zero limb (0 when all are)
    padded = np.concatenate([np.zeros((len(x), 3), dtype=np.int64), x], axis=1)  # limb j at j + 3
    rows = np.arange(len(x))
    a0, a1, a2, a3 = (padded[rows, top + 3 - i].astype(np.float64) for i in range(4))
    high = (a0 * (1 << LIMB_BITS) + a1) * float(1 << 52)  # exact: 52 bits, times a power of two
    low = a2 * (1 << LIMB_BITS) + a3  # exact
    rounded = high + low  # the top 104 bits, rounded once
    error = low - (rounded - high)  # exact (Fast2Sum: |high| >= |low|)
    below = nonzero & (np.arange(width) < (top - 3)[:, None])
    # rounded down to even at a tie, but limbs below the top four make it more than a tie: round up
    up = below.any(1) & (error > 0) & (error == np.spacing(rounded) / 2)
    rounded = np.where(up, np.nextafter(rounded, np.inf), rounded)
    out = np.ldexp(rounded, LIMB_BITS * (top - 3) - scale)
    return np.where(negative, -out, out).reshape(shape)


class Tables:
    """Rows, discard piles and revealed public clues of some games after each of their first k cards."""

    def __init__(self, state: BatchState, games: np.ndarray) -> None:
        deck = state.deck[games].astype(np.int64)
        drawer = state.card_drawer[games].astype(np.int64)
        drawn = np.arange(MAX_DECK) < state.deck_pos[games, None]
        bit = np.where(drawn, CAT_BITS[deck], 0).astype(np.uint32)  # investigator cards and undrawn: 0
        # a drawn cat lies now where it went then: rows and discard piles only grow
        in_row = (np.take_along_axis(state.rows[games], drawer.clip(0), 1) & bit) != 0
        at_seat = drawer[:, :, None] == SEAT_RANGE
        size = len(games)
        self.rows = np.zeros((size, MAX_DECK + 1, SEATS), dtype=np.uint32)
        self.discards = np.zeros((size, MAX_DECK + 1, SEATS), dtype=np.uint32)
        placed = np.where(at_seat, bit[:, :, None], np.uint32(0))
        self.rows[:, 1:] = np.bitwise_or.accumulate(np.where(in_row[:, :, None], placed, np.uint32(0)), axis=1)
        self.discards[:, 1:] = np.bitwise_or.accumulate(np.where(in_row[:, :, None], np.uint32(0), placed), axis=1)
        self.revealed = np.zeros((size, MAX_DECK + 1), dtype=np.int64)
        self.revealed[:, 1:] = np.cumsum(drawn & (deck == INVESTIGATOR), axis=1)


_KEY, _ROUND, _WINDOWS, _ACCUSATIONS = range(4)


class PlayersReader:
    """The scalar ``PlayersReader`` for every (game, seat) of a batch: what the other players'
    decisions of the round reveal of their clues, under the model that each plays bayes_v1 with
    ``params``, following its rule with probability ``follow``. Each (game, seat) remembers what it
    has read, as a scalar reader does; a pair forgets when its game's key or round changes, or when
    :meth:`start` says its game is new."""

    def __init__(self, params: BayesParams | None = None, follow: float = PLAYERS_FOLLOW) -> None:
        self.params = params if params is not None else BayesParams()
        self.follow = float(follow)
        self.limbs, self.scale = factor_limbs(self.follow)
        # per game and seat: the game's key, the round read (-1: none), windows and accusations read
        self.read = np.zeros((0, SEATS, 4), dtype=np.int64)
        self.sums = np.zeros((0, SEATS, SEATS, N_CLUES, self.limbs.shape[1]), dtype=np.int64)
        self.logs = np.zeros((0, SEATS, SEATS, N_CLUES))  # the sums rounded: math.fsum of the factors

    def start(self, games: np.ndarray) -> None:
        """New games in ``games``: forget what was read there."""
        games = np.asarray(games, dtype=np.int64)
        if len(games):
            self._grow(int(games.max()) + 1)
            self.read[games, :, _ROUND] = -1

    def _grow(self, size: int) -> None:
        have = len(self.read)
        if size > have:
            fresh = np.zeros((size - have, SEATS, 4), dtype=np.int64)
            fresh[:, :, _ROUND] = -1
            self.read = np.concatenate([self.read, fresh])
            self.sums = np.concatenate([self.sums, np.zeros((size - have, *self.sums.shape[1:]), dtype=np.int64)])
            self.logs = np.concatenate([self.logs, np.zeros((size - have, *self.logs.shape[1:]))])

    def likelihood(
        self, state: BatchState, games: np.ndarray, seats: np.ndarray, values: np.ndarray | None = None
    ) -> np.ndarray:
        """(k, 5, 10) the clue likelihoods of every seat seen from ``seats[i]`` in game ``games[i]``
        (each seat's scaled so its largest is 1), brought up to date: the scalar
        ``PlayersReader.update``. The pairs must be distinct; ``values`` (k, 3) are the chip values the modelled players are taken
        to expect (default: the seat's own, ``batch.chip_values.expected_chip_values``). Rows of the seat
        itself and of seats a game does not have are not meaningful."""
        games = np.asarray(games, dtype=np.int64)
        seats = np.asarray(seats, dtype=np.int64)
        if values is None:
            values = expected_chip_values(state, games, seats)
        self._grow(state.batch_size)
        closed = state.deck_pos[games].astype(np.int64) - (state.phase[games] < FORCED)
        made = state.accusation_count[games].astype(np.int64)
        read = self.read[games, seats]  # (k, 4)
        key = state.key[games].view(np.int64)
        stale = (
            (read[:, _ROUND] != state.round_index[games])
            | (read[:, _KEY] != key)
            | (read[:, _WINDOWS] > closed)
            | (read[:, _ACCUSATIONS] > made)
        )
        if stale.any():  # a new round (or game): nothing read yet
            g, s = games[stale], seats[stale]
            read[stale] = np.stack([key[stale], state.round_index[g], np.zeros_like(g), np.zeros_like(g)], axis=1)
            self.sums[g, s] = 0
            self.logs[g, s] = 0.0
        logs = self.logs[games, seats]  # (k, 5, 10)
        if ((closed > read[:, _WINDOWS]) | (made > read[:, _ACCUSATIONS])).any():
            sums = self.sums[games, seats]  # (k, 5, 10, K)
            touched = _read(state, games, seats, read[:, _WINDOWS], read[:, _ACCUSATIONS], values, self, sums)
            if len(touched):  # an entry read twice is rounded twice, to the same number
                logs.reshape(-1)[touched] = round_sums(sums.reshape(-1, sums.shape[-1])[touched], self.scale)
                self.sums[games, seats] = sums
                self.logs[games, seats] = logs
        read[:, _WINDOWS] = np.maximum(closed, read[:, _WINDOWS])
        read[:, _ACCUSATIONS] = made
        self.read[games, seats] = read
        return np.exp(logs - logs.max(2, keepdims=True))

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
        """Add the factor of each item's action under each clue its decider may have held then
        (``bayes_v2.judge``); returns the flat (pair, seat, clue) entries added to."""
        found = hypotheses(state, games, tables, items)
        kinds = factor_kinds(items, found, predictions(state, games, items, found, values, self.params))
        return add_factors(items, found, kinds, self.limbs, sums)

    def beliefs(
        self,
        state: BatchState,
        games: np.ndarray,
        seats: np.ndarray,
        values: np.ndarray | None = None,
        clues: bool = True,
    ) -> BatchBeliefs:
        """The posterior of ``seats[i]`` in ``games[i]`` weighted by what it reads of the others'
        decisions (``weighted_beliefs(view, reader.update(view, values))``), brought up to date;
        without the seats' clue distributions unless ``clues``."""
        likelihood = self.likelihood(state, games, seats, values)
        return weighted_seat_beliefs(state, games, seats, likelihood, clues)


def _read(
    state: BatchState,
    games: np.ndarray,
    seats: np.ndarray,
    windows: np.ndarray,
    accusations: np.ndarray,
    values: np.ndarray,
    reader: PlayersReader,
    sums: np.ndarray,
) -> np.ndarray:
    """Add to ``sums`` (k, 5, 10, K) the factors of every window closed after ``windows`` and every
    accusation after ``accusations`` of each pair (``bayes_v2.window_passes`` and
    ``accusation_at``); returns the flat (pair, seat, clue) entries added to."""
    found = decisions(state, games, seats, windows, accusations)
    if found is None:
        return np.zeros(0, dtype=np.int64)
    tables, items = found
    return reader._weigh(state, games, seats, tables, items, values, sums)


def decisions(
    state: BatchState,
    games: np.ndarray,
    seats: np.ndarray,
    windows: np.ndarray,
    accusations: np.ndarray,
    last_window: np.ndarray | None = None,
    tables: Tables | None = None,
) -> tuple[Tables, dict[str, np.ndarray]] | None:
    """The decisions on record after ``windows`` closed windows and ``accusations`` accusations of
    each pair, other than the pair's seat's own (``seats[i] = -1``: every seat's), as items: the
    passes of each window closed (up to ``last_window`` if given), then the accusations, each on the
    table as it lay then (``bayes_v2.decisions_since``), with ``tables`` of these games if already
    built. None when there are none."""
    k = len(games)
    closed = state.deck_pos[games].astype(np.int64) - (state.phase[games] < FORCED)
    if last_window is not None:
        closed = np.minimum(closed, last_window)
    made = state.accusation_count[games].astype(np.int64)
    new_windows = np.maximum(closed - windows, 0)
    new_accusations = made - accusations
    if not (new_windows.sum() + new_accusations.sum()):
        return None
    tables = tables if tables is not None else Tables(state, games)
    n = state.n[games].astype(np.int64)
    acc_seat = state.accusation_seat[games].astype(np.int64)  # (k, 4)
    acc_cat = state.accusation_cat[games].astype(np.int64)
    made_mask = np.arange(MAX_ACCUSATIONS) < made[:, None]
    acc_at = np.where(made_mask, np.take_along_axis(state.accused_at[games], acc_seat.clip(0), 1), -1)
    acc_bits = np.where(made_mask, CAT_BITS[acc_cat], 0).astype(np.uint32)
    accusers = state.accused_by[games] >= 0  # (k, 5)
    accused_at = state.accused_at[games].astype(np.int64)

    # windows: every player asked who did not accuse in it passed
    pair = np.repeat(np.arange(k), new_windows)
    card = windows[pair] + 1 + np.arange(len(pair)) - np.repeat(np.cumsum(new_windows) - new_windows, new_windows)
    before = acc_at[pair] < card[:, None]
    before &= acc_at[pair] >= 0
    taken = np.bitwise_or.reduce(np.where(before, acc_bits[pair], np.uint32(0)), axis=1)
    in_window = np.bitwise_or.reduce(np.where(acc_at[pair] == card[:, None], acc_bits[pair], np.uint32(0)), axis=1)
    row_cats = np.bitwise_or.reduce(tables.rows[pair, card], axis=1)
    window_targets = row_cats & ~taken
    asked = (window_targets & ~in_window) != 0  # who was asked before the window's accusations is not on record
    judged = (
        asked[:, None]
        & (n[pair, None] > SEAT_RANGE)
        & (seats[pair, None] != SEAT_RANGE)
        & ~(accusers[pair] & (accused_at[pair] <= card[:, None]))
    )
    w_item, w_seat = np.nonzero(judged)
    w_pair, w_card = pair[w_item], card[w_item]
    w_targets = window_targets[w_item]
    w_others = n[w_pair] - before[w_item].sum(1) - 1

    # accusations, each on the table as it lay when it was made
    pair = np.repeat(np.arange(k), new_accusations)
    position = (
        accusations[pair]
        + np.arange(len(pair))
        - np.repeat(np.cumsum(new_accusations) - new_accusations, new_accusations)
    )
    seat = acc_seat[pair, position]
    mine = seat != seats[pair]
    pair, position, seat = pair[mine], position[mine], seat[mine]
    a_card = accused_at[pair, seat]
    earlier = np.arange(MAX_ACCUSATIONS) < position[:, None]
    a_taken = np.bitwise_or.reduce(np.where(earlier, acc_bits[pair], np.uint32(0)), axis=1)
    a_targets = np.bitwise_or.reduce(tables.rows[pair, a_card], axis=1) & ~a_taken
    deck_pos = state.deck_pos[games].astype(np.int64)
    deck_empty = state.deck_len[games].astype(np.int64) == deck_pos
    a_forced = (a_card == deck_pos[pair]) & deck_empty[pair]  # on the last card: judged as forced

    items = {
        "pair": np.concatenate([w_pair, pair]),
        "card": np.concatenate([w_card, a_card]),
        "seat": np.concatenate([w_seat, seat]),
        "action": np.concatenate([np.full(len(w_pair), PASS), ACCUSE + acc_cat[pair, position]]),
        "forced": np.concatenate([np.zeros(len(w_pair), dtype=bool), a_forced]),
        "targets": np.concatenate([w_targets, a_targets]).astype(np.uint32),
        "others": np.concatenate([w_others, n[pair] - position - 1]),
        "position": np.concatenate([np.full(len(w_pair), -1), position]),  # -1: a pass
    }
    if not len(items["pair"]):
        return None
    return tables, items


@dataclass
class Hypotheses:
    """Each item's decider under each clue it may have held then (``bayes_v2.judge``'s loop): the
    item and clue of each hypothesis, and the items' tables as the decider saw them."""

    item: np.ndarray  # (h,) the item of each hypothesis
    clue: np.ndarray  # (h,) its supposed clue of the decider
    slots: np.ndarray  # (h, 5) the candidate clues of each slot (seats, then bag tiles): ``count_worlds``' input
    seen: np.ndarray  # (m, 5) per item, the clues each seat's row and discard pile allow
    holder: np.ndarray  # (m,) the seat whose clue the Stasi card exposed (-1: none)
    exposed: np.ndarray  # (m,) its clue (-1: none)
    public: np.ndarray  # (m,) the feature bits of the public clues revealed by the item's card
    public_a: np.ndarray  # (m,) those showing value A
    n: np.ndarray  # (m,) player counts
    cats: np.ndarray  # (m, w) the target cats (``_target_columns``)
    valid: np.ndarray  # (m, w) which are real
    drawn: np.ndarray  # (m,) the cats drawn by the item's card (uint32 bits)


def hypotheses(state: BatchState, games: np.ndarray, tables: Tables, items: dict[str, np.ndarray]) -> Hypotheses:
    """The hypotheses of the items (see :class:`Hypotheses`)."""
    pair, card, seat = items["pair"], items["card"], items["seat"]
    game = games[pair]
    m = len(pair)
    rows = np.arange(m)
    n = state.n[game].astype(np.int64)
    clues = state.clues[game].astype(np.int64)
    holder = np.where(state.phase[game] < SCORING, state.stasi_exposed[game], -1).astype(np.int64)
    exposed = np.full(m, -1, dtype=np.int64)
    has = holder >= 0
    exposed[has] = clues[rows[has], holder[has]]
    holder[exposed < 0] = -1
    revealed = tables.revealed[pair, card]
    bag = state.bag[game].astype(np.int64)
    public = np.arange(bag.shape[1]) < revealed[:, None]
    public_bits = np.bitwise_or.reduce(np.where(public, CLUE_FEATURE_BIT[bag], 0), axis=1)
    public_a = np.bitwise_or.reduce(np.where(public & (bag & 1 == 0), CLUE_FEATURE_BIT[bag], 0), axis=1)
    known = CLUE_FEATURE_BIT[exposed] | public_bits
    free_clues = FREE_CLUES[((1 << N_FEATURES) - 1) & ~known]
    table_rows = tables.rows[pair, card]  # (m, 5)
    table_discards = tables.discards[pair, card]
    seen = clue_candidates(table_rows, table_discards)  # (m, 5)
    candidates = seen[rows, seat] & free_clues

    # the decider's information set under each candidate clue, slot by slot (as batch.beliefs)
    slots = seen.copy()
    slots[rows[holder >= 0], holder[holder >= 0]] = _CLUE_BIT[exposed[holder >= 0]]
    for j in range(bag.shape[1]):
        slot = n + j
        in_bag = slot < SEATS
        slots[rows[in_bag], slot[in_bag]] = np.where(public[in_bag, j], _CLUE_BIT[bag[in_bag, j]], ALL_CLUES)
    item, clue = np.nonzero((candidates[:, None] >> _CLUE_RANGE) & 1)
    hypothesis_slots = slots[item]
    hypothesis_slots[np.arange(len(item)), seat[item]] = _CLUE_BIT[clue]
    cats, valid = _target_columns(items["targets"])
    drawn = np.bitwise_or.reduce(table_rows | table_discards, axis=1)
    return Hypotheses(item, clue, hypothesis_slots, seen, holder, exposed, public_bits, public_a, n, cats, valid, drawn)


def predictions(
    state: BatchState,
    games: np.ndarray,
    items: dict[str, np.ndarray],
    found: Hypotheses,
    values: np.ndarray,
    params: BayesParams,
) -> np.ndarray:
    """(h,) what bayes_v1 with ``params`` does in each hypothesis, on the exact posterior of its
    information set (-1 where it has no world: the decider could not have held that clue)."""
    item, pair = found.item, items["pair"]
    predicted = np.empty(len(item), dtype=np.int64)
    non_accuser_white = state.rules.config.non_accuser_white
    for start in range(0, len(item), HYPOTHESES_PER_CHUNK):
        part = slice(start, start + HYPOTHESES_PER_CHUNK)
        i = item[part]
        counts, _ = count_worlds(found.slots[part], clues=False)
        predicted[part] = _predict(
            params, counts, found.cats[i], found.valid[i], values[pair[i]], items["others"][i], found.n[i],
            found.drawn[i], items["forced"][i], non_accuser_white,
        )  # fmt: skip
    return predicted


def factor_kinds(items: dict[str, np.ndarray], found: Hypotheses, predicted: np.ndarray) -> np.ndarray:
    """(h,) the index of each hypothesis's factor (``factor_limbs``): whether the prediction is the
    action taken, and how many actions were legal."""
    item = found.item
    hit = predicted == items["action"][item]
    legal = (~items["forced"][item]).astype(np.int64) + np.bitwise_count(items["targets"][item]).astype(np.int64)
    return legal + (MAX_LEGAL + 1) * hit


def add_factors(
    items: dict[str, np.ndarray], found: Hypotheses, kinds: np.ndarray, limbs: np.ndarray, sums: np.ndarray
) -> np.ndarray:
    """Add each hypothesis's factor to its pair's sum for the decider and clue; returns the flat
    (pair, seat, clue) entries added to."""
    item = found.item
    entries = (items["pair"][item] * SEATS + items["seat"][item]) * N_CLUES + found.clue
    np.add.at(sums.reshape(-1, sums.shape[-1]), entries, limbs[kinds])
    return entries


def _target_columns(targets: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(k, w) the cats of each target set in ascending order, padded with cat 0, and which are real."""
    row, cat = np.nonzero((targets[:, None] >> _BIT_INDEX) & np.uint32(1))  # by row, then cat: ascending
    width = max(1, int(np.bincount(row, minlength=len(targets)).max(initial=0)))
    place = np.arange(len(row)) - np.searchsorted(row, row)  # the cat's place among its row's targets
    cats = np.zeros((len(targets), width), dtype=np.int64)
    cats[row, place] = cat
    valid = np.zeros((len(targets), width), dtype=bool)
    valid[row, place] = True
    return cats, valid


def _predict(
    p: BayesParams,
    counts: np.ndarray,
    cats: np.ndarray,
    valid: np.ndarray,
    values: np.ndarray,
    others_left: np.ndarray,
    n: np.ndarray,
    drawn: np.ndarray,
    forced: np.ndarray,
    non_accuser_white: str,
) -> np.ndarray:
    """``batch.bayes_rule.accuse_or_pass`` on the posterior of the worlds ``counts`` (k, 32) per chief,
    evaluated at the target cats only (``_target_columns``: a few of the 32): the same divisions of
    the same integers and the same float64 expressions, so the same decisions (with ``p.exact``,
    ``accuse_or_pass_exact`` on the integers themselves); -1 where no world is left (the decider
    could not have held that clue)."""
    if p.exact:
        counts = counts.astype(np.int64)
    flat = counts.reshape(-1)
    base = (np.arange(len(counts)) * N_CATS)[:, None]
    neighbours = flat[base + (cats ^ 1)]
    for f in range(1, N_FEATURES):
        neighbours = neighbours + flat[base + (cats ^ (1 << f))]  # integer sums: exact in any order
    total = counts.sum(1)  # integers: exact
    possible = total > 0
    if p.exact:
        exact = Counts(flat[base + cats], neighbours, total, undrawn_worlds(counts, drawn))
        chief_uncaught = non_accuser_white == "chief_uncaught"
        take, column = accuse_or_pass_exact(p, exact, valid, values, others_left, n, forced, chief_uncaught)
        best = cats[np.arange(len(cats)), column]
        return np.where(possible, np.where(take, ACCUSE + best, PASS), -1)
    total = np.where(possible, total, 1.0)[:, None]
    position = Position(flat[base + cats] / total, neighbours / total, valid, values, others_left, n, forced)
    return choose(p, position, lambda last: counts[last] / total[last], cats, drawn, non_accuser_white, possible)


def choose(
    p: BayesParams,
    position: Position,
    chief_of: Callable[[np.ndarray], np.ndarray],
    cats: np.ndarray,
    drawn: np.ndarray,
    non_accuser_white: str,
    possible: np.ndarray,
) -> np.ndarray:
    """bayes_v1's action in ``position``, whose posteriors are given at the target cats (``chief``,
    ``assistant``: (k, w), the cats ``cats``); ``chief_of(rows)`` gives the posterior over all 32 cats
    of the rows (a boolean mask) where the last one to decide compares with never accusing. -1 where
    not ``possible``."""
    values = position.values
    last = position.others_left <= 1  # only the last one to decide compares with never accusing
    non_accuser = values[:, WHITE].copy()  # "chief_uncaught": white unless the chief is caught
    if non_accuser_white != "chief_uncaught" and last.any():
        non_accuser[last] = non_accuser_value(values[last], chief_of(last), drawn[last], non_accuser_white)
    take, column = accuse_or_pass(p, position, non_accuser)
    best = cats[np.arange(len(cats)), column]
    return np.where(possible, np.where(take, ACCUSE + best, PASS), -1)


def weighted_seat_beliefs(
    state: BatchState, games: np.ndarray, seats: np.ndarray, likelihood: np.ndarray, clues: bool = True
) -> BatchBeliefs:
    """``reading.beliefs.weighted_beliefs`` of ``seats[i]``'s information set in ``games[i]``, each hidden
    assignment weighted by ``prod_s likelihood[i, s, clue of s]`` over the seats whose clue the seat
    does not know (other than itself): the same float64 products in the same order and the same
    BLAS call per pair, so the same numbers. ``assignments`` is the total weight; ``clue`` is None
    without ``clues`` (the scripted players read only the cats)."""
    games = np.asarray(games, dtype=np.int64)
    seats = np.asarray(seats, dtype=np.int64)
    k = len(games)
    rows = np.arange(k)
    n = state.n[games].astype(np.int64)
    hidden = state.clues[games].astype(np.int64)
    scored = state.phase[games] >= SCORING
    present = n[:, None] > SEAT_RANGE
    known = present & scored[:, None]
    holder = state.stasi_exposed[games].astype(np.int64)
    exposed = (holder >= 0) & ~scored
    exposed[exposed] = hidden[rows[exposed], holder[exposed]] >= 0
    known[rows[exposed], holder[exposed]] = True
    own = hidden[rows, seats]
    known[rows, seats] |= own >= 0
    revealed = np.where(scored, SEATS - n, state.public_count[games])
    bag = state.bag[games].astype(np.int64)
    shown = np.concatenate(
        [np.where(known, hidden, -1), np.where(np.arange(bag.shape[1]) < revealed[:, None], bag, -1)], 1
    )
    fixed = np.bitwise_or.reduce(CLUE_FEATURE_BIT[shown], axis=1)
    value_a = np.bitwise_or.reduce(CLUE_FEATURE_BIT[np.where(shown & 1 == 0, shown, -1)], axis=1)  # the chief's bits
    free_mask = ((1 << N_FEATURES) - 1) & ~fixed
    unknown = present & ~known
    have_all = clue_candidates(state.rows[games], state.discards[games]) & FREE_CLUES[free_mask][:, None]
    own_tile = state.tiles[games, seats].astype(np.int64)
    have_all[rows, seats] &= np.where(own < 0, 3 << (2 * own_tile.clip(0)), ALL_CLUES)
    weights_of = np.where((seats[:, None] == SEAT_RANGE)[:, :, None], 1.0, likelihood)  # no weight on itself
    # an assignment giving a seat a clue it cannot hold weighs 0, as the scalar mask makes it (the
    # weights are finite and non-negative: a product with a 0 is +0 whichever factor it is)
    weights_of = np.where((have_all[:, :, None] >> _CLUE_RANGE) & 1 == 1, weights_of, 0.0)
    clue = None
    if clues:
        clue = np.where((known & present)[:, :, None], (shown[:, :SEATS, None] == _CLUE_RANGE).astype(np.float64), 0.0)
    chief, assistant, mass = weighted_posterior(unknown, free_mask, value_a, weights_of, clue)
    if not (mass > 0).all():
        bad = games[~(mass > 0)][:5]
        raise ValueError(
            f"information sets with no weight left in games {bad.tolist()}: the evidence rules out every deal"
        )
    return BatchBeliefs(chief, assistant, clue, mass)


def weighted_posterior(
    unknown: np.ndarray,
    free_mask: np.ndarray,
    value_a: np.ndarray,
    weights_of: np.ndarray,
    clue: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``reading.beliefs.weighted_beliefs`` of k information sets given as the seats whose clue is unknown
    (k, 5), the features whose value is unknown (bits), the known features showing value A (bits)
    and each unknown seat's clue weights (k, 5, 10), 0 for the clues it cannot hold: (chief,
    assistant, mass), and the unknown seats' clue distributions written into ``clue`` if given.
    Where no weight is left (``mass`` 0) chief and assistant are 0."""
    k = len(unknown)
    chief = np.zeros((k, N_CATS))
    assistant = np.zeros((k, N_CATS))
    mass = np.zeros(k)
    count = unknown.sum(1)
    ordered = _UNKNOWN_ORDER[(unknown * _SEAT_BITS).sum(1)]  # the unknown seats, ascending
    group_of = count * 32 + free_mask
    for group in np.unique(group_of):
        members = np.flatnonzero(group_of == group)
        u, mask = int(group) // 32, int(group) % 32
        needs, weights, clue_of = _group(u, mask)
        step = max(1, (1 << 20) // len(needs))
        for start in range(0, len(members), step):
            r = members[start : start + step]
            order = ordered[r]
            factor = np.ones((len(r), len(needs)))
            for i in range(u):  # the scalar product's order: seat by seat, ascending
                factor *= weights_of[r, order[:, i]][:, clue_of[:, i]]
            totals = np.matmul(factor[:, None, :], weights)[:, 0]  # one gemv per pair, as the scalar product
            total = totals[:, :N_CATS].sum(1)
            mass[r] = total
            some = total > 0
            r, order, totals, total = r[some], order[some], totals[some], total[some]
            posterior = totals / total[:, None]
            perm = XOR[value_a[r]]
            chief[r] = np.take_along_axis(posterior[:, :N_CATS], perm, 1)
            assistant[r] = np.take_along_axis(posterior[:, N_CATS : 2 * N_CATS], perm, 1)
            if clue is not None:
                for i in range(u):
                    clue[r, order[:, i]] = posterior[:, 2 * N_CATS + N_CLUES * i : 2 * N_CATS + N_CLUES * (i + 1)]
    return chief, assistant, mass


_SEAT_BITS = 1 << SEAT_RANGE
_UNKNOWN_ORDER = np.array(
    [[s for s in range(SEATS) if (m >> s) & 1] + [0] * (SEATS - m.bit_count()) for m in range(32)]
)
"""``_UNKNOWN_ORDER[m]``: the seats of the bit set m in ascending order (padded with 0)."""
FREE_CLUES = np.array([sum(0b11 << (2 * f) for f in range(N_FEATURES) if (m >> f) & 1) for m in range(32)])
"""``FREE_CLUES[m]``: the clues of the features in the bit set m."""


@cache
def _group(unknown: int, free_mask: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The scalar ``hidden_assignments`` of ``unknown`` seats over the free features (the same arrays:
    the same BLAS call reads them), and the clue of each unknown seat in each assignment."""
    free = tuple(f for f in range(N_FEATURES) if (free_mask >> f) & 1)
    needs, weights = hidden_assignments(unknown, free)
    slices = [weights[:, 2 * N_CATS + N_CLUES * i : 2 * N_CATS + N_CLUES * (i + 1)] for i in range(unknown)]
    clue_of = np.stack([w.argmax(1) for w in slices], axis=1).reshape(len(weights), unknown)
    return needs, weights, clue_of


def players_beliefs(
    state: BatchState,
    games: np.ndarray,
    seats: np.ndarray,
    params: BayesParams | None = None,
    follow: float = PLAYERS_FOLLOW,
) -> BatchBeliefs:
    """The weighted posterior of each pair read afresh (a new scalar ``PlayersReader`` per pair), as
    ``observation.encode_observation`` computes ``players_chief`` without a kept reader."""
    return PlayersReader(params, follow).beliefs(state, games, seats)


def observed_posterior(
    state: BatchState,
    games: np.ndarray,
    seats: np.ndarray,
    reader: PlayersReader | None = None,
    exact: BatchBeliefs | None = None,
) -> BatchBeliefs:
    """The ``players_*`` pieces of an observation (``observation._fill_beliefs``): where the seat
    holds its clue and the round is not scored, the posterior that reads the others' decisions
    (with ``reader``, brought up to date, or afresh); elsewhere the exact posterior (``exact`` if
    given, else computed)."""
    games = np.asarray(games, dtype=np.int64)
    seats = np.asarray(seats, dtype=np.int64)
    if exact is None:
        exact = seat_beliefs(state, games, seats)
    reading = (state.clues[games, seats] >= 0) & (state.phase[games] < SCORING)
    if not reading.any():
        return exact
    chief, assistant, clue = exact.chief.copy(), exact.assistant.copy(), exact.clue.copy()
    assignments = exact.assignments.astype(np.float64)
    g, s = games[reading], seats[reading]
    weighted = (reader if reader is not None else PlayersReader()).beliefs(state, g, s)
    chief[reading], assistant[reading], clue[reading] = weighted.chief, weighted.assistant, weighted.clue
    assignments[reading] = weighted.assignments
    return BatchBeliefs(chief, assistant, clue, assignments)


__all__ = [
    "PlayersReader",
    "factor_limbs",
    "factor_logs",
    "observed_posterior",
    "players_beliefs",
    "round_sums",
    "weighted_seat_beliefs",
]
