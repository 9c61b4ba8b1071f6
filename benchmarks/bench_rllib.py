"""RLlib scale-out: learner steps per second with 1, 2, ... env runners on this machine.

Each measurement builds the PPO algorithm of an RLlib training config (default:
configs/rllib/vs_random.yaml) the way ``ckc-rllib-train`` does (``ckc_env.envs.rllib.ppo_config``),
with ``num_env_runners`` set to the count under test, trains one warm-up iteration, then times
``--iterations`` more: learner steps/s is the learner decisions sampled and trained on per second
of ``train()`` (sampling on the runners, then the PPO update in the driver). Runner counts go
round-robin within each repeat; the ratio to 1 runner is taken within a repeat, and the medians
over repeats are reported. A local Ray gets a logical CPU for every runner and the learner, so
runners beyond the machine's cores share them.

    python benchmarks/bench_rllib.py                                  # 1 to 4 runners, 2 repeats
    python benchmarks/bench_rllib.py --runners 1 2 --repeats 3 --out docs/results/bench_rllib
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import time
from pathlib import Path

from ckc_env import cli, configs
from ckc_env.files import write_atomic

ROOT = Path(__file__).resolve().parents[1]


def measure(config, runners: int, iterations: int) -> float:
    """Learner steps per second of ``iterations`` timed PPO iterations with ``runners`` env runners."""
    from ckc_env.envs import rllib

    algo = rllib.ppo_config(
        config.env_config,
        ppo=config.ppo,
        model={**config.model, "vf_share_layers": config.model.get("vf_share_layers", False)},
        num_env_runners=runners,
        num_envs_per_env_runner=config.scaling.num_envs_per_env_runner,
        num_learners=0,
        seed=config.seed,
    ).build_algo()
    try:
        first = algo.train()  # warm-up: actors started, the first weights sent
        steps_before = first["num_env_steps_sampled_lifetime"]
        tick = time.perf_counter()
        for _ in range(iterations):
            result = algo.train()
        seconds = time.perf_counter() - tick
        return (result["num_env_steps_sampled_lifetime"] - steps_before) / seconds
    finally:
        algo.stop()


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--config", default="vs_random", help="an RLlib preset or YAML file (default: vs_random)")
    parser.add_argument("--runners", type=cli.integer(1, 16), nargs="+", default=[1, 2, 3, 4])
    parser.add_argument("--iterations", type=cli.integer(1), default=2, help="timed iterations per measurement")
    parser.add_argument("--repeats", type=cli.integer(1), default=2)
    parser.add_argument("--out", default=None, help="write PREFIX.json with every measurement")
    args = parser.parse_args(argv)
    cli.check_outputs(parser, out=args.out and f"{args.out}.json")
    if 1 not in args.runners:
        parser.error("--runners must include 1, the reference")

    import ray

    from ckc_env.training.config.rllib import load_config

    config = load_config(configs.preset("rllib", args.config))
    ray.init(num_cpus=max(args.runners) + 1, include_dashboard=False)
    rates: dict[int, list[float]] = {r: [] for r in args.runners}
    ratios: dict[int, list[float]] = {r: [] for r in args.runners}
    for repeat in range(args.repeats):
        this_round = {}
        for runners in args.runners:
            this_round[runners] = measure(config, runners, args.iterations)
            print(
                f"repeat {repeat + 1}: {runners} env runner(s) {this_round[runners]:8.1f} learner steps/s", flush=True
            )
        for runners, value in this_round.items():
            rates[runners].append(value)
            ratios[runners].append(value / this_round[1])
    ray.shutdown()
    print(f"\n{args.config}: learner steps/s, medians of {args.repeats} repeats ({os.cpu_count()} CPU cores)")
    for runners in args.runners:
        print(
            f"{runners} env runner(s): {statistics.median(rates[runners]):8.1f} steps/s, "
            f"{statistics.median(ratios[runners]):.2f} x 1 runner"
        )
    record = {
        "config": args.config,
        "config_resolved": config.to_dict(),
        "iterations_timed": args.iterations,
        "repeats": args.repeats,
        "cpu_cores": os.cpu_count(),
        "machine": platform.machine(),
        "learner_steps_per_s": {str(r): rates[r] for r in args.runners},
        "median_learner_steps_per_s": {str(r): statistics.median(rates[r]) for r in args.runners},
        "median_ratio_to_1_runner": {str(r): statistics.median(ratios[r]) for r in args.runners},
    }
    if args.out:
        write_atomic(f"{args.out}.json", json.dumps(record, indent=2) + "\n")
    return record


if __name__ == "__main__":
    main()
