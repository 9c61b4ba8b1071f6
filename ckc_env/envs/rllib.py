"""Ray RLlib: the game as an RLlib ``MultiAgentEnv``, registered as ``"checkpoint_charlie"``.

The only module of the package that imports ray (``pip install -e ".[rllib]"``).

| | |
|---|---|
| Agents | ``player_0`` .. ``player_{n-1}``: the learning seats only; the others are played inside the env |
| Observation | ``{"observations": Box(float32, (736,)), "action_mask": Box(float32, (40,))}``: RLlib's action-masking convention (``ActionMaskingTorchRLModule``); with ``belief_features`` the longer vector of the env card |
| Action | Discrete(40), the env card's action table. An action the mask does not allow (RLlib's environment checker samples unmasked actions) ends the game: the seat gets ``illegal_penalty`` (default -1) and ``info["illegal_action"] = True``, which :class:`IllegalActionCounter` counts into the training results as ``illegal_actions`` |
| Reward | what the seat earned since its previous decision, given with its next observation (``reward``: ``"points"``, ``"win"`` or ``"margin"``, as in ``CheckpointCharlie-v0``) |
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

from .. import engine, players
from ..agents.base import Agent
from ..config import GameConfig
from ..engine.actions import N_ACTIONS
from ..engine.view import PlayerView
from ..players import specs
from ..players.rllib import MODULE_ID
from ..seeding import derive_seed
from .aec import raw_env

ENV_NAME = "checkpoint_charlie"
REWARDS = ("points", "win", "margin")
ENV_KEYS = ("learning_seats", "opponents", "reward", "belief_features", "illegal_penalty", "trust_checkpoint")


class CheckpointCharlieMultiAgentEnv(MultiAgentEnv):
    """The game for RLlib: the learning seats act through RLlib, the others inside ``step()``."""

    def __init__(self, config: Mapping[str, Any] | None = None) -> None:
        super().__init__()
        config = dict(config or {})
        unknown = sorted(set(config) - set(ENV_KEYS) - set(GameConfig.fields()))
        if unknown:
            raise ValueError(
                f"unknown env_config key(s) {unknown}: accepted keys are {[*ENV_KEYS, *GameConfig.fields()]}"
            )
        self.reward = config.pop("reward", "points")
        if self.reward not in REWARDS:
            raise ValueError(f"invalid reward={self.reward!r}: accepted values are {list(REWARDS)}")
        learning_seats = config.pop("learning_seats", "all")
        opponents = config.pop("opponents", "bayes_v1")
        self.trust_checkpoint = bool(config.pop("trust_checkpoint", False))
        self.illegal_penalty = float(config.pop("illegal_penalty", -1.0))
        belief_features = config.pop("belief_features", False)
        self.aec = raw_env(reward="points", belief_features=belief_features, **config)
        n = self.aec.config.num_players
        if learning_seats == "all":
            learning_seats = n
        if isinstance(learning_seats, bool) or not isinstance(learning_seats, int) or not 1 <= learning_seats <= n:
            raise ValueError(f"invalid learning_seats={learning_seats!r}: accepted values are 'all' or 1 to {n}")
        self.learning_count = learning_seats
        self.opponent_specs = specs.for_seats(opponents, n - learning_seats) if learning_seats < n else []
        for spec in self.opponent_specs:
            players.validate(spec, trust_checkpoint=self.trust_checkpoint)
        self.possible_agents = list(self.aec.possible_agents)
        self._seats = {agent: seat for seat, agent in enumerate(self.possible_agents)}
        self.agents = []
        inner = self.aec.observation_space("player_0")["observation"]
        space = gym.spaces.Dict(
            {
                "observations": inner,
                "action_mask": gym.spaces.Box(0.0, 1.0, (N_ACTIONS,), np.float32),
            }
        )
        self.observation_spaces = dict.fromkeys(self.possible_agents, space)
        self.action_spaces = {agent: gym.spaces.Discrete(N_ACTIONS) for agent in self.possible_agents}
        self._rng = np.random.default_rng()
        self._learning: set[int] = set()
        self._scripted: list[Agent | None] = []
        self._pending = np.zeros(n)
        self._played: set[int] = set()

    # ------------------------------------------------------------------ MultiAgentEnv API
    def reset(self, *, seed: int | None = None, options: dict | None = None):
        if seed is not None:
            self._rng = np.random.default_rng(seed)
        n = self.aec.config.num_players
        episode = int(self._rng.integers(2**63))  # the game's root seed: its deal, seats and players
        self.aec.reset(seed=derive_seed(episode, "deal"), options=options)
        game = self.aec.game
        engine.pop_rewards(game)
        seats = np.random.default_rng(derive_seed(episode, "seats")).permutation(n)
        self._learning = {int(s) for s in seats[: self.learning_count]}
        self._scripted = [None] * n
        others = [s for s in range(n) if s not in self._learning]
        for k, seat in enumerate(others):
            agent = players.build(
                self.opponent_specs[k], derive_seed(episode, "agent", seat), trust_checkpoint=self.trust_checkpoint
            )
            agent.reset(seat, self.aec.config)
            self._scripted[seat] = agent
        self._views = [PlayerView(game, seat) for seat in range(n)]
        self._pending = np.zeros(n)
        self._played = set()
        self.agents = [self.possible_agents[s] for s in sorted(self._learning)]
        self._play_scripted()
        if game.game_over:  # no learning seat had a decision: deal again
            return self.reset(options=options)
        return self._next_observation(), {}

    def step(self, action_dict: Mapping[str, Any]):
        game = self.aec.game
        seat = game.current_seat
        agent = self.possible_agents[seat]
        if agent not in action_dict:
            raise ValueError(f"no action for {agent}, the seat to act: got actions for {sorted(action_dict)}")
        action = int(action_dict[agent])
        if not engine.is_legal(game, action):  # the game ends there, as in CheckpointCharlie-v0
            finished = [self.possible_agents[s] for s in sorted(self._played)]
            rewards = {a: 0.0 for a in finished} | {agent: self.illegal_penalty}
            infos = {agent: {"illegal_action": True, "action": action, "legal_actions": engine.legal_actions(game)}}
            observations = {a: self._observation(self._seats[a]) for a in finished}
            return observations, rewards, {**dict.fromkeys(finished, True), "__all__": True}, {"__all__": False}, infos
        engine.apply(game, action)
        self._collect()
        self._play_scripted()
        if not game.game_over:
            observations = self._next_observation()
            rewards = self._rewards_of(self.possible_agents[game.current_seat])
            return observations, rewards, {"__all__": False}, {"__all__": False}, {}
        finished = [self.possible_agents[s] for s in sorted(self._played)]
        observations = {a: self._observation(self._seats[a]) for a in finished}
        rewards = {a: float(self._pending[self._seats[a]]) for a in finished}
        terminateds = {**dict.fromkeys(finished, True), "__all__": True}
        return observations, rewards, terminateds, {"__all__": False}, {}

    # ------------------------------------------------------------------ internals
    def _play_scripted(self) -> None:
        """The scripted seats decide until a learning seat is to act or the game ends."""
        aec, game = self.aec, self.aec.game
        while not game.game_over and game.current_seat not in self._learning:
            seat = game.current_seat
            action = self._scripted[seat].act(self._views[seat], aec.observe_lazily(aec.possible_agents[seat]))
            if not engine.is_legal(game, action):
                raise ValueError(f"player {self._scripted[seat]!r} at seat {seat} chose illegal action {action}")
            engine.apply(game, action)
            self._collect()

    def _collect(self) -> None:
        """Every seat's reward from the engine's last transition, kept until its next observation."""
        game = self.aec.game
        gained = np.asarray(engine.pop_rewards(game), dtype=float)
        n = game.n
        if self.reward == "points":
            self._pending += gained
        elif self.reward == "margin":
            self._pending += gained - (gained.sum() - gained) / (n - 1)
        elif game.game_over:
            winners = game.final["winners"]
            for seat in range(n):
                self._pending[seat] += 1.0 / len(winners) if seat in winners else -1.0 / (n - len(winners))

    def _observation(self, seat: int) -> dict[str, np.ndarray]:
        raw = self.aec.observe(self.possible_agents[seat])
        return {"observations": raw["observation"], "action_mask": raw["action_mask"].astype(np.float32)}

    def _next_observation(self) -> dict[str, dict[str, np.ndarray]]:
        seat = self.aec.game.current_seat
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
        illegal = sum(1 for info in infos.values() if isinstance(info, Mapping) and info.get("illegal_action"))
        metrics_logger.log_value("illegal_actions", illegal, reduce="sum")


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
