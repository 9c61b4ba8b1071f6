"""Who sits where in each game of a tournament: seatings that average out the order around the table.

A player's result depends on who sits right before and after it (whose discards it sees first, who
accuses before it), so seat rotation alone, which keeps the lineup's order around the table, lets
the order of ``--lineup`` change a mixed table's ranking. The ``balanced`` scheme (the default)
plays a design in which every player sits in every seat equally often and every ordered pair of
players sits next to each other (one right after the other) equally often:

| players | arrangements | design |
|---|---|---|
| 3 | 6 | every permutation |
| 4 | 24 | every permutation (no smaller design exists: four seats have no decomposition into three cyclic orders) |
| 5 | 20 | the cyclic orders ``0, k, 2k, 3k, 4k`` (mod 5) for k = 1..4, each in its 5 rotations: each ordered pair is adjacent in exactly one order |

The design is laid over the lineup sorted by its players' seating keys (a player compared in pairs
keeps the first place), so the games a tournament plays, and every player's results, do not depend
on the order in which the lineup was given. A key is the player's label, and a safe agent file's
the hash of its weights (:func:`ckc_env.players.seating_key`), so neither do they depend on the
path that names an agent. ``rotate`` keeps the lineup's order and rotates it (the scheme
before the balanced one). Game g plays arrangement ``g % len(design)``, and the game count is
rounded up to a multiple of the design's size.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from itertools import permutations

SCHEMES = ("balanced", "rotate")


@cache
def design(n: int, scheme: str = "balanced") -> tuple[tuple[int, ...], ...]:
    """The arrangements of a scheme for n seats: ``arrangement[s]`` is the slot sitting at seat s."""
    if scheme == "rotate":
        return tuple(tuple((s - g) % n for s in range(n)) for g in range(n))
    if scheme != "balanced":
        raise ValueError(f"invalid seating={scheme!r}: accepted values are {list(SCHEMES)}")
    if n == 5:
        return tuple(tuple((k * s + r) % 5 for s in range(5)) for k in range(1, 5) for r in range(5))
    return tuple(permutations(range(n)))


def slots(labels: Sequence[str], fixed_first: bool = False) -> list[int]:
    """``slots[j]``: the lineup index in slot j: the lineup sorted by ``labels``, the players' seating
    keys (ties by position), so that the order of a lineup does not matter; with ``fixed_first``
    lineup index 0 keeps slot 0 (the player a paired comparison exchanges)."""
    rest = range(1, len(labels)) if fixed_first else range(len(labels))
    ordered = sorted(rest, key=lambda i: (labels[i], i))
    return [0, *ordered] if fixed_first else ordered


def seatings(labels: Sequence[str], scheme: str = "balanced", fixed_first: bool = False) -> list[list[int]]:
    """The seatings of a lineup, one per arrangement: ``seating[s]`` is the lineup index at seat s."""
    order = slots(labels, fixed_first) if scheme == "balanced" else list(range(len(labels)))
    return [[order[slot] for slot in arrangement] for arrangement in design(len(labels), scheme)]


def describe(scheme: str, n: int) -> dict[str, object]:
    """What a result file records of its seating."""
    return {"scheme": scheme, "arrangements": len(design(n, scheme))}
