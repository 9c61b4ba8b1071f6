"""Cats, clue tiles and clues (RULES.md section 1) and what the clues make of a cat (section 3).

A cat is the 5-bit integer whose bit ``i`` is set when it shows value A of feature ``i``.
A clue is ``2 * feature + side`` (side 0 = value A, side 1 = value B), so there are 10 clues.
Investigator cards share the card id :data:`INVESTIGATOR`; they are indistinguishable.
"""

from __future__ import annotations

N_FEATURES = 5
N_CATS = 32
N_CLUES = 10
INVESTIGATOR = 32
"""Card id of an investigator card (the cats are 0..31)."""

FEATURES: tuple[tuple[str, str, str], ...] = (
    ("hat", "hat", "no hat"),
    ("sunglasses", "sunglasses", "no sunglasses"),
    ("coat", "trench coat", "sweater"),
    ("newspaper", "newspaper", "no newspaper"),
    ("fur", "grey", "orange"),
)
"""(feature, value A, value B) for features 0..4."""

FEATURE_LETTERS = "HSTNG"
"""One letter per feature for compact text: capital for value A, lower case for value B."""


def clue_id(feature: int, side: int) -> int:
    return 2 * feature + side


def clue_feature(clue: int) -> int:
    return clue >> 1


def clue_side(clue: int) -> int:
    return clue & 1


def cat_has_clue(cat: int, clue: int) -> bool:
    """Whether the cat shows the clue's value."""
    return ((cat >> (clue >> 1)) & 1) == 1 - (clue & 1)


CLUE_CATS: tuple[int, ...] = tuple(
    sum(1 << cat for cat in range(N_CATS) if cat_has_clue(cat, clue)) for clue in range(N_CLUES)
)
"""Bitmask over cats (bit c = cat c) of the 16 cats that show each clue's value."""


def chief_of(clues: list[int] | tuple[int, ...]) -> int:
    """The chief spy: the one cat showing all five clue values (one clue per feature)."""
    chief = 0
    for clue in clues:
        if clue & 1 == 0:
            chief |= 1 << (clue >> 1)
    return chief


def matches(cat: int, chief: int) -> int:
    """How many of the five clue values the cat shows."""
    return N_FEATURES - (cat ^ chief).bit_count()


ASSISTANTS: tuple[tuple[int, ...], ...] = tuple(
    tuple(sorted(chief ^ (1 << f) for f in range(N_FEATURES))) for chief in range(N_CATS)
)
"""The five assistants of each possible chief: the cats differing from him in one feature."""


def cat_name(cat: int) -> str:
    """Compact name: one letter per feature, capital letters for value A (e.g. ``HsTnG``: hat, no sunglasses, trench coat, no newspaper, grey)."""
    return "".join(FEATURE_LETTERS[f] if (cat >> f) & 1 else FEATURE_LETTERS[f].lower() for f in range(N_FEATURES))


def card_name(card: int) -> str:
    return "investigator" if card == INVESTIGATOR else f"cat {card:2d} {cat_name(card)}"


def clue_name(clue: int) -> str:
    feature, side = clue >> 1, clue & 1
    return FEATURES[feature][1 + side]


def cats_in(mask: int) -> list[int]:
    """The cats of a bitmask, in increasing id order."""
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out
