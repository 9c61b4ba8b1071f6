"""Where the batched engine's chance outcomes come from.

The engine asks for chance outcomes at the same points of the rules as the scalar engine draws
them (RULES.md 9): the supply's face-down order and the first player when a game starts; the tiles,
faces and deck when a round is dealt; the order of each random accusation window; the place the
Stasi chip goes back to; the chip taken in a Cafe Adler swap. A *chance source* answers those
questions for a set of games at once:

| method | asked | returns |
|---|---|---|
| ``supply(state, games)`` | a game starts | (k, 3, supply_size) chip ids per colour, the last of each colour taken first |
| ``first_players(state, games)`` | a game starts, ``first_player="random"`` | (k,) seats |
| ``deal(state, games)`` | a round starts | tiles (k, 5), clues (k, 5) (ignored with ``clue_face="choose"``), bag (k, 2), deck (k, 34), -1 padded |
| ``window_orders(state, games)`` | a card is resolved and some cat can be accused, ``window_order="random"`` | (k, 5) seat orders, -1 padded |
| ``skip_windows(state, games, counts)`` | ``counts[i]`` cards were resolved in a row with no cat to accuse (their windows closed at once) | nothing |
| ``stasi_places(state, games)`` | the Stasi chip goes back | (k,) its index in the black supply list (as ``list.insert``) |
| ``adler_picks(state, games, candidates)`` | a Cafe Adler swap | (k,) the chip taken, one of the bits of ``candidates`` |

:class:`RandomChance` (the default) draws them from a counter-based stream per game: draw i of a
game is ``splitmix64(key + i * golden)`` with the game's 64-bit key (``state.key``) and its count of
draws so far (``state.counter``). A game's course therefore depends on its key and its actions only,
never on the other games of the batch or their number; keys come from seeds through
:func:`game_keys`. This stream is not NumPy's: a batched game and a scalar game with the same seed
are different games.

:class:`ReplayChance` answers from per-game queues filled by the caller: the replay injection path
through which the differential test (and ``batch.replay.Lockstep``) gives the batched engine the
chance outcomes a scalar game drew, so that both play the same game.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable

import numpy as np

from ..config import BLACK, COLOURS
from ..engine.cards import INVESTIGATOR, N_CATS, N_FEATURES
from ..seeding import derive_seed
from .state import MAX_BAG, MAX_DECK, N_ORDERS, SEAT_ORDERS, SEATS, BatchState

GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)


def mix64(x: np.ndarray) -> np.ndarray:
    """SplitMix64's finaliser on a uint64 array (a bijection that scatters nearby inputs)."""
    x = x ^ (x >> np.uint64(30))
    x = x * _M1
    x = x ^ (x >> np.uint64(27))
    x = x * _M2
    return x ^ (x >> np.uint64(31))


def game_keys(seeds: Iterable[int]) -> np.ndarray:
    """The keys of games with these seeds (one seed, one game)."""
    return mix64(np.array(list(seeds), dtype=np.uint64) ^ GOLDEN)


def slot_seeds(seed: int, batch_size: int) -> list[int]:
    """The seeds of the first games of a batch seeded ``seed``: ``derive_seed(seed, "batch", b)``."""
    return [derive_seed(seed, "batch", b) for b in range(batch_size)]


def next_keys(keys: np.ndarray) -> np.ndarray:
    """The keys of the games that follow these in their slots (automatic reset)."""
    return mix64(keys ^ _M2)


def draws(state: BatchState, games: np.ndarray, count: int) -> np.ndarray:
    """(len(games), count) uint64 random words from each game's stream, advancing it."""
    start = state.counter[games]
    steps = start[:, None] + np.arange(count, dtype=np.uint64)
    state.counter[games] = start + np.uint64(count)
    return mix64(state.key[games][:, None] + steps * GOLDEN)


def _below(words: np.ndarray, bound: np.ndarray | int) -> np.ndarray:
    """Integers uniform in [0, bound) from random words (the bias, bound / 2**64, is negligible)."""
    return (words % np.asarray(bound, dtype=np.uint64)).astype(np.int64)


def _shuffle(words: np.ndarray) -> np.ndarray:
    """A uniformly random permutation per row: the order of the row's random words."""
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
        words = draws(state, games, N_FEATURES + 1 + N_CATS + 16 + MAX_BAG)
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

    def skip_windows(self, state: BatchState, games: np.ndarray, counts: np.ndarray) -> None:
        """A window nobody can act in needs no order: nothing is drawn."""

    def stasi_places(self, state: BatchState, games: np.ndarray) -> np.ndarray:
        return _below(draws(state, games, 1)[:, 0], state.supply_len[games, BLACK].astype(np.int64) + 1)

    def adler_picks(self, state: BatchState, games: np.ndarray, candidates: np.ndarray) -> np.ndarray:
        """One chip uniformly among the set bits of each candidate mask."""
        count = np.bitwise_count(candidates).astype(np.int64)
        pick = _below(draws(state, games, 1)[:, 0], count)
        bits = (candidates[:, None] >> np.arange(64, dtype=np.uint64)) & np.uint64(1)
        rank = np.cumsum(bits, axis=1) - 1
        return np.argmax((rank == pick[:, None]) & (bits == 1), axis=1)


class ReplayChance:
    """Chance outcomes given by the caller, per game and kind, in the order they will be asked.

    ``push(game, kind, value)`` queues an outcome: ``"supply"`` (three lists of chip ids, the
    scalar ``GameState.supply``), ``"first_player"`` (a seat), ``"deal"`` (a tuple tiles, clues or
    None, bag, deck as the scalar state holds them after ``round_setup.start_round``),
    ``"window_order"`` (a list of seats), ``"stasi_place"`` (an index) and ``"adler_pick"`` (a chip
    id). Asking for an outcome that was not queued raises ``LookupError`` naming the game and kind.
    """

    KINDS = ("supply", "first_player", "deal", "window_order", "stasi_place", "adler_pick")

    def __init__(self, batch_size: int) -> None:
        self.queues = [{kind: deque() for kind in self.KINDS} for _ in range(batch_size)]

    def push(self, game: int, kind: str, value: object) -> None:
        if kind not in self.KINDS:
            raise ValueError(f"unknown chance outcome {kind!r}: kinds are {list(self.KINDS)}")
        self.queues[game][kind].append(value)

    def pending(self, game: int) -> dict[str, int]:
        """How many outcomes of each kind are queued for a game (all zero once the batch has used them)."""
        return {kind: len(queue) for kind, queue in self.queues[game].items()}

    def _pop(self, game: int, kind: str) -> object:
        queue = self.queues[game][kind]
        if not queue:
            raise LookupError(f"replay: no {kind!r} outcome queued for game {game}")
        return queue.popleft()

    def supply(self, state: BatchState, games: np.ndarray) -> np.ndarray:
        out = np.full((len(games), 3, state.rules.supply_size), -1, dtype=np.int8)
        for i, g in enumerate(games.tolist()):
            for colour, ids in enumerate(self._pop(g, "supply")):
                out[i, colour, : len(ids)] = ids
        return out

    def first_players(self, state: BatchState, games: np.ndarray) -> np.ndarray:
        return np.array([self._pop(g, "first_player") for g in games.tolist()], dtype=np.int64)

    def deal(self, state: BatchState, games: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        k = len(games)
        tiles = np.full((k, SEATS), -1, dtype=np.int8)
        clues = np.full((k, SEATS), -1, dtype=np.int8)
        bag = np.full((k, MAX_BAG), -1, dtype=np.int8)
        deck = np.full((k, MAX_DECK), -1, dtype=np.int8)
        for i, g in enumerate(games.tolist()):
            dealt_tiles, dealt_clues, dealt_bag, dealt_deck = self._pop(g, "deal")
            tiles[i, : len(dealt_tiles)] = dealt_tiles
            if dealt_clues is not None:
                clues[i, : len(dealt_clues)] = dealt_clues
            bag[i, : len(dealt_bag)] = dealt_bag
            deck[i, : len(dealt_deck)] = dealt_deck
        return tiles, clues, bag, deck

    def window_orders(self, state: BatchState, games: np.ndarray) -> np.ndarray:
        out = np.full((len(games), SEATS), -1, dtype=np.int8)
        for i, g in enumerate(games.tolist()):
            order = self._pop(g, "window_order")
            out[i, : len(order)] = order
        return out

    def skip_windows(self, state: BatchState, games: np.ndarray, counts: np.ndarray) -> None:
        """The scalar engine draws an order for every window: drop those of windows that closed at once."""
        for g, count in zip(games.tolist(), counts.tolist(), strict=True):
            for _ in range(count):
                self._pop(g, "window_order")

    def stasi_places(self, state: BatchState, games: np.ndarray) -> np.ndarray:
        return np.array([self._pop(g, "stasi_place") for g in games.tolist()], dtype=np.int64)

    def adler_picks(self, state: BatchState, games: np.ndarray, candidates: np.ndarray) -> np.ndarray:
        picks = np.array([self._pop(g, "adler_pick") for g in games.tolist()], dtype=np.int64)
        if np.any((candidates >> picks.astype(np.uint64)) & np.uint64(1) == 0):
            raise ValueError(f"replay: an adler_pick outcome is not among the chips that can be taken: {picks}")
        return picks
