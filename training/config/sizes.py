"""What a training config would allocate (a rollout, a pretraining or critic-fit set, the networks),
checked against :mod:`.limits` before anything is built: a value past one is refused with the key,
the value and the accepted range, not met later as a ``MemoryError``."""

from __future__ import annotations

import itertools
from typing import Any

from ckc_env.engine.actions import N_ACTIONS
from ckc_env.table.options import fail

from . import limits


def network_parameters(net_arch: Any, inputs: int, outputs: int = N_ACTIONS) -> int:
    """The weights of the policy and value networks MlpPolicy builds from ``net_arch``."""
    pi, vf = (net_arch["pi"], net_arch["vf"]) if isinstance(net_arch, dict) else (net_arch, net_arch)
    total = 0
    for widths, out in ((pi, outputs), (vf, 1)):
        sizes = [inputs, *widths, out]
        total += sum((a + 1) * b for a, b in itertools.pairwise(sizes))
    return total


def decision_bytes(config: Any) -> int:
    """Memory one stored decision takes in a rollout or a pretraining set: its observation (with the
    critic's state), its action mask and a few float32 scalars (action, reward, value, returns...)."""
    from ckc_env.observation import CRITIC_STATE, ENV_VERSION, LAYOUTS

    width = LAYOUTS[ENV_VERSION][config.belief_features].size + (CRITIC_STATE.size if config.critic_state else 0)
    return 4 * (width + N_ACTIONS + 8)


def check_sizes(config: Any) -> None:
    """What a config would allocate, against :mod:`training.config.limits`, before anything is built."""
    from ckc_env.observation import ENV_VERSION, LAYOUTS

    per_decision = decision_bytes(config)
    budget = limits.MAX_BUFFER_BYTES
    slots = config.vector.num_envs if config.vector is not None else config.n_envs
    across = "vector.num_envs" if config.vector is not None else "n_envs"
    n_steps = config.ppo.get("n_steps", 2048)
    if n_steps * slots * per_decision > budget:
        fail(
            "ppo.n_steps",
            n_steps,
            f"a rollout (n_steps x {across} = {n_steps:_} x {slots:_} decisions, {per_decision:_} bytes each) of at "
            f"most {budget:_} bytes: n_steps <= {budget // (slots * per_decision):_}",
        )
    for key, decisions in (
        ("pretrain.decisions", config.pretrain.decisions),
        ("finetune.critic_fit", config.finetune.critic_fit),
    ):
        active = config.pretrain.teacher is not None if key.startswith("pretrain") else decisions > 0
        if active and decisions * per_decision > budget:
            fail(
                key,
                decisions,
                f"at most {budget // per_decision:_} decisions ({per_decision:_} bytes each, {budget:_} in all)",
            )
    inputs = LAYOUTS[ENV_VERSION][config.belief_features].size
    weights = network_parameters(config.policy.get("net_arch", [64, 64]), inputs)
    if weights > limits.MAX_PARAMETERS:
        fail(
            "policy.net_arch",
            config.policy["net_arch"],
            f"networks of at most {limits.MAX_PARAMETERS:_} weights in all (this one: {weights:_})",
        )
