"""Training throughput: MaskablePPO learning steps per second against four random opponents and
against four bayes_v1 opponents, measured side by side in one process (round-robin repeats, medians),
with a trivial one-step environment as the same-run reference for PPO's own cost.

The model and the environments are built by training/train.py from a training config (default:
configs/train/full.yaml, the shipped agent's), so the figures are those of the training script;
only the opponents differ between the lines.

    python benchmarks/bench_training.py                                   # full.yaml, 3 repeats
    python benchmarks/bench_training.py --config configs/train/quick.yaml --steps 8192 --repeats 5

The project's aim: against bayes_v1 within 25% of the rate against random (ratio >= 0.75).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import gymnasium as gym
import numpy as np

from ckc_env import cli

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # run as a script: make the repository (and training/) importable


class Trivial(gym.Env):
    """One decision per episode, 40 actions, the same observation size: PPO's cost alone.

    Observations and rewards are random, as in a real game: with all-zero inputs and rewards PPO's
    backward pass ran about ten times slower (most likely denormal floats in the vanishing
    gradients), and the reference fell below the game environments.
    """

    def __init__(self, size: int) -> None:
        self.observation_space = gym.spaces.Box(-3.0, 15.0, (size,), np.float32)
        self.action_space = gym.spaces.Discrete(40)
        rng = np.random.default_rng(0)
        self._observations = rng.random((256, size), dtype=np.float32)
        self._rewards = rng.normal(size=256)
        self._k = 0

    def reset(self, seed=None, options=None):
        super().reset(seed=seed)
        self._k = (self._k + 1) % 256
        return self._observations[self._k], {}

    def step(self, action):
        return self._observations[self._k], float(self._rewards[self._k]), True, False, {}

    def action_masks(self):
        return np.ones(40, bool)


def rate(config, make_env, steps: int) -> float:
    from ckc_env.training.train import build_model
    from stable_baselines3.common.vec_env import DummyVecEnv

    model = build_model(config, DummyVecEnv([make_env]))
    model.learn(config.ppo.get("n_steps", 2048))  # warm-up: the first rollout and update, imports, caches
    start = time.perf_counter()
    model.learn(steps, reset_num_timesteps=False)
    return steps / (time.perf_counter() - start)


def main(argv: list[str] | None = None) -> None:
    import torch
    from ckc_env.training.config import TrainConfig, load_config
    from ckc_env.training.train import make_env_fn

    from ckc_env.observation import OBSERVATION, OBSERVATION_WITH_BELIEFS

    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--config", default=str(ROOT / "configs/train/full.yaml"), help="a training config")
    parser.add_argument("--steps", type=cli.integer(1), default=4096, help="learner steps per measurement")
    parser.add_argument("--repeats", type=cli.integer(1), default=3)
    args = parser.parse_args(argv)

    torch.set_num_threads(1)  # as training/train.py
    config = load_config(args.config)
    size = (OBSERVATION_WITH_BELIEFS if config.belief_features else OBSERVATION).size

    def against(name: str):
        return make_env_fn(TrainConfig(**{**config.__dict__, "opponents": [name]}), rank=0, snapshot_dir=None)

    setups = {
        "trivial env": lambda: Trivial(size),
        "vs 4 random": against("random"),
        "vs 4 bayes_v1": against("bayes_v1"),
    }
    print(f"config {args.config}: {config.game_config.num_players} players, belief_features={config.belief_features}")
    rates: dict[str, list[float]] = {name: [] for name in setups}
    for _ in range(args.repeats):
        for name, make_env in setups.items():
            rates[name].append(rate(config, make_env, args.steps))
    medians = {name: statistics.median(values) for name, values in rates.items()}
    for name, value in medians.items():
        print(f"{name:16s} {value:8.0f} learner steps/s")
    ratios = [b / r for b, r in zip(rates["vs 4 bayes_v1"], rates["vs 4 random"], strict=True)]
    print(f"bayes_v1 / random: {statistics.median(ratios):.2f} (aim >= 0.75)")


if __name__ == "__main__":
    main()
