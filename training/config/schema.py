"""Training configuration: YAML validated into typed, frozen objects.

A config file has these sections (every key is optional; unknown keys, mistyped values and values out of
range are rejected with a ValueError naming the key and the accepted values: the PPO keys by
:data:`PPO_RANGES`). Sections:

```yaml
seed: 0                      # one seed for the whole run
total_timesteps: 200_000     # learner decisions (PyYAML reads 1e6 as a string: write 1_000_000)
n_envs: 1                    # parallel environments (subprocesses when > 1)
game: {num_players: 5}       # any GameConfig option (configs/rules/*.yaml keys); num_players may be a list
                             # of counts, e.g. [3, 4, 5]: each episode draws one (one policy for every table)
reward: points               # points | win | margin (own points minus the others' mean)
belief_features: true        # append the exact beliefs to the observation; "players": also the posterior
                             # that reads the other players' decisions (ckc_env.reading.players_posterior);
                             # "second_order": also the one that reads them as bayes_v3 (init_from may
                             # name a "players" file: the new inputs start with zero weights)
learner_seat: random         # random | 0..n-1
opponents: [bayes_v1, bayes_v1, bayes_v1, bayes_v1]   # names, checkpoint paths, or "self"; with several
                                                      # counts also {3: [...], 4: [...], 5: [...]}
self_play: {snapshot_every: 50_000, keep: 5}          # frozen snapshots for "self" opponents
pretrain: {teacher: bayes_v1, decisions: 300_000, epochs: 20}   # behaviour cloning first (teacher: also
                                                      # {count: teacher}; decisions over all counts)
ppo: {learning_rate: 0.0003, n_steps: 2048, ...}      # exactly MaskablePPO's argument names
policy: {net_arch: [256, 256]}                        # MlpPolicy's policy_kwargs
eval: {every: 25_000, games: 2000, opponents: {vs_bayes: [bayes_v1, ...], vs_random: [random, ...]}}
                                                      # held_out: 2000: the first table also on other deals
                                                      # reference: bayes_v2: that player in the learner's
                                                      # seat on the first table's deals, once; every
                                                      # evaluation is paired with it (vs_reference)
vector: {num_envs: 1024, threads: 1, workers: 1}     # the batched engine: num_envs games stepped at once
finetune: {critic_warmup: 100_000, kl_to_start: 1.0, kl_decay: 1_000_000}   # keeping a cloned policy
                                                      # (training/finetune.py; all off by default)
                                                      # critic_fit: 300_000: the critic regressed on the start
                                                      # policy's returns first (vector only)
engine: sb3                  # sb3: MaskablePPO on the CPU (default); jax: PPO compiled whole on the device JAX
                             # picks (a GPU with jax's CUDA build, else the CPU; training/jax_ppo.py; needs
                             # vector, whose num_envs games run on the device)
init_from: checkpoints/ppo_all_counts                 # start from a safe agent file's policy and critic
                                                      # instead of a fresh (or cloned) one: fine-tuning it
duplicate: bayes_v2          # vector only: every deal is also played with this player in the learner's
                             # seat, and its return there is taken from the learner's (duplicate rewards)
critic_state: true           # vector only: the critic also reads the hidden state, the policy does not
                             # (an asymmetric actor-critic, training/state_critic.py)
population:                  # vector only, instead of opponents: self-play against a population
  members: [[bayes_v1], [bayes_v2], [checkpoints/ppo_5p_vector], self]   # opponents tables, or self
  weights: [1, 1, 1, 1]      # a prior weight per member (default 1 each; self's for each snapshot)
  scheme: pfsp               # pfsp: weight (1 - p)^power, p the learner's win rate against it; uniform
  power: 2                   # pfsp's exponent
  floor: 0.05                # the least pfsp factor, so that no member starves
  horizon: 500               # finished games: the win rate's running mean forgets at rate 1/horizon
  refresh_every: 20_000      # steps between weight updates (also at every snapshot)
```

With several player counts, every evaluation table is played at each count (``games`` games each);
its result holds ``by_count`` and, for choosing the best model, the mean win rate over the counts.
Every evaluation of a run plays the same deals (its seed derives from the run's), the learner in
the same seats, so two evaluations compare in pairs (``vs_best`` against the best model so far and
``vs_start`` against the run's first model, per count too): two models of one run mostly play the
same games the same way, so their paired difference has a narrower interval than that of two
independent tournaments (in the from-scratch run against four bayes_v1, 2000 games each: +-0.012 to
+-0.018 between consecutive evaluations, where two independent tournaments give +-0.025 near a win
rate of 0.2; the closer two models play, the narrower). 2000 games (the default) take seconds on the
batched engine.

The best model is the one with the highest win rate on those deals, so its figure there is the
largest of several noisy ones and overstates it (a run whose every model plays alike still shows a
"best" above its start). ``held_out: N`` plays the first table also on N other deals per count,
which the pick never looks at: each entry's ``held_out`` holds that win rate and its difference
from the start's on the same held-out deals, and the pick's held-out figure is an honest estimate.

``vector`` trains on :class:`ckc_env.envs.vector.CheckpointCharlieVectorEnv` (opponents and a pretraining
teacher then need a batched form; ``n_envs`` must stay 1, and ``ppo.n_steps`` counts steps per game
slot, so a rollout is ``n_steps x num_envs`` decisions); ``threads`` is torch's thread count while
the batch waits for the gradient steps; ``workers`` > 1 splits the slots across that many processes
(:class:`ckc_env.envs.subproc_vector.SubprocVectorEnv`), stepped at the same time, for machines with
cores to spare (another worker count deals other games). Without it, training runs on the scalar
single-agent view.

``population`` (training/population.py; it needs ``vector``, and replaces ``opponents``) draws each
game's table from its members, weighted by prioritised fictitious self-play as in AlphaStar: a
member's weight is its prior weight times ``max(floor, (1 - p) ** power)``, ``p`` the learner's
recent win share against it (an exponential running mean over its finished games, ``p += (share -
p) / horizon`` per game, starting at the fair share 1/n), so the tables it beats least come most
often; ``scheme: uniform`` uses the prior weights alone. A member is an opponents table as
``opponents`` takes it (one spec for every other seat, a list of n-1, or ``{count: ...}``), or
``self``: each of the learner's snapshots (``self_play``: every ``snapshot_every`` steps, the
``keep`` latest, safe agent files in ``<run>/snapshots/``) is then a member of its own, at a table of
that snapshot (none before the first). ``<run>/population.json`` records the members, their win
rates, weights and games at every refresh, and ``--resume`` reads it back.

``duplicate`` (vector only) names a reference player with a batched form: each deal is played a
second time, with the reference in the learner's seat against the same opponents, and the
learner's reward at a game's end is less the reference's return on that deal (the reward scheme's
return: its win reward, margin or points). The reference does not see the learner's game, so the
expected gradient is unchanged; the luck of the deal cancels from the returns as far as the two
play alike (:class:`ckc_env.envs.vector.CheckpointCharlieVectorEnv`).
The episode rewards SB3 logs are then the learner's edge over the reference; evaluations are not
affected.
"""

from __future__ import annotations

import inspect
import itertools
import re
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

from ckc_env.config import GameConfig, load_yaml_mapping
from ckc_env.engine.actions import N_ACTIONS
from ckc_env.files import short
from ckc_env.players import specs
from ckc_env.table import options
from ckc_env.table.options import fail, is_per_count, per_count, player_counts

from . import limits

TABLE_NAME = re.compile(r"[A-Za-z0-9_.-]{1,64}")

PPO_EXCLUDED = (
    "self",
    "policy",
    "env",
    "seed",
    "tensorboard_log",
    "verbose",
    "device",
    "_init_setup_model",
    "policy_kwargs",
    "rollout_buffer_class",  # Python classes and their arguments: not for a YAML file
    "rollout_buffer_kwargs",
)

PPO_RANGES: dict[str, tuple[str, float | None, float | None, bool, bool]] = {
    # key: (kind, low, high, low open, None allowed); "int", "number" or "bool"
    "learning_rate": ("number", 0, 1, True, False),
    "n_steps": ("int", 2, None, False, False),
    "batch_size": ("int", 2, None, False, False),
    "n_epochs": ("int", 1, None, False, False),
    "gamma": ("number", 0, 1, True, False),
    "gae_lambda": ("number", 0, 1, False, False),
    "clip_range": ("number", 0, 1, True, False),
    "clip_range_vf": ("number", 0, None, True, True),
    "normalize_advantage": ("bool", None, None, False, False),
    "ent_coef": ("number", 0, None, False, False),
    "vf_coef": ("number", 0, None, False, False),
    "max_grad_norm": ("number", 0, None, True, False),
    "target_kl": ("number", 0, None, True, True),
    "stats_window_size": ("int", 1, None, False, False),
}
"""The accepted range of every MaskablePPO argument a config may set (a test checks that this
table covers MaskablePPO's signature, so a new SB3 argument is not let through unchecked)."""


def _ppo_arguments() -> tuple[str, ...]:
    from sb3_contrib import MaskablePPO

    return tuple(p for p in inspect.signature(MaskablePPO.__init__).parameters if p not in PPO_EXCLUDED)


def ranged(key: str, value: Any, kind: str, low: float | None, high: float | None, low_open: bool, none: bool) -> Any:
    """``value`` if it has the kind and lies in the range; else a ValueError with the accepted range."""
    if value is None and none:
        return None
    if kind == "bool":
        if not isinstance(value, bool):
            fail(key, value, "true or false")
        return value
    what = "an integer" if kind == "int" else "a number"
    bounds = []
    if low is not None:
        bounds.append(f"{'>' if low_open else '>='} {low}")
    if high is not None:
        bounds.append(f"<= {high}")
    accepted = f"{what} {' and '.join(bounds)}".strip() + (" or null" if none else "")
    if isinstance(value, str):
        accepted += " (YAML reads 3e-4 as text: write 0.0003)"
    number_types = (int,) if kind == "int" else (int, float)
    if isinstance(value, bool) or not isinstance(value, number_types) or value != value:
        fail(key, value, accepted)
    if (low is not None and (value <= low if low_open else value < low)) or (high is not None and value > high):
        fail(key, value, accepted)
    return value


def count(key: str, value: Any, low: int = 1, high: int = limits.MAX_COUNT) -> int:
    """An integer from ``low`` to ``high`` (YAML's 1e6 is text: the message says so)."""
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        fail(key, value, f"an integer >= {low} and <= {high:_} (write 1_000_000, not 1e6: YAML reads 1e6 as text)")
    return value


def reject_unknown(section: str, data: dict[str, Any], accepted: tuple[str, ...]) -> None:
    if not isinstance(data, dict):
        raise ValueError(f"{section} must be a mapping with keys {list(accepted)}, got {short(data)}")
    unknown = [key for key in data if key not in accepted]  # keys of any type: 1, null, ...
    if unknown:
        where = f"{section}." if section else ""
        named = [f"{where}{key}" if isinstance(key, str) else key for key in unknown]
        raise ValueError(f"unknown key(s) {short(named)}: accepted keys are {list(accepted)}")


def _opponent(key: str, spec: Any, allow_self: bool = True) -> Any:
    try:
        specs.parse(spec, allow_self=allow_self)
    except ValueError as exc:
        raise ValueError(f"invalid {key}={short(spec)}: {exc}") from None
    return spec


def seat_specs(key: str, value: Any, counts: tuple[int, ...]) -> Any:
    """Opponents for the other seats: one spec for all, a list of n-1 (kept as given), or with
    several player counts a mapping ``{count: one spec or a list of count-1}``."""
    if is_per_count(value):
        try:
            tables = per_count(value, counts, key)
        except ValueError as exc:
            raise ValueError(str(exc)) from None
        return {n: seat_specs(f"{key}.{n}", table, (n,)) for n, table in tables.items()}
    given = [value] if isinstance(value, (str, dict)) else value
    if not isinstance(given, list):
        fail(key, value, f"one spec, a list of n-1 for n players, or a mapping {{count: opponents}} for {list(counts)}")
    for n in counts:
        try:
            specs.for_seats(given, n - 1)
        except ValueError as exc:
            raise ValueError(f"invalid {key}={short(value)}: {exc}") from None
    return [_opponent(f"{key}[{i}]", spec) for i, spec in enumerate(given)]


def _teacher(key: str, value: Any, counts: tuple[int, ...]) -> Any:
    """A pretraining teacher: one spec, or ``{count: spec}`` with several counts."""
    if is_per_count(value):
        try:
            teachers = per_count(value, counts, key)
        except ValueError as exc:
            raise ValueError(str(exc)) from None
        return {n: _opponent(f"{key}.{n}", spec, allow_self=False) for n, spec in teachers.items()}
    return _opponent(key, value, allow_self=False)


def specs_named(value: Any) -> list[Any]:
    """Every player spec in an opponents table or teacher setting (flat, over all counts)."""
    if is_per_count(value):
        return [spec for table in value.values() for spec in specs_named(table)]
    return list(value) if isinstance(value, list) else [value]


def _net_arch(value: Any) -> None:
    """MlpPolicy's ``net_arch``: a list of layer widths (shared by both heads), or
    ``{pi: [...], vf: [...]}``."""
    accepted = (
        f"a list of up to {limits.MAX_LAYERS} layer widths from 1 to {limits.MAX_WIDTH} (e.g. [256, 256]) "
        "or {pi: [...], vf: [...]}"
    )
    lists = list(value.values()) if isinstance(value, dict) else [value]
    if isinstance(value, dict) and set(value) != {"pi", "vf"}:
        fail("policy.net_arch", value, accepted)
    for widths in lists:
        if (
            not isinstance(widths, list)
            or len(widths) > limits.MAX_LAYERS
            or not all(isinstance(w, int) and not isinstance(w, bool) and 1 <= w <= limits.MAX_WIDTH for w in widths)
        ):
            fail("policy.net_arch", value, accepted)


def network_parameters(net_arch: Any, inputs: int, outputs: int = N_ACTIONS) -> int:
    """The weights of the policy and value networks MlpPolicy builds from ``net_arch``."""
    pi, vf = (net_arch["pi"], net_arch["vf"]) if isinstance(net_arch, dict) else (net_arch, net_arch)
    total = 0
    for widths, out in ((pi, outputs), (vf, 1)):
        sizes = [inputs, *widths, out]
        total += sum((a + 1) * b for a, b in itertools.pairwise(sizes))
    return total


def decision_bytes(config: TrainConfig) -> int:
    """Memory one stored decision takes in a rollout or a pretraining set: its observation (with the
    critic's state), its action mask and a few float32 scalars (action, reward, value, returns...)."""
    from ckc_env.observation import CRITIC_STATE, ENV_VERSION, LAYOUTS

    width = LAYOUTS[ENV_VERSION][config.belief_features].size + (CRITIC_STATE.size if config.critic_state else 0)
    return 4 * (width + N_ACTIONS + 8)


def check_sizes(config: TrainConfig) -> None:
    """What a config would allocate, against :mod:`training.limits`, before anything is built."""
    from ckc_env.observation import ENV_VERSION, LAYOUTS

    per_decision = decision_bytes(config)
    budget = limits.MAX_BUFFER_BYTES
    slots = config.vector.num_envs if config.vector is not None else config.n_envs
    across = "vector.num_envs" if config.vector is not None else "n_envs"
    n_steps = config.ppo.get("n_steps", 2048)
    if n_steps * slots * per_decision > budget:
        fail(
            "ppo.n_steps",
            n_steps,
            f"a rollout (n_steps x {across} = {n_steps:_} x {slots:_} decisions, {per_decision:_} bytes each) of at "
            f"most {budget:_} bytes: n_steps <= {budget // (slots * per_decision):_}",
        )
    for key, decisions in (
        ("pretrain.decisions", config.pretrain.decisions),
        ("finetune.critic_fit", config.finetune.critic_fit),
    ):
        active = config.pretrain.teacher is not None if key.startswith("pretrain") else decisions > 0
        if active and decisions * per_decision > budget:
            fail(
                key,
                decisions,
                f"at most {budget // per_decision:_} decisions ({per_decision:_} bytes each, {budget:_} in all)",
            )
    inputs = LAYOUTS[ENV_VERSION][config.belief_features].size
    weights = network_parameters(config.policy.get("net_arch", [64, 64]), inputs)
    if weights > limits.MAX_PARAMETERS:
        fail(
            "policy.net_arch",
            config.policy["net_arch"],
            f"networks of at most {limits.MAX_PARAMETERS:_} weights in all (this one: {weights:_})",
        )


def _table_name(name: Any) -> None:
    """An evaluation table's name: it is printed, logged as a TensorBoard tag and written to files."""
    if not isinstance(name, str) or not TABLE_NAME.fullmatch(name):
        fail(
            "eval.opponents",
            name,
            "table names of 1 to 64 letters, digits, '_', '-' or '.' (e.g. vs_bayes_v1): a name is printed and "
            "logged as a TensorBoard tag",
        )


@dataclass(frozen=True)
class SelfPlay:
    snapshot_every: int = 50_000
    keep: int = 5


@dataclass(frozen=True)
class Pretrain:
    """Behaviour cloning before PPO (training/imitation.py); off while ``teacher`` is None."""

    teacher: Any = None  # an agent name (with parameters) or checkpoint that plays the learner's seat
    decisions: int = 200_000  # teacher decisions to record (whole games)
    epochs: int = 10
    batch_size: int = 512
    learning_rate: float = 0.001  # Adam's step size while cloning (PPO's own resumes afterwards)


@dataclass(frozen=True)
class FineTune:
    """Fine-tuning a cloned policy (training/finetune.py): all off by default."""

    critic_warmup: int = 0  # learner steps with the policy frozen (the critic alone learns)
    kl_to_start: float = 0.0  # weight of the KL pass towards the step-0 policy
    kl_decay: int = 0  # steps over which that weight falls linearly to 0 (0: constant)
    critic_fit: int = 0  # decisions of the start policy whose returns the critic is fitted to first (0: off)
    critic_fit_epochs: int = 10  # passes over them

    @property
    def active(self) -> bool:
        return self.critic_warmup > 0 or self.kl_to_start > 0 or self.critic_fit > 0

    def kl_weight(self, timesteps: int) -> float:
        if self.kl_decay <= 0:
            return self.kl_to_start
        return self.kl_to_start * max(0.0, 1.0 - timesteps / self.kl_decay)


@dataclass(frozen=True)
class Evaluation:
    every: int = 25_000
    games: int = 2000
    opponents: dict[str, list[Any]] = field(
        default_factory=lambda: {"vs_bayes_v1": ["bayes_v1"], "vs_random": ["random"]}
    )
    """name -> opponents for the other seats (one spec for all, or n-1 specs)."""
    held_out: int = 0
    """Games per count on a second deal set, the first table only; the best model is picked on the
    first set alone, so the held-out figure of the pick carries none of the pick's luck (0: none)."""
    reference: Any = None
    """A player (e.g. bayes_v2) played once in the learner's seat on the first table's deals: each
    evaluation's ``vs_reference`` is the learner's paired difference from it, game by game."""


@dataclass(frozen=True)
class Vector:
    """Training on the batched engine (``ckc_env.envs.vector``)."""

    num_envs: int = 1024  # games stepped at once
    threads: int = 1  # torch threads for the gradient steps
    workers: int = 1  # processes the game slots are split across (ckc_env.envs.subproc_vector)


SCHEMES = ("pfsp", "uniform")


@dataclass(frozen=True)
class Population:
    """Self-play against a population of tables on the vector path (training/population.py)."""

    members: list[Any] = field(default_factory=list)  # opponents tables, or "self" (each snapshot a member)
    weights: list[float] | None = None  # a prior weight per member (None: 1 each)
    scheme: str = "pfsp"  # pfsp | uniform
    power: float = 2.0  # pfsp: f(p) = (1 - p) ** power
    floor: float = 0.05  # pfsp: the least f(p)
    horizon: int = 500  # finished games: the running win rate moves by 1/horizon of each game's share
    refresh_every: int = 20_000  # learner steps between the env's weight updates (and at every snapshot)

    @property
    def tables(self) -> list[Any]:
        """The members other than ``self``."""
        return [member for member in self.members if member != specs.SELF]

    @property
    def uses_self_play(self) -> bool:
        return specs.SELF in self.members


@dataclass(frozen=True)
class TrainConfig:
    seed: int = 0
    total_timesteps: int = 200_000
    n_envs: int = 1
    game: dict[str, Any] = field(default_factory=dict)
    reward: str = "points"
    belief_features: bool | str = True
    learner_seat: int | str = "random"
    opponents: list[Any] = field(default_factory=lambda: ["bayes_v1"])
    self_play: SelfPlay = field(default_factory=SelfPlay)
    pretrain: Pretrain = field(default_factory=Pretrain)
    ppo: dict[str, Any] = field(default_factory=dict)
    policy: dict[str, Any] = field(default_factory=lambda: {"net_arch": [256, 256]})
    eval: Evaluation = field(default_factory=Evaluation)
    vector: Vector | None = None
    finetune: FineTune = field(default_factory=FineTune)
    population: Population | None = None
    init_from: str | None = None
    duplicate: Any = None
    critic_state: bool = False
    engine: str = "sb3"

    @property
    def player_counts(self) -> tuple[int, ...]:
        """The player counts the learner trains at (one, or several drawn per episode)."""
        return player_counts(self.game.get("num_players", GameConfig.num_players))

    def game_for(self, n: int) -> dict[str, Any]:
        """The game options of the ``n``-player table."""
        return {**self.game, "num_players": n}

    @property
    def game_config(self) -> GameConfig:
        """The rules at the smallest count (every option but the count is the same at all counts)."""
        return GameConfig.from_dict(self.game_for(self.player_counts[0]))

    def opponents_at(self, n: int) -> list[Any]:
        """The training opponents of the ``n``-player table."""
        return self.opponents[n] if is_per_count(self.opponents) else self.opponents

    def eval_tables_at(self, n: int) -> dict[str, list[Any]]:
        """Each evaluation table's opponents at ``n`` players."""
        return {name: table[n] if is_per_count(table) else table for name, table in self.eval.opponents.items()}

    def teacher_at(self, n: int) -> Any:
        """The pretraining teacher of the ``n``-player table."""
        teacher = self.pretrain.teacher
        return teacher[n] if is_per_count(teacher) else teacher

    @property
    def uses_self_play(self) -> bool:
        """Whether the learner's snapshots are taken: "self" among the opponents or the population."""
        if self.population is not None and self.population.uses_self_play:
            return True
        return any(specs.parse(o, allow_self=True).kind == "self" for o in specs_named(self.opponents))

    @property
    def population_specs(self) -> list[Any]:
        """Every player spec of the population's tables (flat; none without a population)."""
        if self.population is None:
            return []
        return [spec for table in self.population.tables for spec in specs_named(table)]

    def to_dict(self) -> dict[str, Any]:
        out = {}
        for f in fields(self):
            value = getattr(self, f.name)
            if f.name in ("self_play", "pretrain", "eval", "finetune") or (
                f.name in ("vector", "population") and value is not None
            ):
                value = {g.name: getattr(value, g.name) for g in fields(value)}
            if f.name == "opponents" and self.population is not None:
                continue  # the population's members are the opponents
            out[f.name] = value
        return out


def parse_config(data: dict[str, Any]) -> TrainConfig:
    """Validate a mapping (e.g. loaded YAML) into a TrainConfig."""
    reject_unknown("", data, tuple(f.name for f in fields(TrainConfig)))
    kwargs: dict[str, Any] = {}
    if "seed" in data:
        kwargs["seed"] = count("seed", data["seed"], low=0, high=limits.MAX_SEED)
    if "total_timesteps" in data:
        kwargs["total_timesteps"] = count("total_timesteps", data["total_timesteps"], high=limits.MAX_TIMESTEPS)
    if "n_envs" in data:
        kwargs["n_envs"] = count("n_envs", data["n_envs"], high=limits.MAX_N_ENVS)
    game = data.get("game", {})
    reject_unknown("game", game, GameConfig.fields())
    counts = player_counts(game.get("num_players", GameConfig.num_players))
    for n in counts:
        GameConfig.from_dict({**game, "num_players": n})  # validates values
    kwargs["game"] = {**game, "num_players": list(counts)} if len(counts) > 1 else dict(game)
    n = counts[0]
    if "reward" in data:
        kwargs["reward"] = options.reward(data["reward"])
    if "belief_features" in data:
        kwargs["belief_features"] = options.belief_features(data["belief_features"])
    if "learner_seat" in data:
        kwargs["learner_seat"] = options.learner_seat(data["learner_seat"], counts)
    if "opponents" in data:
        kwargs["opponents"] = seat_specs("opponents", data["opponents"], counts)
    if "self_play" in data:
        section = data["self_play"]
        reject_unknown("self_play", section, tuple(f.name for f in fields(SelfPlay)))
        highs = {"snapshot_every": limits.MAX_TIMESTEPS, "keep": limits.MAX_KEEP}
        kwargs["self_play"] = SelfPlay(**{k: count(f"self_play.{k}", v, high=highs[k]) for k, v in section.items()})
    if "pretrain" in data:
        section = data["pretrain"]
        reject_unknown("pretrain", section, tuple(f.name for f in fields(Pretrain)))
        pretrain_kwargs: dict[str, Any] = {}
        if section.get("teacher") is not None:
            pretrain_kwargs["teacher"] = _teacher("pretrain.teacher", section["teacher"], counts)
        highs = {"decisions": limits.MAX_COUNT, "epochs": limits.MAX_EPOCHS, "batch_size": limits.MAX_COUNT}
        for key in ("decisions", "epochs", "batch_size"):
            if key in section:
                pretrain_kwargs[key] = count(f"pretrain.{key}", section[key], high=highs[key])
        if "learning_rate" in section:
            rate = section["learning_rate"]
            if isinstance(rate, bool) or not isinstance(rate, (int, float)) or not 0 < rate <= 1:
                fail("pretrain.learning_rate", rate, "a number > 0 and <= 1 (write 0.001, not 1e-3)")
            pretrain_kwargs["learning_rate"] = float(rate)
        kwargs["pretrain"] = Pretrain(**pretrain_kwargs)
    if data.get("vector") is not None:
        section = data["vector"]
        reject_unknown("vector", section, tuple(f.name for f in fields(Vector)))
        highs = {"num_envs": limits.MAX_NUM_ENVS, "threads": limits.MAX_THREADS, "workers": limits.MAX_WORKERS}
        kwargs["vector"] = Vector(**{k: count(f"vector.{k}", v, high=highs[k]) for k, v in section.items()})
        if kwargs["vector"].workers > kwargs["vector"].num_envs:
            fail("vector.workers", kwargs["vector"].workers, f"1 to vector.num_envs = {kwargs['vector'].num_envs}")
        if kwargs.get("n_envs", 1) != 1:
            fail("n_envs", kwargs["n_envs"], "1 with vector (vector.workers splits its games across processes)")
    engine = data.get("engine", "sb3")
    if engine not in ENGINES:
        fail("engine", engine, " or ".join(repr(e) for e in ENGINES))
    if engine != "sb3":
        kwargs["engine"] = engine
    if engine == "jax" and "vector" not in kwargs:
        fail("engine", "jax", "'sb3' without a vector section (engine: jax plays vector.num_envs games on the device)")
    if "ppo" in data:
        reject_unknown("ppo", data["ppo"], tuple(PPO_RANGES) if engine == "jax" else _ppo_arguments())
        ppo = {key: ranged(f"ppo.{key}", value, *PPO_RANGES[key]) for key, value in data["ppo"].items()}
        slots = kwargs["vector"].num_envs if "vector" in kwargs else kwargs.get("n_envs", 1)
        rollout = ppo.get("n_steps", 2048) * slots
        across = "vector.num_envs" if "vector" in kwargs else "n_envs"
        if ppo.get("batch_size", 64) > rollout:
            fail("ppo.batch_size", ppo.get("batch_size", 64), f"at most n_steps x {across} = {rollout} (one rollout)")
        kwargs["ppo"] = ppo
    if "policy" in data:
        reject_unknown("policy", data["policy"], ("net_arch", "activation_fn", "ortho_init"))
        policy = dict(data["policy"])
        if "activation_fn" in policy and policy["activation_fn"] not in ("tanh", "relu"):
            fail("policy.activation_fn", policy["activation_fn"], "'tanh' or 'relu'")
        if "net_arch" in policy:
            _net_arch(policy["net_arch"])
        if "ortho_init" in policy:
            ranged("policy.ortho_init", policy["ortho_init"], "bool", None, None, False, False)
        kwargs["policy"] = policy
    if data.get("init_from") is not None:
        start = data["init_from"]
        if not isinstance(start, str) or not start.strip():
            fail("init_from", start, "the path of a safe agent file (a .json card, or a folder or run holding one)")
        pretrain = data.get("pretrain")
        if isinstance(pretrain, dict) and pretrain.get("teacher") is not None:
            raise ValueError(
                f"init_from={short(start)} and pretrain.teacher={short(pretrain['teacher'])}: a run starts "
                "from an agent file or from behaviour cloning, not both (drop one of the two)"
            )
        kwargs["init_from"] = start
    if "finetune" in data:
        section = data["finetune"]
        reject_unknown("finetune", section, tuple(f.name for f in fields(FineTune)))
        tune: dict[str, Any] = {}
        for key in ("critic_warmup", "kl_decay", "critic_fit"):
            if key in section:
                tune[key] = count(f"finetune.{key}", section[key], low=0, high=limits.MAX_TIMESTEPS)
        if "critic_fit_epochs" in section:
            tune["critic_fit_epochs"] = count(
                "finetune.critic_fit_epochs", section["critic_fit_epochs"], high=limits.MAX_EPOCHS
            )
        if tune.get("critic_fit") and "vector" not in kwargs:
            fail(
                "finetune.critic_fit",
                tune["critic_fit"],
                "0 without a vector section (the start policy plays on the batched engine)",
            )
        if "kl_to_start" in section:
            weight = section["kl_to_start"]
            if isinstance(weight, bool) or not isinstance(weight, (int, float)) or not 0 <= weight <= 100:
                fail("finetune.kl_to_start", weight, "a number from 0 to 100 (0: off)")
            tune["kl_to_start"] = float(weight)
        kwargs["finetune"] = FineTune(**tune)
    if "eval" in data:
        section = data["eval"]
        reject_unknown("eval", section, tuple(f.name for f in fields(Evaluation)))
        eval_kwargs: dict[str, Any] = {}
        if "every" in section:
            eval_kwargs["every"] = count("eval.every", section["every"], high=limits.MAX_TIMESTEPS)
        if "games" in section:
            eval_kwargs["games"] = count("eval.games", section["games"], high=limits.MAX_GAMES)
        if "held_out" in section:
            eval_kwargs["held_out"] = count("eval.held_out", section["held_out"], low=0, high=limits.MAX_GAMES)
        if section.get("reference") is not None:
            eval_kwargs["reference"] = _opponent("eval.reference", section["reference"], allow_self=False)
        if "opponents" in section:
            tables = section["opponents"]
            if not isinstance(tables, dict) or not tables:
                fail("eval.opponents", tables, "a mapping name -> opponents")
            for name in tables:
                _table_name(name)
            eval_kwargs["opponents"] = {
                name: seat_specs(f"eval.opponents.{name}", table, counts) for name, table in tables.items()
            }
        kwargs["eval"] = Evaluation(**eval_kwargs)
    if data.get("duplicate") is not None:
        if "vector" not in kwargs:
            fail("duplicate", data["duplicate"], "a reference player with a vector section (the batched engine only)")
        kwargs["duplicate"] = _opponent("duplicate", data["duplicate"], allow_self=False)
    if data.get("critic_state") is not None:
        critic_state = ranged("critic_state", data["critic_state"], "bool", None, None, False, False)
        if critic_state and "vector" not in kwargs:
            fail("critic_state", critic_state, "false without a vector section (the batched engine gives the state)")
        pretrain = data.get("pretrain")
        if critic_state and isinstance(pretrain, dict) and pretrain.get("teacher") is not None:
            raise ValueError(
                "critic_state: true and pretrain.teacher: clone in a run of its own, then start this one from "
                "it with init_from"
            )
        kwargs["critic_state"] = critic_state
    if data.get("population") is not None:
        if "vector" not in kwargs:
            fail("population", data["population"], "a population with a vector section (the batched engine only)")
        if "opponents" in data:
            raise ValueError(
                f"opponents={short(data['opponents'])} and population both given: the population's members are "
                "the opponents (give one of them)"
            )
        kwargs["population"] = _population(data["population"], counts)
    config = TrainConfig(**kwargs)
    if config.engine == "jax":
        check_jax(config)
    check_sizes(config)
    return config


ENGINES = ("sb3", "jax")
"""The trainers a config may pick: stable-baselines3's MaskablePPO (CPU) or training/jax_ppo.py."""


JAX_REFUSED = {
    "pretrain.teacher": "clone on the SB3 path (engine: sb3), then start this run from it with init_from",
    "duplicate": "duplicate rewards are played on the NumPy engine only (engine: sb3)",
    "critic_state": "the asymmetric critic is trained on the NumPy engine only (engine: sb3)",
    "finetune.critic_fit": "fit the critic on the SB3 path, or use finetune.critic_warmup here",
    "self": "self-play snapshots as opponents are trained on the NumPy engine only (engine: sb3)",
}
"""What ``engine: jax`` does not train, with what to do instead (:func:`check_jax` refuses them)."""


def check_jax(config: TrainConfig) -> None:
    """What ``engine: jax`` trains (training/jax_ppo.py): a ValueError naming what it does not,
    with what to do instead."""
    if config.vector.workers != 1:  # parse_config has refused engine: jax without a vector section
        fail(
            "vector.workers", config.vector.workers, "1 with engine: jax (its games run on the device, in one process)"
        )
    refused = {
        "pretrain.teacher": config.pretrain.teacher is not None,
        "duplicate": config.duplicate is not None,
        "critic_state": config.critic_state,
        "finetune.critic_fit": config.finetune.critic_fit > 0,
        "self": config.uses_self_play,
    }
    for key, given in refused.items():
        if given:
            what = "self-play opponents (self)" if key == "self" else key
            raise ValueError(f"engine: jax does not train with {what}: {JAX_REFUSED[key]}")
    if config.belief_features == "second_order":
        fail(
            "belief_features", "second_order", "false, true or 'players' with engine: jax (no JAX second-order reader)"
        )
    n_steps = config.ppo.get("n_steps", 2048)
    batch = config.ppo.get("batch_size", 64)
    rollout = n_steps * config.vector.num_envs
    if rollout % batch:
        divisors = [d for d in (256, 512, 1024, 2048, 4096, 8192, 16384) if rollout % d == 0 and d <= rollout]
        fail(
            "ppo.batch_size",
            batch,
            f"a divisor of n_steps x vector.num_envs = {rollout} with engine: jax (fixed-shape minibatches), e.g. {divisors}",
        )


def _population(section: Any, counts: tuple[int, ...]) -> Population:
    """The ``population`` section: members (tables or ``self``), prior weights and the scheme."""
    reject_unknown("population", section, tuple(f.name for f in fields(Population)))
    members = section.get("members")
    if not isinstance(members, list) or not members:
        fail(
            "population.members",
            members,
            "a non-empty list of opponents tables (e.g. [[bayes_v1], [bayes_v2], self]; self: the learner's snapshots)",
        )
    checked = []
    for i, member in enumerate(members):
        key = f"population.members[{i}]"
        if member == specs.SELF:
            if specs.SELF in checked:
                fail(key, member, "self once (each snapshot is a member of its own)")
            checked.append(member)
            continue
        table = seat_specs(key, member, counts)
        for spec in specs_named(table):
            if specs.parse(spec, allow_self=True).kind == "self":
                fail(key, member, "tables of players without self (self is a member of its own: write self)")
        checked.append(table)
    kwargs: dict[str, Any] = {"members": checked}
    if section.get("weights") is not None:
        weights = section["weights"]
        accepted = f"a list of {len(members)} numbers >= 0 (one per member), not all 0"
        if (
            not isinstance(weights, list)
            or len(weights) != len(members)
            or not all(
                isinstance(w, (int, float)) and not isinstance(w, bool) and 0 <= w < float("inf") for w in weights
            )
            or not sum(weights) > 0
        ):
            fail("population.weights", weights, accepted)
        kwargs["weights"] = [float(w) for w in weights]
    if "scheme" in section:
        if section["scheme"] not in SCHEMES:
            fail("population.scheme", section["scheme"], ", ".join(SCHEMES))
        kwargs["scheme"] = section["scheme"]
    if "power" in section:
        kwargs["power"] = float(ranged("population.power", section["power"], "number", 0, 10, True, False))
    if "floor" in section:
        kwargs["floor"] = float(ranged("population.floor", section["floor"], "number", 0, 1, True, False))
    for key in ("horizon", "refresh_every"):
        if key in section:
            kwargs[key] = count(f"population.{key}", section[key], high=limits.MAX_TIMESTEPS)
    return Population(**kwargs)


def load_config(path: str | Path) -> TrainConfig:
    """Load and validate a training config file (ValueError naming the file and the key)."""
    data = load_yaml_mapping(path)
    try:
        return parse_config(data)
    except ValueError as exc:
        raise ValueError(f"{path}: {exc}") from exc
