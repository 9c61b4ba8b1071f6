"""Tianshou: the environment in Tianshou's own PettingZoo wrapper and collector, unchanged.

One masked random policy per seat (``MARLRandomDiscreteMaskedOffPolicyAlgorithm``, Tianshou's
multi-agent example player) under a ``MultiAgentPolicy``, over two environments collected in
lockstep by a ``Collector`` into a replay buffer. Swap a seat's policy for a learning one (DQN,
PPO) to train it. Needs the ``tianshou`` extra: ``pip install -e ".[tianshou]"``.

    python examples/tianshou_random.py
"""

from __future__ import annotations

import sys

from ckc_env import cli

try:  # without the extra: its name and the command that installs it, exit status 2
    cli.need_extra("tianshou", "torch", "tianshou")
except ValueError as exc:
    print(f"tianshou_random.py: {exc}", file=sys.stderr)
    sys.exit(2)

import numpy as np
from tianshou.algorithm.multiagent.marl import MultiAgentPolicy
from tianshou.algorithm.random import MARLRandomDiscreteMaskedOffPolicyAlgorithm
from tianshou.data import Collector, VectorReplayBuffer
from tianshou.env import DummyVectorEnv, PettingZooEnv

import ckc_env


def make_env(num_players: int) -> PettingZooEnv:
    return PettingZooEnv(ckc_env.env(num_players=num_players))


def collect_games(num_players: int = 5, n_episode: int = 10, seed: int = 0) -> int:
    """Play ``n_episode`` games with masked random players; return the games collected."""
    np.random.seed(seed)  # the random players draw from NumPy's global generator
    envs = DummyVectorEnv([lambda: make_env(num_players) for _ in range(2)])
    probe = make_env(num_players)
    policy = MultiAgentPolicy(
        {agent: MARLRandomDiscreteMaskedOffPolicyAlgorithm(probe.action_space).policy for agent in probe.agents}
    )
    collector = Collector(policy, envs, VectorReplayBuffer(20_000, len(envs)))
    envs.seed(seed)  # environment i deals from seed + i
    stats = collector.collect(n_episode=n_episode, reset_before_collect=True)
    envs.close()
    print(f"{stats.n_collected_episodes} games, {stats.n_collected_steps} decisions collected")
    return stats.n_collected_episodes


if __name__ == "__main__":
    collect_games()
