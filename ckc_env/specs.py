"""Player specs: the one way to name a player, in tournaments, opponents, training configs and on
the command line.

| form | example | builds |
|---|---|---|
| a registered name | ``"bayes_v1"`` | the scripted player of :data:`ckc_env.agents.REGISTRY` |
| a name with parameters | ``{"name": "bayes_v1", "sure": 0.7}``, on the command line ``bayes_v1:sure=0.7`` | the same, with constructor parameters |
| a checkpoint | ``"checkpoints/ppo_5p_distilled"``, ``"agent.json"``, ``"agent.safetensors"`` | a trained policy (:class:`ckc_env.policy.PolicyAgent`) |
| a pickle checkpoint, trusted | ``"model.zip"`` with ``trust_checkpoint=True`` | the same, loaded by stable-baselines3 |
| an RLlib checkpoint, trusted | ``"runs/rllib_vs_random_seed0/checkpoint"`` with ``trust_checkpoint=True`` | its shared module, loaded by RLlib (:class:`ckc_env.rllib.RLlibAgent`; the ``rllib`` extra) |
| ``"self"`` | ``"self"`` | in training only: frozen snapshots of the learner |

Specs, not agent objects, cross process boundaries: every worker builds its own players from them.
Checking a spec never runs a file's content: a safe agent is checked from its card and the
safetensors header, and a ``.zip`` (whose loading unpickles) is refused unless trusted
(:mod:`ckc_env.agent_file`).
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .agents import REGISTRY, Agent, make_agent

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
            f"a player is an agent name, a mapping with 'name', or a checkpoint path; got {spec!r} "
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
    if name in REGISTRY:
        return Spec(name, "agent", params)
    if os.path.isdir(name) and not _holds_agent_file(name) and rllib_module_dir(name) is not None:
        return Spec(name, "rllib", params)
    if name.endswith((".zip", ".json", ".safetensors")) or os.path.isdir(name) or os.path.isfile(name):
        return Spec(name, "checkpoint", params)
    also = ", 'self'" if allow_self else ""
    raise ValueError(
        f"unknown player {name!r}: registered agents are {sorted(REGISTRY)}{also}, or give a checkpoint path"
    )


def validate(spec: PlayerSpec, allow_self: bool = False, trust_checkpoint: bool = False) -> Spec:
    """Fail early, with the accepted values: an agent is built once, a checkpoint is checked
    (a zip only with ``trust_checkpoint``)."""
    parsed = parse(spec, allow_self)
    if parsed.kind == "agent":
        try:
            make_agent(parsed.name, seed=0, **parsed.params)
        except TypeError as exc:
            raise ValueError(f"agent {parsed.name!r} takes no parameters {sorted(parsed.params)}: {exc}") from None
    elif parsed.kind == "rllib":
        unknown = sorted(set(parsed.params) - {"deterministic"})
        if unknown:
            raise ValueError(f"RLlib checkpoint {parsed.name!r} takes the parameter deterministic, not {unknown}")
        from .agent_file import trusted

        if not trusted(trust_checkpoint):
            raise untrusted_rllib_error(parsed.name)
    elif parsed.kind == "checkpoint":
        from .policy import check_checkpoint

        unknown = sorted(set(parsed.params) - {"deterministic"})
        if unknown:
            raise ValueError(f"checkpoint {parsed.name!r} takes the parameter deterministic, not {unknown}")
        check_checkpoint(parsed.name, trust_checkpoint)
    return parsed


def build(spec: PlayerSpec, seed: int, trust_checkpoint: bool = False) -> Agent:
    """The player a spec names, seeded (``"self"`` is resolved by the training code, not here)."""
    parsed = parse(spec)
    if parsed.kind == "agent":
        return make_agent(parsed.name, seed=seed, **parsed.params)
    if parsed.kind == "rllib":
        from .agent_file import trusted

        if not trusted(trust_checkpoint):
            raise untrusted_rllib_error(parsed.name)
        from .rllib import RLlibAgent

        return RLlibAgent(parsed.name, seed=seed, **parsed.params)
    from .policy import PolicyAgent

    return PolicyAgent(parsed.name, seed=seed, trust_checkpoint=trust_checkpoint, **parsed.params)


def is_safe(spec: PlayerSpec) -> bool:
    """Whether building the player runs nothing but this package: an agent name or a safe agent file."""
    parsed = parse(spec, allow_self=True)
    if parsed.kind == "rllib":
        return False
    if parsed.kind != "checkpoint":
        return True
    from .policy import is_safe

    return is_safe(parsed.name)


RLLIB_MODULE = Path("learner_group", "learner", "rl_module", "shared")
"""Where an RLlib algorithm checkpoint of ``ckc-rllib-train`` keeps the shared learning module."""


def rllib_module_dir(path: str | Path) -> Path | None:
    """The shared module's folder of an RLlib checkpoint (an algorithm checkpoint, its module
    folder, or a run folder's ``checkpoint``), found from the files alone; None if there is none."""
    path = Path(path)
    for candidate in (path / "checkpoint" / RLLIB_MODULE, path / RLLIB_MODULE, path):
        if (candidate / "module_state.pkl").is_file() and (candidate / "class_and_ctor_args.pkl").is_file():
            return candidate
    return None


def untrusted_rllib_error(path: str | Path) -> ValueError:
    """The refusal for an RLlib checkpoint without trust: what, why, and the ways on."""
    from .agent_file import TRUST_ENV

    return ValueError(
        f"refusing to load the RLlib checkpoint {path} without trust: RLlib stores a module's class and state "
        "as pickle files that run code when loaded, so it is loaded only when you say you trust it. "
        "A ckc-rllib-train run folder also holds the module as a safe agent file (best_model.json, "
        "final_model.json), which plays without ray and without trust: name the run folder instead. "
        f"Or trust it: trust_checkpoint=True in Python, --trust-checkpoint on the command line, or {TRUST_ENV}=1."
    )


def _holds_agent_file(path: str | Path) -> bool:
    return any((Path(path) / f"{model}.json").is_file() for model in ("best_model", "final_model"))


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
            raise ValueError(f"bad parameter {item!r} in {text!r}: write NAME:KEY=VALUE,KEY=VALUE")
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
