"""Where the batched engine's chance outcomes come from: the chance model of
``ckc_env.engine.chance`` (its table says what is drawn when, and how words become outcomes), on
arrays, for a set of games at once.

| method | asked | returns |
|---|---|---|
| ``supply(state, games)`` | a game starts | (k, 3, supply_size) chip ids per colour, the last of each colour taken first |
| ``first_players(state, games)`` | a game starts, ``first_player="random"`` | (k,) seats |
| ``deal(state, games)`` | a round starts | tiles (k, 5), clues (k, 5) (ignored with ``clue_face="choose"``), bag (k, 2), deck (k, 34), -1 padded |
| ``window_orders(state, games)`` | a card is resolved and some cat can be accused, ``window_order="random"`` | (k, 5) seat orders, -1 padded |
| ``stasi_places(state, games)`` | the Stasi chip goes back | (k,) its index in the black supply list (as ``list.insert``) |
| ``adler_picks(state, games, candidates)`` | a Cafe Adler swap | (k,) the chip taken, one of the bits of ``candidates`` |

:class:`RandomChance` (the default) draws them from each game's counter-based stream (``state.key``,
``state.counter``): a game's course depends on its key and its actions only, never on the other
games of the batch or their number, and a game seeded ``s`` is the scalar engine's game seeded ``s``
(``tests/test_batch_engine.py`` plays both). :class:`FixedDeals` draws the same words but lets a
caller fix a game's supply, first player and deals: how positions set up with the scalar engine's
reset options reach the batch (``batch.replay.Lockstep``).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable

import numpy as np

from ..config import BLACK, COLOURS
from ..engine.cards import INVESTIGATOR, N_CATS, N_FEATURES
from ..engine.chance import DEAL_WORDS, GOLDEN, M2, mix64
from ..seeding import derive_seed
from .state import MAX_BAG, MAX_DECK, N_ORDERS, SEAT_ORDERS, SEATS, BatchState

_GOLDEN = np.uint64(GOLDEN)


def game_keys(seeds: Iterable[int]) -> np.ndarray:
    """The keys of games with these seeds (one seed, one game: ``engine.chance.key_of``)."""
    return mix64(np.array(list(seeds), dtype=np.uint64) ^ _GOLDEN)


def slot_seeds(seed: int, batch_size: int) -> list[int]:
    """The seeds of the first games of a batch seeded ``seed``: ``derive_seed(seed, "batch", b)``."""
    return [derive_seed(seed, "batch", b) for b in range(batch_size)]


def next_keys(keys: np.ndarray) -> np.ndarray:
    """The keys of the games that follow these in their slots (automatic reset: ``engine.chance.next_key``)."""
    return mix64(keys ^ np.uint64(M2))


def draws(state: BatchState, games: np.ndarray, count: int) -> np.ndarray:
    """(len(games), count) uint64 random words from each game's stream, advancing it."""
    start = state.counter[games]
    steps = start[:, None] + np.arange(count, dtype=np.uint64)
    state.counter[games] = start + np.uint64(count)
    return mix64(state.key[games][:, None] + steps * _GOLDEN)


def _below(words: np.ndarray, bound: np.ndarray | int) -> np.ndarray:
    """Integers uniform in [0, bound) from random words (``Stream.below``)."""
    return (words % np.asarray(bound, dtype=np.uint64)).astype(np.int64)


def _shuffle(words: np.ndarray) -> np.ndarray:
    """A uniformly random permutation per row: the order of the row's random words (``chance.ordered``)."""
    return np.argsort(words, axis=1, kind="stable")


class RandomChance:
    """Chance outcomes from the games' own counter-based streams (see the module docstring)."""

    def supply(self, state: BatchState, games: np.ndarray) -> np.ndarray:
        rules = state.rules
        out = np.full((len(games), 3, rules.supply_size), -1, dtype=np.int8)
        for colour in range(len(COLOURS)):
            ids = np.flatnonzero(rules.chip_colour == colour)
            order = _shuffle(draws(state, games, len(ids)))
            out[:, colour, : len(ids)] = ids[order]
        return out

    def first_players(self, state: BatchState, games: np.ndarray) -> np.ndarray:
        return _below(draws(state, games, 1)[:, 0], state.n[games])

    def deal(self, state: BatchState, games: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        k = len(games)
        n = state.n[games].astype(np.int64)
        words = draws(state, games, DEAL_WORDS)
        features = _shuffle(words[:, :N_FEATURES])  # tiles first, then the bag tiles in reveal order
        faces = (words[:, N_FEATURES, None] >> np.arange(N_FEATURES, dtype=np.uint64)) & np.uint64(1)
        clues = (2 * features + faces.astype(np.int64)).astype(np.int8)
        seat = np.arange(SEATS)[None, :]
        tiles = np.where(seat < n[:, None], features, -1).astype(np.int8)
        bag_pos = n[:, None] + np.arange(MAX_BAG)[None, :]
        bag = np.where(bag_pos < SEATS, np.take_along_axis(clues, np.minimum(bag_pos, SEATS - 1), 1), -1)
        clues = np.where(seat < n[:, None], clues, -1)
        # 3.2: the cats shuffled; the 5 - n investigator cards shuffled into the top half
        cats = _shuffle(words[:, N_FEATURES + 1 : N_FEATURES + 1 + N_CATS]).astype(np.int8)
        deck = np.full((k, MAX_DECK), -1, dtype=np.int8)
        deck[:, :N_CATS] = cats
        investigators = SEATS - n
        for extra in (1, 2):
            sel = np.flatnonzero(investigators == extra)
            if len(sel):
                top = np.concatenate([cats[sel, :16], np.full((len(sel), extra), INVESTIGATOR, np.int8)], axis=1)
                order = _shuffle(words[sel, N_FEATURES + 1 + N_CATS : N_FEATURES + 1 + N_CATS + 16 + extra])
                deck[sel, : 16 + extra] = np.take_along_axis(top, order, 1)
                deck[sel, 16 + extra : N_CATS + extra] = cats[sel, 16:]
        return tiles, clues.astype(np.int8), bag.astype(np.int8), deck

    def window_orders(self, state: BatchState, games: np.ndarray) -> np.ndarray:
        n = state.n[games]
        return SEAT_ORDERS[n, _below(draws(state, games, 1)[:, 0], N_ORDERS[n])]

    def stasi_places(self, state: BatchState, games: np.ndarray) -> np.ndarray:
        return _below(draws(state, games, 1)[:, 0], state.supply_len[games, BLACK].astype(np.int64) + 1)

    def adler_picks(self, state: BatchState, games: np.ndarray, candidates: np.ndarray) -> np.ndarray:
        """One chip uniformly among the set bits of each candidate mask."""
        count = np.bitwise_count(candidates).astype(np.int64)
        pick = _below(draws(state, games, 1)[:, 0], count)
        bits = (candidates[:, None] >> np.arange(64, dtype=np.uint64)) & np.uint64(1)
        rank = np.cumsum(bits, axis=1) - 1
        return np.argmax((rank == pick[:, None]) & (bits == 1), axis=1)


class FixedDeals(RandomChance):
    """:class:`RandomChance` with some outcomes fixed by the caller, per game, in the order they
    will be asked: ``fix(game, "supply", three lists of chip ids)``, ``fix(game, "first_player",
    seat)``, ``fix(game, "deal", (tiles, clues or None, bag, deck))``. The words are drawn all the
    same, so the rest of the game's stream is what it would be."""

    KINDS = ("supply", "first_player", "deal")

    def __init__(self, batch_size: int) -> None:
        self.fixed = [{kind: deque() for kind in self.KINDS} for _ in range(batch_size)]

    def fix(self, game: int, kind: str, value: object) -> None:
        if kind not in self.KINDS:
            raise ValueError(f"unknown chance outcome {kind!r}: kinds are {list(self.KINDS)}")
        self.fixed[game][kind].append(value)

    def _take(self, games: np.ndarray, kind: str) -> list[tuple[int, object]]:
        return [(i, self.fixed[g][kind].popleft()) for i, g in enumerate(games.tolist()) if self.fixed[g][kind]]

    def supply(self, state: BatchState, games: np.ndarray) -> np.ndarray:
        out = super().supply(state, games)
        for i, supply in self._take(games, "supply"):
            out[i] = -1
            for colour, ids in enumerate(supply):
                out[i, colour, : len(ids)] = ids
        return out

    def first_players(self, state: BatchState, games: np.ndarray) -> np.ndarray:
        out = super().first_players(state, games)
        for i, seat in self._take(games, "first_player"):
            out[i] = seat
        return out

    def deal(self, state: BatchState, games: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        tiles, clues, bag, deck = super().deal(state, games)
        for i, (dealt_tiles, dealt_clues, dealt_bag, dealt_deck) in self._take(games, "deal"):
            tiles[i], bag[i], deck[i] = -1, -1, -1
            tiles[i, : len(dealt_tiles)] = dealt_tiles
            if dealt_clues is not None:
                clues[i] = -1
                clues[i, : len(dealt_clues)] = dealt_clues
            bag[i, : len(dealt_bag)] = dealt_bag
            deck[i, : len(dealt_deck)] = dealt_deck
        return tiles, clues, bag, deck
