"""Train the game's shared policy with Ray RLlib's PPO, on this machine or on a Ray cluster.

    ckc-rllib-train vs_random                          # configs/rllib/vs_random.yaml, a local Ray
    ckc-rllib-train vs_random --num-env-runners 4      # more sampling processes
    ckc-rllib-train self_play --address auto           # the Ray cluster this machine belongs to
    RAY_ADDRESS=ray://head:10001 ckc-rllib-train vs_bayes
    ckc-rllib-train --resume runs/rllib_vs_random_seed0 --trust-checkpoint   # RLlib restores pickles: your own runs only

(``ckc-rllib-train`` is ``python -m ckc_env.training.commands.rllib``; the ``rllib`` extra.)

The script reads top to bottom: config -> run folder -> Ray -> algorithm -> train, log, checkpoint,
evaluate -> save. Without ``--address`` (and without ``RAY_ADDRESS``) it starts a local Ray
(``ray.init()``, no cluster); with one it joins the cluster there, and the same config spreads its
``num_env_runners`` sampling actors and ``num_learners`` learner actors over the cluster's
machines. The run folder holds ``config.yaml`` (the resolved config), ``command.txt``,
``checkpoint/`` (RLlib's algorithm checkpoint: ``--resume`` continues from it), the shared module
as safe agent files (``latest_model``, ``final_model`` and ``best_model``: ``.json`` +
``.safetensors``, played with no ray and nothing unpickled), ``history.json`` (every
iteration's figures), ``evaluations.json`` (tournaments through ``ckc_env.evaluation.tournament``) and
``tensorboard/`` (``charts/``, ``losses/``, ``perf/`` and ``eval/`` tags).
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any

from ckc_env import cli, configs, players
from ckc_env.files import InputError, read_json
from ckc_env.players import loading

from ..config.rllib import RLlibConfig, load_config
from ..run import folder as run_folder
from ..trainers.rllib.trainer import train

TRAINER = "ckc-rllib-train"
"""The trainer a run folder's marker names (``ckc-train`` has its own runs)."""


def _records(path: Path, *keys: str) -> list[dict[str, Any]]:
    """A run's iteration or evaluation records (a JSON list of mappings whose ``keys`` are counts),
    read within bounds; none if the file is not there."""
    if not path.exists():
        return []
    records = read_json(path, "run record")
    if not isinstance(records, list) or not all(
        isinstance(r, dict) and all(isinstance(r.get(k), int) and not isinstance(r.get(k), bool) for k in keys)
        for r in records
    ):
        raise InputError(
            f"run record {path} is not a list of records with counts {list(keys)}, as ckc-rllib-train writes"
        )
    return records


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="ckc-rllib-train", description=cli.plain(__doc__), formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "config", nargs="?", help=f"an RLlib preset ({', '.join(configs.names('rllib'))}) or a YAML file"
    )
    parser.add_argument(
        "--run-dir", default=None, help="run folder (default: runs/rllib_<config>_seed<seed>, or _2, ...)"
    )
    parser.add_argument("--resume", default=None, help="a run folder to continue up to its iterations")
    parser.add_argument("--force", action="store_true", help="replace the run an existing --run-dir holds")
    parser.add_argument("--iterations", type=cli.integer(1), default=None, help="override the config's iterations")
    parser.add_argument(
        "--address",
        default=None,
        help="a Ray cluster to join ('auto', HOST:PORT or ray://HOST:10001; default: RAY_ADDRESS, else a local Ray)",
    )
    parser.add_argument("--num-env-runners", type=cli.integer(0), default=None, help="override scaling.num_env_runners")
    parser.add_argument(
        "--num-envs-per-env-runner", type=cli.integer(1), default=None, help="override scaling.num_envs_per_env_runner"
    )
    parser.add_argument("--num-learners", type=cli.integer(0), default=None, help="override scaling.num_learners")
    parser.add_argument(
        "--num-cpus",
        type=cli.integer(1),
        default=None,
        help="a local Ray's logical CPUs (default: enough for every runner and learner, at least the machine's cores)",
    )
    parser.add_argument(
        "--trust-checkpoint",
        action="store_true",
        help="let stable-baselines3 .zip or RLlib checkpoint opponents load (loading them unpickles)",
    )
    return parser


def main(argv: list[str] | None = None) -> None:
    parser = build_parser()
    args = parser.parse_args(argv)
    if bool(args.config) == bool(args.resume):
        parser.error("give a config file, or --resume RUN_DIR")
    if args.resume and (args.force or args.run_dir):
        parser.error("--resume continues the run folder it names: --force and --run-dir start a new run")
    address = args.address or os.environ.get("RAY_ADDRESS") or None
    if address and args.num_cpus is not None:
        parser.error("--num-cpus sets up a local Ray: a cluster (--address, RAY_ADDRESS) has its own CPUs")

    # --- config and run folder
    lock = plan = None
    try:
        cli.need_extra("rllib", "ray", "torch")
        if args.resume:
            run_dir = Path(args.resume)
            lock = run_folder.hold(run_dir)
            marker = run_folder.open_run(run_dir, TRAINER)
            if not (run_dir / "checkpoint").is_dir():
                raise ValueError(f"{run_dir} holds no RLlib checkpoint to resume from (checkpoint/)")
            if not loading.trusted(args.trust_checkpoint):
                raise ValueError(
                    f"refusing to resume {run_dir} without trust: RLlib restores its checkpoint/ from pickle files, "
                    "which run code when loaded. Resume only a run you trust: --trust-checkpoint, or "
                    f"{loading.TRUST_ENV}=1"
                )
            config = load_config(run_dir / "config.yaml")
            run_folder.check_config(run_dir, marker, config.to_dict(), RLlibConfig().to_dict())
        else:
            config = load_config(configs.preset("rllib", args.config))
            default = f"runs/rllib_{Path(args.config).stem}_seed{config.seed}"
            plan = run_folder.plan_new(args.run_dir, default, args.force, TRAINER)
            run_dir = plan.path
        opponents = config.env.get("opponents", [])
        for spec in [opponents] if isinstance(opponents, (str, dict)) else opponents:
            players.validate(spec, trust_checkpoint=args.trust_checkpoint)
        history_path, evaluations_path = run_dir / "history.json", run_dir / "evaluations.json"
        history = _records(history_path, "iteration", "env_steps") if args.resume else []
        evaluations = _records(evaluations_path, "iteration", "env_steps") if args.resume else []
    except ValueError as exc:
        if lock is not None:
            lock.release()
        cli.fail(parser, exc)
    overrides = {
        key: value
        for key, value in (
            ("num_env_runners", args.num_env_runners),
            ("num_envs_per_env_runner", args.num_envs_per_env_runner),
            ("num_learners", args.num_learners),
        )
        if value is not None
    }
    config = config.replace(scaling=config.scaling.replace(**overrides))
    if args.iterations is not None:
        config = config.replace(iterations=args.iterations)
    try:
        if plan is not None:  # every input checked: a replaced run is moved aside until this one starts
            plan.begin(config.to_dict(), RLlibConfig().to_dict(), TRAINER)
        if lock is not None:  # a resumed run: what a save killed mid-write left goes first
            run_folder.sweep(run_dir)
        train(config, run_dir, args, address, history, evaluations, plan)
    except BaseException:
        if plan is not None and plan.abandon():
            print(
                f"ckc-rllib-train: the run did not start; {run_dir} is as it was before this command", file=sys.stderr
            )
        raise
    finally:  # the folder's lock let go, however the command ends
        for held in (lock, plan):
            if held is not None:
                held.release()


if __name__ == "__main__":
    main()
