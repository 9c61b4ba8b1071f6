"""Scripted players, registered by name: ``make_agent("bayes_v1", seed=0)``.

| name | plays |
|---|---|
| ``random`` | uniformly random legal actions |
| ``passive`` | never accuses unless forced (then the most likely chief); keeps Adler chips |
| ``eager`` | accuses the most likely chief at its first chance |
| ``bayes_v1`` | exact beliefs; accuses when the best target's expected chip clears a bar that moves as the other players accuse (tuned parameters) |
| ``bayes_v2`` | bayes_v1's rule on a posterior that also weighs what the other players' accusations and passes reveal of their clues |
| ``bayes_v3`` | bayes_v2 whose model of the others is bayes_v2 itself: their decisions read as made on posteriors that read the table too |
| ``rollout`` | bayes_v2, with open choices decided by rollouts of the rest of the round in worlds drawn from its information set |
| ``search`` | a safe agent file's policy (the strongest shipped agent by default), with open choices decided by continuations in worlds drawn from its information set, scored by its critic |
| ``cheater`` | reads the hidden clues: an upper bound for reference, not a fair opponent |

Every agent but ``cheater`` reads only its seat's :class:`~ckc_env.engine.view.PlayerView`.

Players that need an extra are named in :data:`EXTRA_PLAYERS` and imported when first asked for:

| name | plays | extra |
|---|---|---|
| ``openspiel_ismcts`` | OpenSpiel's information-set MCTS (``ckc_env.envs.openspiel.bots.ISMCTSAgent``) | ``openspiel`` |
"""

from __future__ import annotations

import importlib
from collections.abc import Callable

from ..cli import need_extra
from .base import Agent
from .bayes import BayesAgent, BayesParams
from .bayes_v2 import BayesV2Agent, BayesV2Params
from .bayes_v3 import BayesV3Agent, BayesV3Params
from .cheater import CheaterAgent
from .rollout import RolloutAgent, RolloutParams
from .search import SearchAgent, SearchParams
from .simple import EagerAgent, PassiveAgent, RandomAgent

REGISTRY: dict[str, Callable[..., Agent]] = {
    "random": RandomAgent,
    "passive": PassiveAgent,
    "eager": EagerAgent,
    "bayes_v1": BayesAgent,
    "bayes_v2": BayesV2Agent,
    "bayes_v3": BayesV3Agent,
    "cheater": CheaterAgent,
    "rollout": RolloutAgent,
    "search": SearchAgent,
}
BASELINES = ("random", "passive", "eager", "bayes_v1", "bayes_v2", "bayes_v3", "rollout")
"""The fair baselines (``cheater`` is a reference only)."""


EXTRA_PLAYERS: dict[str, tuple[str, str, str]] = {
    "openspiel_ismcts": ("openspiel", "pyspiel", "ckc_env.envs.openspiel.bots:ISMCTSAgent"),
}
"""Players that need an extra, by name: (the extra, the module it installs, where the player is).
A spec naming one imports it then, as gymnasium's registry imports an environment's entry point:
nothing has to be imported or registered first, and without the extra nothing else changes."""


def agent_class(name: str) -> Callable[..., Agent]:
    """The player a name builds: a registered one, or one of :data:`EXTRA_PLAYERS` (imported now; a
    ValueError names the extra when it is not installed)."""
    if name in REGISTRY:
        return REGISTRY[name]
    if name not in EXTRA_PLAYERS:
        raise ValueError(f"unknown agent {name!r}: registered agents are {sorted(REGISTRY)}")
    extra, requires, entry = EXTRA_PLAYERS[name]
    where, _, attribute = entry.partition(":")
    try:
        module = importlib.import_module(where)
    except ImportError:
        try:
            need_extra(extra, requires)
        except ValueError as exc:
            raise ValueError(f"player {name!r}: {exc}") from None
        raise
    return getattr(module, attribute)


def make_agent(name: str, seed: int | None = None, **params) -> Agent:
    """An agent by name (``params`` go to its constructor, e.g. bayes_v1's parameters)."""
    return agent_class(name)(seed=seed, **params)


__all__ = [
    "BASELINES",
    "EXTRA_PLAYERS",
    "REGISTRY",
    "Agent",
    "BayesAgent",
    "BayesParams",
    "BayesV2Agent",
    "BayesV2Params",
    "BayesV3Agent",
    "BayesV3Params",
    "CheaterAgent",
    "EagerAgent",
    "PassiveAgent",
    "RandomAgent",
    "RolloutAgent",
    "RolloutParams",
    "SearchAgent",
    "SearchParams",
    "agent_class",
    "make_agent",
]
