"""Exact beliefs for a batch of (game, seat) pairs: the numbers of ``reading.beliefs``, bit for bit.

Its scalar twin: ckc_env/reading/beliefs.py.

See ``ckc_env.reading.beliefs`` for why the posterior is uniform over the hidden assignments
consistent with a seat's information set. Here the assignments are counted per game with table lookups:

**Worlds.** A world gives each of 5 *slots* a clue: slots 0..n-1 are the seats, slots n..4 the bag
tiles in reveal order. It is a permutation p of the 5 features over the slots (120) and a face for
each feature, i.e. a chief c (32): 3840 worlds, the same for 3, 4 and 5 players.

**What a seat knows is a product over slots.** Every public event narrows one slot: a cat in seat
s's row (slot s shows it), a discard (it does not), the k-th public clue (slot n+k holds it), a
face-up clue, the seat's own clue or tile. So the consistent worlds are those whose clue in each
slot s lies in a set ``cand[s]`` of the 10 clues, and counting them needs only ``cand`` (k, 5).

**Counting.** Per slot and candidate set a table holds the 3840 world bits, laid out chief by chief
(32 x 128 bits); ANDing the 5 slots' rows and counting bits per chief gives the number of
consistent worlds with each chief; a cat is an assistant in the worlds of the five chiefs next to
it. For the clue of a slot: with the permutation fixed, faces are independent, so perm p has
``prod_s N[s, p(s)]`` consistent worlds (N: faces of the slot's feature its set allows, 0..2), and
the worlds where slot s holds clue q are ``[q allowed] / N[s, f] * sum_{p: p(s) = f} count(p)``. Every count is an exact integer; each
probability is one float64 division of two of them, as in the scalar code (which counts the
unrevealed bag tiles unordered: its counts are ours divided by the number of their orders, the
same ratios, so the same correctly rounded quotients).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from itertools import permutations
from math import factorial

import numpy as np

from ..engine.cards import CLUE_CATS, N_CATS, N_CLUES, N_FEATURES
from ..engine.state import SCORING
from .state import MAX_BAG, SEAT_RANGE, SEATS, BatchState

ALL_CLUES = (1 << N_CLUES) - 1
PERMS = np.array(list(permutations(range(N_FEATURES))), dtype=np.int64)
"""(120, 5): ``PERMS[p, s]`` is the feature in slot s under permutation p."""
_CLUE_CATS = np.array(CLUE_CATS, dtype=np.uint32)


@cache
def _tables() -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Built on first use (about 3 MB): world bits, face counts, perms grouped by slot feature, clue shares."""
    sets = np.arange(1 << N_CLUES)
    faces = np.stack([((sets >> (2 * f)) & 1) + ((sets >> (2 * f + 1)) & 1) for f in range(N_FEATURES)], 1)
    face_counts = np.ascontiguousarray(faces[:, PERMS.T].transpose(1, 0, 2)).astype(np.uint8)  # (5, 1024, 120)
    chief = np.arange(N_CATS)
    # clue of slot s in world (p, c): 2 * f + side, side 0 (value A) when bit f of the chief is set
    slot_clue = 2 * PERMS[None, :, :] + 1 - ((chief[:, None, None] >> PERMS[None, :, :]) & 1)  # (32, 120, 5)
    world_bits = np.zeros((SEATS, 1 << N_CLUES, 2 * N_CATS), dtype=np.uint64)
    for s in range(SEATS):
        allowed = np.zeros((1 << N_CLUES, N_CATS, 128), dtype=np.uint8)
        allowed[:, :, :120] = (sets[:, None, None] >> slot_clue[None, :, :, s]) & 1
        packed = np.packbits(allowed, axis=-1, bitorder="little").view("<u8")
        world_bits[s] = packed.reshape(1 << N_CLUES, 2 * N_CATS)
    # the perms ordered, for each slot s, by the feature they put in s: 5 groups of 24
    grouped = np.concatenate([np.argsort(PERMS[:, s], kind="stable") for s in range(SEATS)])
    share = np.zeros((1 << N_CLUES, N_CLUES))  # [set, q] = [q allowed] / (faces of q's feature allowed)
    for q in range(N_CLUES):
        count = faces[:, q >> 1]
        share[:, q] = np.where(count > 0, ((sets >> q) & 1) / np.maximum(count, 1), 0.0)
    return world_bits, face_counts, grouped, share


_NEIGHBOURS = np.arange(N_CATS)[:, None] ^ (1 << np.arange(N_FEATURES))[None, :]
"""``_NEIGHBOURS[c]``: the five cats that differ from cat c in one feature (its assistants if c is
the chief, and the chiefs that make c an assistant)."""


@dataclass(frozen=True)
class BatchBeliefs:
    """Posteriors of k (game, seat) pairs; seats absolute (``clue[i, s]``: seat s's clue
    distribution; rows of seats a game does not have are zero). Arrays are float64, as in
    :class:`ckc_env.reading.beliefs.Beliefs`."""

    chief: np.ndarray  # (k, 32) P(cat is the chief spy)
    assistant: np.ndarray  # (k, 32) P(cat is an assistant)
    clue: np.ndarray | None  # (k, 5, 10) P(seat's clue = c)
    assignments: np.ndarray  # (k,) consistent hidden assignments, counted as ckc_env.reading.beliefs counts them

    @property
    def innocent(self) -> np.ndarray:
        return 1.0 - self.chief - self.assistant


def clue_candidates(rows: np.ndarray, discards: np.ndarray) -> np.ndarray:
    """The set of clues (10 bits) shown by every cat of a row and by no cat of a discard pile."""
    if rows.size <= 256:  # few piles: one pass over (piles, 10), cheaper than ten passes
        shown = ((rows[..., None] & _NOT_CLUE_CATS) == 0) & ((discards[..., None] & _CLUE_CATS) == 0)
        return shown @ _CLUE_BITS
    out = np.zeros(rows.shape, dtype=np.int64)
    for q in range(N_CLUES):
        cats = _CLUE_CATS[q]
        out |= (((rows & ~cats) == 0) & ((discards & cats) == 0)).astype(np.int64) << q
    return out


_NOT_CLUE_CATS = ~_CLUE_CATS
_CLUE_BITS = np.int64(1) << np.arange(N_CLUES, dtype=np.int64)


def slot_candidates(state: BatchState, games: np.ndarray, seats: np.ndarray) -> np.ndarray:
    """(k, 5) the clues each slot may hold in the information set of ``seats[i]`` in ``games[i]``.

    Reads only what the seat may know (``PlayerView``): every row and discard pile, its own clue
    (or tile, while the face is to be chosen), the clue face-up under the Stasi card, the public
    clues; once the round is scored, every clue and the whole bag.
    """
    k = len(games)
    rows = np.arange(k)
    n = state.n[games].astype(np.int64)
    clues = state.clues[games].astype(np.int64)
    cand = clue_candidates(state.rows[games], state.discards[games])
    scored = state.phase[games] >= SCORING
    seated = n[:, None] > SEAT_RANGE
    known = seated & scored[:, None]
    holder = state.stasi_exposed[games].astype(np.int64)
    exposed = (holder >= 0) & ~scored
    exposed[exposed] = clues[rows[exposed], holder[exposed]] >= 0
    known[rows[exposed], holder[exposed]] = True
    known[rows, seats] |= clues[rows, seats] >= 0
    cand = np.where(known, 1 << clues.clip(0), cand)
    own_tile = state.tiles[games, seats].astype(np.int64)
    choosing = clues[rows, seats] < 0
    cand[rows[choosing], seats[choosing]] &= 3 << (2 * own_tile[choosing])
    # slots n.. are the bag tiles: revealed ones hold their clue, the others any
    revealed = np.where(scored, SEATS - n, state.public_count[games])
    bag = state.bag[games].astype(np.int64)
    for j in range(MAX_BAG):
        slot = n + j
        in_bag = slot < SEATS
        g = rows[in_bag]
        cand[g, slot[in_bag]] = np.where(j < revealed[in_bag], 1 << bag[g, j].clip(0), ALL_CLUES)
    return cand


def count_worlds(cand: np.ndarray, clues: bool = True) -> tuple[np.ndarray, np.ndarray | None]:
    """Exact counts over the worlds allowed by ``cand`` (k, 5): per chief (k, 32) and, with
    ``clues``, per slot and clue (k, 5, 10), as float64 holding integers. No BLAS: its threads cost
    more than they save on these small products, and far more on a busy machine."""
    world_bits, face_counts, grouped, share = _tables()
    bits = world_bits[0][cand[:, 0]]
    for s in range(1, SEATS):
        bits &= world_bits[s][cand[:, s]]
    pop = np.bitwise_count(bits)
    chief_counts = (pop[:, 0::2] + pop[:, 1::2]).astype(np.float64)
    if not clues:
        return chief_counts, None
    per_perm = face_counts[0][cand[:, 0]]
    for s in range(1, SEATS):
        per_perm *= face_counts[s][cand[:, s]]
    k = len(cand)
    by_slot_feature = per_perm[:, grouped].reshape(k, SEATS, N_FEATURES, 24).sum(3, dtype=np.int64)
    clue_counts = np.repeat(by_slot_feature, 2, axis=2) * share[cand]
    return chief_counts, clue_counts


def neighbour_sums(chief_counts: np.ndarray) -> np.ndarray:
    """(k, 32) the worlds in which each cat is an assistant: the worlds of the five cats one feature
    away as the chief, from the worlds per chief (k, 32)."""
    neighbours = chief_counts[:, _NEIGHBOURS[:, 0]]
    for f in range(1, N_FEATURES):
        neighbours = neighbours + chief_counts[:, _NEIGHBOURS[:, f]]  # integer sums: exact in any order
    return neighbours


def chief_and_assistant(chief_counts: np.ndarray, total: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """P(chief) and P(assistant) (k, 32) from the worlds counted per chief and their ``total``: one
    division of exact integers each, as the scalar code divides."""
    return chief_counts / total[:, None], neighbour_sums(chief_counts) / total[:, None]


def seat_beliefs(state: BatchState, games: np.ndarray, seats: np.ndarray, clues: bool = True) -> BatchBeliefs:
    """The exact posterior of ``seats[i]``'s information set in game ``games[i]`` (without the
    seats' clue distributions, which the scripted players do not read, when ``clues`` is False:
    ``clue`` is then None)."""
    games = np.asarray(games, dtype=np.int64)
    seats = np.asarray(seats, dtype=np.int64)
    cand = slot_candidates(state, games, seats)
    chief_counts, clue_counts = count_worlds(cand, clues)
    total = chief_counts.sum(1)
    if np.any(total == 0):
        bad = games[total == 0][:5]
        raise ValueError(f"inconsistent information sets (no assignment) in games {bad.tolist()}")
    chief, assistant = chief_and_assistant(chief_counts, total)
    n = state.n[games].astype(np.int64)
    clue = None
    if clue_counts is not None:
        clue = np.where((n[:, None] > SEAT_RANGE)[:, :, None], clue_counts / total[:, None, None], 0.0)
    unrevealed = ((n[:, None] <= SEAT_RANGE) & (cand == ALL_CLUES)).sum(1)
    assignments = np.round(total).astype(np.int64) // _FACTORIALS[unrevealed]
    return BatchBeliefs(chief, assistant, clue, assignments)


_FACTORIALS = np.array([factorial(i) for i in range(SEATS + 1)], dtype=np.int64)
