"""PPO on the device: the game, the opponents and the learner in one compiled JAX program.

A config with ``engine: jax`` trains here instead of through stable-baselines3 (``ckc-train`` picks
the path; the YAML, its checks, the run folder, the evaluations and the agent files are the same).
What runs where, as in PureJaxRL:

- **One PPO iteration is one pure function** (:func:`make_update`): ``ppo.n_steps`` learner steps of
  ``vector.num_envs`` games (``lax.scan`` over :func:`ckc_env.jax.vector_env.step`: every opponent's
  decision and every engine step on the device), GAE, then ``ppo.n_epochs`` passes of minibatches of
  ``ppo.batch_size`` (``lax.scan`` over a permutation), Adam through optax.
- **One jitted call per iteration**, compiled once per run: no host round trip per step, and only
  the iteration's figures (a few scalars) come back between calls (:func:`compile_chunk` also scans
  several iterations in one call; a run calls one at a time, so that an evaluation can follow any
  iteration without compiling another chunk length). JAX picks the device: a GPU where the CUDA
  build of jax is installed, else the CPU.
- **Evaluations** are the SB3 path's (:class:`training.evaluations.Evaluations`: the same tables,
  deals, seats and paired records), played on the JAX engine (``ckc-evaluate --engine jax``'s
  loop, compiled once per run: the agent's weights are an argument of the compiled loop).
- **Keys are explicit**: the run's seed gives the network's initialisation, the deals and every
  sample; the same config and seed give the same run on the same device and software.

The algorithm is MaskablePPO's, argument for argument (``ppo`` takes the same keys with the same
defaults): illegal actions masked to -1e8 before the softmax, the clipped surrogate, the value loss
(clipped with ``clip_range_vf``), the entropy bonus, advantages normalised per minibatch, gradients
clipped at ``max_grad_norm``, Adam with eps 1e-5, ``target_kl`` stopping an iteration's epochs. The
network is MlpPolicy's (separate policy and value MLPs of ``policy.net_arch``, tanh or ReLU,
orthogonal initialisation with gains sqrt(2), 0.01 for the logits and 1 for the value) and is
written as the same safe agent file (safetensors + card, under MlpPolicy's tensor names): an agent
trained here plays on the AEC env, the NumPy engines, ``ckc-play`` and ``torch_policy`` unchanged.
``init_from`` starts from any safe agent file (its policy and critic; pieces the config's layout
adds to the file's start with zero weights). From the ``finetune`` section: ``critic_warmup`` (the
policy's weights frozen for the first steps) and ``kl_to_start`` with ``kl_decay`` (after each
iteration, one pass of minibatch steps on ``c_t * KL(start || current)``), as
``training/finetune.py`` defines them.

Opponents: any player with a JAX form (``jax.registry`` names with their parameters, safe agent
files), by player count; a ``population`` of such tables, drawn at every deal by weight (``pfsp``:
the weights follow the learner's win rate against each member, updated between compiled chunks).
Not on this path (refused by name when the config is checked): self-play snapshots, behaviour
cloning (clone on the SB3 path, then ``init_from``), ``duplicate``, ``critic_state``,
``finetune.critic_fit``, ``second_order`` beliefs.

Files in the run folder besides the SB3 path's: ``progress.csv`` (one row per iteration: losses,
KL, clip fraction, explained variance, finished games and their win share, learner steps/s) and
``train_state.safetensors`` (the network, Adam's state and the counters, written whole at every
evaluation and at the end: ``--resume`` reads it back without unpickling anything; the games in
progress are dealt anew).
"""

from __future__ import annotations

import csv
import io
import itertools
import json
import math
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np

from ckc_env import cli
from ckc_env.files import InputError, write_atomic
from ckc_env.seeding import derive_seed

from . import run_folder
from .config import TrainConfig

STATE_FILE = "train_state.safetensors"
STATE_FORMAT = "ckc-env-jax-train-state"
PROGRESS = "progress.csv"
PRINT_EVERY = 10.0
"""Seconds between progress lines (and rewrites of progress.csv) between evaluations."""
MASKED = -1e8
"""sb3-contrib's masked logit: illegal actions get no probability and no entropy."""


# ---------------------------------------------------------------------------------------------- settings
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


# ---------------------------------------------------------------------------------------------- the update
class Runner(NamedTuple):
    """Everything one PPO iteration reads and writes (a pytree, the carry of the compiled chunks)."""

    params: Any
    opt_state: Any
    env_state: Any
    obs: Any
    mask: Any
    key: Any
    timesteps: Any  # float32: the learner steps so far (for the schedules; the host keeps the exact count)
    start: Any  # the start policy (kl_to_start), else None


class Transition(NamedTuple):
    obs: Any
    mask: Any
    action: Any
    log_prob: Any
    value: Any
    reward: Any
    done: Any


def masked_log_probs(logits: Any, mask: Any) -> Any:
    import jax
    import jax.numpy as jnp

    return jax.nn.log_softmax(jnp.where(mask, logits, MASKED), axis=-1)


def make_optimizer(hyper: Hyper):
    import optax

    return optax.chain(optax.clip_by_global_norm(hyper.max_grad_norm), optax.adam(hyper.learning_rate, eps=1e-5))


def make_update(env: Any, config: TrainConfig) -> Callable[[Runner], tuple[Runner, dict[str, Any]]]:
    """One PPO iteration as a pure function of the :class:`Runner`: the rollout, GAE, the epochs of
    minibatch updates, and the fine-tuning pass; it returns the iteration's figures (device scalars)."""
    import jax
    import jax.numpy as jnp
    from jax import lax

    from ckc_env.jax import policy
    from ckc_env.jax import vector_env as venv

    hyper = Hyper.of(config)
    tune = config.finetune
    optimizer = make_optimizer(hyper)
    size = config.vector.num_envs
    total = hyper.n_steps * size
    minibatches = total // hyper.batch_size
    members = env.members

    def rollout_step(carry: tuple, _: Any) -> tuple[tuple, tuple]:
        params, env_state, obs, mask, key = carry
        key, sample_key = jax.random.split(key)
        log_probs = masked_log_probs(policy.raw_logits(params, obs), mask)
        action = jax.random.categorical(sample_key, log_probs)
        log_prob = jnp.take_along_axis(log_probs, action[:, None], axis=1)[:, 0]
        value = policy.values(params, obs)
        env_state, out = venv.step(env, env_state, action)
        transition = Transition(obs, mask, action, log_prob, value, out.reward, out.done)
        games = (out.done, out.win_share, out.points, out.margin, out.member)
        return (params, env_state, out.obs, out.mask, key), (transition, games)

    def advantages(batch: Transition, last_value: Any) -> tuple[Any, Any]:
        def backwards(carry: tuple, step: tuple) -> tuple[tuple, Any]:
            gae, next_value = carry
            reward, done, value = step
            keep = 1.0 - done.astype(jnp.float32)
            delta = reward + hyper.gamma * next_value * keep - value
            gae = delta + hyper.gamma * hyper.gae_lambda * keep * gae
            return (gae, value), gae

        _, gaes = lax.scan(
            backwards, (jnp.zeros_like(last_value), last_value), (batch.reward, batch.done, batch.value), reverse=True
        )
        return gaes, gaes + batch.value

    def ppo_loss(params: Any, data: tuple) -> tuple[Any, dict[str, Any]]:
        obs, mask, action, old_log_prob, old_value, advantage, target = data
        log_probs = masked_log_probs(policy.raw_logits(params, obs), mask)
        log_prob = jnp.take_along_axis(log_probs, action[:, None], axis=1)[:, 0]
        entropy = -jnp.sum(jnp.where(mask, jnp.exp(log_probs) * log_probs, 0.0), axis=-1)
        if hyper.normalize_advantage:
            advantage = (advantage - advantage.mean()) / (advantage.std() + 1e-8)
        log_ratio = log_prob - old_log_prob
        ratio = jnp.exp(log_ratio)
        clipped = jnp.clip(ratio, 1 - hyper.clip_range, 1 + hyper.clip_range)
        policy_loss = -jnp.mean(jnp.minimum(advantage * ratio, advantage * clipped))
        value = policy.values(params, obs)
        if hyper.clip_range_vf is not None:
            value = old_value + jnp.clip(value - old_value, -hyper.clip_range_vf, hyper.clip_range_vf)
        value_loss = jnp.mean((target - value) ** 2)
        entropy_loss = -jnp.mean(entropy)
        loss = policy_loss + hyper.ent_coef * entropy_loss + hyper.vf_coef * value_loss
        figures = {
            "policy_gradient_loss": policy_loss,
            "value_loss": value_loss,
            "entropy_loss": entropy_loss,
            "approx_kl": jnp.mean((ratio - 1) - log_ratio),
            "clip_fraction": jnp.mean((jnp.abs(ratio - 1) > hyper.clip_range).astype(jnp.float32)),
        }
        return loss, figures

    def frozen_policy(updates: Any, warming: Any) -> Any:
        keep = 1.0 - warming.astype(jnp.float32)
        return type(updates)(jax.tree_util.tree_map(lambda u: u * keep, updates.policy), updates.value)

    def epochs(runner: Runner, data: tuple, key: Any) -> tuple[Runner, dict[str, Any]]:
        warming = runner.timesteps <= tune.critic_warmup
        grad = jax.grad(ppo_loss, has_aux=True)

        def minibatch(carry: tuple, indices: Any) -> tuple[tuple, dict[str, Any]]:
            params, opt_state, going = carry
            grads, figures = grad(params, jax.tree_util.tree_map(lambda x: x[indices], data))
            if hyper.target_kl is not None:  # sb3: stop before the step once the KL passes 1.5 x target_kl
                going = going & (figures["approx_kl"] <= 1.5 * hyper.target_kl)
            updates, new_state = optimizer.update(grads, opt_state, params)
            updates = frozen_policy(updates, warming)
            import optax

            new_params = optax.apply_updates(params, updates)
            params = jax.tree_util.tree_map(lambda new, old: jnp.where(going, new, old), new_params, params)
            opt_state = jax.tree_util.tree_map(lambda new, old: jnp.where(going, new, old), new_state, opt_state)
            return (params, opt_state, going), figures

        def epoch(carry: tuple, epoch_key: Any) -> tuple[tuple, dict[str, Any]]:
            order = jax.random.permutation(epoch_key, total)[: minibatches * hyper.batch_size]
            return lax.scan(minibatch, carry, order.reshape(minibatches, hyper.batch_size))

        keys = jax.random.split(key, hyper.n_epochs)
        (params, opt_state, _), figures = lax.scan(epoch, (runner.params, runner.opt_state, jnp.bool_(True)), keys)
        figures = jax.tree_util.tree_map(jnp.mean, figures)
        figures["critic_warmup"] = warming.astype(jnp.float32)
        return runner._replace(params=params, opt_state=opt_state), figures

    def pull_towards_start(runner: Runner, data: tuple, key: Any) -> tuple[Runner, Any]:
        """``kl_to_start``: one pass of minibatch steps on ``c_t * KL(start || current)``."""
        t = runner.timesteps
        weight = (
            tune.kl_to_start if tune.kl_decay <= 0 else tune.kl_to_start * jnp.maximum(0.0, 1.0 - t / tune.kl_decay)
        )
        weight = jnp.where(t <= tune.critic_warmup, 0.0, weight)
        obs, mask = data[0], data[1]

        def divergence(params: Any, indices: Any) -> Any:
            start = jnp.exp(masked_log_probs(policy.raw_logits(runner.start, obs[indices]), mask[indices]))
            log_q = masked_log_probs(policy.raw_logits(params, obs[indices]), mask[indices])
            p_log_p = jnp.where(start > 0, start * jnp.log(jnp.where(start > 0, start, 1.0)), 0.0)
            return jnp.mean(jnp.sum(p_log_p - start * log_q, axis=-1))

        def minibatch(carry: tuple, indices: Any) -> tuple[tuple, Any]:
            params, opt_state = carry
            kl, grads = jax.value_and_grad(divergence)(params, indices)
            grads = jax.tree_util.tree_map(lambda g: g * weight, grads)
            updates, new_state = optimizer.update(grads, opt_state, params)
            import optax

            new_params = optax.apply_updates(params, updates)
            on = weight > 0
            params = jax.tree_util.tree_map(lambda new, old: jnp.where(on, new, old), new_params, params)
            opt_state = jax.tree_util.tree_map(lambda new, old: jnp.where(on, new, old), new_state, opt_state)
            return (params, opt_state), kl

        order = jax.random.permutation(key, total)[: minibatches * hyper.batch_size]
        (params, opt_state), kls = lax.scan(
            minibatch, (runner.params, runner.opt_state), order.reshape(minibatches, hyper.batch_size)
        )
        return runner._replace(params=params, opt_state=opt_state), (jnp.mean(kls), weight)

    def update(runner: Runner) -> tuple[Runner, dict[str, Any]]:
        key, rollout_key, epoch_key, kl_key = jax.random.split(runner.key, 4)
        carry = (runner.params, runner.env_state, runner.obs, runner.mask, rollout_key)
        (params, env_state, obs, mask, _), (batch, games) = lax.scan(rollout_step, carry, None, hyper.n_steps)
        last_value = policy.values(params, obs)
        advantage, target = advantages(batch, last_value)
        flat = lambda x: x.reshape((total, *x.shape[2:]))  # noqa: E731
        data = tuple(
            flat(x) for x in (batch.obs, batch.mask, batch.action, batch.log_prob, batch.value, advantage, target)
        )
        # the step count includes this rollout when the updates read it (SB3's num_timesteps in train())
        runner = runner._replace(env_state=env_state, obs=obs, mask=mask, key=key, timesteps=runner.timesteps + total)
        runner, figures = epochs(runner, data, epoch_key)
        if tune.kl_to_start > 0:
            runner, (kl, weight) = pull_towards_start(runner, data, kl_key)
            figures["kl_to_start"], figures["kl_weight"] = kl, weight
        variance = jnp.var(data[6])
        figures["explained_variance"] = jnp.where(variance > 0, 1 - jnp.var(data[6] - data[4]) / variance, jnp.nan)
        done, share, points, margin, member = games
        ended = done.astype(jnp.float32)
        figures["games"] = ended.sum()
        figures["win_share_sum"] = (share * ended).sum()
        figures["points_sum"] = (points * ended).sum()
        figures["margin_sum"] = (margin * ended).sum()
        figures["return_sum"] = (batch.reward).sum()
        figures["member_games"] = jax.ops.segment_sum(ended.ravel(), member.ravel(), members)
        figures["member_wins"] = jax.ops.segment_sum((share * ended).ravel(), member.ravel(), members)
        return runner, figures

    return update


# ---------------------------------------------------------------------------------------------- the runner's state on disk
def _leaves(runner: Runner) -> dict[str, np.ndarray]:
    import jax

    kept = {"params": runner.params, "opt_state": runner.opt_state}
    out = {}
    for path, leaf in jax.tree_util.tree_flatten_with_path(kept)[0]:
        out[jax.tree_util.keystr(path)] = np.asarray(leaf)
    return out


def save_state(runner: Runner, path: Path, timesteps: int) -> None:
    """The network, Adam's state and the counters as safetensors (plain tensors and a JSON header:
    nothing to unpickle), written whole."""
    import jax
    from safetensors.numpy import save

    tensors = _leaves(runner)
    tensors["key"] = np.asarray(jax.random.key_data(runner.key))
    metadata = {"format": STATE_FORMAT, "num_timesteps": str(int(timesteps))}
    write_atomic(path, save({k: np.asarray(v, order="C") for k, v in tensors.items()}, metadata=metadata))


STATE_BYTES = 1 << 31
"""The most a train state file may hold (the largest network the config accepts, with Adam's two
moments, is about 600 MB)."""
HEADER_BYTES = 1 << 24
"""The most a train state's JSON header may hold."""


def expected_state(config: TrainConfig) -> dict[str, tuple[tuple[int, ...], np.dtype]]:
    """Every tensor a train state of this config holds, by name: its shape and dtype, computed
    abstractly (``jax.eval_shape``: nothing is compiled or allocated)."""
    import jax

    from ckc_env.observation import ENV_VERSION, LAYOUTS

    def build() -> dict[str, Any]:
        params = init_network(jax.random.key(0), LAYOUTS[ENV_VERSION][config.belief_features].size, config)
        return {"params": params, "opt_state": make_optimizer(Hyper.of(config)).init(params)}

    shapes = jax.eval_shape(build)
    out = {
        jax.tree_util.keystr(path): (tuple(leaf.shape), np.dtype(leaf.dtype))
        for path, leaf in jax.tree_util.tree_flatten_with_path(shapes)[0]
    }
    key = jax.eval_shape(lambda: jax.random.key_data(jax.random.key(0)))
    out["key"] = (tuple(key.shape), np.dtype(key.dtype))
    return out


def check_state(path: Path, config: TrainConfig) -> int:
    """A train state checked whole, as a file from a stranger, before anything is compiled: a
    safetensors file of at most :data:`STATE_BYTES`, its header JSON nested at most
    ``files.MAX_DEPTH`` deep with this format and a step count, exactly the tensors of this run's
    config (names, dtypes and shapes, the PRNG key's included) and every value finite. Its step
    count, or :class:`InputError` naming the file and what is wrong."""
    from safetensors.numpy import load

    from ckc_env.files import short

    what = f"JAX train state {path}"
    data, header, steps = read_state_header(path)
    expected = expected_state(config)
    names = set(header) - {"__metadata__"}
    missing, extra = sorted(set(expected) - names), sorted(names - set(expected))
    if missing or extra:
        raise InputError(
            f"{what} does not fit the run's config: "
            + "; ".join(
                part
                for part in (
                    f"missing tensors {[short(n) for n in missing[:8]]}" if missing else "",
                    f"tensors the config has no place for {[short(n) for n in extra[:8]]}" if extra else "",
                )
                if part
            )
        )
    try:
        tensors = load(data)
    except Exception as exc:  # a broken file: say which, never a deep traceback
        raise InputError(f"{what} cannot be read: {type(exc).__name__}: {short(str(exc), 300)}") from None
    for name, (shape, dtype) in expected.items():
        value = tensors[name]
        if value.shape != shape or value.dtype != dtype:
            raise InputError(
                f"{what}: its tensor {name} is {value.dtype}{list(value.shape)}, the run's config needs "
                f"{dtype}{list(shape)}"
            )
        if np.issubdtype(dtype, np.floating) and not np.isfinite(value).all():
            raise InputError(f"{what}: its tensor {name} holds values that are not finite (NaN or infinity)")
    return int(steps)


def read_state_header(path: Path) -> tuple[bytes, dict[str, Any], int]:
    """A train state's bytes, its safetensors header (JSON, nested at most ``files.MAX_DEPTH`` deep)
    and the step count it was saved at, read within bounds; :class:`InputError` if it is not one."""
    from ckc_env.files import parse_json, read_bytes, short

    from .limits import MAX_TIMESTEPS

    what = f"JAX train state {path}"
    data = read_bytes(path, "JAX train state", STATE_BYTES)
    size = int.from_bytes(data[:8], "little") if len(data) >= 8 else -1
    if not 2 <= size <= min(HEADER_BYTES, len(data) - 8):
        raise InputError(f"{what} is not a safetensors file: its header length does not fit the file")
    header = parse_json(data[8 : 8 + size], f"{what}: its header")
    metadata = header.get("__metadata__") if isinstance(header, dict) else None
    if not isinstance(metadata, dict) or metadata.get("format") != STATE_FORMAT:
        found = short(metadata.get("format")) if isinstance(metadata, dict) else "none"
        raise InputError(f"{path} is not a JAX train state of ckc-train: its format is {found}, not {STATE_FORMAT!r}")
    steps = metadata.get("num_timesteps")
    if not (isinstance(steps, str) and steps.isdigit() and len(steps) <= 13 and int(steps) <= MAX_TIMESTEPS):
        raise InputError(f"{what}: num_timesteps={short(steps)} is not a count from 0 to {MAX_TIMESTEPS:,}")
    return data, header, int(steps)


def state_timesteps(path: Path) -> int:
    """The learner steps a train state was saved at (its header alone); InputError if it is not one."""
    return read_state_header(path)[2]


def load_state(runner: Runner, path: Path, config: TrainConfig) -> Runner:
    """``runner`` with the network, Adam's state and the key of a saved train state, checked whole
    first (:func:`check_state`)."""
    import jax
    import jax.numpy as jnp
    from safetensors.numpy import load

    check_state(path, config)
    tensors = load(read_state_header(path)[0])
    kept = {"params": runner.params, "opt_state": runner.opt_state}
    flat, tree = jax.tree_util.tree_flatten_with_path(kept)
    leaves = [jnp.asarray(tensors[jax.tree_util.keystr(keypath)]) for keypath, _ in flat]
    restored = jax.tree_util.tree_unflatten(tree, leaves)
    return runner._replace(
        params=restored["params"],
        opt_state=restored["opt_state"],
        key=jax.random.wrap_key_data(jnp.asarray(tensors["key"])),
    )


# ---------------------------------------------------------------------------------------------- the run
class Model:
    """What the evaluations save: the network at a step count (``training.evaluations.Save``)."""

    def __init__(self, params: Any, num_timesteps: int) -> None:
        self.params, self.num_timesteps = params, num_timesteps


def training_tables(config: TrainConfig) -> tuple[list[Any], np.ndarray]:
    """The opponents tables (one, or the population's members) and their prior weights."""
    if config.population is None:
        return [config.opponents], np.ones(1)
    population = config.population
    return population.tables, np.asarray(population.weights or [1.0] * len(population.members), dtype=np.float64)


PROGRESS_BYTES = 1 << 30


def _steps(value: Any) -> float:
    try:
        return float(value)
    except (TypeError, ValueError):
        return float("inf")


class Progress:
    """``progress.csv`` (one row per PPO iteration, SB3's tag names) and, with torch installed,
    TensorBoard's event files in ``tensorboard/``."""

    def __init__(self, run_dir: Path, upto: int | None = None) -> None:
        """A resumed run's log is read back up to its train state's step (``upto``): the iterations
        logged after it are done again."""
        from ckc_env.files import read_bytes

        self.path = run_dir / PROGRESS
        self.rows: list[dict[str, Any]] = []
        if upto is not None and self.path.is_file():
            text = read_bytes(self.path, "training log", PROGRESS_BYTES).decode("utf-8", errors="replace")
            rows = list(csv.DictReader(io.StringIO(text)))
            self.rows = [row for row in rows if _steps(row.get("time/total_timesteps")) <= upto]
        self.writer = None
        try:
            from torch.utils.tensorboard import SummaryWriter

            self.writer = SummaryWriter(str(run_dir / "tensorboard"))
        except Exception:  # no torch, or no tensorboard: the CSV alone
            self.writer = None

    def add(self, row: dict[str, Any]) -> None:
        self.rows.append(row)
        if self.writer is not None:
            step = int(row["time/total_timesteps"])
            for tag, value in row.items():
                if tag != "time/total_timesteps" and value is not None and value == value:
                    self.writer.add_scalar(tag, float(value), step)

    def record(self, tag: str, value: float, step: int) -> None:
        if self.writer is not None:
            self.writer.add_scalar(tag, value, step)

    def flush(self) -> None:
        names: list[str] = []
        for row in self.rows:
            names.extend(k for k in row if k not in names)
        out = io.StringIO()
        writer = csv.DictWriter(out, fieldnames=names)
        writer.writeheader()
        writer.writerows(self.rows)
        write_atomic(self.path, out.getvalue())
        if self.writer is not None:
            self.writer.flush()


def pfsp_weights(prior: np.ndarray, rates: np.ndarray, population) -> np.ndarray:
    """PFSP's sampling weights: ``prior x max(floor, (1 - p) ** power)`` (``training/population.py``)."""
    if population is None or population.scheme != "pfsp":
        return prior / prior.sum()
    weights = prior * np.maximum(population.floor, (1.0 - rates) ** population.power)
    return weights / weights.sum()


def build_env(config: TrainConfig, weights: np.ndarray | None = None, trust_checkpoint: bool = False):
    """The run's :class:`~ckc_env.jax.vector_env.VectorEnv` (its training tables)."""
    from ckc_env.jax import vector_env as venv

    tables, _ = training_tables(config)
    return venv.VectorEnv.build(
        config.game, tables, config.learner_seat, config.belief_features, config.reward, trust_checkpoint
    )


def start_runner(config: TrainConfig, env: Any, weights: np.ndarray, params: Any = None) -> Runner:
    """The runner before the first iteration: the network (fresh from the seed, or ``params``),
    Adam's state, ``vector.num_envs`` games dealt up to their learners' first decisions."""
    import jax
    import jax.numpy as jnp

    from ckc_env.jax import vector_env as venv
    from ckc_env.observation import ENV_VERSION, LAYOUTS

    key = jax.random.key(derive_seed(config.seed, "jax_ppo") % (1 << 32))
    key, init_key, env_key = jax.random.split(key, 3)
    if params is None:
        params = init_network(init_key, LAYOUTS[ENV_VERSION][config.belief_features].size, config)
    optimizer = make_optimizer(Hyper.of(config))
    env_state, obs, mask = venv.reset(env, env_key, config.vector.num_envs, jnp.asarray(weights, jnp.float32))
    return Runner(params, optimizer.init(params), env_state, obs, mask, key, jnp.float32(0), None)


def compile_chunk(env: Any, config: TrainConfig, iterations: int) -> Callable[[Runner], tuple[Runner, dict[str, Any]]]:
    """``iterations`` PPO iterations as one jitted call (``lax.scan`` over :func:`make_update`)."""
    import jax

    update = make_update(env, config)
    return jax.jit(lambda runner: jax.lax.scan(lambda c, _: update(c), runner, None, iterations))


def train(
    config: TrainConfig, run_dir: Path, args: Any, history: list[dict[str, Any]], resume: Path | None, plan
) -> Path:
    """A run on the JAX engine, its inputs checked (``training.train.main``): the network, the
    compiled chunks of PPO iterations, the evaluations and the saved models. The programs compiled
    for it are freed when it ends (``ckc_env.jax.compiled``: each holds memory mappings, of which a
    process has a limited number)."""
    from ckc_env.jax import compiled

    try:
        return run(config, run_dir, args, history, resume, plan)
    finally:
        compiled.free()


def run(
    config: TrainConfig, run_dir: Path, args: Any, history: list[dict[str, Any]], resume: Path | None, plan
) -> Path:
    """:func:`train`'s body."""
    import jax
    import jax.numpy as jnp

    from ckc_env.observation import ENV_VERSION, LAYOUTS

    from .evaluations import Clock, Evaluations, evaluation_record, first_table
    from .run_folder import record_run, trained_counts

    if resume is None:
        record_run(config, run_dir)
    rollout = rollout_size(config)
    players = trained_counts(config)
    _, prior = training_tables(config)
    env = build_env(config, trust_checkpoint=args.trust_checkpoint)
    inputs = LAYOUTS[ENV_VERSION][config.belief_features].size
    params = None
    if config.init_from is not None and resume is None:
        params = start_network(config.init_from, inputs)
        cli.say(f"init_from: the policy and critic of {config.init_from}", flush=True)
    rates = np.full(len(prior), 1.0 / min(config.player_counts))
    runner = start_runner(config, env, pfsp_weights(prior, rates, config.population), params)
    timesteps = 0
    if resume is not None:
        runner = load_state(runner, resume, config)
        timesteps = state_timesteps(resume)
        runner = runner._replace(timesteps=jnp.float32(timesteps))
    if config.finetune.kl_to_start > 0:
        from .finetune import START_POLICY

        start_file = run_dir / START_POLICY.replace(".safetensors", "")
        if resume is None:
            save_agent(runner.params, start_file, config, 0, players)
        runner = runner._replace(start=start_network(str(start_file) + ".json", inputs))

    if resume is not None:  # the train state and the start policy read: only now does the resumed run change a byte
        run_folder.sweep(run_dir)  # what a save killed mid-write left
        record_run(config, run_dir)
    clock = Clock(history[-1].get("elapsed_seconds", 0.0) if history else 0.0)
    progress = Progress(run_dir, upto=timesteps if resume is not None else None)

    def save(model: Model, prefix: Path, config: TrainConfig, evaluation: dict[str, Any] | None = None) -> Path:
        return save_agent(model.params, prefix, config, model.num_timesteps, players, evaluation)

    evaluations = Evaluations(config, run_dir, history, clock, save, args.trust_checkpoint, engine="jax")

    def evaluate() -> None:
        evaluations.run(Model(runner.params, timesteps), timesteps, lambda tag, v: progress.record(tag, v, timesteps))
        save_state(runner, run_dir / STATE_FILE, timesteps)

    if timesteps == 0 and not history:
        evaluate()  # the start of the curve
        if plan is not None:
            plan.started()
    iterate = compile_chunk(env, config, 1)  # one compiled call per iteration: one compilation per run
    next_eval = (history[-1]["timesteps"] if history else 0) + config.eval.every
    shown = time.perf_counter()
    while timesteps < config.total_timesteps:
        started = time.perf_counter()
        weights = jnp.asarray(pfsp_weights(prior, rates, config.population), jnp.float32)
        runner, figures = iterate(runner._replace(env_state=runner.env_state._replace(weights=weights)))
        figures = jax.device_get(figures)
        seconds = time.perf_counter() - started
        timesteps += rollout
        row = {name: float(value[0]) for name, value in figures.items() if np.ndim(value) == 1}
        games = max(row.pop("games"), 1.0)
        progress.add(
            {
                "time/total_timesteps": timesteps,
                "time/elapsed": clock.elapsed(),
                "time/learner_steps_per_s": round(rollout / seconds, 1),
                "rollout/games": games,
                "rollout/win_share": row.pop("win_share_sum") / games,
                "rollout/points": row.pop("points_sum") / games,
                "rollout/margin": row.pop("margin_sum") / games,
                "rollout/reward_per_step": row.pop("return_sum") / rollout,
                **{f"train/{name}": value for name, value in row.items()},
            }
        )
        if config.population is not None:  # the running win rates, forgetting at 1/horizon per game
            member_games, member_wins = figures["member_games"][0], figures["member_wins"][0]
            kept = (1.0 - 1.0 / config.population.horizon) ** member_games
            rates = np.where(
                member_games > 0, kept * rates + (1 - kept) * member_wins / np.maximum(member_games, 1), rates
            )
        evaluating = next_eval <= timesteps < config.total_timesteps
        if evaluating or timesteps >= config.total_timesteps or time.perf_counter() - shown >= PRINT_EVERY:
            shown = time.perf_counter()
            progress.flush()
            last = progress.rows[-1]
            print(
                f"step {timesteps}/{config.total_timesteps} ({clock.elapsed():.0f} s): "
                f"{last['time/learner_steps_per_s']:,.0f} learner steps/s, training games {last['rollout/win_share']:.3f} won",
                flush=True,
            )
        if evaluating:
            next_eval = (timesteps // config.eval.every + 1) * config.eval.every
            evaluate()

    if not history or history[-1]["timesteps"] < timesteps:
        evaluate()
    else:
        save_state(runner, run_dir / STATE_FILE, timesteps)
    final = evaluation_record(config, history, timesteps)
    save_agent(runner.params, run_dir / "final_model", config, timesteps, players, final)
    summary = {
        "timesteps": timesteps,
        "wall_clock_seconds": clock.elapsed(),
        "device": str(jax.devices()[0]),
        "best": max(history, key=lambda h: h["results"][first_table(config)]["win_rate"]),
    }
    if config.population is not None:
        summary["population"] = {
            "win_rates": rates.tolist(),
            "weights": pfsp_weights(prior, rates, config.population).tolist(),
        }
    write_atomic(run_dir / "summary.json", json.dumps(summary, indent=2))
    print(json.dumps(history[-1]["results"], indent=2))
    cli.say(f"run folder: {run_dir}")
    return run_dir
