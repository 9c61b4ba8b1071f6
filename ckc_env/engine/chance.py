"""Where chance outcomes come from (RULES.md 9): one counter-based stream per game, the same for the
scalar and the batched engine, so that one seed deals one game on both, in any batch.

A game's stream is SplitMix64 over a counter: draw i of a game with key K is
``mix64(K + i * GOLDEN) mod 2**64``, and a game seeded ``s`` has the key ``mix64(s ^ GOLDEN)``. The
engines ask for chance outcomes at the same points of the rules, in the same order, and turn the
same words into outcomes the same way:

| asked | words | outcome |
|---|---|---|
| a game starts: the supply | one per chip of each colour (gold, white, black) | each colour's chip ids (ascending) in the order of their words (a stable sort); the last is taken first |
| a game starts, ``first_player="random"`` | 1 | seat ``w % n`` |
| a round is dealt | 56: 5, 1, 32, 16 + 2 | the features in the order of the first 5 words (seats 0..n-1 draw the first n tiles, the bag keeps the rest in reveal order); bit i of word 5 is the face of the i-th tile; the cats in the order of words 6..37; with 5 - n investigator cards, the top 16 cats and those cards in the order of the next 16 + (5 - n) words |
| a card is resolved and some cat can be accused, ``window_order="random"`` | 1 | order ``w % n!`` of ``suspicion.SEAT_ORDERS[n]`` (a window nobody can act in draws nothing) |
| the Stasi chip goes back | 1 | place ``w % (len(black supply) + 1)`` (as ``list.insert``) |
| a Cafe Adler swap | 1 | the ``w % k``-th of the k chips that can be taken, by ascending id |

Reset options that fix parts of a deal (``engine.options``) replace the outcomes drawn, never the
draws, so the rest of the game's stream is the same. An automatic reset of the batched engine
gives a slot's next game the key ``mix64(K ^ M2)``.

The scalar engine asks these questions through its state's chance source (``GameState.chance``, a
:class:`ChanceSource`); the default, :class:`StreamChance`, answers them from the game's stream with
the functions below, so a game seeded ``s`` is the same game whoever plays it. Another source can
answer them from outside (the OpenSpiel front, ``ckc_env.envs.openspiel``, makes each question a
sequence of chance nodes); it is asked at exactly the same points, in the same order.

Players draw their own random choices the same way (:class:`Stream`): a player seeded ``s`` draws
word i of the key ``mix64(s ^ GOLDEN)``, so the random player, chosen clue faces, Cafe Adler swap
partners and sampling policies decide alike on both engines.

:func:`mix64` takes Python integers (the scalar engine) or ``numpy.uint64`` arrays (the batched
one: ``ckc_env.batch.chance``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

from ..files import short

GOLDEN = 0x9E3779B97F4A7C15
M1 = 0xBF58476D1CE4E5B9
M2 = 0x94D049BB133111EB
MASK = (1 << 64) - 1
SEED_LIMIT = 1 << 64
"""Seeds are integers in [0, 2**64)."""
DEAL_WORDS = 5 + 1 + 32 + 16 + 2
"""Words drawn for a round's deal (features, faces, cats, the top half with investigator cards)."""


def mix64(x: Any) -> Any:
    """SplitMix64's finaliser (a bijection that scatters nearby inputs), on an int or a uint64 array."""
    x = x ^ (x >> 30)
    x = (x * M1) & MASK
    x = x ^ (x >> 27)
    x = (x * M2) & MASK
    return x ^ (x >> 31)


def key_of(seed: int) -> int:
    """The key of the stream seeded ``seed`` (a game's, or a player's)."""
    if isinstance(seed, bool) or not 0 <= int(seed) < SEED_LIMIT:
        raise ValueError(f"a seed must be an integer from 0 to 2**64 - 1, got {short(seed)}")
    return mix64(int(seed) ^ GOLDEN)


def next_key(key: int) -> int:
    """The key of the game that follows in a batched slot (automatic reset)."""
    return mix64(key ^ M2)


def word(key: int, index: int) -> int:
    """Word ``index`` of the stream with ``key``."""
    return mix64((key + index * GOLDEN) & MASK)


def ordered(items: Sequence[Any], words: Sequence[int]) -> list[Any]:
    """``items`` in the order of their words (a stable sort: a uniformly random permutation)."""
    return [items[i] for i in sorted(range(len(words)), key=words.__getitem__)]


def unit(w: int) -> float:
    """A word as a float in [0, 1) (its top 53 bits)."""
    return (w >> 11) * (1.0 / (1 << 53))


class Stream:
    """A counter-based random stream: ``draw()`` gives its next word."""

    __slots__ = ("counter", "key")

    def __init__(self, key: int) -> None:
        self.key = key
        self.counter = 0

    @classmethod
    def seeded(cls, seed: int | None) -> Stream:
        """The stream of ``seed`` (a fresh random one for None)."""
        if seed is None:
            import secrets

            seed = secrets.randbits(63)
        return cls(key_of(seed))

    def draw(self, count: int | None = None) -> Any:
        """The next word, or the next ``count`` words as a list."""
        start = self.counter
        if count is None:
            self.counter = start + 1
            return word(self.key, start)
        self.counter = start + count
        if count < 8:
            return [word(self.key, start + i) for i in range(count)]
        import numpy as np  # many words at once: the same arithmetic on uint64 arrays (wrapping mod 2**64)

        steps = np.arange(start, start + count, dtype=np.uint64)
        return mix64(np.uint64(self.key) + steps * np.uint64(GOLDEN)).tolist()

    def below(self, bound: int) -> int:
        """An integer uniform in [0, bound) (the bias, bound / 2**64, is negligible)."""
        return self.draw() % bound


# ---------------------------------------------------------------------------------------------- the questions
def supply_order(stream: Stream, ids_by_colour: Sequence[Sequence[int]]) -> list[list[int]]:
    """A game starts: each colour's chip ids face-down (the last is taken first)."""
    return [ordered(list(ids), stream.draw(len(ids))) for ids in ids_by_colour]


def first_player(stream: Stream, n: int) -> int:
    return stream.below(n)


def deal(stream: Stream, n: int, investigators: int) -> tuple[list[int], list[int], list[int], list[int]]:
    """A round's deal: the seats' tile features, their tossed clues, the bag's clues in reveal
    order and the deck (top first, investigator card = 32)."""
    words = stream.draw(DEAL_WORDS)
    features = ordered(list(range(5)), words[:5])
    faces = words[5]
    clues = [2 * f + ((faces >> i) & 1) for i, f in enumerate(features)]
    cats = ordered(list(range(32)), words[6:38])
    if investigators:
        top = ordered([*cats[:16], *([32] * investigators)], words[38 : 38 + 16 + investigators])
        deck = top + cats[16:]
    else:
        deck = cats
    return features[:n], clues[:n], clues[n:], deck


def window_order(stream: Stream, orders: Sequence[list[int]]) -> list[int]:
    """A random accusation window's order among every order of the seats."""
    return orders[stream.below(len(orders))]


def stasi_place(stream: Stream, length: int) -> int:
    """Where the Stasi chip goes back into a black supply of ``length`` chips (as ``list.insert``)."""
    return stream.below(length + 1)


def adler_pick(stream: Stream, candidates: Sequence[int]) -> int:
    """The chip a Cafe Adler swap takes among ``candidates``, by ascending id."""
    ids = sorted(candidates)
    return ids[stream.below(len(ids))]


# ---------------------------------------------------------------------------------------------- the sources
class ChanceSource(Protocol):
    """Where a game's chance outcomes come from: one method per question of the table above, each
    answering in the form of the function of the same name."""

    def supply_order(self, ids_by_colour: Sequence[Sequence[int]]) -> list[list[int]]: ...

    def first_player(self, n: int) -> int: ...

    def deal(self, n: int, investigators: int) -> tuple[list[int], list[int], list[int], list[int]]: ...

    def window_order(self, orders: Sequence[list[int]]) -> list[int]: ...

    def stasi_place(self, length: int) -> int: ...

    def adler_pick(self, candidates: Sequence[int]) -> int: ...


class StreamChance:
    """The default chance source: the game's counter-based stream, asked through the functions above."""

    __slots__ = ("stream",)

    def __init__(self, stream: Stream) -> None:
        self.stream = stream

    def supply_order(self, ids_by_colour: Sequence[Sequence[int]]) -> list[list[int]]:
        return supply_order(self.stream, ids_by_colour)

    def first_player(self, n: int) -> int:
        return first_player(self.stream, n)

    def deal(self, n: int, investigators: int) -> tuple[list[int], list[int], list[int], list[int]]:
        return deal(self.stream, n, investigators)

    def window_order(self, orders: Sequence[list[int]]) -> list[int]:
        return window_order(self.stream, orders)

    def stasi_place(self, length: int) -> int:
        return stasi_place(self.stream, length)

    def adler_pick(self, candidates: Sequence[int]) -> int:
        return adler_pick(self.stream, candidates)
