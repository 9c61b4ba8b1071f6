"""``engine: sb3``: stable-baselines3 / sb3-contrib's MaskablePPO on the CPU.

The learner steps ``n_envs`` scalar single-agent environments (in processes of their own when
more than one), or with a ``vector`` section the batched engine (:mod:`.vec_env`: thousands of
games at once, in this process or split across ``vector.workers`` processes). Its model is
MaskablePPO with MlpPolicy, with the fine-tuning remedies (``finetune``,
:mod:`training.imitation.finetune`) or the asymmetric critic (``critic_state``, :mod:`.state_critic`)
where the config asks for them; a new run may first clone a teacher (``pretrain``,
:mod:`training.imitation.cloning`) or start from an agent file (``init_from``). Evaluations,
self-play snapshots and the population's refreshes run from a stable-baselines3 callback at the
steps they are due.

Each model is saved twice: stable-baselines3's zip (``best_model.zip``: what ``--resume``
continues from) and the safe agent file beside it (``best_model.json`` + ``.safetensors``: what
plays). ``--resume`` never unpickles the zip: :func:`restore` reads its weights with
``torch.load(weights_only=True)`` and rebuilds the rest from the run's config.
"""

from __future__ import annotations

import io
import json
import time
from pathlib import Path
from typing import Any

from ckc_env import cli
from ckc_env.files import InputError, write_atomic
from ckc_env.players.agent_file import save_sb3
from ckc_env.players.loading import locate
from ckc_env.seeding import derive_seed

from ...config import TrainConfig
from ...run import folder as run_folder
from ..base import Run, Trainer

RESUME_MEMBERS = {"policy.pth": 1 << 30, "policy.optimizer.pth": 2 << 30}
"""The weights' members of a run's zip that ``--resume`` reads, with the most each may unpack to
(its ``data`` member: :func:`training.run.folder.zip_counters`)."""


class SB3Trainer(Trainer):
    """MaskablePPO learning on the config's environments, with stable-baselines3's callback driving
    the run's evaluations, snapshots and population."""

    engine = "sb3"

    def start(self, resume_from: Path | None) -> None:
        import torch
        from stable_baselines3.common.utils import set_random_seed

        config = self.config
        set_random_seed(config.seed)
        torch.set_num_threads(1 if config.vector is None else config.vector.threads)
        self.league = None
        if config.vector is not None:  # the batched engine: num_envs games (in vector.workers processes)
            from stable_baselines3.common.vec_env import VecMonitor

            from ...envs import make_vector_env
            from .vec_env import SB3VecEnv

            if config.population is not None:  # self-play against a population (training/league/population.py)
                from ...league.population import League

                self.league = League(config, self.run_dir)
            self.vec_env = VecMonitor(SB3VecEnv(make_vector_env(config, self.trust_checkpoint, league=self.league)))
        else:
            from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv

            thunks = [
                single_env(config, rank, self.run_dir / "snapshots", self.trust_checkpoint)
                for rank in range(config.n_envs)
            ]
            self.vec_env = SubprocVecEnv(thunks) if config.n_envs > 1 else DummyVecEnv(thunks)
        self.model = build_model(config, self.vec_env, tensorboard_log=str(self.run_dir / "tensorboard"))
        if resume_from is not None:  # the zip saved at the most steps (run_folder.resume_point)
            try:
                restore(self.model, resume_from)
            except ValueError as exc:
                raise InputError(str(exc)) from None
        self.callback = Callback(self)
        self.callback.init_callback(self.model)

    @property
    def timesteps(self) -> int:  # the model keeps the count
        return self.model.num_timesteps

    def begin(self) -> None:
        config = self.config
        if config.pretrain.teacher is not None:
            run_pretraining(self.model, config, self.run_dir, self.trust_checkpoint)
        elif config.init_from is not None:  # fine-tuning an agent file: its policy and critic
            from ...imitation.finetune import init_from

            try:
                card = init_from(self.model, config.init_from, config)
            except (ValueError, OSError) as exc:
                raise InputError(str(exc)) from None
            cli.say(f"init_from: the policy and critic of {card}", flush=True)

    def started(self) -> None:
        config = self.config
        if config.finetune.critic_fit:  # the critic regressed on the start policy's own returns
            from ...imitation.finetune import fit_critic

            log = fit_critic(self.model, config, self.run_dir / "best_model.json", self.trust_checkpoint)
            write_atomic(self.run_dir / "critic_fit.json", json.dumps(log, indent=2))
        if config.finetune.active:
            from ...imitation.finetune import keep_start

            keep_start(self.model, self.run_dir)

    def resumed(self) -> None:
        if self.config.finetune.active:
            from ...imitation.finetune import load_start

            try:
                load_start(self.model, self.run_dir)
            except ValueError as exc:
                raise InputError(str(exc)) from None

    def learn(self, run: Run) -> None:
        import sys

        self.callback.run = run
        remaining = self.config.total_timesteps - self.model.num_timesteps
        if remaining > 0:
            self.model.learn(
                total_timesteps=remaining,
                callback=self.callback,
                progress_bar=self.progress and sys.stderr.isatty(),  # else the evaluation lines say it
                reset_num_timesteps=False,
                tb_log_name="run",
            )

    def save(self, prefix: Path, evaluation: dict[str, Any] | None = None, resumable: bool = True) -> Path:
        """SB3's ``prefix.zip`` (to resume from, with ``resumable``) and the safe agent file beside it."""
        if resumable:
            save_zip(self.model, prefix.with_name(prefix.name + ".zip"))
        return save_sb3(
            self.model,
            prefix,
            run_folder.trained_counts(self.config),
            run_folder.training_record(self.config),
            evaluation,
        )

    def save_state(self) -> None:
        save_zip(self.model, self.run_dir / "final_model.zip")

    def record(self, tag: str, value: float) -> None:
        if hasattr(self.model, "_logger"):  # SB3's logger exists once learn() began
            self.model.logger.record(tag, value)

    def close(self) -> None:
        vec_env = getattr(self, "vec_env", None)
        if vec_env is not None:
            vec_env.close()
            self.vec_env = None


def Callback(trainer: SB3Trainer):  # noqa: N802 (a class built lazily: stable-baselines3 is the train extra)
    """The run's stable-baselines3 callback: every ``eval.every`` steps an evaluation (at the first
    rollout's start past it); with
    self-play, every ``self_play.snapshot_every`` steps a snapshot for the opponents; with a
    population, its refreshes."""
    from stable_baselines3.common.callbacks import BaseCallback

    config, run_dir = trainer.config, trainer.run_dir

    class EvalAndSnapshot(BaseCallback):
        run: Run

        def __init__(self) -> None:
            super().__init__()
            self.next_eval = config.eval.every
            self.next_snapshot = config.self_play.snapshot_every

        def _on_training_start(self) -> None:
            history = self.run.history
            self.next_eval = (history[-1]["timesteps"] if history else 0) + config.eval.every
            every = config.self_play.snapshot_every  # a resumed run goes on from the step it was saved at
            self.next_snapshot = (self.model.num_timesteps // every + 1) * every

        def _on_step(self) -> bool:
            steps = self.num_timesteps
            if config.uses_self_play and steps >= self.next_snapshot:
                self.next_snapshot = (steps // config.self_play.snapshot_every + 1) * config.self_play.snapshot_every
                from ...league.self_play import save_snapshot

                players = list(config.player_counts)
                save_snapshot(self.model, run_dir / "snapshots", steps, config.self_play.keep, players)
            if trainer.league is not None:  # population self-play: win rates, weights, new snapshots
                trainer.league.on_step(self)
            return True

        def _on_rollout_start(self) -> None:
            """Evaluations fall between rollouts, after the update of the one before: the model
            evaluated at step T has learned from every step up to T (the JAX trainer's order too)."""
            if self.num_timesteps >= self.next_eval:
                self.next_eval = (self.num_timesteps // config.eval.every + 1) * config.eval.every
                self.run.evaluate()

    return EvalAndSnapshot()


def single_env(config: TrainConfig, rank: int, snapshot_dir: Path | None, trust_checkpoint: bool = False):
    """A thunk building one scalar environment of the config, monitored (for SB3's vector envs)."""

    def build():
        from stable_baselines3.common.monitor import Monitor

        from ...envs import make_single_env

        return Monitor(make_single_env(config, rank, snapshot_dir, trust_checkpoint))

    return build


def build_model(config: TrainConfig, vec_env, tensorboard_log: str | None = None):
    """A fresh MaskablePPO model with the config's policy and PPO arguments (CPU); with a
    ``finetune`` section, its subclass with the fine-tuning remedies; with ``critic_state``, the
    asymmetric actor-critic (:mod:`.state_critic`)."""
    import torch
    from sb3_contrib import MaskablePPO

    model_class = MaskablePPO
    if config.finetune.active:
        from ...imitation.finetune import fine_tuned_ppo

        model_class = fine_tuned_ppo()

    policy_kwargs: dict[str, Any] = dict(config.policy)
    if "activation_fn" in policy_kwargs:
        policy_kwargs["activation_fn"] = {"tanh": torch.nn.Tanh, "relu": torch.nn.ReLU}[policy_kwargs["activation_fn"]]
    policy: Any = "MlpPolicy"
    if config.critic_state:  # the critic reads the hidden state too
        from ckc_env.observation import ENV_VERSION, LAYOUTS

        from .state_critic import state_critic_policy, with_state_critic

        policy = state_critic_policy()
        policy_kwargs["actor_inputs"] = LAYOUTS[ENV_VERSION][config.belief_features].size
        model_class = with_state_critic(model_class)
    model = model_class(
        policy,
        vec_env,
        seed=config.seed,
        device="cpu",
        verbose=0,
        tensorboard_log=tensorboard_log,
        policy_kwargs=policy_kwargs,
        **config.ppo,
    )
    if config.finetune.active:
        model.finetune = config.finetune
    return model


def restore(model, path: Path) -> None:
    """Continue a run from its own zip without unpickling anything: the model was built from the
    run's config.yaml; the weights and the optimizer's state come from the zip's ``.pth`` members
    through ``torch.load(weights_only=True)`` (tensors and plain containers only), the step and
    update counters from the plain JSON fields of its ``data`` member. Its cloudpickle fields
    (spaces, schedules, buffers) are never decoded: the config rebuilds them. SB3's
    ``MaskablePPO.load`` would unpickle them, so a planted zip could run code on ``--resume``."""
    import zipfile

    import torch

    source = locate(path)  # a regular zip archive, links resolved (no trust: nothing here is unpickled)
    if source.kind != "zip":
        raise InputError(f"cannot resume from {path}: it is not a stable-baselines3 zip")
    counters = run_folder.zip_counters(source.path)
    try:
        with zipfile.ZipFile(source.path) as archive:
            for name, limit in RESUME_MEMBERS.items():
                size = archive.getinfo(name).file_size
                if size > limit:
                    raise InputError(f"its member {name} unpacks to {size:,} bytes, more than the {limit:,} accepted")
            states = {}
            for name in ("policy", "policy.optimizer"):
                with archive.open(f"{name}.pth") as handle:
                    states[name] = torch.load(handle, map_location="cpu", weights_only=True)
    except Exception as exc:  # a broken or hostile file: say which, never a deep traceback
        raise ValueError(f"cannot resume from {path}: {type(exc).__name__}: {exc}") from None
    try:
        model.policy.load_state_dict(states["policy"])
        model.policy.optimizer.load_state_dict(states["policy.optimizer"])
    except (RuntimeError, ValueError, KeyError, TypeError) as exc:
        raise ValueError(f"cannot resume from {path}: its weights do not fit the run's config: {exc}") from None
    for key, value in counters.items():
        setattr(model, key, value)


def run_pretraining(model, config: TrainConfig, run_dir: Path, trust_checkpoint: bool = False) -> None:
    """Behaviour cloning from ``pretrain.teacher`` (:mod:`training.imitation.cloning`); log in pretrain.json."""
    from ...envs import make_single_env, make_vector_env
    from ...imitation.cloning import collect, collect_batched, pretrain

    settings = config.pretrain
    started = time.time()
    seed = derive_seed(config.seed, "pretrain")
    if config.vector is not None:  # the teacher plays every slot of a batch at once
        env = make_vector_env(config, trust_checkpoint, in_process=True)  # the teacher reads env.state
        data = collect_batched(env, settings.teacher, settings.decisions, model.gamma, seed, trust_checkpoint)
    else:
        env = make_single_env(config, 0, run_dir / "snapshots", trust_checkpoint)
        teachers = {n: config.teacher_at(n) for n in config.player_counts}
        data = collect(env, teachers, settings.decisions, model.gamma, seed, trust_checkpoint)
    collected = round(time.time() - started, 1)
    print(f"pretrain: {len(data)} decisions of {settings.teacher} recorded in {collected} s", flush=True)
    log = pretrain(model, data, settings.epochs, settings.batch_size, config.seed, settings.learning_rate)
    log = {"teacher": settings.teacher, "collect_seconds": collected, **log}
    write_atomic(run_dir / "pretrain.json", json.dumps(log, indent=2))


def save_model(
    model, prefix: Path, config: TrainConfig, evaluation: dict[str, Any] | None = None, resumable: bool = True
) -> Path:
    """SB3's ``prefix.zip`` (to resume from, with ``resumable``) and the safe agent file beside it
    (to play); the card's path."""
    if resumable:
        save_zip(model, prefix.with_name(prefix.name + ".zip"))
    return save_sb3(model, prefix, run_folder.trained_counts(config), run_folder.training_record(config), evaluation)


def save_zip(model, path: Path) -> None:
    """stable-baselines3's zip of the model (to resume from), written whole or not at all."""
    buffer = io.BytesIO()
    model.save(buffer)
    write_atomic(path, buffer.getvalue())
