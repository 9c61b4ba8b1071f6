"""The JAX players by name: the scripted ones of ``jax.players`` and bayes_v2 of
``jax.players_posterior`` (built on them), in one registry above both, as ``batch.agents.BATCH_REGISTRY``
names the NumPy twins.

    lineup = (make_player("bayes_v2"),) * 4 + (make_player("random"),)
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .players import SCRIPTED, Player
from .players_posterior import make_bayes_v2

REGISTRY: dict[str, Callable[..., Player]] = {**SCRIPTED, "bayes_v2": make_bayes_v2}
"""Factories by name: random, passive, eager, bayes_v1, cheater, bayes_v2."""


def register(name: str, factory: Callable[..., Player]) -> None:
    """Add a player factory (a player of one's own, with the interface of :class:`Player`)."""
    REGISTRY[name] = factory


def make_player(name: str, **params: Any) -> Player:
    """A player by its registered name, with its parameters (bayes_v1: ``BayesParams``'s; bayes_v2:
    ``BayesV2Params``'s)."""
    if name not in REGISTRY:
        raise ValueError(f"no JAX player {name!r}: players are {sorted(REGISTRY)}")
    return REGISTRY[name](**params)
