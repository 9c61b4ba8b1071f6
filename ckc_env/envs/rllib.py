"""Ray RLlib: the game as an RLlib ``MultiAgentEnv``, registered as ``"checkpoint_charlie"``.

The only module of the package that imports ray (``pip install -e ".[rllib]"``).

| | |
|---|---|
| Agents | ``player_0`` .. ``player_{n-1}``: the learning seats only; the others are played inside the env |
| Observation | ``{"observations": Box(float32, (736,)), "action_mask": Box(float32, (40,))}``: RLlib's action-masking convention (``ActionMaskingTorchRLModule``); with ``belief_features`` the longer vector of the env card |
| Action | Discrete(40), the env card's action table. An action the mask does not allow (RLlib's environment checker samples unmasked actions) ends the game (``ckc_env.table.illegal``): the seat gets ``illegal_penalty`` (default -1) and ``info["illegal_action"] = True``, which :class:`IllegalActionCounter` counts into the training results as ``illegal_actions`` |
| Reward | what the seat earned since its previous decision, given with its next observation (``reward``: ``"points"``, ``"win"`` or ``"margin"``, as in ``CheckpointCharlie-v1``) |
| Episode end | the game's end: every learning seat that has played gets its last observation, its reward and ``terminated`` |

``env_config`` keys: ``learning_seats`` (``"all"``: every seat learns, self-play through one shared
module; or a number k of seats, drawn at random each game), ``opponents`` (player specs, as in
:mod:`ckc_env.players.specs`, for the other seats: one for all or one per seat in seat order, played inside
the env because scripted players read the table, which an RLModule never sees),
``reward``, ``belief_features``, ``trust_checkpoint`` and any field of :class:`~ckc_env.config.GameConfig`.

:func:`ppo_config` builds the PPO config: one ``"shared"`` ``ActionMaskingTorchRLModule`` (RLlib's
shipped masking module) plays every learning seat; ``ckc_env.players.rllib.RLlibAgent`` plays a
checkpoint of it wherever players are named (a tournament, ``ckc-evaluate``, ``ckc-play``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import gymnasium as gym
import numpy as np
from ray.rllib.callbacks.callbacks import RLlibCallback
from ray.rllib.env.multi_agent_env import MultiAgentEnv
from ray.tune.registry import register_env

from .. import players
from ..agents.base import Agent
from ..config import GameConfig
from ..engine.actions import N_ACTIONS
from ..files import keys_text, unknown_keys
from ..observation import ENV_VERSION, LAYOUTS
from ..players import specs
from ..players.rllib import MODULE_ID
from ..seeding import derive_seed
from ..table import illegal, options, rewards
from ..table.scalar import Table

ENV_NAME = "checkpoint_charlie"
ENV_KEYS = ("learning_seats", "opponents", "reward", "belief_features", "illegal_penalty", "trust_checkpoint")


class CheckpointCharlieMultiAgentEnv(MultiAgentEnv):
    """The game for RLlib: the learning seats act through RLlib, the others inside ``step()``."""

    def __init__(self, config: Mapping[str, Any] | None = None) -> None:
        super().__init__()
        config = dict(config or {})
        unknown = unknown_keys(config, (*ENV_KEYS, *GameConfig.fields()))
        if unknown:
            raise ValueError(
                f"unknown env_config key(s) {keys_text(unknown)}: accepted keys are {[*ENV_KEYS, *GameConfig.fields()]}"
            )
        scheme = rewards.scheme(config.pop("reward", "points"))
        self.reward = scheme.name
        learning_seats = config.pop("learning_seats", "all")
        opponents = config.pop("opponents", "bayes_v1")
        self.trust_checkpoint = bool(config.pop("trust_checkpoint", False))
        self.illegal_penalty = float(config.pop("illegal_penalty", illegal.PENALTY))
        belief_features = options.belief_features(config.pop("belief_features", False))
        game_config = GameConfig.from_dict(config)
        n = game_config.num_players
        self.table = Table(game_config, LAYOUTS[ENV_VERSION][belief_features], scheme)
        if learning_seats == "all":
            learning_seats = n
        if isinstance(learning_seats, bool) or not isinstance(learning_seats, int) or not 1 <= learning_seats <= n:
            options.fail("learning_seats", learning_seats, f"'all' or 1 to {n}")
        self.learning_count = learning_seats
        self.opponent_specs = specs.for_seats(opponents, n - learning_seats) if learning_seats < n else []
        self._opponent_players = [players.resolve(spec, self.trust_checkpoint) for spec in self.opponent_specs]
        self.possible_agents = [f"player_{seat}" for seat in range(n)]
        self._seats = {agent: seat for seat, agent in enumerate(self.possible_agents)}
        self.agents = []
        low, high = self.table.layout.bounds()
        space = gym.spaces.Dict(
            {
                "observations": gym.spaces.Box(low=low, high=high, dtype=np.float32),
                "action_mask": gym.spaces.Box(0.0, 1.0, (N_ACTIONS,), np.float32),
            }
        )
        self.observation_spaces = dict.fromkeys(self.possible_agents, space)
        self.action_spaces = {agent: gym.spaces.Discrete(N_ACTIONS) for agent in self.possible_agents}
        self._rng = np.random.default_rng()
        self._learning: set[int] = set()
        self._scripted: list[Agent | None] = []
        self._pending = [0.0] * n
        self._played: set[int] = set()

    # ------------------------------------------------------------------ MultiAgentEnv API
    def reset(self, *, seed: int | None = None, options: dict | None = None):
        if seed is not None:
            self._rng = np.random.default_rng(seed)
        table = self.table
        n = table.n
        episode = int(self._rng.integers(2**63))  # the game's root seed: its deal, seats and players
        table.deal(derive_seed(episode, "deal"), options)
        seats = np.random.default_rng(derive_seed(episode, "seats")).permutation(n)
        self._learning = {int(s) for s in seats[: self.learning_count]}
        self._scripted = [None] * n
        others = [s for s in range(n) if s not in self._learning]
        for k, seat in enumerate(others):
            agent = self._opponent_players[k].scalar(derive_seed(episode, "agent", seat))
            agent.reset(seat, table.config)
            self._scripted[seat] = agent
        self._pending = [0.0] * n
        self._played = set()
        self.agents = [self.possible_agents[s] for s in sorted(self._learning)]
        table.play(self._scripted, self._learning, self._pending)
        if table.over:  # no learning seat had a decision: deal again
            return self.reset(options=options)
        return self._next_observation(), {}

    def step(self, action_dict: Mapping[str, Any]):
        table = self.table
        seat = table.seat_to_act
        agent = self.possible_agents[seat]
        if agent not in action_dict:
            raise ValueError(f"no action for {agent}, the seat to act: got actions for {sorted(action_dict)}")
        action = int(action_dict[agent])
        if not table.is_legal(action):  # the game ends there, as in CheckpointCharlie-v1
            finished = [self.possible_agents[s] for s in sorted(self._played)]
            paid = illegal.rewards(agent, finished, self.illegal_penalty)
            infos = {agent: illegal.info(action, table.legal_actions())}
            observations = {a: self._observation(self._seats[a]) for a in finished}
            return observations, paid, {**dict.fromkeys(finished, True), "__all__": True}, {"__all__": False}, infos
        gained = table.apply(action)
        if gained is not None:
            for s, r in enumerate(gained):
                self._pending[s] += r
        table.play(self._scripted, self._learning, self._pending)
        if not table.over:
            observations = self._next_observation()
            paid = self._rewards_of(self.possible_agents[table.seat_to_act])
            return observations, paid, {"__all__": False}, {"__all__": False}, {}
        finished = [self.possible_agents[s] for s in sorted(self._played)]
        observations = {a: self._observation(self._seats[a]) for a in finished}
        paid = {a: float(self._pending[self._seats[a]]) for a in finished}
        terminateds = {**dict.fromkeys(finished, True), "__all__": True}
        return observations, paid, terminateds, {"__all__": False}, {}

    # ------------------------------------------------------------------ internals
    def _observation(self, seat: int) -> dict[str, np.ndarray]:
        table = self.table
        return {"observations": table.observation(seat), "action_mask": table.action_mask(seat).astype(np.float32)}

    def _next_observation(self) -> dict[str, dict[str, np.ndarray]]:
        seat = self.table.seat_to_act
        self._played.add(seat)
        return {self.possible_agents[seat]: self._observation(seat)}

    def _rewards_of(self, agent: str) -> dict[str, float]:
        seat = self._seats[agent]
        reward, self._pending[seat] = float(self._pending[seat]), 0.0
        return {agent: reward}


class IllegalActionCounter(RLlibCallback):
    """Counts the games ended by an illegal action into the results (``env_runners/illegal_actions``):
    with the masking module it stays 0."""

    def on_episode_end(self, *, episode: Any, metrics_logger: Any = None, **kwargs: Any) -> None:
        infos = episode.get_infos(-1)
        ended = sum(1 for info in infos.values() if isinstance(info, Mapping) and info.get(illegal.KEY))
        metrics_logger.log_value("illegal_actions", ended, reduce="sum")


def _env_creator(env_config: Mapping[str, Any]) -> CheckpointCharlieMultiAgentEnv:
    return CheckpointCharlieMultiAgentEnv(dict(env_config))


register_env(ENV_NAME, _env_creator)


def ppo_config(
    env_config: Mapping[str, Any],
    ppo: Mapping[str, Any] | None = None,
    model: Mapping[str, Any] | None = None,
    num_env_runners: int = 1,
    num_envs_per_env_runner: int = 1,
    num_learners: int = 0,
    seed: int | None = None,
):
    """RLlib's ``PPOConfig`` for the game: the new API stack, one shared masking module that every
    learning seat maps to (self-play when every seat learns), ``ppo`` passed to ``.training()``
    and ``model`` to the module's ``model_config`` (e.g. ``fcnet_hiddens``)."""
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec
    from ray.rllib.examples.rl_modules.classes.action_masking_rlm import ActionMaskingTorchRLModule

    module = RLModuleSpec(module_class=ActionMaskingTorchRLModule, model_config=dict(model or {}))
    return (
        PPOConfig()
        .environment(ENV_NAME, env_config=dict(env_config))
        .env_runners(num_env_runners=num_env_runners, num_envs_per_env_runner=num_envs_per_env_runner)
        .learners(num_learners=num_learners)
        .multi_agent(
            policies={MODULE_ID},
            policy_mapping_fn=_to_shared_module,
            policies_to_train=[MODULE_ID],
        )
        .rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs={MODULE_ID: module}))
        .training(**dict(ppo or {}))
        .callbacks(IllegalActionCounter)
        .debugging(seed=seed)
    )


def _to_shared_module(agent_id: str, episode: Any, **kwargs: Any) -> str:
    return MODULE_ID


__all__ = [
    "ENV_NAME",
    "MODULE_ID",
    "CheckpointCharlieMultiAgentEnv",
    "ppo_config",
]
