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
