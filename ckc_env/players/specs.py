"""Player specs: the one way to name a player, in tournaments, opponents, training configs and on
the command line. This module reads a spec's form; :mod:`ckc_env.players.build` checks and builds it.

| form | example | builds |
|---|---|---|
| a registered name | ``"bayes_v1"`` | the scripted player of :data:`ckc_env.agents.REGISTRY`, or a player of an extra (:data:`ckc_env.agents.EXTRA_PLAYERS`: ``"openspiel_ismcts"``) |
| a name with parameters | ``{"name": "bayes_v1", "sure": 0.7}``, on the command line ``bayes_v1:sure=0.7`` | the same, with constructor parameters |
| a checkpoint | ``"checkpoints/ppo_5p_distilled"``, ``"agent.json"``, ``"agent.safetensors"`` | a trained policy (:class:`ckc_env.players.policy.PolicyAgent`) |
| a pickle checkpoint, trusted | ``"model.zip"`` with ``trust_checkpoint=True`` | the same, loaded by stable-baselines3 |
| an RLlib checkpoint, trusted | ``"runs/rllib_vs_random_seed0/checkpoint"`` with ``trust_checkpoint=True`` | its shared module, loaded by RLlib (:class:`ckc_env.players.rllib.RLlibAgent`; the ``rllib`` extra) |
| ``"self"`` | ``"self"`` | in training only: frozen snapshots of the learner |

Specs, not agent objects, cross process boundaries: every worker builds its own players from them.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..agents import EXTRA_PLAYERS, REGISTRY, Agent
from ..files import short
from .loading import SUFFIX_KINDS, locate

PlayerSpec = str | Mapping[str, Any]
SELF = "self"


@dataclass(frozen=True)
class Spec:
    """A spec taken apart: what it names (``kind``: ``"agent"``, ``"checkpoint"``, ``"rllib"`` or ``"self"``)."""

    name: str
    kind: str
    params: dict[str, Any] = field(default_factory=dict)


def parse(spec: PlayerSpec, allow_self: bool = False) -> Spec:
    """Take a spec apart, checking its form only (nothing is built or loaded)."""
    name = spec.get("name") if isinstance(spec, Mapping) else spec
    if not isinstance(name, str) or not name:
        raise ValueError(
            f"a player is an agent name, a mapping with 'name', or a checkpoint path; got {short(spec)} "
            f"(registered agents: {sorted(REGISTRY)})"
        )
    params = {k: v for k, v in spec.items() if k != "name"} if isinstance(spec, Mapping) else {}
    if name == SELF:
        if not allow_self:
            raise ValueError(
                f"'self' (snapshots of the learner) is not a player here: give one of {sorted(REGISTRY)} "
                "or a checkpoint path"
            )
        return Spec(name, "self", params)
    if name in REGISTRY or name in EXTRA_PLAYERS:
        return Spec(name, "agent", params)
    if not name.endswith(tuple(SUFFIX_KINDS)) and not os.path.lexists(name) and os.path.lexists(name + ".json"):
        return Spec(name + ".json", "checkpoint", params)  # an exported agent by its name, as ckc-export named it
    if name.endswith(tuple(SUFFIX_KINDS)) or os.path.lexists(name):
        kind = "checkpoint"
        if os.path.isdir(name):  # an RLlib checkpoint, or a run folder (an agent card first)
            with contextlib.suppress(ValueError):  # refused with its reason by validate and build
                kind = "rllib" if locate(name).kind == "rllib" else kind
        return Spec(name, kind, params)
    also = ", 'self'" if allow_self else ""
    beside = [name + suffix for suffix in SUFFIX_KINDS if os.path.lexists(name + suffix)]
    meant = f" (did you mean {short(beside[0])}?)" if beside else ""
    raise ValueError(
        f"unknown player {short(name)}{meant}: registered agents are {sorted(REGISTRY)}{also}, "
        "or give a checkpoint path"
    )


def label(spec: PlayerSpec) -> str:
    """A short readable name: ``bayes_v1``, ``bayes_v1(sure=0.7)``, or the checkpoint path."""
    if isinstance(spec, Mapping):
        params = ",".join(f"{k}={v}" for k, v in spec.items() if k != "name")
        return f"{spec['name']}({params})" if params else str(spec["name"])
    return str(spec)


def from_text(text: str) -> PlayerSpec:
    """A spec from the command line: ``bayes_v1`` stays a name, ``bayes_v1:sure=0.7,bar_late=0.5``
    becomes ``{"name": "bayes_v1", "sure": 0.7, "bar_late": 0.5}`` (values read as int, float,
    ``true``/``false``, else text)."""
    name, colon, rest = text.partition(":")
    if not colon:
        return text
    spec: dict[str, Any] = {"name": name}
    for item in rest.split(","):
        key, equals, value = item.partition("=")
        if not equals or not key:
            raise ValueError(f"bad parameter {short(item)} in {short(text)}: write NAME:KEY=VALUE,KEY=VALUE")
        spec[key] = _value(value)
    return spec


def _value(text: str) -> Any:
    for convert in (int, float):
        try:
            return convert(text)
        except ValueError:
            pass
    if text.lower() in ("true", "false"):
        return text.lower() == "true"
    return text


def for_seats(specs: PlayerSpec | Sequence[PlayerSpec], others: int, what: str = "opponents") -> list[PlayerSpec]:
    """One spec for every other seat, or exactly ``others`` specs in seat order after the player's."""
    if isinstance(specs, (str, Mapping, Agent)):
        specs = [specs]
    specs = list(specs)
    if len(specs) == 1:
        return specs * others
    if len(specs) != others:
        raise ValueError(
            f"{others + 1} players need {others} {what} (one spec for all, or a list of {others}), got {len(specs)}"
        )
    return specs
