"""Behaviour cloning: start a PPO learner from a teacher's play instead of from scratch.

PPO from random weights against four ``bayes_v1`` players learns slowly: its early games are lost
on poor accusations, and the signal that separates a good accusation from a slightly worse one is
small. A standard remedy (imitation warm start, then reinforcement learning) is used here:

1. ``collect``: the teacher plays the learner's seat of the training environment (same opponents,
   same observation); each decision records the learner's observation, the action mask, the
   teacher's action and the discounted return that followed (in the training reward).
2. ``pretrain``: the policy network is fitted to the teacher's actions (cross-entropy over the
   legal actions) and the value network to the returns (mean squared error). PPO then starts from
   a policy that already plays like the teacher and a critic that already knows what positions
   are worth.

**A privileged teacher.** The teacher may be ``cheater``, which sees every clue. The student still
sees only its own observation: it learns, for each of its information sets, what the all-seeing
player does most often there (the "learning by cheating" scheme of privileged distillation). The
trained policy reads nothing hidden; only its training labels did. Against four ``bayes_v1`` this
start is stronger than cloning ``bayes_v1`` itself (see docs/agents.md).

The whole step is recorded in the run folder (``pretrain.json``: teacher, samples, epochs,
accuracy, losses, seconds).
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from ckc_env import players
from ckc_env.engine.actions import PASS
from ckc_env.players.specs import PlayerSpec
from ckc_env.seeding import derive_seed


@dataclass
class Demonstrations:
    observations: np.ndarray  # (N, observation size) float32
    masks: np.ndarray  # (N, 40) bool
    actions: np.ndarray  # (N,) int64
    returns: np.ndarray  # (N,) float32: discounted return from the decision on

    def __len__(self) -> int:
        return len(self.actions)


def collect(
    env,
    teacher: PlayerSpec | Mapping[int, PlayerSpec],
    decisions: int,
    gamma: float,
    seed: int,
    trust_checkpoint: bool = False,
) -> Demonstrations:
    """Let ``teacher`` (one spec, or ``{player count: spec}`` for an environment of several counts)
    play the learner's seat of a :class:`~ckc_env.envs.single_agent.CheckpointCharlieSingleAgent` for at
    least ``decisions`` decisions (whole games); a zip teacher loads only with ``trust_checkpoint``."""
    observations, masks, actions, returns = [], [], [], []
    games = 0
    while len(actions) < decisions:
        observation, _ = env.reset(seed=derive_seed(seed, "game", games))
        spec = teacher[env.table.n] if isinstance(teacher, Mapping) and "name" not in teacher else teacher
        agent = players.build(spec, seed=derive_seed(seed, "teacher", games), trust_checkpoint=trust_checkpoint)
        games += 1
        agent.reset(env.seat, env.table.config)
        view = env.table.views[env.seat]
        rewards = []
        done = False
        while not done:
            mask = env.action_masks()
            action = agent.act(view, {"observation": observation, "action_mask": mask.astype(np.int8)})
            observations.append(observation)
            masks.append(mask)
            actions.append(action)
            observation, reward, done, _, _ = env.step(action)
            rewards.append(reward)
        running = 0.0
        episode_returns = []
        for reward in reversed(rewards):
            running = reward + gamma * running
            episode_returns.append(running)
        returns.extend(reversed(episode_returns))
    return Demonstrations(
        np.asarray(observations, dtype=np.float32),
        np.asarray(masks, dtype=bool),
        np.asarray(actions, dtype=np.int64),
        np.asarray(returns, dtype=np.float32),
    )


def pretrain(
    model,
    data: Demonstrations,
    epochs: int,
    batch_size: int,
    seed: int,
    learning_rate: float = 0.001,
    holdout: float = 0.1,
) -> dict[str, Any]:
    """Fit ``model.policy`` (a MaskablePPO policy) to the demonstrations; returns a log with the
    training and held-out accuracy (the share of decisions where the policy's most likely action is
    the teacher's) after every epoch."""
    import torch

    policy = model.policy
    rng = np.random.default_rng(seed)
    order = rng.permutation(len(data))
    cut = int(len(data) * (1 - holdout))
    train_idx, test_idx = order[:cut], order[cut:]
    tensors = {
        "obs": torch.as_tensor(data.observations),
        "masks": torch.as_tensor(data.masks),
        "actions": torch.as_tensor(data.actions),
        "returns": torch.as_tensor(data.returns),
    }
    vf_coef = float(getattr(model, "vf_coef", 0.5))
    saved_rates = [group["lr"] for group in policy.optimizer.param_groups]
    for group in policy.optimizer.param_groups:
        group["lr"] = learning_rate
    log: dict[str, Any] = {"samples": len(data), "held_out": len(test_idx), "epochs": []}
    started = time.time()
    for epoch in range(epochs):
        policy.set_training_mode(True)
        rng.shuffle(train_idx)
        totals = np.zeros(3)
        for start in range(0, len(train_idx), batch_size):
            batch = torch.as_tensor(train_idx[start : start + batch_size])
            values, log_prob, _ = policy.evaluate_actions(
                tensors["obs"][batch], tensors["actions"][batch], action_masks=tensors["masks"][batch]
            )
            policy_loss = -log_prob.mean()
            value_loss = torch.nn.functional.mse_loss(values.flatten(), tensors["returns"][batch])
            loss = policy_loss + vf_coef * value_loss
            policy.optimizer.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(policy.parameters(), model.max_grad_norm)
            policy.optimizer.step()
            totals += (policy_loss.item() * len(batch), value_loss.item() * len(batch), len(batch))
        entry = {
            "epoch": epoch + 1,
            "policy_loss": totals[0] / totals[2],
            "value_loss": totals[1] / totals[2],
            "train_accuracy": accuracy(policy, tensors, train_idx[:20_000]),
            "held_out_accuracy": accuracy(policy, tensors, test_idx),
        }
        log["epochs"].append(entry)
        held_out = entry["held_out_accuracy"]
        print(
            f"pretrain epoch {epoch + 1}/{epochs}: policy loss {entry['policy_loss']:.3f}, value loss "
            f"{entry['value_loss']:.3f}, held-out accuracy {held_out['all']:.3f} "
            f"({held_out['teacher_not_passing']:.3f} where the teacher did not pass)",
            flush=True,
        )
    policy.set_training_mode(False)
    for group, rate in zip(policy.optimizer.param_groups, saved_rates, strict=True):
        group["lr"] = rate
    log["learning_rate"] = learning_rate
    log["seconds"] = round(time.time() - started, 1)
    return log


def accuracy(policy, tensors: dict, idx: np.ndarray) -> dict[str, float]:
    """Share of decisions where the policy's most likely legal action is the teacher's: over all
    decisions, and over those where the teacher did not pass (most decisions are passes)."""
    import torch

    with torch.no_grad():
        batch = torch.as_tensor(idx)
        distribution = policy.get_distribution(tensors["obs"][batch], action_masks=tensors["masks"][batch])
        chosen = distribution.distribution.probs.argmax(dim=1)
    teacher = tensors["actions"][batch]
    hit = chosen == teacher
    acting = teacher != PASS
    return {
        "all": float(hit.float().mean()) if len(idx) else float("nan"),
        "teacher_not_passing": float(hit[acting].float().mean()) if bool(acting.any()) else float("nan"),
    }


def collect_batched(env: Any, teacher, decisions: int, gamma: float, seed: int, trust_checkpoint: bool = False):
    """``training.imitation.collect`` on the batched engine: the teacher (a batched player) plays
    every slot's learner seat, all slots in one call per step, until the finished games hold at least
    ``decisions`` decisions; each records the learner's observation, mask, the teacher's action and
    the discounted return that followed. Games still running at the end are left out (whole games
    only, as the scalar collection)."""
    from ckc_env import players
    from ckc_env.seeding import derive_seed
    from ckc_env.table.batched import check_actions

    player = players.build_batched(teacher, derive_seed(seed, "teacher"), trust_checkpoint)
    slots = np.arange(env.num_envs)
    observation, _ = env.reset(seed=derive_seed(seed, "games"))
    steps: list[tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]] = []
    running_games = np.zeros(env.num_envs, dtype=np.int64)  # decisions of each slot's current game
    finished = 0
    while finished < decisions:
        masks = env.action_masks()
        # checked as an opponent's would be: the environment would take an illegal one as the
        # learner's, end the game with the penalty and keep it as a demonstration
        actions = check_actions(env.state, [(player, slots, player.act(env.state, slots))])
        following, rewards, terminated, _, _ = env.step(actions)
        steps.append((observation, masks, actions, rewards, terminated))
        running_games += 1
        finished += int(running_games[terminated].sum())
        running_games[terminated] = 0
        observation = following
    returns = np.zeros((len(steps), env.num_envs), dtype=np.float32)
    complete = np.zeros((len(steps), env.num_envs), dtype=bool)
    running = np.zeros(env.num_envs)
    ends = np.zeros(env.num_envs, dtype=bool)  # a game of the slot ends at or after this step
    for t in range(len(steps) - 1, -1, -1):
        _, _, _, rewards, terminated = steps[t]
        running = np.where(terminated, rewards, rewards + gamma * running)
        ends |= terminated
        returns[t] = running
        complete[t] = ends
    keep = complete.reshape(-1)
    return Demonstrations(
        np.concatenate([s[0] for s in steps])[keep],
        np.concatenate([s[1] for s in steps])[keep],
        np.concatenate([s[2] for s in steps]).astype(np.int64)[keep],
        returns.reshape(-1)[keep],
    )
