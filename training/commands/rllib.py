"""Train the game's shared policy with Ray RLlib's PPO, on this machine or on a Ray cluster.

    ckc-rllib-train vs_random                          # configs/rllib/vs_random.yaml, a local Ray
    ckc-rllib-train vs_random --num-env-runners 4      # more sampling processes
    ckc-rllib-train self_play --address auto           # the Ray cluster this machine belongs to
    RAY_ADDRESS=ray://head:10001 ckc-rllib-train vs_bayes
    ckc-rllib-train --resume runs/rllib_vs_random_seed0 --trust-checkpoint   # RLlib restores pickles: your own runs only

(``ckc-rllib-train`` is ``python -m ckc_env.training.rllib_train``; the ``rllib`` extra.)

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
import json
import os
import shlex
import sys
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

import yaml

from ckc_env import cli, configs, players
from ckc_env.evaluation.tournament import run_tournament
from ckc_env.files import InputError, read_json, write_atomic
from ckc_env.players import loading, specs

from . import run_folder
from .evaluations import learner_result
from .rllib_config import RLlibConfig, load_config
from .run_folder import append_line

TRAINER = "ckc-rllib-train"
"""The trainer a run folder's marker names (``ckc-train`` has its own runs)."""

RESULT_TAGS = {
    "charts/episode_return_mean": ("env_runners", "episode_return_mean"),
    "charts/episode_len_mean": ("env_runners", "episode_len_mean"),
    "charts/illegal_actions": ("env_runners", "illegal_actions"),
    "losses/policy_loss": ("learners", "shared", "policy_loss"),
    "losses/vf_loss": ("learners", "shared", "vf_loss"),
    "losses/entropy": ("learners", "shared", "entropy"),
    "losses/mean_kl": ("learners", "shared", "mean_kl_loss"),
}
"""TensorBoard tags and where RLlib's result dict holds them."""


def _lookup(result: dict[str, Any], path: tuple[str, ...]) -> float | None:
    for key in path:
        if not isinstance(result, dict) or key not in result:
            return None
        result = result[key]
    try:
        return float(result)
    except (TypeError, ValueError):
        return None


def iteration_record(result: dict[str, Any], seconds: float, steps_before: int) -> dict[str, Any]:
    """What the run keeps of one training iteration: its figures and its throughput."""
    steps = int(result.get("num_env_steps_sampled_lifetime", 0))
    record = {
        "iteration": int(result["training_iteration"]),
        "env_steps": steps,
        "seconds": round(seconds, 3),
        "learner_steps_per_s": round((steps - steps_before) / seconds, 1) if seconds > 0 else None,
    }
    for tag, path in RESULT_TAGS.items():
        record[tag.split("/", 1)[1]] = _lookup(result, path)
    return record


def evaluate(card: Path, config: RLlibConfig) -> dict[str, dict[str, Any]]:
    """The shared module (its safe agent file) against each evaluation table, seat-rotated."""
    n = int(config.game.get("num_players", 5))
    out = {}
    for name, table in config.eval.opponents.items():
        lineup = [str(card), *specs.for_seats(table, n - 1)]
        # in this process: Ray's threads make forking tournament workers from the driver unsafe
        result = run_tournament(lineup, games=config.eval.games, seed=config.seed + 1, config=config.game, workers=1)
        out[name] = learner_result(result)
    return out


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
    config = replace(config, scaling=replace(config.scaling, **overrides))
    if args.iterations is not None:
        config = replace(config, iterations=args.iterations)
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


def train(
    config: RLlibConfig,
    run_dir: Path,
    args: argparse.Namespace,
    address: str | None,
    history: list[dict[str, Any]],
    evaluations: list[dict[str, Any]],
    plan: run_folder.NewRun | None,
) -> None:
    """The run itself, its inputs checked: Ray, the algorithm, the iterations, the saved models."""
    history_path, evaluations_path = run_dir / "history.json", run_dir / "evaluations.json"
    write_atomic(run_dir / "config.yaml", yaml.safe_dump(config.to_dict(), sort_keys=False))
    append_line(run_dir / "command.txt", shlex.join([sys.executable, *sys.argv]))

    # --- Ray: a local one, or the cluster at the address
    import ray

    from ckc_env.envs import rllib
    from ckc_env.players.rllib import MODULE_ID, save_agent_file

    scaling = config.scaling
    if address:
        ray.init(address=address)
    else:
        needed = scaling.num_env_runners + scaling.num_learners + 1
        ray.init(num_cpus=args.num_cpus or max(os.cpu_count() or 1, needed), include_dashboard=False)

    # --- the algorithm (from the run's checkpoint with --resume)
    env_config = {**config.env_config, "trust_checkpoint": args.trust_checkpoint}
    algo = rllib.ppo_config(
        env_config,
        ppo=config.ppo,
        model={**config.model, "vf_share_layers": config.model.get("vf_share_layers", False)},
        num_env_runners=scaling.num_env_runners,
        num_envs_per_env_runner=scaling.num_envs_per_env_runner,
        num_learners=scaling.num_learners,
        seed=config.seed,
    ).build_algo()
    if args.resume:
        algo.restore_from_path(str((run_dir / "checkpoint").resolve()))
    counts = [int(config.game.get("num_players", 5))]
    training = {"seed": config.seed, "config": config.to_dict()}

    def export(name: str, evaluation: dict[str, Any] | None = None) -> Path:
        module = algo.get_module(MODULE_ID)
        record = {**training, "iterations": done, "env_steps": history[-1]["env_steps"] if history else 0}
        return save_agent_file(module, run_dir / name, counts, record, evaluation)

    def run_evaluation() -> None:
        card = export("latest_model")
        results = evaluate(card, config)
        evaluations.append({"iteration": done, "env_steps": history[-1]["env_steps"], "results": results})
        write_atomic(evaluations_path, json.dumps(evaluations, indent=2))
        first = next(iter(config.eval.opponents))
        for name, figures in results.items():
            writer.add_scalar(f"eval/{name}_win_rate", figures["win_rate"], history[-1]["env_steps"])
        best = max(evaluations, key=lambda e: e["results"][first]["win_rate"])
        if best is evaluations[-1]:
            write_atomic(run_dir / "best_model.safetensors", card.with_suffix(".safetensors").read_bytes())
            card_data = json.loads(card.read_text())
            card_data["weights"]["file"] = "best_model.safetensors"
            card_data["evaluation"] = results
            write_atomic(run_dir / "best_model.json", json.dumps(card_data, indent=2) + "\n")
        print(f"iteration {done}: " + ", ".join(f"{k} {v['win_rate']:.3f} {v['win_ci95']}" for k, v in results.items()))

    # --- train, log, checkpoint, evaluate
    from torch.utils.tensorboard import SummaryWriter

    writer = SummaryWriter(str(run_dir / "tensorboard"))
    done = history[-1]["iteration"] if history else 0
    started = time.time()
    while done < config.iterations:
        before = history[-1]["env_steps"] if history else 0
        tick = time.perf_counter()
        result = algo.train()
        record = iteration_record(result, time.perf_counter() - tick, before)
        done = record["iteration"] = done + 1
        history.append(record)
        write_atomic(history_path, json.dumps(history, indent=2))
        if plan is not None:  # the first iteration is done: a run this one replaces goes
            plan.started()
        for tag in RESULT_TAGS:
            value = record[tag.split("/", 1)[1]]
            if value is not None:
                writer.add_scalar(tag, value, record["env_steps"])
        writer.add_scalar("perf/learner_steps_per_s", record["learner_steps_per_s"] or 0.0, record["env_steps"])
        print(
            f"iteration {done}/{config.iterations}: {record['env_steps']} steps, return "
            f"{record['episode_return_mean']}, {record['learner_steps_per_s']} steps/s, "
            f"illegal actions {record['illegal_actions']}",
            flush=True,
        )
        if done % config.checkpoint_every == 0 or done == config.iterations:
            algo.save_to_path(str((run_dir / "checkpoint").resolve()))
        if config.eval.every and done % config.eval.every == 0 and done < config.iterations:
            run_evaluation()
    algo.save_to_path(str((run_dir / "checkpoint").resolve()))
    if not evaluations or evaluations[-1]["iteration"] < done:
        run_evaluation()
    final = evaluations[-1]["results"]
    export("final_model", final)
    summary = {
        "iterations": done,
        "env_steps": history[-1]["env_steps"],
        "wall_clock_seconds_this_invocation": round(time.time() - started, 1),
        "final": final,
    }
    write_atomic(run_dir / "summary.json", json.dumps(summary, indent=2))
    writer.close()
    algo.stop()
    ray.shutdown()
    print(json.dumps(final, indent=2))
    cli.say(f"run folder: {run_dir}")


if __name__ == "__main__":
    main()
