"""Score chips: the pool (RULES.md 1), the variants' changes to it (7, 8) and the supply (2).

Every chip of a game has an id (its index in :class:`ChipPool`); the supply of each colour is a
list of chip ids shuffled face-down, so taking the last one is taking a uniformly random chip of
that colour (RULES.md 2).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache

from ..config import BLACK, COLOURS, GOLD, WHITE, GameConfig

NORMAL, STASI, ADLER = 0, 1, 2
CHIP_KINDS = ("normal", "stasi", "adler")
STASI_KEPT_VALUE = -2
"""What the Stasi chip is worth to a player who keeps it at the end of the game (RULES.md 7)."""
ADLER_VALUES = {GOLD: 3, WHITE: 1, BLACK: -1}
"""[decision] each Cafe Adler chip is worth the value of the chip it replaced (RULES.md 8)."""


@dataclass(frozen=True)
class ChipPool:
    """The chips of one game: colour, printed value and kind of each chip id, and what each counts
    in a total (``points``: its value, -2 for the Stasi chip while held, RULES.md 7)."""

    colour: tuple[int, ...]
    value: tuple[int, ...]
    kind: tuple[int, ...]
    points: tuple[int, ...] = ()

    def __post_init__(self) -> None:
        points = tuple(STASI_KEPT_VALUE if k == STASI else v for v, k in zip(self.value, self.kind, strict=True))
        object.__setattr__(self, "points", points)

    def __len__(self) -> int:
        return len(self.colour)

    def ids_of(self, colour: int) -> list[int]:
        return [i for i, c in enumerate(self.colour) if c == colour]


@lru_cache(maxsize=64)
def build_pool(config: GameConfig) -> ChipPool:
    """The base pool with the variants' chips swapped in (RULES.md 7 and 8); built once per
    configuration (a pool is immutable)."""
    chips: list[tuple[int, int, int]] = []
    for colour_index, name in enumerate(COLOURS):
        chips.extend((colour_index, v, NORMAL) for v in config.chip_pool[name])

    def remove(colour: int, value: int) -> None:
        chips.remove((colour, value, NORMAL))

    if config.stasi:
        remove(BLACK, -1)
        chips.append((BLACK, 0, STASI))
    if config.cafe_adler:
        for colour in (GOLD, WHITE, WHITE, BLACK):
            remove(colour, ADLER_VALUES[colour])
            chips.append((colour, ADLER_VALUES[colour], ADLER))
    chips.sort()
    colour, value, kind = zip(*chips, strict=False)
    return ChipPool(colour=colour, value=value, kind=kind)


def chip_token(pool: ChipPool, chip: int) -> int | str:
    """How a chip is named in the ``chip_order`` reset option: its value, or 'stasi' / 'adler'."""
    kind = pool.kind[chip]
    return "stasi" if kind == STASI else "adler" if kind == ADLER else pool.value[chip]


def ordered_supply(
    pool: ChipPool, drawn: list[list[int]], order: Mapping[str, Sequence[int | str]] | None
) -> list[list[int]]:
    """Each colour's chips face-down; the last chip of a list is the next one taken.

    ``drawn`` is the order chance gave (``chance.supply_order``); ``order`` (the ``chip_order``
    reset option) fixes, per colour, the tokens in the order they will be taken instead.
    """
    supply: list[list[int]] = []
    for colour, name in enumerate(COLOURS):
        ids = pool.ids_of(colour)
        if order is not None and name in order:
            wanted = list(order[name])
            available = {chip: chip_token(pool, chip) for chip in ids}
            taken: list[int] = []
            for token in wanted:
                match = next((c for c, t in available.items() if t == token), None)
                if match is None:
                    raise ValueError(
                        f"chip_order[{name!r}]={wanted!r} is not an ordering of the {name} chips "
                        f"{sorted(map(str, (chip_token(pool, c) for c in ids)))}"
                    )
                taken.append(match)
                del available[match]
            if available:
                raise ValueError(
                    f"chip_order[{name!r}]={wanted!r} leaves out {sorted(map(str, available.values()))}: "
                    f"it must order all {len(ids)} {name} chips"
                )
            supply.append(taken[::-1])
        else:
            supply.append(list(drawn[colour]))
    return supply
