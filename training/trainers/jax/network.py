"""The device trainer's network: MlpPolicy's policy and value MLPs as a ``jax.policy.Network``,
their initialisation, a start from a safe agent file, and the safe agent file they are written as
(under MlpPolicy's tensor names: an agent trained here plays on the AEC env, the NumPy engines,
``ckc-play`` and ``torch_policy`` unchanged)."""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np

from ...config import TrainConfig


@dataclass(frozen=True)
class Hyper:
    """MaskablePPO's arguments, with its defaults (``config.ppo`` overrides them)."""

    learning_rate: float = 3e-4
    n_steps: int = 2048
    batch_size: int = 64
    n_epochs: int = 10
    gamma: float = 0.99
    gae_lambda: float = 0.95
    clip_range: float = 0.2
    clip_range_vf: float | None = None
    normalize_advantage: bool = True
    ent_coef: float = 0.0
    vf_coef: float = 0.5
    max_grad_norm: float = 0.5
    target_kl: float | None = None
    stats_window_size: int = 100

    @staticmethod
    def of(config: TrainConfig) -> Hyper:
        return Hyper(**config.ppo)


def rollout_size(config: TrainConfig) -> int:
    """Learner decisions per PPO iteration: ``n_steps`` x ``vector.num_envs``."""
    return Hyper.of(config).n_steps * config.vector.num_envs


# ---------------------------------------------------------------------------------------------- the network
def net_arch(config: TrainConfig) -> tuple[list[int], list[int]]:
    arch = config.policy.get("net_arch", [64, 64])
    return (arch["pi"], arch["vf"]) if isinstance(arch, dict) else (list(arch), list(arch))


def init_network(key: Any, inputs: int, config: TrainConfig):
    """MlpPolicy's networks as a ``jax.policy.Network`` (weights (inputs, outputs)): orthogonal
    initialisation (gain sqrt(2) for hidden layers, 0.01 for the logits, 1 for the value; biases 0),
    or PyTorch's default uniform one with ``policy.ortho_init: false``."""
    import jax
    import jax.numpy as jnp

    from ckc_env.engine.actions import N_ACTIONS
    from ckc_env.jax.policy import Dense, Network

    activation = config.policy.get("activation_fn", "tanh")
    ortho = config.policy.get("ortho_init", True)
    pi, vf = net_arch(config)

    def mlp(key: Any, widths: list[int], outputs: int, head_gain: float) -> tuple[Dense, ...]:
        sizes = [inputs, *widths, outputs]
        keys = jax.random.split(key, len(sizes) - 1)
        layers = []
        for k, (a, b) in enumerate(itertools.pairwise(sizes)):
            last = k == len(sizes) - 2
            if ortho:
                gain = head_gain if last else math.sqrt(2)
                weight = jax.nn.initializers.orthogonal(gain)(keys[k], (a, b), jnp.float32)
                bias = jnp.zeros(b, jnp.float32)
            else:  # torch.nn.Linear's default
                bound = 1 / math.sqrt(a)
                wk, bk = jax.random.split(keys[k])
                weight = jax.random.uniform(wk, (a, b), jnp.float32, -bound, bound)
                bias = jax.random.uniform(bk, (b,), jnp.float32, -bound, bound)
            layers.append(Dense(weight, bias, "identity" if last else activation))
        return tuple(layers)

    k_pi, k_vf = jax.random.split(key)
    return Network(mlp(k_pi, pi, N_ACTIONS, 0.01), mlp(k_vf, vf, 1, 1.0))


def start_network(path: str, inputs: int):
    """The policy and critic of a safe agent file, its first layers widened with zero weights for
    the pieces the config's layout appends to the file's (``finetune.check_init_from`` checked it)."""
    import jax.numpy as jnp

    from ckc_env.jax import policy

    params = policy.load(path).params

    def widen(layers):
        first = layers[0]
        extra = inputs - first.weight.shape[0]
        if extra <= 0:
            return layers
        weight = jnp.concatenate([first.weight, jnp.zeros((extra, first.weight.shape[1]), jnp.float32)])
        return (replace(first, weight=weight), *layers[1:])

    return type(params)(widen(params.policy), widen(params.value))


def tensors_of(params) -> tuple[dict[str, Any], dict[str, np.ndarray]]:
    """The card's ``network`` and the tensors of a Network under MlpPolicy's names, as torch lays
    them out ((outputs, inputs)): what ``agent_file.sb3_network`` writes for a MaskablePPO model."""
    network: dict[str, Any] = {"features": "flatten", "policy": [], "value": []}
    tensors: dict[str, np.ndarray] = {}
    for head, prefix, last in (
        ("policy", "mlp_extractor.policy_net", "action_net"),
        ("value", "mlp_extractor.value_net", "value_net"),
    ):
        layers = getattr(params, head)
        for k, layer in enumerate(layers):
            name = last if k == len(layers) - 1 else f"{prefix}.{2 * k}"
            weight = np.asarray(layer.weight, dtype=np.float32)
            network[head].append(
                {"tensor": name, "inputs": weight.shape[0], "outputs": weight.shape[1], "activation": layer.activation}
            )
            tensors[f"{name}.weight"] = np.ascontiguousarray(weight.T)
            tensors[f"{name}.bias"] = np.asarray(layer.bias, dtype=np.float32)
    return network, tensors


def save_agent(
    params,
    prefix: Path,
    config: TrainConfig,
    timesteps: int,
    players: list[int],
    evaluation: dict[str, Any] | None = None,
) -> Path:
    """The safe agent file of a network (``prefix.json`` + ``prefix.safetensors``)."""
    from ckc_env.observation import ENV_VERSION
    from ckc_env.players.agent_file import write_agent

    network, tensors = tensors_of(params)
    training = {"algorithm": "PPO (JAX)", "timesteps": int(timesteps), "seed": config.seed, "config": config.to_dict()}
    return write_agent(prefix, tensors, network, ENV_VERSION, config.belief_features, players, training, evaluation)
