"""TorchRL: the environment in TorchRL's own ``PettingZooWrapper``, unchanged.

``use_mask=True`` groups the agents (one group per seat) and gives each group an ``action_mask``
and a ``mask`` of the agent to act. ``env.rollout`` without a policy draws from the wrapper's
action spec, whose mask the wrapper updates at every step, so it plays whole games. A
``Collector`` with ``policy=None`` does not: its ``RandomPolicy`` samples from a copy of the spec
taken once, without the masks, and nearly every action it takes is illegal (about 950 of 1000
in a 3-player game), each one ending that game. Give a collector a policy that reads the mask,
such as :func:`masked_random_policy` here (a learned policy does the same with its logits).
``check_env_specs`` is TorchRL's compliance check. The round summaries, which TorchRL's wrapper
would drop, stay in ``env.unwrapped.round_summaries`` of the PettingZoo environment. Needs the
``torchrl`` extra: ``pip install -e ".[torchrl]"``.

    python examples/torchrl_rollout.py
"""

from __future__ import annotations

import sys

from ckc_env import cli

try:  # without the extra: its name and the command that installs it, exit status 2
    cli.need_extra("torchrl", "torch", "torchrl", "tensordict")
except ValueError as exc:
    print(f"torchrl_rollout.py: {exc}", file=sys.stderr)
    sys.exit(2)

import torch
from tensordict import TensorDictBase
from torchrl.collectors import Collector
from torchrl.envs import PettingZooWrapper
from torchrl.envs.utils import check_env_specs
from torchrl.modules import MaskedCategorical

import ckc_env


def masked_random_policy(env: PettingZooWrapper):
    """A policy for TorchRL's collectors: each group's action drawn uniformly among the legal ones
    of its ``action_mask`` (the seats not to act have every action allowed, and their action is
    ignored). A learned policy would put its logits where the zeros are."""

    def policy(td: TensorDictBase) -> TensorDictBase:
        for group in env.group_map:
            mask = td[group, "action_mask"]
            td[group, "action"] = MaskedCategorical(logits=torch.zeros(mask.shape), mask=mask).sample()
        return td

    return policy


def illegal_actions(data: TensorDictBase, env: PettingZooWrapper) -> int:
    """How many of the collected decisions took an action their mask forbade (the agent to act only)."""
    illegal = 0
    for group in env.group_map:
        acting = data[group, "mask"]
        chosen = data[group, "action_mask"].gather(-1, data[group, "action"].unsqueeze(-1)).squeeze(-1)
        illegal += int((acting & ~chosen).sum())
    return illegal


def rollout_games(num_players: int = 5, steps: int = 200, seed: int = 0) -> int:
    """Check the specs, then roll out ``steps`` decisions with masked random actions; return the
    number of games finished (each of them played to its end with legal actions only)."""
    torch.manual_seed(seed)
    aec = ckc_env.env(num_players=num_players)
    env = PettingZooWrapper(aec, use_mask=True, seed=seed)
    check_env_specs(env, seed=seed)
    data = env.rollout(steps, break_when_any_done=False)
    assert illegal_actions(data, env) == 0, "a rollout chose an illegal action"
    games = int(data["next", "done"].sum())
    print(f"{steps} decisions, {games} games finished, {len(aec.unwrapped.round_summaries)} rounds in the last")
    env.close()
    return games


def collect_games(num_players: int = 3, frames: int = 1000, seed: int = 0) -> tuple[int, int]:
    """A ``Collector`` gathering ``frames`` decisions with :func:`masked_random_policy`; returns
    (games finished, illegal actions taken: 0)."""
    torch.manual_seed(seed)
    env = PettingZooWrapper(ckc_env.env(num_players=num_players), use_mask=True, seed=seed)
    collector = Collector(env, masked_random_policy(env), frames_per_batch=frames, total_frames=frames)
    games = illegal = 0
    for data in collector:
        games += int(data["next", "done"].sum())
        illegal += illegal_actions(data, env)
    collector.shutdown()
    print(f"collector: {frames} decisions, {games} games finished, {illegal} illegal actions")
    return games, illegal


if __name__ == "__main__":
    rollout_games()
    collect_games()
