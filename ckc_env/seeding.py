"""Seeds: every seeded part of a run gets its seed from the run's root seed and a path that names
the part, through NumPy's ``SeedSequence``.

    derive_seed(2026, "game", 17)          # game 17 of a tournament seeded 2026
    derive_seed(0, "agent", 17, 3)         # the player at seat 3 in that game
    derive_seed(config.seed, "env", rank)  # a training environment

Parts named differently never share a stream, and adding a part does not shift the others (as
offsets such as ``seed + 1000 * rank`` would when they overlap). Strings in the path are hashed
stably (CRC-32), so a path means the same seed on every machine and Python version.
"""

from __future__ import annotations

import zlib

import numpy as np

MAX_SEED = 2**63
"""Derived seeds lie in [0, MAX_SEED): any NumPy Generator, gymnasium env or torch seed takes them."""


def derive_seed(root: int, *path: int | str) -> int:
    """The seed of the part of a run named by ``path`` (non-negative ints and strings)."""
    if isinstance(root, bool) or not isinstance(root, (int, np.integer)) or root < 0:
        raise ValueError(f"a seed must be a non-negative integer, got {root!r}")
    key = []
    for part in path:
        if isinstance(part, str):
            key.append(zlib.crc32(part.encode()))
        elif isinstance(part, (int, np.integer)) and not isinstance(part, bool) and part >= 0:
            key.append(int(part))
        else:
            raise ValueError(f"a seed path holds non-negative integers and strings, got {part!r} in {path!r}")
    state = np.random.SeedSequence(int(root), spawn_key=tuple(key)).generate_state(1, np.uint64)
    return int(state[0] >> np.uint64(1))
