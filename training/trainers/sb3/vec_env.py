"""The batched vector environment as a stable-baselines3 ``VecEnv``.

``SB3VecEnv(CheckpointCharlieVectorEnv(...))`` is what SB3 learners step: ``reset()`` returns the
observations alone and keeps the infos in ``reset_infos``, ``step_wait()`` returns SB3's
(observations, rewards, dones, infos) with one info dict per slot and, for the slots whose game
ended, its last observation under ``"terminal_observation"`` (the observation returned is already
the next game's, as SB3's own vector environments do). sb3-contrib's MaskablePPO reads the legal
actions through ``env_method("action_masks")`` (``sb3_contrib.common.maskable.utils.get_action_masks``),
answered here from one call for the whole batch. ``seed(s)`` seeds the next ``reset()``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import gymnasium
import numpy as np
from stable_baselines3.common.vec_env import VecEnv
from stable_baselines3.common.vec_env.base_vec_env import VecEnvIndices, VecEnvObs, VecEnvStepReturn

from ckc_env.envs.subproc_vector import SubprocVectorEnv
from ckc_env.envs.vector import CheckpointCharlieVectorEnv


class SB3VecEnv(VecEnv):
    """A :class:`~ckc_env.envs.vector.CheckpointCharlieVectorEnv` (or its
    :class:`~ckc_env.envs.subproc_vector.SubprocVectorEnv`) behind stable-baselines3's ``VecEnv`` API."""

    def __init__(self, env: CheckpointCharlieVectorEnv | SubprocVectorEnv) -> None:
        self.env = env
        self.render_mode = None
        super().__init__(env.num_envs, env.single_observation_space, env.single_action_space)
        self._actions: np.ndarray | None = None
        self._next_seed: int | None = None

    def seed(self, seed: int | None = None) -> Sequence[int | None]:
        """The seed of the next ``reset()`` (one seed for the whole batch: each game's own follows from it)."""
        self._next_seed = seed
        return [seed] * self.num_envs

    def reset(self) -> VecEnvObs:
        observations, infos = self.env.reset(seed=self._next_seed)
        self._next_seed = None
        self.reset_infos = [{"seat": int(s)} for s in infos["seat"]]
        return observations

    def step_async(self, actions: np.ndarray) -> None:
        self._actions = np.asarray(actions, dtype=np.int64).reshape(self.num_envs)

    def step_wait(self) -> VecEnvStepReturn:
        observations, rewards, terminated, truncated, infos = self.env.step(self._actions)
        dones = terminated | truncated
        seats = infos["seat"]
        out: list[dict[str, Any]] = [{"seat": int(s)} for s in seats]
        if dones.any():
            final = infos["final_info"]
            for b in np.flatnonzero(dones):
                out[b]["terminal_observation"] = infos["final_obs"][b]
                out[b]["TimeLimit.truncated"] = bool(truncated[b])
                out[b]["is_winner"] = bool(final["is_winner"][b])
                out[b]["win_share"] = float(final["win_share"][b])
                if "opponents" in final:  # with a population: the member the game was played against
                    out[b]["opponents"] = int(final["opponents"][b])
                if final["illegal_action"][b]:
                    out[b]["illegal_action"] = True
        return observations, rewards.astype(np.float32), dones, out

    def close(self) -> None:
        self.env.close()

    def get_attr(self, attr_name: str, indices: VecEnvIndices = None) -> list[Any]:
        """One value per slot: every slot shares the vector environment's attributes."""
        value = getattr(self.env, attr_name)
        return [value for _ in self._get_indices(indices)]

    def set_attr(self, attr_name: str, value: Any, indices: VecEnvIndices = None) -> None:
        setattr(self.env, attr_name, value)

    def env_method(self, method_name: str, *method_args, indices: VecEnvIndices = None, **method_kwargs) -> list[Any]:
        """``action_masks`` gives each slot's row of the batch's mask; other methods are called once
        on the vector environment and their result given to every slot."""
        chosen = list(self._get_indices(indices))
        if method_name == "action_masks":
            masks = self.env.action_masks()
            return list(masks[chosen])
        result = getattr(self.env, method_name)(*method_args, **method_kwargs)
        return [result for _ in chosen]

    def env_is_wrapped(self, wrapper_class: type[gymnasium.Wrapper], indices: VecEnvIndices = None) -> list[bool]:
        return [False for _ in self._get_indices(indices)]


def make_vector_env(
    config, trust_checkpoint: bool = False, in_process: bool = False, league=None
) -> CheckpointCharlieVectorEnv | SubprocVectorEnv:
    """The vector environment a training config describes (its ``vector`` section, opponents, reward,
    observation and game options): with ``vector.workers`` > 1 its slots split across processes,
    unless ``in_process`` (callers that read the batch state, as ``collect_batched``). With a
    ``population`` section, the tables are the members of ``league`` (a
    :class:`~ckc_env.training.population.League`), or without one the config's tables alone."""
    kwargs = {
        "opponents": config.opponents,
        "learner_seat": config.learner_seat,
        "belief_features": config.belief_features,
        "reward": config.reward,
        "trust_checkpoint": trust_checkpoint,
        **config.game,
    }
    if getattr(config, "duplicate", None) is not None:
        kwargs["duplicate"] = config.duplicate
    if getattr(config, "critic_state", False):
        kwargs["critic_state"] = True
    if getattr(config, "population", None) is not None:
        from .population import tables_only

        del kwargs["opponents"]
        kwargs.update(league.env_kwargs() if league is not None else tables_only(config))
    if config.vector.workers > 1 and not in_process:
        return SubprocVectorEnv(config.vector.num_envs, workers=config.vector.workers, **kwargs)
    return CheckpointCharlieVectorEnv(config.vector.num_envs, **kwargs)


def collect_batched(
    env: CheckpointCharlieVectorEnv, teacher, decisions: int, gamma: float, seed: int, trust_checkpoint: bool = False
):
    """``training.imitation.collect`` on the batched engine: the teacher (a batched player) plays
    every slot's learner seat, all slots in one call per step, until the finished games hold at least
    ``decisions`` decisions; each records the learner's observation, mask, the teacher's action and
    the discounted return that followed. Games still running at the end are left out (whole games
    only, as the scalar collection)."""
    from ckc_env import players
    from ckc_env.seeding import derive_seed
    from ckc_env.table.batched import check_actions

    from .imitation import Demonstrations

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
