"""Train a PPO agent for Checkpoint Charlie against scripted, agent-file or self-play opponents: ``ckc-train``.

    ckc-train quick                                   # a preset (configs/train/quick.yaml): runs/quick_seed0 (or _2, ...)
    ckc-train full --run-dir checkpoints/full_5p      # or a YAML file of one's own
    ckc-train --resume checkpoints/full_5p            # continue to total_timesteps

(``ckc-train`` is ``python -m ckc_env.training.commands.train``.)

The command reads top to bottom: the config (``training/config/``, every key in docs/config.md) and
the players it names are checked, the run folder is planned (``training/run/``), then the config's
trainer runs (``training/trainers/``): ``engine: sb3`` (the default) is stable-baselines3's
MaskablePPO on the CPU, on ``n_envs`` scalar environments or, with a ``vector`` section, on the
batched engine (thousands of games stepped at once, ``configs/train/full_vector.yaml``); ``engine:
jax`` is PPO compiled whole on the device JAX picks (``configs/train/scratch_jax.yaml``). Both go
through the same run (``training/trainers/base.py``) into the same run folder: ``config.yaml`` (the
resolved config), ``command.txt``, the best model (best win rate against the first evaluation table)
and the final one, each as a safe agent file to play (``best_model.json`` + ``best_model.safetensors``,
see ``ckc_env.players.agent_file``) beside what resumes it (stable-baselines3's ``best_model.zip``, or
the JAX ``train_state.safetensors``), ``evaluations.json`` (``training/evaluation/``: every evaluation
plays the same deals with the learner in the same seats, so each entry's ``vs_start`` and ``vs_best``
are its paired differences from the run's first model and from the best model so far; with
``eval.held_out``, each entry's ``held_out`` is the first table on deals the pick never sees),
``tensorboard/`` and, with self-play, ``snapshots/`` (safe files only).

The folder is created with its marker ``run.json`` once every input is checked, held by this
command alone (its ``run.lock``), and every file is written whole or not at all; ``--force`` and
``--resume`` act on run folders only, and never lose a model (``training/run/folder.py``).

Trust: opponents, evaluation tables and a pretraining teacher named by a stable-baselines3 zip
load only with ``--trust-checkpoint`` (or ``CKC_TRUST_CHECKPOINTS=1``). ``--resume`` needs no
trust: it never unpickles the run's zip (``training.trainers.sb3.trainer.restore``).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ckc_env import cli, configs
from ckc_env.files import InputError

from ..config import TrainConfig, load_config
from ..config.limits import MAX_TIMESTEPS
from ..evaluation import load_history
from ..run import folder as run_folder
from .checks import check_players, check_snapshots, jax_resume_point, need_extras

TRAINER = "ckc-train"
"""The trainer a run folder's marker names (``ckc-rllib-train`` has its own runs)."""


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
                from ..league.population import read_record

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
            config = config.replace(total_timesteps=args.total_timesteps)
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


def train(
    config: TrainConfig,
    run_dir: Path,
    args: argparse.Namespace,
    history: list,
    resume_from: Path | None = None,
    plan: run_folder.NewRun | None = None,
) -> Path:
    """The run itself, its inputs checked: the config's trainer (:mod:`training.trainers`) through
    the run every trainer goes through (:func:`training.trainers.base.train`)."""
    from ..trainers import make_trainer
    from ..trainers.base import train as run

    trainer = make_trainer(config, run_dir, args.trust_checkpoint, progress=not args.no_progress)
    return run(trainer, history, resume_from, plan)


def command() -> None:
    """The ``ckc-train`` command (``main`` returns the run folder, which a console script would
    take for an error status)."""
    main()


if __name__ == "__main__":
    command()
