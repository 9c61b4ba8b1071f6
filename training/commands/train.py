"""Train a MaskablePPO agent for Checkpoint Charlie against scripted, checkpoint or self-play opponents.

    ckc-train quick                                   # a preset (configs/train/quick.yaml): runs/quick_seed0 (or _2, ...)
    ckc-train full --run-dir checkpoints/full_5p      # or a YAML file of one's own
    ckc-train --resume checkpoints/full_5p            # continue to total_timesteps

(``ckc-train`` is ``python -m ckc_env.training.train``.)

The script reads top to bottom: config -> seed -> environments -> model -> callbacks -> learn ->
save. A config with ``engine: jax`` is trained by training/jax_ppo.py instead (PPO compiled whole in
JAX on the device JAX picks, ``configs/train/scratch_jax.yaml``), into the same run folder and agent
files. A config with a ``vector`` section trains on the batched engine (``ckc_env.envs.vector``: thousands
of games stepped at once, in this process or split across ``vector.workers`` processes,
``configs/train/full_vector.yaml``); without it, on
``n_envs`` scalar single-agent environments. A run folder holds everything needed to reproduce and use the run: ``config.yaml`` (the
resolved config), ``command.txt``, the best model (best win rate against the first evaluation
table) and the final one, each as a safe agent file to play (``best_model.json`` +
``best_model.safetensors``, see ``ckc_env.players.agent_file``) beside stable-baselines3's zip to resume
from (``best_model.zip``), ``evaluations.json`` (the evaluation history, training/evaluations.py: every evaluation plays the
same deals with the learner in the same seats, so each entry's ``vs_start`` and ``vs_best`` are its paired
differences from the run's first model (the initial or cloned policy) and from the best model so
far, with the interval of duplicate play; ``start_games.json`` and ``best_games.json`` hold those
models' per-game results; with ``eval.held_out``, each entry's ``held_out`` is the first table on
deals the pick never sees, paired with the start's there, ``start_held_out.json``), ``tensorboard/`` (SB3's
``rollout/``, ``train/`` and ``time/`` tags, and ``eval/`` for the evaluations) and, with
self-play, ``snapshots/`` (safe files only).

The folder is created with its marker ``run.json`` once every input is checked, and every file is
written whole or not at all; ``--force`` and ``--resume`` act on run folders only, and never lose a
model (training/run_folder.py).

Trust: opponents, evaluation tables and a pretraining teacher named by a stable-baselines3 zip
load only with ``--trust-checkpoint`` (or ``CKC_TRUST_CHECKPOINTS=1``). ``--resume`` needs no
trust: it never unpickles the run's zip (see :func:`restore`).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

from ckc_env import cli, configs, players
from ckc_env.files import InputError, short, write_atomic
from ckc_env.players import specs
from ckc_env.players.agent_file import save_sb3
from ckc_env.players.loading import locate
from ckc_env.seeding import derive_seed
from ckc_env.table.options import is_per_count

from . import run_folder
from .config import TrainConfig, load_config, specs_named
from .evaluations import Clock, build_callback, evaluation_record, first_table, load_history
from .limits import MAX_TIMESTEPS
from .run_folder import record_run, trained_counts, training_record

TRAINER = "ckc-train"
"""The trainer a run folder's marker names (``ckc-rllib-train`` has its own runs)."""


def check_players(config: TrainConfig, trust_checkpoint: bool) -> None:
    """Every player the config names, checked before anything runs (a zip only with trust); on the
    vector path the opponents and the teacher must have a batched form."""
    named = [
        *(("opponents", s) for s in specs_named(config.opponents)),
        *(
            (f"population.members[{k}]", s)
            for k, member in enumerate(config.population.members if config.population is not None else [])
            if member != specs.SELF
            for s in specs_named(member)
        ),
        *((f"eval.opponents.{name}", s) for name, table in config.eval.opponents.items() for s in specs_named(table)),
        *([("eval.reference", config.eval.reference)] if config.eval.reference is not None else []),
    ]
    if config.pretrain.teacher is not None:
        named.extend(("pretrain.teacher", s) for s in specs_named(config.pretrain.teacher))
    for key, spec in named:
        try:
            players.validate(spec, allow_self=True, trust_checkpoint=trust_checkpoint)
        except ValueError as exc:
            raise ValueError(f"{key}: {exc}") from None
    if config.init_from is not None:
        from .finetune import check_init_from

        check_init_from(config.init_from, config)
    if config.engine == "jax":  # every player of the run plays on the JAX engine
        from ckc_env.jax.tournament import jax_form

        for key, spec in named:
            if key != "pretrain.teacher" and specs.parse(spec, allow_self=True).kind != "self":
                try:
                    jax_form(spec, trust_checkpoint)
                except ValueError as exc:
                    raise ValueError(f"{key}: {exc} (engine: jax plays players with a JAX form only)") from None
        return
    if config.vector is not None:
        teacher = config.pretrain.teacher
        if teacher is not None and is_per_count(teacher):
            raise ValueError(
                f"pretrain.teacher={short(teacher)}: vector training takes one teacher for every player count "
                "(a teacher per count is for the scalar path, without the vector section)"
            )
        for key, spec in [
            *(("opponents", s) for s in specs_named(config.opponents)),
            *(("population.members", s) for s in config.population_specs),
            ("pretrain.teacher", teacher),
        ]:
            if spec is None:
                continue
            try:
                players.build_batched(spec, seed=0, trust_checkpoint=trust_checkpoint)
            except ValueError as exc:
                raise ValueError(f"{key}: {exc} (vector training plays batched players only)") from None


def check_snapshots(folder: Path, config: TrainConfig, trust_checkpoint: bool = False) -> None:
    """A resumed self-play run's frozen selves: each ``snapshot_*.json`` must be a safe agent file
    (by the loading rule, links resolved; never a zip, whatever the trust) that loads as it will play."""
    if not config.uses_self_play or not folder.is_dir():
        return
    from ckc_env.players.policy import check_checkpoint

    for path in sorted(folder.glob("snapshot_*.json")):
        source = locate(path)
        if source.kind != "card":
            raise InputError(f"self-play snapshot {path} is not a safe agent file")
        check_checkpoint(source)


def make_env_fn(config: TrainConfig, rank: int, snapshot_dir: Path | None, trust_checkpoint: bool = False):
    """A thunk building one single-agent environment (for SB3's vectorised environments)."""

    def build():
        from ckc_env.envs.single_agent import CheckpointCharlieSingleAgent

        from .self_play import SnapshotOpponents

        opponents = config.opponents
        if config.uses_self_play and len(config.player_counts) == 1:  # seeded as before several counts existed
            opponents = SnapshotOpponents.specs(
                config.opponents, snapshot_dir, seed=derive_seed(config.seed, "self_play", rank)
            )
        elif config.uses_self_play:
            opponents = {
                n: SnapshotOpponents.specs(
                    config.opponents_at(n), snapshot_dir, seed=derive_seed(config.seed, "self_play", rank, n)
                )
                for n in config.player_counts
            }
        env = CheckpointCharlieSingleAgent(
            opponents=opponents,
            learner_seat=config.learner_seat,
            belief_features=config.belief_features,
            reward=config.reward,
            trust_checkpoint=trust_checkpoint,
            **config.game,
        )
        env.reset(seed=derive_seed(config.seed, "env", rank))
        from stable_baselines3.common.monitor import Monitor

        return Monitor(env)

    return build


def build_model(config: TrainConfig, vec_env, tensorboard_log: str | None = None):
    """A fresh MaskablePPO model with the config's policy and PPO arguments (CPU); with a
    ``finetune`` section, its subclass with the fine-tuning remedies (training/finetune.py); with
    ``critic_state``, the asymmetric actor-critic (training/state_critic.py)."""
    import torch
    from sb3_contrib import MaskablePPO

    model_class = MaskablePPO
    if config.finetune.active:
        from .finetune import fine_tuned_ppo

        model_class = fine_tuned_ppo()

    policy_kwargs: dict[str, Any] = dict(config.policy)
    if "activation_fn" in policy_kwargs:
        policy_kwargs["activation_fn"] = {"tanh": torch.nn.Tanh, "relu": torch.nn.ReLU}[policy_kwargs["activation_fn"]]
    policy: Any = "MlpPolicy"
    if config.critic_state:  # the critic reads the hidden state too (training/state_critic.py)
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


RESUME_MEMBERS = {"policy.pth": 1 << 30, "policy.optimizer.pth": 2 << 30}
"""The weights' members of a run's zip that ``--resume`` reads, with the most each may unpack to
(its ``data`` member: :func:`run_folder.zip_counters`)."""


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
    """Behaviour cloning from ``pretrain.teacher`` (training/imitation.py); log in pretrain.json."""
    from .imitation import collect, pretrain

    settings = config.pretrain
    started = time.time()
    seed = derive_seed(config.seed, "pretrain")
    if config.vector is not None:  # the teacher plays every slot of a batch at once
        from .vec_env import collect_batched, make_vector_env

        env = make_vector_env(config, trust_checkpoint, in_process=True)  # the teacher reads env.state
        data = collect_batched(env, settings.teacher, settings.decisions, model.gamma, seed, trust_checkpoint)
    else:
        env = make_env_fn(config, 0, run_dir / "snapshots", trust_checkpoint)().unwrapped
        teachers = {n: config.teacher_at(n) for n in config.player_counts}
        data = collect(env, teachers, settings.decisions, model.gamma, seed, trust_checkpoint)
    collected = round(time.time() - started, 1)
    print(f"pretrain: {len(data)} decisions of {settings.teacher} recorded in {collected} s", flush=True)
    log = pretrain(model, data, settings.epochs, settings.batch_size, config.seed, settings.learning_rate)
    log = {"teacher": settings.teacher, "collect_seconds": collected, **log}
    write_atomic(run_dir / "pretrain.json", json.dumps(log, indent=2))


def save_model(model, prefix: Path, config: TrainConfig, evaluation: dict[str, Any] | None = None) -> Path:
    """SB3's ``prefix.zip`` (to resume from) and the safe agent file beside it (to play); returns the card."""
    save_zip(model, prefix.with_name(prefix.name + ".zip"))
    return save_sb3(model, prefix, trained_counts(config), training_record(config), evaluation)


def save_zip(model, path: Path) -> None:
    """stable-baselines3's zip of the model (to resume from), written whole or not at all."""
    import io

    buffer = io.BytesIO()
    model.save(buffer)
    write_atomic(path, buffer.getvalue())


def main(argv: list[str] | None = None) -> Path:
    parser = argparse.ArgumentParser(
        prog="ckc-train", description=cli.plain(__doc__), formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "config", nargs="?", help=f"a training preset ({', '.join(configs.names('train'))}) or a YAML file"
    )
    parser.add_argument(
        "--run-dir",
        default=None,
        help="run folder, refused if it holds a run (default: runs/<config name>_seed<seed>, or the next free "
        "name: ..._2, ..._3)",
    )
    parser.add_argument("--resume", default=None, help="a run folder to continue up to its total_timesteps")
    parser.add_argument("--force", action="store_true", help="replace the run an existing --run-dir holds")
    parser.add_argument(
        "--total-timesteps",
        type=cli.integer(1, MAX_TIMESTEPS),
        default=None,
        help="override the config's total_timesteps",
    )
    parser.add_argument("--no-progress", action="store_true")
    parser.add_argument(
        "--trust-checkpoint",
        action="store_true",
        help="let stable-baselines3 .zip opponents, evaluation players or teachers load (loading a zip unpickles it)",
    )
    args = parser.parse_args(argv)
    if bool(args.config) == bool(args.resume):
        parser.error("give a config file, or --resume RUN_DIR")
    if args.resume and (args.force or args.run_dir):
        parser.error("--resume continues the run folder it names: --force and --run-dir start a new run")

    # --- config and run folder
    lock = None
    try:
        resume_from = None
        if args.resume:  # a run folder of ckc-train's, its lock, its config as created, a model to continue
            run_dir = Path(args.resume)
            lock = run_folder.hold(run_dir)
            marker = run_folder.open_run(run_dir, TRAINER)
            config = load_config(run_dir / "config.yaml")
            need_extras(config)
            run_folder.check_config(run_dir, marker, config.to_dict(), TrainConfig().to_dict())
            history = load_history(run_dir, config)
            if config.engine == "jax":
                resume_from = jax_resume_point(run_dir, history, config)
            else:
                resume_from, _ = run_folder.resume_point(run_dir, history)
            check_snapshots(run_dir / "snapshots", config, args.trust_checkpoint)
            if config.population is not None:
                from .population import read_record

                read_record(run_dir / "population.json")
            plan = None
        else:
            config = load_config(configs.preset("train", args.config))
            need_extras(config)
            default = f"runs/{Path(args.config).stem}_seed{config.seed}"
            plan = run_folder.plan_new(args.run_dir, default, args.force, TRAINER)
            run_dir = plan.path
            history = []
        if args.total_timesteps is not None:
            config = replace(config, total_timesteps=args.total_timesteps)
        check_players(config, args.trust_checkpoint)
    except ValueError as exc:
        if lock is not None:
            lock.release()
        cli.fail(parser, exc)
    # Every input is checked: only now does the disk change (a replaced run is moved aside until the
    # new one has evaluated its first model, and comes back if it fails before).
    try:
        if plan is not None:
            plan.begin(config.to_dict(), TrainConfig().to_dict(), TRAINER)
        return train(config, run_dir, args, history, resume_from, plan)
    except BaseException as exc:
        undone = plan is not None and plan.abandon()  # before the run started: no trace of it
        if isinstance(exc, InputError):  # a player file changed or refused while the run went on
            cli.fail(parser, f"{exc} ({run_dir} is as it was before this command)" if undone else exc)
        if undone:
            cli.say(f"ckc-train: the run did not start; {run_dir} is as it was before this command", file=sys.stderr)
        raise
    finally:  # the folder's lock let go, however the command ends
        for held in (lock, plan):
            if held is not None:
                held.release()


def need_extras(config: TrainConfig) -> None:
    """The extra a config's trainer needs (a ValueError naming it): ``train`` (torch, stable-baselines3)
    or, with ``engine: jax``, ``jax`` (jax, optax)."""
    if config.engine == "jax":
        cli.need_extra("jax", "jax", "optax")
    else:
        cli.need_extra("train", "torch", "stable_baselines3", "sb3_contrib")


def jax_resume_point(run_dir: Path, history: list[dict[str, Any]], config: TrainConfig) -> Path:
    """The train state a JAX run continues (``train_state.safetensors``), checked whole against the
    run's config (names, dtypes, shapes, finite values, the key) before anything is compiled;
    refused where it is missing, does not fit, or is older than the run's last evaluation."""
    from .jax_ppo import STATE_FILE, check_state

    path = run_dir / STATE_FILE
    if not os.path.lexists(path):
        raise InputError(
            f"--resume {run_dir}: no {STATE_FILE} to resume; to continue from the exported agent, start a new run "
            f"with init_from: {run_dir}/final_model.json"
        )
    at = check_state(path, config)
    if history and history[-1]["timesteps"] > at:
        raise InputError(
            f"--resume {run_dir}: {STATE_FILE} is at step {at:,}, its evaluations.json goes to step "
            f"{history[-1]['timesteps']:,}. Start a new run with init_from: {run_dir}/final_model.json"
        )
    return path


def train(
    config: TrainConfig,
    run_dir: Path,
    args: argparse.Namespace,
    history: list[dict[str, Any]],
    resume_from: Path | None = None,
    plan: run_folder.NewRun | None = None,
) -> Path:
    """The run itself, its inputs checked: seed, environments, model, learning, the saved models.
    ``resume_from``: the zip a resumed run continues; ``plan``: a new run's folder, told when the
    run has started (its first model evaluated)."""
    if config.engine == "jax":  # PPO compiled whole on the device (training/jax_ppo.py)
        from . import jax_ppo

        return jax_ppo.train(config, run_dir, args, history, resume_from, plan)
    if resume_from is None:  # a new run: its folder holds nothing else yet
        record_run(config, run_dir)

    # --- seeding, environments
    import torch
    from stable_baselines3.common.utils import set_random_seed
    from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv

    set_random_seed(config.seed)
    torch.set_num_threads(1 if config.vector is None else config.vector.threads)
    snapshot_dir = run_dir / "snapshots"
    league = None
    if config.vector is not None:  # the batched engine: num_envs games (in vector.workers processes)
        from stable_baselines3.common.vec_env import VecMonitor

        from .vec_env import SB3VecEnv, make_vector_env

        if config.population is not None:  # self-play against a population (training/population.py)
            from .population import League

            league = League(config, run_dir)
        vec_env = VecMonitor(SB3VecEnv(make_vector_env(config, args.trust_checkpoint, league=league)))
    else:
        thunks = [make_env_fn(config, rank, snapshot_dir, args.trust_checkpoint) for rank in range(config.n_envs)]
        vec_env = SubprocVecEnv(thunks) if config.n_envs > 1 else DummyVecEnv(thunks)

    # --- model
    model = build_model(config, vec_env, tensorboard_log=str(run_dir / "tensorboard"))
    if resume_from is not None:  # the zip saved at the most steps (run_folder.resume_point)
        try:
            restore(model, resume_from)
        except ValueError as exc:
            vec_env.close()
            raise InputError(str(exc)) from None

    # --- callbacks: evaluations and the best model (training/evaluations.py), self-play snapshots
    clock = Clock(history[-1].get("elapsed_seconds", 0.0) if history else 0.0)
    callback = build_callback(config, run_dir, history, clock, save_model, args.trust_checkpoint, league)
    callback.init_callback(model)

    # --- learn (after behaviour cloning, for a fresh run with a teacher; the start evaluated first)
    if model.num_timesteps == 0 and not history:  # the start of the curve: the initial or cloned policy
        if config.pretrain.teacher is not None:
            run_pretraining(model, config, run_dir, args.trust_checkpoint)
        elif config.init_from is not None:  # fine-tuning an agent file: its policy and critic
            from .finetune import init_from

            try:
                card = init_from(model, config.init_from, config)
            except (ValueError, OSError) as exc:
                vec_env.close()
                raise InputError(str(exc)) from None
            cli.say(f"init_from: the policy and critic of {card}", flush=True)
        callback.num_timesteps = 0
        callback.run_evaluation()
        if plan is not None:  # the new run has started: a run it replaces goes
            plan.started()
        if config.finetune.critic_fit:  # the critic regressed on the start policy's own returns
            from .finetune import fit_critic

            log = fit_critic(model, config, run_dir / "best_model.json", args.trust_checkpoint)
            write_atomic(run_dir / "critic_fit.json", json.dumps(log, indent=2))
        if config.finetune.active:
            from .finetune import keep_start

            keep_start(model, run_dir)
    elif config.finetune.active:
        from .finetune import load_start

        try:
            load_start(model, run_dir)
        except ValueError as exc:
            vec_env.close()
            raise InputError(str(exc)) from None
    if resume_from is not None:  # the zip and the start policy read: only now does the resumed run change a byte
        run_folder.sweep(run_dir)  # what a save killed mid-write left
        record_run(config, run_dir)
    remaining = config.total_timesteps - model.num_timesteps
    if remaining > 0:
        model.learn(
            total_timesteps=remaining,
            callback=callback,
            progress_bar=not args.no_progress and sys.stderr.isatty(),  # else the evaluation lines say it
            reset_num_timesteps=False,
            tb_log_name="run",
        )

    # --- save: the final model (evaluated, unless the last evaluation was of it) and the summary
    save_zip(model, run_dir / "final_model.zip")
    if not history or history[-1]["timesteps"] < model.num_timesteps:
        callback.num_timesteps = model.num_timesteps
        callback.run_evaluation()
    final = evaluation_record(config, history, model.num_timesteps)
    save_sb3(model, run_dir / "final_model", trained_counts(config), training_record(config), final)
    summary = {
        "timesteps": model.num_timesteps,
        "wall_clock_seconds": clock.elapsed(),
        "best": max(history, key=lambda h: h["results"][first_table(config)]["win_rate"]),
    }
    write_atomic(run_dir / "summary.json", json.dumps(summary, indent=2))
    vec_env.close()
    print(json.dumps(history[-1]["results"], indent=2))
    cli.say(f"run folder: {run_dir}")
    return run_dir


def command() -> None:
    """The ``ckc-train`` command (``main`` returns the run folder, which a console script would
    take for an error status)."""
    main()


if __name__ == "__main__":
    command()
