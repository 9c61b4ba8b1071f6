"""The RLlib training config (``configs/rllib/*.yaml``), validated at the boundary.

Unknown keys, mistyped values and values out of range are refused by name with the accepted
values, as for ``ckc-train``'s configs. Nothing here imports ray: a config is checked before a
cluster is asked for anything.

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

from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

from ckc_env.config import GameConfig, load_yaml_mapping
from ckc_env.files import short
from ckc_env.players import specs
from ckc_env.table import options
from ckc_env.table.options import fail

from .config import count, ranged, reject_unknown, seat_specs

PPO_RANGES: dict[str, tuple] = {
    "lr": ("number", 0, 1, True, False),
    "gamma": ("number", 0, 1, False, False),
    "lambda_": ("number", 0, 1, False, False),
    "clip_param": ("number", 0, None, True, False),
    "vf_clip_param": ("number", 0, None, True, False),
    "entropy_coeff": ("number", 0, None, False, False),
    "vf_loss_coeff": ("number", 0, None, False, False),
    "kl_coeff": ("number", 0, None, False, False),
    "kl_target": ("number", 0, None, True, False),
    "use_kl_loss": ("bool", None, None, False, False),
    "grad_clip": ("number", 0, None, True, True),
    "train_batch_size_per_learner": ("int", 1, None, False, False),
    "minibatch_size": ("int", 1, None, False, False),
    "num_epochs": ("int", 1, None, False, False),
}
"""The PPO arguments (``PPOConfig.training``) a config may set, with their accepted ranges."""

MODEL_KEYS = ("fcnet_hiddens", "fcnet_activation", "vf_share_layers")
ACTIVATIONS = ("tanh", "relu")


@dataclass(frozen=True)
class Scaling:
    """How the run spreads over processes and machines (``AlgorithmConfig.env_runners``/``learners``)."""

    num_env_runners: int = 1
    """Sampling processes (Ray actors); 0 samples in the driver."""
    num_envs_per_env_runner: int = 8
    """Games each runner steps in one batch through the module."""
    num_learners: int = 0
    """Learner processes (data-parallel); 0: one learner in the driver."""


@dataclass(frozen=True)
class Evaluation:
    every: int = 0
    """Evaluate every this many iterations (0: only at the end)."""
    games: int = 400
    opponents: dict[str, list[Any]] = field(default_factory=lambda: {"random": ["random"]})
    """Tables to play the checkpoint against, name -> the other seats' specs (first: the headline)."""


@dataclass(frozen=True)
class RLlibConfig:
    seed: int = 0
    iterations: int = 20
    game: dict[str, Any] = field(default_factory=dict)
    env: dict[str, Any] = field(default_factory=lambda: {"learning_seats": "all"})
    scaling: Scaling = field(default_factory=Scaling)
    ppo: dict[str, Any] = field(default_factory=dict)
    model: dict[str, Any] = field(default_factory=lambda: {"fcnet_hiddens": [256, 256]})
    checkpoint_every: int = 5
    eval: Evaluation = field(default_factory=Evaluation)

    @property
    def env_config(self) -> dict[str, Any]:
        """The env_config RLlib passes to every env runner: the game and the env keys."""
        return {**self.game, **self.env}

    def to_dict(self) -> dict[str, Any]:
        out = {}
        for f in fields(self):
            value = getattr(self, f.name)
            if f.name in ("scaling", "eval"):
                value = {g.name: getattr(value, g.name) for g in fields(value)}
            out[f.name] = value
        return out


ENV_KEYS = ("learning_seats", "opponents", "reward", "belief_features", "illegal_penalty")


def parse_config(data: dict[str, Any]) -> RLlibConfig:
    """Validate a mapping (e.g. loaded YAML) into an RLlibConfig."""
    reject_unknown("", data, tuple(f.name for f in fields(RLlibConfig)))
    kwargs: dict[str, Any] = {}
    if "seed" in data:
        kwargs["seed"] = count("seed", data["seed"], low=0)
    for key in ("iterations", "checkpoint_every"):
        if key in data:
            kwargs[key] = count(key, data[key])
    game = data.get("game", {})
    reject_unknown("game", game, GameConfig.fields())
    n = GameConfig.from_dict(game).num_players  # validates the values
    kwargs["game"] = dict(game)
    if "env" in data:
        kwargs["env"] = _env(data["env"], n)
    if "scaling" in data:
        section = data["scaling"]
        reject_unknown("scaling", section, tuple(f.name for f in fields(Scaling)))
        lows = {"num_env_runners": 0, "num_envs_per_env_runner": 1, "num_learners": 0}
        kwargs["scaling"] = Scaling(**{k: count(f"scaling.{k}", v, low=lows[k]) for k, v in section.items()})
    if "ppo" in data:
        reject_unknown("ppo", data["ppo"], tuple(PPO_RANGES))
        ppo = {key: ranged(f"ppo.{key}", value, *PPO_RANGES[key]) for key, value in data["ppo"].items()}
        batch = ppo.get("train_batch_size_per_learner", 4000)
        if ppo.get("minibatch_size", 128) > batch:
            fail(
                "ppo.minibatch_size", ppo.get("minibatch_size", 128), f"at most train_batch_size_per_learner = {batch}"
            )
        kwargs["ppo"] = ppo
    if "model" in data:
        kwargs["model"] = _model(data["model"])
    if "eval" in data:
        section = data["eval"]
        reject_unknown("eval", section, tuple(f.name for f in fields(Evaluation)))
        eval_kwargs: dict[str, Any] = {}
        if "every" in section:
            eval_kwargs["every"] = count("eval.every", section["every"], low=0)
        if "games" in section:
            eval_kwargs["games"] = count("eval.games", section["games"])
        if "opponents" in section:
            tables = section["opponents"]
            if not isinstance(tables, dict) or not tables:
                fail("eval.opponents", tables, "a mapping name -> opponents")
            eval_kwargs["opponents"] = {
                name: seat_specs(f"eval.opponents.{name}", table, (n,)) for name, table in tables.items()
            }
        kwargs["eval"] = Evaluation(**eval_kwargs)
    return RLlibConfig(**kwargs)


def _env(section: Any, n: int) -> dict[str, Any]:
    reject_unknown("env", section, ENV_KEYS)
    env = dict(section)
    seats = env.get("learning_seats", "all")
    if seats != "all" and (isinstance(seats, bool) or not isinstance(seats, int) or not 1 <= seats <= n):
        fail("env.learning_seats", seats, f"'all' or 1 to {n}")
    if "reward" in env:
        options.reward(env["reward"], name="env.reward")
    if "belief_features" in env:
        options.belief_features(env["belief_features"], name="env.belief_features")
    if "illegal_penalty" in env:
        ranged("env.illegal_penalty", env["illegal_penalty"], "number", None, None, False, False)
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


def _model(section: Any) -> dict[str, Any]:
    reject_unknown("model", section, MODEL_KEYS)
    model = dict(section)
    hiddens = model.get("fcnet_hiddens", [256, 256])
    if (
        not isinstance(hiddens, list)
        or not hiddens
        or any(isinstance(h, bool) or not isinstance(h, int) or h < 1 for h in hiddens)
    ):
        fail("model.fcnet_hiddens", hiddens, "a non-empty list of positive integers, e.g. [256, 256]")
    if "fcnet_activation" in model and model["fcnet_activation"] not in ACTIVATIONS:
        fail("model.fcnet_activation", model["fcnet_activation"], "'tanh' or 'relu'")
    if "vf_share_layers" in model:
        ranged("model.vf_share_layers", model["vf_share_layers"], "bool", None, None, False, False)
    return model


def load_config(path: str | Path) -> RLlibConfig:
    """Load and validate an RLlib training config file (ValueError naming the file and the key)."""
    data = load_yaml_mapping(path)
    try:
        return parse_config(data)
    except ValueError as exc:
        raise ValueError(f"{path}: {exc}") from exc
