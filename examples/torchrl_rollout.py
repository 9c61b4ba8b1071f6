"""TorchRL: the environment in TorchRL's own ``PettingZooWrapper``, unchanged.

``use_mask=True`` groups the agents and gives each group an ``action_mask`` and a ``mask`` of the
agent to act; TorchRL's random actions respect the action mask, so a rollout plays whole games.
``check_env_specs`` is TorchRL's compliance check. The round summaries, which TorchRL's wrapper
would drop, stay in ``env.unwrapped.round_summaries`` of the PettingZoo environment. Needs the
``torchrl`` extra: ``pip install -e ".[torchrl]"``.

    python examples/torchrl_rollout.py
"""

from __future__ import annotations

import torch
from torchrl.envs import PettingZooWrapper
from torchrl.envs.utils import check_env_specs

import ckc_env


def rollout_games(num_players: int = 5, steps: int = 200, seed: int = 0) -> int:
    """Check the specs, then roll out ``steps`` decisions with masked random actions; return the
    number of games finished (each of them played to its end with legal actions only)."""
    torch.manual_seed(seed)
    aec = ckc_env.env(num_players=num_players)
    env = PettingZooWrapper(aec, use_mask=True, seed=seed)
    check_env_specs(env, seed=seed)
    data = env.rollout(steps, break_when_any_done=False)
    for group in env.group_map:  # the agent to act chose a legal action
        acting = data[group, "mask"]
        chosen = data[group, "action_mask"].gather(-1, data[group, "action"].unsqueeze(-1)).squeeze(-1)
        assert bool(chosen[acting].all()), f"{group} chose an illegal action"
    games = int(data["next", "done"].sum())
    print(f"{steps} decisions, {games} games finished, {len(aec.unwrapped.round_summaries)} rounds in the last")
    env.close()
    return games


if __name__ == "__main__":
    rollout_games()
