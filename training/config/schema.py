"""The training config, declared once: its sections and fields with their types, ranges and
defaults (pydantic models), read by every trainer; the YAML reference is written from it
(``python -m ckc_env.training.config.reference``, docs/config.md).

Every key is optional; unknown keys, mistyped values and values out of range are refused with a
ValueError naming the key and the accepted values (:mod:`training.config.fields`), before
anything is built. What a field means is its docstring here and its line in docs/config.md.

With several player counts (``game.num_players: [3, 4, 5]``), the opponents, the pretraining
teacher and each evaluation table may be given per count (``{3: [...], 4: [...], 5: [...]}``); each
episode draws its count, and every evaluation table is played at each count.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from pydantic import Field, ValidationInfo, field_validator, model_validator

from ckc_env.config import GameConfig
from ckc_env.files import short
from ckc_env.players import specs
from ckc_env.table import options
from ckc_env.table.options import fail, is_per_count, per_count, player_counts

from . import engines, limits
from .fields import Choice, Count, Described, Flag, Number, Section, game_section, load, validate
from .learner import PPO, Policy
from .players import player, seat_specs, specs_named
from .sizes import check_sizes

TABLE_NAME = re.compile(r"[A-Za-z0-9_.-]{1,64}")
ENGINES = ("sb3", "jax")
"""The trainers a config may pick: stable-baselines3's MaskablePPO (CPU) or PPO compiled whole in JAX."""
SCHEMES = ("pfsp", "uniform")


def _counts(info: ValidationInfo) -> tuple[int, ...] | None:
    """The player counts of the config being validated (None where its game section was refused)."""
    return (info.context or {}).get("counts")


# ---------------------------------------------------------------------------------------------- sections
class SelfPlay(Section):
    """Frozen snapshots of the learner, for ``self`` opponents and population members."""

    snapshot_every: Count(1, limits.MAX_TIMESTEPS) = 50_000
    """Learner steps between snapshots (safe agent files in ``<run>/snapshots/``)."""
    keep: Count(1, limits.MAX_KEEP) = 5
    """Snapshots kept (the latest)."""
    shared: Flag = False
    """``self`` seats played by the learner itself, with its current parameters (each of their
    decisions a learner step), instead of by its snapshots: ``engine: jax`` with ``vector.loop:
    decision`` only."""


class Pretrain(Section):
    """Behaviour cloning before PPO (training/imitation/cloning.py); off while ``teacher`` is null."""

    teacher: Described("a player spec (or {count: spec}), or null") = None
    """A player that plays the learner's seat (a name with parameters, or an agent file); with
    several counts also ``{count: teacher}``."""
    decisions: Count(1, limits.MAX_COUNT) = 200_000
    """Teacher decisions to record (whole games, over all counts)."""
    epochs: Count(1, limits.MAX_EPOCHS) = 10
    batch_size: Count(1, limits.MAX_COUNT) = 512
    learning_rate: Number(0, 1, low_open=True) = 0.001
    """Adam's step size while cloning (PPO's own resumes afterwards)."""

    @field_validator("teacher")
    @classmethod
    def _teacher(cls, value: Any, info: ValidationInfo) -> Any:
        counts = _counts(info)
        if value is None or counts is None:
            return value
        if is_per_count(value):
            teachers = per_count(value, counts, "pretrain.teacher")
            return {n: player(f"pretrain.teacher.{n}", spec, allow_self=False) for n, spec in teachers.items()}
        return player("pretrain.teacher", value, allow_self=False)


class FineTune(Section):
    """Keeping a cloned or loaded policy while PPO fine-tunes it (training/imitation/finetune.py); all off by default."""

    critic_warmup: Count(0, limits.MAX_TIMESTEPS) = 0
    """Learner steps with the policy frozen (the critic alone learns)."""
    kl_to_start: Number(0, 100) = 0.0
    """Weight of the KL pass towards the step-0 policy (0: off)."""
    kl_decay: Count(0, limits.MAX_TIMESTEPS) = 0
    """Steps over which that weight falls linearly to 0 (0: constant)."""
    critic_fit: Count(0, limits.MAX_TIMESTEPS) = 0
    """Decisions of the start policy whose returns the critic is fitted to first (0: off; vector only)."""
    critic_fit_epochs: Count(1, limits.MAX_EPOCHS) = 10
    """Passes over them."""

    @property
    def active(self) -> bool:
        return self.critic_warmup > 0 or self.kl_to_start > 0 or self.critic_fit > 0

    def kl_weight(self, timesteps: int) -> float:
        if self.kl_decay <= 0:
            return self.kl_to_start
        return self.kl_to_start * max(0.0, 1.0 - timesteps / self.kl_decay)


class Evaluation(Section):
    """The learner against fixed tables, on the same deals at every evaluation (training/evaluation/)."""

    every: Count(1, limits.MAX_TIMESTEPS) = 25_000
    """Learner steps between evaluations."""
    games: Count(1, limits.MAX_GAMES) = 2000
    """Games of each table (at each count)."""
    opponents: Described("table name -> player specs (one for every other seat, n-1, or by count)", dict[str, Any]) = (
        Field(default_factory=lambda: {"vs_bayes_v1": ["bayes_v1"], "vs_random": ["random"]})
    )
    """Table name -> the other seats (one spec for all, n-1 specs, or by count). The first table
    picks the best model and pairs the evaluations."""
    held_out: Count(0, limits.MAX_GAMES) = 0
    """Games per count on a second deal set, the first table only, which the pick of the best model
    never sees (0: none)."""
    reference: Described("a player spec, or null") = None
    """A player (e.g. bayes_v2) played once in the learner's seat on the first table's deals: each
    evaluation's ``vs_reference`` is the learner's paired difference from it."""

    @field_validator("reference")
    @classmethod
    def _reference(cls, value: Any) -> Any:
        return None if value is None else player("eval.reference", value, allow_self=False)

    @field_validator("opponents", mode="before")
    @classmethod
    def _tables(cls, tables: Any, info: ValidationInfo) -> Any:
        if not isinstance(tables, dict) or not tables:
            fail("eval.opponents", tables, "a mapping name -> opponents")
        for name in tables:
            if not isinstance(name, str) or not TABLE_NAME.fullmatch(name):
                fail(
                    "eval.opponents",
                    name,
                    "table names of 1 to 64 letters, digits, '_', '-' or '.' (e.g. vs_bayes_v1): a name is printed "
                    "and logged as a TensorBoard tag",
                )
        counts = _counts(info)
        if counts is None:
            return tables
        return {name: seat_specs(f"eval.opponents.{name}", table, counts) for name, table in tables.items()}


class Vector(Section):
    """Training on the batched engine (``ckc_env.envs.vector``; with engine: jax, on the device)."""

    num_envs: Count(1, limits.MAX_NUM_ENVS) = 1024
    """Games stepped at once."""
    threads: Count(1, limits.MAX_THREADS) = 1
    """Torch threads for the gradient steps."""
    workers: Count(1, limits.MAX_WORKERS) = 1
    """Processes the game slots are split across (``ckc_env.envs.subproc_vector``)."""
    loop: Choice("learner", "decision", text="'learner' or 'decision'") = "learner"
    """``engine: jax``'s rollout: ``learner``, ``ppo.n_steps`` learner steps per game slot, the
    opponents played until every game waits for its learner (``jax.vector_env``); ``decision``,
    ``ppo.n_steps`` decisions per game slot, every game one decision per step whoever acts
    (``jax.table_env``), as many learner steps as the learner's seats decided."""

    @model_validator(mode="after")
    def _workers(self) -> Vector:
        if self.workers > self.num_envs:
            fail("vector.workers", self.workers, f"1 to vector.num_envs = {self.num_envs}")
        return self


class Population(Section):
    """Self-play against a population of tables, drawn by prioritised fictitious self-play (training/league/)."""

    members: Described("a list of opponents tables and self", list[Any]) = Field(default=[], validate_default=True)
    """Opponents tables, or ``self`` (each of the learner's snapshots a member of its own)."""
    weights: Described("a list of numbers >= 0, one per member, or null", list[float] | None) = None
    """A prior weight per member (null: 1 each; self's for each snapshot)."""
    scheme: Choice(*SCHEMES, text=", ".join(SCHEMES)) = "pfsp"
    """pfsp: weight ``(1 - p) ** power``, p the learner's win rate against the member; uniform: the priors."""
    power: Number(0, 10, low_open=True) = 2.0
    """pfsp's exponent."""
    floor: Number(0, 1, low_open=True) = 0.05
    """The least pfsp factor, so that no member starves."""
    horizon: Count(1, limits.MAX_TIMESTEPS) = 500
    """Finished games: the win rate's running mean moves by 1/horizon of each game's share."""
    refresh_every: Count(1, limits.MAX_TIMESTEPS) = 20_000
    """Learner steps between weight updates (and at every snapshot)."""

    @property
    def tables(self) -> list[Any]:
        """The members other than ``self``."""
        return [member for member in self.members if member != specs.SELF]

    @property
    def uses_self_play(self) -> bool:
        return specs.SELF in self.members

    @field_validator("members", mode="before")
    @classmethod
    def _members(cls, members: Any, info: ValidationInfo) -> Any:
        if not isinstance(members, list) or not members:
            fail(
                "population.members",
                members,
                "a non-empty list of opponents tables (e.g. [[bayes_v1], [bayes_v2], self]; self: the learner's snapshots)",
            )
        counts = _counts(info)
        if counts is None:
            return members
        checked: list[Any] = []
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
        return checked

    @field_validator("weights", mode="before")
    @classmethod
    def _weights(cls, weights: Any, info: ValidationInfo) -> Any:
        members = info.data.get("members")
        if weights is None or members is None:
            return weights
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
        return [float(w) for w in weights]


# ---------------------------------------------------------------------------------------------- the config
class TrainConfig(Section):
    """A training run's config: ``configs/train/*.yaml`` (docs/config.md lists every key)."""

    seed: Count(0, limits.MAX_SEED) = 0
    """One seed for the whole run."""
    total_timesteps: Count(1, limits.MAX_TIMESTEPS) = 200_000
    """Learner decisions."""
    n_envs: Count(1, limits.MAX_N_ENVS) = 1
    """Scalar environments, one process each (without ``vector``)."""
    game: Described("a mapping of game options (configs/rules/*.yaml's keys)", dict[str, Any]) = Field(
        default_factory=dict
    )
    """Any GameConfig option (``configs/rules/*.yaml``'s keys); ``num_players`` may be a list of counts."""
    reward: Described("'points', 'win' or 'margin'") = "points"
    """points | win | margin (own points minus the others' mean)."""
    belief_features: Described("false, true, 'players' or 'second_order'") = True
    """false, true (the exact beliefs appended), "players" (also the players' posterior) or "second_order"."""
    learner_seat: Described("'random' or a seat 0 to n-1") = "random"
    """random, or a seat."""
    opponents: Described("player specs: one for every other seat, n-1, or {count: ...}") = Field(
        default_factory=lambda: ["bayes_v1"]
    )
    """The other seats: names, agent files, or "self" (the learner's snapshots); by count too."""
    self_play: SelfPlay = SelfPlay()
    pretrain: Pretrain = Pretrain()
    ppo: Described("a section (ppo.* below)", dict[str, Any]) = Field(default_factory=dict)
    """MaskablePPO's arguments (:class:`PPO`), as given."""
    policy: Described("a section (policy.* below)", dict[str, Any]) = Field(
        default_factory=lambda: {"net_arch": [256, 256]}
    )
    """MlpPolicy's ``policy_kwargs`` (:class:`Policy`), as given."""
    eval: Evaluation = Evaluation()
    vector: Vector | None = None
    finetune: FineTune = FineTune()
    population: Population | None = None
    """Instead of ``opponents``, on the batched engine or the device: self-play against a population."""
    init_from: Described("the path of a safe agent file, or null", str | None) = None
    """Start from a safe agent file's policy and critic (fine-tuning it)."""
    duplicate: Described("a player spec with a batched form, or null") = None
    """A reference player also played on every deal in the learner's seat; its return is taken from the learner's (vector only)."""
    critic_state: Flag = False
    """The critic also reads the hidden state (an asymmetric actor-critic; vector only)."""
    engine: Choice(*ENGINES) = "sb3"
    """sb3: MaskablePPO on the CPU; jax: PPO compiled whole on the device JAX picks (needs vector)."""

    # ------------------------------------------------------------------ fields that read the counts
    @field_validator("game", mode="before")
    @classmethod
    def _game(cls, game: Any) -> Any:
        return game_section(game, counts=True)

    @field_validator("reward")
    @classmethod
    def _reward(cls, value: Any) -> Any:
        return options.reward(value)

    @field_validator("belief_features")
    @classmethod
    def _belief_features(cls, value: Any) -> Any:
        return options.belief_features(value)

    @field_validator("learner_seat")
    @classmethod
    def _learner_seat(cls, value: Any, info: ValidationInfo) -> Any:
        counts = _counts(info)
        return value if counts is None else options.learner_seat(value, counts)

    @field_validator("opponents")
    @classmethod
    def _opponents(cls, value: Any, info: ValidationInfo) -> Any:
        counts = _counts(info)
        return value if counts is None else seat_specs("opponents", value, counts)

    @field_validator("ppo")
    @classmethod
    def _ppo(cls, value: Any, info: ValidationInfo) -> Any:
        validate(PPO, value, "ppo")  # the ranges; the values are kept as given
        return dict(value)

    @field_validator("policy")
    @classmethod
    def _policy(cls, value: Any) -> Any:
        validate(Policy, value, "policy")
        return dict(value)

    @field_validator("init_from")
    @classmethod
    def _init_from(cls, start: Any) -> Any:
        if start is not None and (not isinstance(start, str) or not start.strip()):
            fail("init_from", start, "the path of a safe agent file (a .json card, or a folder or run holding one)")
        return start

    @field_validator("duplicate")
    @classmethod
    def _duplicate(cls, value: Any) -> Any:
        return None if value is None else player("duplicate", value, allow_self=False)

    # ------------------------------------------------------------------ what the sections ask of each other
    @model_validator(mode="after")
    def _together(self) -> TrainConfig:
        given = self.model_fields_set
        vector = self.vector is not None
        if vector and self.n_envs != 1:
            fail("n_envs", self.n_envs, "1 with vector (vector.workers splits its games across processes)")
        if self.engine == "jax" and not vector:
            fail(
                "engine",
                "jax",
                "'sb3' without a vector section (engine: jax plays vector.num_envs games on the device)",
            )
        if "ppo" in given:
            rollout = self.rollout_steps
            across = "vector.num_envs" if vector else "n_envs"
            if self.ppo.get("batch_size", 64) > rollout:
                fail(
                    "ppo.batch_size",
                    self.ppo.get("batch_size", 64),
                    f"at most n_steps x {across} = {rollout} (one rollout)",
                )
        if self.init_from is not None and self.pretrain.teacher is not None:
            raise ValueError(
                f"init_from={short(self.init_from)} and pretrain.teacher={short(self.pretrain.teacher)}: a run "
                "starts from an agent file or from behaviour cloning, not both (drop one of the two)"
            )
        if self.finetune.critic_fit and not vector:
            fail(
                "finetune.critic_fit",
                self.finetune.critic_fit,
                "0 without a vector section (the start policy plays on the batched engine)",
            )
        if self.duplicate is not None and not vector:
            fail("duplicate", self.duplicate, "a reference player with a vector section (the batched engine only)")
        if self.critic_state and not vector:
            fail(
                "critic_state", self.critic_state, "false without a vector section (the batched engine gives the state)"
            )
        if self.critic_state and self.pretrain.teacher is not None:
            raise ValueError(
                "critic_state: true and pretrain.teacher: clone in a run of its own, then start this one from "
                "it with init_from"
            )
        if self.population is not None:
            if not vector:
                fail(
                    "population",
                    self.population.model_dump(),
                    "a population with a vector section (the batched engine only)",
                )
            if "opponents" in given:
                raise ValueError(
                    f"opponents={short(self.opponents)} and population both given: the population's members are "
                    "the opponents (give one of them)"
                )
        return self

    # ------------------------------------------------------------------ what the trainers read
    @property
    def rollout_steps(self) -> int:
        """The learner steps of one rollout (``ppo.n_steps`` per game slot): the unit a budget is
        spent in, so a run ends at the first whole rollout at or past ``total_timesteps``."""
        slots = self.vector.num_envs if self.vector is not None else self.n_envs
        return int(self.ppo.get("n_steps", 2048)) * slots

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
        """The resolved config, as ``config.yaml`` and the run's marker record it."""
        out = super().to_dict()
        if self.population is not None:
            del out["opponents"]  # the population's members are the opponents
        return out


# ---------------------------------------------------------------------------------------------- reading a config
def game_counts(game: Any) -> tuple[int, ...]:
    """The player counts of a config's game section, the section checked first (its errors name it)."""
    return player_counts(game_section(game, counts=True).get("num_players", GameConfig.num_players))


def parse_config(data: Any) -> TrainConfig:
    """Validate a mapping (e.g. loaded YAML) into a TrainConfig: the schema, what the config's engine
    trains (:mod:`training.config.engines`) and the sizes it would allocate."""
    counts = game_counts(data.get("game", {})) if isinstance(data, dict) else None
    config = validate(TrainConfig, data, context={"counts": counts})
    engines.check(config)
    check_sizes(config)
    return config


def load_config(path: str | Path) -> TrainConfig:
    """Load and validate a training config file (ValueError naming the file and the key)."""
    return load(path, parse_config)
