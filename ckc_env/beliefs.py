"""The exact posterior, under its first address: ``ckc_env.reading.beliefs`` holds it (its batched
twin: ckc_env/batch/beliefs.py).

    from ckc_env.beliefs import beliefs
"""

from .reading.beliefs import (
    Beliefs,
    beliefs,
    cached_information_sets,
    candidate_clues,
    clear_caches,
    sample_assignment,
    weighted_beliefs,
)

__all__ = [
    "Beliefs",
    "beliefs",
    "cached_information_sets",
    "candidate_clues",
    "clear_caches",
    "sample_assignment",
    "weighted_beliefs",
]
