"""Ray RLlib's PPO on the game's shared module, on this machine or on a Ray cluster (``ckc-rllib-train``,
:mod:`training.commands.rllib`, checks the config and holds the run folder first).

Ray (a local one, or the cluster at the address) -> the algorithm (from the run's checkpoint with
``--resume``) -> train, log, checkpoint, evaluate -> save. Its records are RLlib's own: an entry per
training iteration in ``history.json``, the checkpoint in ``checkpoint/`` (pickles: a resume needs
trust), the shared module exported as safe agent files (``latest_model``, ``best_model``,
``final_model``), and ``evaluations.json`` of tournaments through ``ckc_env.evaluation.tournament``.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import sys
import time
from pathlib import Path
from typing import Any

import yaml

from ckc_env import cli
from ckc_env.evaluation.tournament import run_tournament
from ckc_env.files import write_atomic
from ckc_env.players import specs

from ...config.rllib import RLlibConfig
from ...evaluation import learner_result
from ...run import folder as run_folder
from ...run.folder import append_line

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
