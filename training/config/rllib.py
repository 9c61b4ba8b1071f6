"""``ckc-rllib-train``'s config (``configs/rllib/*.yaml``), declared with the same fields as
``ckc-train``'s (:mod:`training.config.fields`): unknown keys, mistyped values and values out of
range are refused by name with the accepted values. Nothing here imports ray: a config is checked
before a cluster is asked for anything.

```yaml
seed: 0
iterations: 30                # PPO training iterations (each: one train batch, then the updates)
game: {num_players: 5}        # GameConfig fields
env:                          # the env_config of ckc_env.envs.rllib (besides the game)
  learning_seats: 1           # "all": every seat learns through the one shared module (self-play)
  opponents: random           # the other seats, played inside the env: one spec for all, or a list
  reward: margin
  belief_features: false
scaling:                      # command-line flags override these
  num_env_runners: 2
  num_envs_per_env_runner: 8
  num_learners: 0             # 0: the learner runs in the driver process
ppo: {lr: 0.0003, train_batch_size_per_learner: 2000, minibatch_size: 250, num_epochs: 4}
model: {fcnet_hiddens: [256, 256], fcnet_activation: tanh}
checkpoint_every: 5
eval: {every: 0, games: 400, opponents: {random: [random]}}
```
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import Field, ValidationInfo, field_validator, model_validator

from ckc_env.config import GameConfig
from ckc_env.files import short
from ckc_env.players import specs
from ckc_env.table import options
from ckc_env.table.options import fail

from . import limits
from .fields import Choice, Count, Described, Flag, Integer, Number, Section, game_section, load, validate
from .learner import ACTIVATIONS
from .players import seat_specs


class PPO(Section):
    """The PPO arguments (``PPOConfig.training``) a config may set, with their accepted ranges (a key
    left out keeps RLlib's default)."""

    lr: Number(0, 1, low_open=True) = None
    gamma: Number(0, 1) = None
    lambda_: Number(0, 1) = None
    clip_param: Number(0, low_open=True) = None
    vf_clip_param: Number(0, low_open=True) = None
    entropy_coeff: Number(0) = None
    vf_loss_coeff: Number(0) = None
    kl_coeff: Number(0) = None
    kl_target: Number(0, low_open=True) = None
    use_kl_loss: Flag = None
    grad_clip: Number(0, low_open=True, none=True) = None
    train_batch_size_per_learner: Integer(1) = None
    minibatch_size: Integer(1) = None
    num_epochs: Integer(1) = None

    @model_validator(mode="after")
    def _minibatch(self) -> PPO:
        batch = 4000 if self.train_batch_size_per_learner is None else self.train_batch_size_per_learner
        minibatch = 128 if self.minibatch_size is None else self.minibatch_size
        if minibatch > batch:
            fail("ppo.minibatch_size", minibatch, f"at most train_batch_size_per_learner = {batch}")
        return self


class Model(Section):
    """RLlib's default model (``DefaultModelConfig``): the module's MLP."""

    fcnet_hiddens: Described("a non-empty list of positive layer widths") = Field(default_factory=lambda: [256, 256])
    """A non-empty list of positive layer widths."""
    fcnet_activation: Choice(*ACTIVATIONS) = "tanh"
    vf_share_layers: Flag = False

    @field_validator("fcnet_hiddens")
    @classmethod
    def _hiddens(cls, hiddens: Any) -> Any:
        if (
            not isinstance(hiddens, list)
            or not hiddens
            or any(isinstance(h, bool) or not isinstance(h, int) or h < 1 for h in hiddens)
        ):
            fail("model.fcnet_hiddens", hiddens, "a non-empty list of positive integers, e.g. [256, 256]")
        return hiddens


class Env(Section):
    """The env_config of ``ckc_env.envs.rllib`` (besides the game)."""

    learning_seats: Described("'all' or 1 to n") = "all"
    """"all" (every seat learns through the one shared module: self-play) or how many seats learn."""
    opponents: Described("player specs: one for every other seat, or a list") = "bayes_v1"
    """The other seats, played inside the env (none when every seat learns)."""
    reward: Described("'points', 'win' or 'margin'") = "points"
    belief_features: Described("false, true or 'players'") = False
    illegal_penalty: Number() = -1.0
    """The reward of an illegal action (the action masks make one rare)."""

    @field_validator("reward")
    @classmethod
    def _reward(cls, value: Any) -> Any:
        return options.reward(value, name="env.reward")

    @field_validator("belief_features")
    @classmethod
    def _belief_features(cls, value: Any) -> Any:
        return options.belief_features(value, name="env.belief_features")


class Scaling(Section):
    """How the run spreads over processes and machines (``AlgorithmConfig.env_runners``/``learners``)."""

    num_env_runners: Count(0) = 1
    """Sampling processes (Ray actors); 0 samples in the driver."""
    num_envs_per_env_runner: Count(1) = 8
    """Games each runner steps in one batch through the module."""
    num_learners: Count(0) = 0
    """Learner processes (data-parallel); 0: one learner in the driver."""


class Evaluation(Section):
    """The checkpoint against fixed tables."""

    every: Count(0) = 0
    """Evaluate every this many iterations (0: only at the end)."""
    games: Count(1) = 400
    opponents: Described("table name -> player specs", dict[str, Any]) = Field(
        default_factory=lambda: {"random": ["random"]}
    )
    """Tables to play the checkpoint against, name -> the other seats' specs (first: the headline)."""

    @field_validator("opponents", mode="before")
    @classmethod
    def _tables(cls, tables: Any, info: ValidationInfo) -> Any:
        if not isinstance(tables, dict) or not tables:
            fail("eval.opponents", tables, "a mapping name -> opponents")
        n = (info.context or {}).get("num_players")
        if n is None:
            return tables
        return {name: seat_specs(f"eval.opponents.{name}", table, (n,)) for name, table in tables.items()}


class RLlibConfig(Section):
    """An RLlib run's config (``configs/rllib/*.yaml``)."""

    seed: Count(0) = 0
    iterations: Count(1) = 20
    """PPO training iterations (each: one train batch, then the updates)."""
    game: Described("a mapping of game options", dict[str, Any]) = Field(default_factory=dict)
    """GameConfig fields."""
    env: Described("a section (env.* below)", dict[str, Any]) = Field(default_factory=lambda: {"learning_seats": "all"})
    """The env_config of ``ckc_env.envs.rllib`` (:class:`Env`), as given (its opponents filled in)."""
    scaling: Scaling = Scaling()
    ppo: Described("a section (ppo.* below)", dict[str, Any]) = Field(default_factory=dict)
    """``PPOConfig.training``'s arguments (:class:`PPO`), as given."""
    model: Described("a section (model.* below)", dict[str, Any]) = Field(
        default_factory=lambda: {"fcnet_hiddens": [256, 256]}
    )
    """The module's MLP (:class:`Model`), as given."""
    checkpoint_every: Count(1) = 5
    eval: Evaluation = Evaluation()

    @field_validator("game", mode="before")
    @classmethod
    def _game(cls, game: Any) -> Any:
        return game_section(game, counts=False)

    @field_validator("env", mode="before")
    @classmethod
    def _env(cls, section: Any, info: ValidationInfo) -> Any:
        validate(Env, section, "env")
        n = (info.context or {}).get("num_players", GameConfig.num_players)
        env = dict(section)
        seats = env.get("learning_seats", "all")
        if seats != "all" and (isinstance(seats, bool) or not isinstance(seats, int) or not 1 <= seats <= n):
            fail("env.learning_seats", seats, f"'all' or 1 to {n}")
        others = n - (n if seats == "all" else seats)
        if "opponents" in env:
            if others == 0:
                fail("env.opponents", env["opponents"], "none: every seat learns (learning_seats: all)")
            given = [env["opponents"]] if isinstance(env["opponents"], (str, dict)) else env["opponents"]
            for spec in given if isinstance(given, list) else [given]:
                try:
                    specs.parse(spec)
                except ValueError as exc:
                    raise ValueError(f"invalid env.opponents={short(spec)}: {exc}") from None
            specs.for_seats(given, others)
        elif others:
            env["opponents"] = "bayes_v1"
        return env

    @field_validator("ppo", mode="before")
    @classmethod
    def _ppo(cls, value: Any) -> Any:
        validate(PPO, value, "ppo")
        return dict(value)

    @field_validator("model", mode="before")
    @classmethod
    def _model(cls, value: Any) -> Any:
        validate(Model, value, "model")
        return dict(value)

    @property
    def env_config(self) -> dict[str, Any]:
        """The env_config RLlib passes to every env runner: the game and the env keys."""
        return {**self.game, **self.env}


def parse_config(data: dict[str, Any]) -> RLlibConfig:
    """Validate a mapping (e.g. loaded YAML) into an RLlibConfig."""
    game = game_section(data.get("game", {}), counts=False) if isinstance(data, dict) else {}
    n = GameConfig.from_dict(game).num_players
    return validate(RLlibConfig, data, context={"num_players": n})


def load_config(path: str | Path) -> RLlibConfig:
    """Load and validate an RLlib training config file (ValueError naming the file and the key)."""
    return load(path, parse_config)


__all__ = ["RLlibConfig", "limits", "load_config", "parse_config"]
