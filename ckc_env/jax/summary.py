"""Round summaries of a JAX batch: the scalar ``engine.summary`` dicts of the rounds that ended in
the last step, built on the host from ``state.record`` (``batch.summary``, through ``to_batch``).

The record stays on the device through the next deal and an automatic reset, as the NumPy
engine's does, so a loop on the device can read what it needs (the tournament counts rounds and
chief catches from it) and a report can fetch the dicts afterwards.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..batch import summary
from .state import Rules, State, to_batch


def round_summaries(rules: Rules, state: State, games: np.ndarray | None = None) -> list[dict[str, Any]]:
    """The summary of the last finished round of each of ``games`` (default: those whose round
    ended in the last step), in ``games`` order: equal to the scalar engine's for the same game."""
    return summary.round_summaries(to_batch(rules, state), games)
