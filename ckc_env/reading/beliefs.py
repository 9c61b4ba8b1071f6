"""Exact beliefs: the posterior over the hidden clues of a seat's information set.

Its batched twin: ckc_env/batch/beliefs.py.

What a seat knows of the round's clues: its own clue, the clue of a seat exposed by the Stasi
card, the public clues revealed from the bag, and every row and discard pile. Hidden are the clues
of the other seats and the faces of the tiles still in the bag. A *hidden assignment* gives every
unknown seat a distinct remaining feature with a face, and every tile left in the bag a face.

**Why every consistent assignment is equally likely.** The tiles are drawn uniformly at random,
so every way of dealing the remaining features to the unknown seats and the bag is equally likely;
each face is a fair coin (a toss by the rules, or a player's choice, which carries no strategic
weight because flipping a feature maps the deck onto itself, RULES.md 3.1); the deck is shuffled
independently of the clues. Given an assignment, the placement of every drawn cat (row or
discard) is determined, and an investigator card reveals each bag tile with the same chance. So
the likelihood of what was seen is the same constant for every assignment that agrees with it,
and zero otherwise: the posterior is uniform over the consistent assignments.

What this posterior ignores: other players' accusations and passes (their timing and targets
reveal something about their clues and beliefs, but modelling that needs a model of the players),
and anything from earlier rounds (each round is dealt afresh).

From the uniform posterior follow, for each of the 32 cats, P(chief), P(assistant) and
P(innocent), and for each seat P(its clue = each of the 10 clues). Results are cached per
information set (the candidate clues of each unknown seat, as bitmasks), since the same sets
recur constantly over a game and across games.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache, lru_cache
from itertools import count, permutations

import numpy as np

from ..engine.cards import CLUE_CATS, N_CATS, N_CLUES, N_FEATURES
from ..engine.view import PlayerView

_ASSISTANT_MATRIX = np.zeros((N_CATS, N_CATS), dtype=np.float64)
for _chief in range(N_CATS):
    for _f in range(N_FEATURES):
        _ASSISTANT_MATRIX[_chief, _chief ^ (1 << _f)] = 1.0


class Beliefs:
    """Posterior of one seat. Seats are absolute (``clue[s]`` is seat s's clue distribution).
    The arrays are built on first use (a scripted player reads only what it needs); treat them as
    read-only."""

    __slots__ = ("_assistant", "_chief", "_clue", "_frame", "_innocent", "_order", "_posterior", "assignments", "exact")

    def __init__(self, assignments: int, frame, order: list[int], posterior: np.ndarray, exact: bool = True) -> None:
        self.assignments = assignments  # number of consistent hidden assignments (the total weight if not ``exact``)
        self.exact = exact  # a ratio of assignment counts (``counts``), not a weighted posterior
        self._frame, self._order, self._posterior = frame, order, posterior
        self._chief = self._assistant = self._innocent = self._clue = None

    def counts(self) -> tuple[np.ndarray, np.ndarray, int]:
        """(chief, assistant, total): the assignments per cat as the chief and as an assistant (32,)
        int64, and their number, of an ``exact`` posterior: the integers its probabilities are
        ratios of (each probability is the correctly rounded quotient of two integers below 2**50,
        so multiplying back and rounding is exact)."""
        if not self.exact:
            raise ValueError("a weighted posterior has no assignment counts")
        total = self.assignments
        return np.rint(self.chief * total).astype(np.int64), np.rint(self.assistant * total).astype(np.int64), total

    @property
    def chief(self) -> np.ndarray:
        """(32,) P(cat is the chief spy)."""
        if self._chief is None:
            self._chief = self._posterior[:N_CATS][self._frame.perm]
        return self._chief

    @property
    def assistant(self) -> np.ndarray:
        """(32,) P(cat is an assistant)."""
        if self._assistant is None:
            self._assistant = self._posterior[N_CATS : 2 * N_CATS][self._frame.perm]
        return self._assistant

    @property
    def innocent(self) -> np.ndarray:
        """(32,) P(cat is innocent)."""
        if self._innocent is None:
            self._innocent = 1.0 - self.chief - self.assistant
        return self._innocent

    @property
    def clue(self) -> np.ndarray:
        """(n, 10) P(seat's clue = c)."""
        if self._clue is None:
            frame = self._frame
            clue = np.zeros((frame.n, N_CLUES))
            for s, c in frame.known.items():
                clue[s, c] = 1.0
            if frame.unknown:  # the posterior's seats are sorted by candidates: put them back
                sorted_seats = [frame.unknown[i] for i in self._order]
                clue[sorted_seats] = self._posterior[2 * N_CATS :].reshape(-1, N_CLUES)
            self._clue = clue
        return self._clue


def candidate_clues(row: int, discards: int, free_features: int) -> int:
    """Bitmask over the 10 clues a seat may hold: a free feature, shown by all its row cats and by
    none of its discards."""
    mask = 0
    for clue in range(N_CLUES):
        if (free_features >> (clue >> 1)) & 1 and row & ~CLUE_CATS[clue] == 0 and discards & CLUE_CATS[clue] == 0:
            mask |= 1 << clue
    return mask


@cache
def hidden_assignments(unknown: int, free: tuple[int, ...]) -> tuple[np.ndarray, np.ndarray]:
    """Every hidden assignment for ``unknown`` seats and the free features, as two arrays.

    An assignment is a face for every free feature (the seats' faces and the bag tiles' alike) and
    an injective map of the seats into them. Returns ``needs`` (per assignment, one int64 bitmask
    with bit ``10 * i + clue`` for each unknown seat i: the assignment is consistent when every
    needed bit is among the seats' candidates) and ``weights`` (assignments x (64 + 10 * unknown):
    one-hot the chief, its assistants, and each seat's clue), so that one bitwise test and one
    matrix product count a whole information set.
    """
    need_rows, chief_rows, clue_rows = [], [], []
    for faces in range(1 << len(free)):  # bit j set: free feature j shows value B
        side = {f: (faces >> j) & 1 for j, f in enumerate(free)}
        chief = sum(1 << f for f in free if side[f] == 0)
        for seat_features in permutations(free, unknown):
            clues = [2 * f + side[f] for f in seat_features]
            need_rows.append(sum(1 << (N_CLUES * i + clue) for i, clue in enumerate(clues)))
            chief_rows.append(chief)
            clue_rows.append(clues)
    rows = np.arange(len(chief_rows))
    weights = np.zeros((len(chief_rows), 2 * N_CATS + N_CLUES * unknown))
    weights[rows, chief_rows] = 1.0
    weights[:, N_CATS : 2 * N_CATS] = weights[:, :N_CATS] @ _ASSISTANT_MATRIX
    for i in range(unknown):
        weights[rows, 2 * N_CATS + N_CLUES * i + np.array([c[i] for c in clue_rows], dtype=np.int64)] = 1.0
    return np.array(need_rows, dtype=np.int64), weights


XOR = np.arange(N_CATS)[None, :] ^ np.arange(N_CATS)[:, None]
"""``XOR[fixed][c] = c ^ fixed``: moves a chief over the free features onto the whole cat (the
known features' bits are fixed, and XOR is a permutation)."""


def _posterior(free: tuple[int, ...], candidates: tuple[int, ...]) -> tuple[int, np.ndarray]:
    """Count the consistent hidden assignments of one information set, up to its known features.

    ``free``: the features whose value is unknown (sorted); ``candidates``: per unknown seat the
    bitmask of clues it may hold (callers sort them: the count does not depend on which seat is
    which, so sorted keys recur more). Returns the count and one array: P(chief) and P(assistant)
    over the cats whose known-feature bits are 0, then P(clue) for each unknown seat.
    """
    needs, weights = hidden_assignments(len(candidates), free)
    have = 0
    for i, mask in enumerate(candidates):
        have |= mask << (N_CLUES * i)
    totals = ((needs & ~have) == 0).astype(np.float64) @ weights
    count = totals[:N_CATS].sum()
    if count:
        totals /= count
    return round(count), totals


def beliefs(view: PlayerView) -> Beliefs:
    """The exact posterior of ``view.seat``'s information set."""
    own = view.own_clue
    frame = _frame(
        view.num_players, view.seat, own, view.own_tile if own < 0 else -1, tuple(view.exposed_clues.items()),
        tuple(view.public_clues),
    )  # fmt: skip
    rows, discards, free_mask, limit = view.rows, view.discards, frame.free_mask, frame.limit
    candidates = []
    for s in frame.unknown:
        seen = (rows[s], discards[s], free_mask)
        mask = _CANDIDATES.get(seen)
        if mask is None:
            mask = _remember(_CANDIDATES, seen, candidate_clues(*seen))
        candidates.append(mask & limit[s])
    order = sorted(range(len(candidates)), key=candidates.__getitem__)
    key = (frame.free, tuple([candidates[i] for i in order]))
    result = _POSTERIOR.get(key)
    if result is None:
        result = _remember(_POSTERIOR, key, _posterior(*key))
    count, posterior = result
    if count == 0:
        raise ValueError(f"seat {view.seat}'s information set admits no assignment: the position is inconsistent")
    return Beliefs(count, frame, order, posterior)


def weighted_beliefs(view: PlayerView, clue_weights: Mapping[int, np.ndarray]) -> Beliefs:
    """The posterior of ``view.seat``'s information set when each hidden assignment is weighted by
    ``prod(clue_weights[s][clue of s])`` over the seats given: the likelihood of some evidence that
    depends on each seat's clue alone, such as what a model of that player says its decisions
    reveal. With no weights this is :func:`beliefs` (up to floating-point rounding).

    ``clue_weights[s]`` is a (10,) array of non-negative factors; seats whose clue the observer knows
    are ignored. ``assignments`` of the result is the total weight, not a count.
    """
    own = view.own_clue
    frame = _frame(
        view.num_players, view.seat, own, view.own_tile if own < 0 else -1, tuple(view.exposed_clues.items()),
        tuple(view.public_clues),
    )  # fmt: skip
    rows, discards, free_mask = view.rows, view.discards, frame.free_mask
    unknown = frame.unknown
    needs, weights = hidden_assignments(len(unknown), frame.free)
    have = 0
    factor = np.ones(len(needs))
    for i, s in enumerate(unknown):
        have |= (candidate_clues(rows[s], discards[s], free_mask) & frame.limit[s]) << (N_CLUES * i)
        if s in clue_weights:
            factor *= weights[:, 2 * N_CATS + N_CLUES * i : 2 * N_CATS + N_CLUES * (i + 1)] @ clue_weights[s]
    factor *= (needs & ~have) == 0
    totals = factor @ weights
    mass = totals[:N_CATS].sum()
    if not mass > 0:
        raise ValueError(f"seat {view.seat}'s information set has no weight left: the evidence rules out every deal")
    return Beliefs(float(mass), frame, list(range(len(unknown))), totals / mass, exact=False)


def sample_assignment(view: PlayerView, uniform: float) -> tuple[dict[int, int], dict[int, int]]:
    """One hidden assignment drawn from the posterior of ``view.seat``'s information set: the
    consistent assignments are equally likely (see the module docstring), and ``uniform``, a number
    in [0, 1), picks one of them in their order of enumeration (for resampling a world the seat
    cannot tell from the true one).

    Returns the clue of every seat whose clue the observer does not know (the observer itself while
    its face is to be chosen: one of its tile's faces) and the side (0: value A, 1: value B) of
    every feature whose value it does not know, the tiles still in the bag included.
    """
    own = view.own_clue
    frame = _frame(
        view.num_players, view.seat, own, view.own_tile if own < 0 else -1, tuple(view.exposed_clues.items()),
        tuple(view.public_clues),
    )  # fmt: skip
    rows, discards = view.rows, view.discards
    needs, weights = hidden_assignments(len(frame.unknown), frame.free)
    have = 0
    for i, s in enumerate(frame.unknown):
        have |= (candidate_clues(rows[s], discards[s], frame.free_mask) & frame.limit[s]) << (N_CLUES * i)
    consistent = np.flatnonzero((needs & ~have) == 0)
    if not len(consistent):
        raise ValueError(f"seat {view.seat}'s information set admits no assignment: the position is inconsistent")
    row = int(consistent[min(int(uniform * len(consistent)), len(consistent) - 1)])
    need = int(needs[row])
    clues = {s: ((need >> (N_CLUES * i)) & 0x3FF).bit_length() - 1 for i, s in enumerate(frame.unknown)}
    chief = int(np.argmax(weights[row, :N_CATS]))  # bit f set: free feature f shows value A
    return clues, {f: 1 - ((chief >> f) & 1) for f in frame.free}


def _remember(cache: dict, key: tuple, value):
    if len(cache) >= _CACHE_SIZE:
        cache.clear()
    cache[key] = value
    return value


_CACHE_SIZE = 1 << 18
_CANDIDATES: dict[tuple[int, int, int], int] = {}
_POSTERIOR: dict[tuple, tuple[int, np.ndarray]] = {}
"""Caches as plain dicts of ints and arrays, not ``lru_cache``: with hundreds of thousands of
entries, objects the garbage collector tracks (lru_cache's links, tuples of arrays) made its full
collections cost more than the beliefs themselves."""


@dataclass(frozen=True)
class _Frame:
    """What a seat knows of the clues themselves (its own, the exposed and the public ones), which
    changes a few times a round; the rows and discards, which change at every card, are read
    against it."""

    index: int  # a unique number: keys the results instead of the whole frame
    n: int
    known: dict[int, int]
    chief_bits: int  # the chief's bits on the known features
    free_mask: int
    free: tuple[int, ...]
    unknown: tuple[int, ...]
    limit: dict[int, int]  # per unknown seat, the clues it may hold at all (own tile: its two faces)
    perm: np.ndarray  # moves a chief over the free features onto the whole cat (see XOR)


@lru_cache(maxsize=1 << 12)
def _frame(n: int, seat: int, own_clue: int, own_tile: int, exposed: tuple, public: tuple) -> _Frame:
    known = dict(exposed)
    if own_clue >= 0:
        known[seat] = own_clue
    fixed_features = chief_bits = 0
    for clue in [*known.values(), *public]:
        fixed_features |= 1 << (clue >> 1)
        if clue & 1 == 0:
            chief_bits |= 1 << (clue >> 1)
    free_mask = ((1 << N_FEATURES) - 1) & ~fixed_features
    free = tuple(f for f in range(N_FEATURES) if (free_mask >> f) & 1)
    unknown = tuple(s for s in range(n) if s not in known)
    limit = {s: (0b11 << (2 * own_tile)) if s == seat else (1 << N_CLUES) - 1 for s in unknown}
    return _Frame(next(_FRAME_INDEX), n, known, chief_bits, free_mask, free, unknown, limit, XOR[chief_bits])


_FRAME_INDEX = count()


def clear_caches() -> None:
    """Forget every cached result (for measuring the cost of a first sight)."""
    _POSTERIOR.clear()
    _CANDIDATES.clear()
    _frame.cache_clear()


def cached_information_sets() -> int:
    """How many information sets the cache holds (those met since the last :func:`clear_caches`)."""
    return len(_POSTERIOR)
