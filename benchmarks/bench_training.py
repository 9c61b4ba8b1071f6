"""Training throughput: MaskablePPO learning steps per second against four random opponents and
against four bayes_v1 opponents, measured side by side in one process (round-robin repeats, medians),
with a trivial one-step environment as the same-run reference for PPO's own cost.

    python benchmarks/bench_training.py                  # 5 players, 4096 steps per measurement, 3 repeats
    python benchmarks/bench_training.py --belief-features --steps 8192 --repeats 5

The project's aim: against bayes_v1 within 25% of the rate against random (ratio >= 0.75).
"""

from __future__ import annotations

import argparse
import statistics
import time

import gymnasium as gym
import numpy as np


class Trivial(gym.Env):
    """One decision per episode, 40 actions, the same observation size: PPO's cost alone."""

    def __init__(self, size: int) -> None:
        self.observation_space = gym.spaces.Box(-3.0, 15.0, (size,), np.float32)
        self.action_space = gym.spaces.Discrete(40)
        self._obs = np.zeros(size, np.float32)

    def reset(self, seed=None, options=None):
        super().reset(seed=seed)
        return self._obs, {}

    def step(self, action):
        return self._obs, 0.0, True, False, {}

    def action_masks(self):
        return np.ones(40, bool)


def rate(make_env, steps: int, seed: int) -> float:
    import torch
    from sb3_contrib import MaskablePPO

    torch.set_num_threads(1)
    model = MaskablePPO(
        "MlpPolicy", make_env(), n_steps=1024, batch_size=256, n_epochs=5, seed=seed, device="cpu", verbose=0
    )
    model.learn(1024)  # warm-up: the first rollout, imports, caches
    start = time.perf_counter()
    model.learn(steps, reset_num_timesteps=False)
    return steps / (time.perf_counter() - start)


def main(argv: list[str] | None = None) -> None:
    from ckc_env.observation import OBSERVATION, OBSERVATION_WITH_BELIEFS
    from ckc_env.single_agent import CheckpointCharlieSingleAgent

    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--players", type=int, default=5, choices=(3, 4, 5))
    parser.add_argument("--steps", type=int, default=4096)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--belief-features", action="store_true")
    args = parser.parse_args(argv)

    size = (OBSERVATION_WITH_BELIEFS if args.belief_features else OBSERVATION).size
    setups = {
        "trivial env": lambda: Trivial(size),
        "vs 4 random": lambda: CheckpointCharlieSingleAgent(
            opponents="random", num_players=args.players, belief_features=args.belief_features
        ),
        "vs 4 bayes_v1": lambda: CheckpointCharlieSingleAgent(
            opponents="bayes_v1", num_players=args.players, belief_features=args.belief_features
        ),
    }
    rates: dict[str, list[float]] = {name: [] for name in setups}
    for repeat in range(args.repeats):
        for name, make_env in setups.items():
            rates[name].append(rate(make_env, args.steps, seed=repeat))
    medians = {name: statistics.median(values) for name, values in rates.items()}
    for name, value in medians.items():
        print(f"{name:16s} {value:8.0f} learner steps/s")
    ratios = [b / r for b, r in zip(rates["vs 4 bayes_v1"], rates["vs 4 random"], strict=True)]
    print(f"bayes_v1 / random: {statistics.median(ratios):.2f} (aim >= 0.75)")


if __name__ == "__main__":
    main()
