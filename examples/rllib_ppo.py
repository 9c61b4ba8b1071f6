"""Ray RLlib: PPO self-play on the game with RLlib's own config API, then the checkpoint at a table.

``ckc_env.envs.rllib`` registers the game as ``"checkpoint_charlie"`` (an RLlib ``MultiAgentEnv`` whose
observations follow RLlib's masking convention) and builds a ``PPOConfig`` in which one shared
``ActionMaskingTorchRLModule`` plays every seat. Needs the ``rllib`` extra:
``pip install -e ".[rllib]"``. ``ckc-rllib-train`` is the full tool (configs, run folders,
TensorBoard, ``--resume``, clusters).

    python examples/rllib_ppo.py
"""

from __future__ import annotations

import sys
import tempfile

from ckc_env import cli

try:  # without the extra: its name and the command that installs it, exit status 2
    cli.need_extra("rllib", "ray", "torch")
except ValueError as exc:
    print(f"rllib_ppo.py: {exc}", file=sys.stderr)
    sys.exit(2)

import ray

from ckc_env.envs import rllib
from ckc_env.evaluation.tournament import run_tournament


def train_and_play(iterations: int = 2, num_players: int = 3, games: int = 30) -> float:
    """Train a few PPO iterations in self-play, then play the checkpoint against random players;
    returns its win rate."""
    ray.init(num_cpus=2, include_dashboard=False)
    config = rllib.ppo_config(
        {"num_players": num_players, "learning_seats": "all", "reward": "margin"},
        ppo={"train_batch_size_per_learner": 500, "minibatch_size": 250, "num_epochs": 2},
        model={"fcnet_hiddens": [64, 64]},
        num_env_runners=1,
        num_envs_per_env_runner=4,
        seed=0,
    )
    algo = config.build_algo()
    for _ in range(iterations):
        result = algo.train()
        runners = result["env_runners"]
        print(f"return {runners['episode_return_mean']:.3f}, illegal actions {runners.get('illegal_actions', 0)}")
    checkpoint = algo.save_to_path(tempfile.mkdtemp())
    algo.stop()
    ray.shutdown()
    # An RLlib checkpoint is a player spec: loading it unpickles, so it needs trust.
    lineup = [checkpoint, *["random"] * (num_players - 1)]
    table = run_tournament(lineup, games=games, seed=0, workers=1, trust_checkpoint=True)
    print(table.table())
    return table.stats()[0]["win"].mean


if __name__ == "__main__":
    train_and_play()
