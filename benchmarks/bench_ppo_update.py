"""What PPO's own arithmetic costs per learner step, on the device path and on SB3's, with no game:
the floor under any trainer of the recipe on this machine.

A minibatch of the config's size (random observations, every action legal) through the config's
network (MlpPolicy's two MLPs, ``policy.net_arch``): one gradient step of MaskablePPO's loss with
Adam, and the policy and value forward pass that picks a rollout's actions, timed per row on

- the device path (``training/trainers/jax/update.ppo_loss``, jitted, 16 steps in one ``lax.scan``);
- SB3's (sb3-contrib's ``MaskableActorCriticPolicy.evaluate_actions``, the clipped loss, backward,
  Adam's step; torch on ``--torch-threads`` threads, as ``full_vector.yaml`` runs its updates).

A learner step costs ``n_epochs`` gradient rows and one forward row: with the environment's cost
per learner step (``bench_training.py``'s "env only" lines) that bounds what a trainer of the
recipe can reach here, whatever its games cost. Medians over ``--repeats`` rounds, the two paths
in turn within each round.

    OPENBLAS_NUM_THREADS=1 python benchmarks/bench_ppo_update.py --json docs/results/bench_ppo_update_cpu.json
"""

from __future__ import annotations

import argparse
import json
import shlex
import statistics
import sys
import time
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from ckc_env import cli  # noqa: E402

STEPS = 16
"""Gradient steps per timed call (one ``lax.scan`` on the device path, a loop on SB3's)."""


def jax_path(config: Any, rows: int, inputs: int) -> tuple[Any, Any, float, int]:
    """(time STEPS gradient steps, time a forward pass, forward FLOPs per row, actions)."""
    import jax
    import jax.numpy as jnp
    import optax

    from ckc_env.jax import policy
    from ckc_env.training.trainers.jax.network import Hyper, init_network
    from ckc_env.training.trainers.jax.update import make_optimizer, ppo_loss

    hyper = Hyper.of(config)
    params = init_network(jax.random.key(0), inputs, config)
    actions = policy.raw_logits(params, jnp.zeros((1, inputs))).shape[-1]
    rng = np.random.default_rng(0)
    data = (
        jnp.asarray(rng.random((rows, inputs), np.float32)),
        jnp.ones((rows, actions), bool),
        jnp.asarray(rng.integers(0, actions, rows), jnp.int32),
        jnp.full(rows, -np.log(actions), jnp.float32),
        jnp.zeros(rows, jnp.float32),
        jnp.asarray(rng.standard_normal(rows), jnp.float32),
        jnp.zeros(rows, jnp.float32),
    )
    optimizer = make_optimizer(hyper)
    grad = jax.grad(partial(ppo_loss, hyper), has_aux=True)

    @jax.jit
    def steps(params: Any, state: Any) -> Any:
        def one(carry: tuple, _: Any) -> tuple[tuple, None]:
            params, state = carry
            grads, _figures = grad(params, data)
            updates, state = optimizer.update(grads, state, params)
            return (optax.apply_updates(params, updates), state), None

        return jax.lax.scan(one, (params, state), None, length=STEPS)[0]

    forward = jax.jit(lambda params: policy.raw_logits(params, data[0]).sum() + policy.values(params, data[0]).sum())
    state = optimizer.init(params)
    jax.block_until_ready(steps(params, state))
    forward(params).block_until_ready()

    def time_steps() -> float:
        start = time.perf_counter()
        jax.block_until_ready(steps(params, state))
        return (time.perf_counter() - start) / (STEPS * rows)

    def time_forward() -> float:
        start = time.perf_counter()
        for _ in range(STEPS):
            forward(params).block_until_ready()
        return (time.perf_counter() - start) / (STEPS * rows)

    flops = 2.0 * sum(float(np.prod(layer.weight.shape)) for layer in (*params.policy, *params.value))
    return time_steps, time_forward, flops, actions


def sb3_path(config: Any, rows: int, inputs: int, actions: int, threads: int) -> tuple[Any, Any]:
    """(time STEPS gradient steps, time a forward pass) of sb3-contrib's maskable policy."""
    import gymnasium as gym
    import torch
    from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy

    torch.set_num_threads(threads)
    hyper = config.ppo
    policy = MaskableActorCriticPolicy(
        gym.spaces.Box(0.0, 1.0, (inputs,), np.float32),
        gym.spaces.Discrete(actions),
        lambda _: hyper.get("learning_rate", 3e-4),
        **config.policy,
    )
    rng = np.random.default_rng(0)
    obs = torch.as_tensor(rng.random((rows, inputs), np.float32))
    masks = np.ones((rows, actions), bool)
    chosen = torch.as_tensor(rng.integers(0, actions, rows))
    old_log_prob = torch.full((rows,), -float(np.log(actions)))
    advantage = torch.as_tensor(rng.standard_normal(rows).astype(np.float32))
    target = torch.zeros(rows)
    clip = hyper.get("clip_range", 0.2)

    def step() -> None:  # MaskablePPO.train's minibatch, less its bookkeeping
        values, log_prob, entropy = policy.evaluate_actions(obs, chosen, action_masks=masks)
        normalised = (advantage - advantage.mean()) / (advantage.std() + 1e-8)
        ratio = torch.exp(log_prob - old_log_prob)
        policy_loss = -torch.min(normalised * ratio, normalised * torch.clamp(ratio, 1 - clip, 1 + clip)).mean()
        value_loss = torch.nn.functional.mse_loss(target, values.flatten())
        loss = policy_loss + hyper.get("ent_coef", 0.0) * -entropy.mean() + hyper.get("vf_coef", 0.5) * value_loss
        policy.optimizer.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(policy.parameters(), hyper.get("max_grad_norm", 0.5))
        policy.optimizer.step()

    step()

    def time_steps() -> float:
        start = time.perf_counter()
        for _ in range(STEPS):
            step()
        return (time.perf_counter() - start) / (STEPS * rows)

    def time_forward() -> float:
        start = time.perf_counter()
        with torch.no_grad():
            for _ in range(STEPS):
                policy.forward(obs, action_masks=masks)
        return (time.perf_counter() - start) / (STEPS * rows)

    return time_steps, time_forward


def jax_device() -> str:
    import jax

    return f"{jax.devices()[0].platform}: {jax.devices()[0].device_kind}"


def main(argv: list[str] | None = None) -> dict[str, Any]:
    from bench_training import _relative

    from ckc_env.observation import OBSERVATION, OBSERVATION_WITH_BELIEFS
    from ckc_env.training.config import load_config

    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--config", default=str(ROOT / "configs/train/scratch_jax.yaml"), help="a training config")
    parser.add_argument("--torch-threads", type=cli.integer(1), default=2, help="SB3's torch threads")
    parser.add_argument("--repeats", type=cli.integer(1), default=7)
    parser.add_argument("--json", metavar="FILE", help="write the figures to FILE")
    args = parser.parse_args(argv)
    cli.check_outputs(parser, json=args.json)
    config = load_config(args.config)
    rows = config.ppo.get("batch_size", 64)
    epochs = config.ppo.get("n_epochs", 10)
    inputs = (OBSERVATION_WITH_BELIEFS if config.belief_features else OBSERVATION).size
    jax_steps, jax_forward, flops, actions = jax_path(config, rows, inputs)
    sb3_steps, sb3_forward = sb3_path(config, rows, inputs, actions, args.torch_threads)
    timers = {"jax step": jax_steps, "jax forward": jax_forward, "sb3 step": sb3_steps, "sb3 forward": sb3_forward}
    seconds: dict[str, list[float]] = {name: [] for name in timers}
    for _ in range(args.repeats):
        for name, timer in timers.items():
            seconds[name].append(timer())
    us = {name: statistics.median(values) * 1e6 for name, values in seconds.items()}
    per_learner_step = {path: epochs * us[f"{path} step"] + us[f"{path} forward"] for path in ("jax", "sb3")}
    gflops = {
        "jax forward": flops / us["jax forward"] / 1e3,
        "jax step (3 forward passes' FLOPs)": 3 * flops / us["jax step"] / 1e3,
    }
    print(f"config {args.config}: minibatch {rows} x {inputs}, {actions} actions, {epochs} epochs; µs per row:")
    for name, value in us.items():
        print(f"  {name:12s} {value:7.2f}")
    for path, value in per_learner_step.items():
        print(f"{path}: {epochs} gradient rows and a forward row = {value:.1f} µs per learner step")
    for name, value in gflops.items():
        print(f"{name}: {value:.0f} GFLOP/s")
    out = {
        "command": "python benchmarks/bench_ppo_update.py " + shlex.join(argv if argv is not None else sys.argv[1:]),
        "config": _relative(args.config),
        "rows": rows,
        "inputs": inputs,
        "actions": actions,
        "epochs": epochs,
        "torch_threads": args.torch_threads,
        "repeats": args.repeats,
        "jax_device": jax_device(),
        "us_per_row": us,
        "us_per_learner_step": per_learner_step,
        "forward_flops_per_row": flops,
        "gflops": gflops,
    }
    if args.json:
        from ckc_env.files import write_atomic

        write_atomic(Path(args.json), json.dumps(out, indent=2))
    return out


if __name__ == "__main__":
    main()
