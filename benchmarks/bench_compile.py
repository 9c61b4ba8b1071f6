"""How long the device trainer's programs take to compile: the first time, and read back from JAX's
persistent compile cache by a second run.

Each config is trained twice, one iteration each (``--total-timesteps`` one rollout, evaluations cut
to a few games against random; ``--evaluation config``: the config's own first evaluation, its
tables and its reference player, each table's lineup a tournament program of its own, as a user's
first run compiles them), in a fresh process, with an empty cache folder of its own for each config
(``CKC_COMPILE_CACHE``; one shared by the configs let the second read the first's tournaments back):
the first run traces, exports and compiles every program, the second reads them from the cache (the programs as traced, ``ckc_env.jax.exported``, and XLA's compiled code,
so that it neither traces nor lowers them). The seconds of each program,
and whether the cache had it, come from each run's ``summary.json``; with the runs' wall times they
go to the JSON.

    python benchmarks/bench_compile.py --json docs/results/bench_compile_cpu.json
    python benchmarks/bench_compile.py --evaluation config --json docs/results/bench_compile_cpu_config_evaluation.json
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
CONFIGS = ("scratch_jax", "self_play_jax")


def trimmed(name: str, folder: Path, evaluation: str = "small") -> Path:
    """The shipped config ``name`` cut to one iteration and a small evaluation (``evaluation="config"``:
    its own first evaluation, every table and its reference player, as a user's first run compiles)."""
    config = yaml.safe_load((ROOT / "configs" / "train" / f"{name}.yaml").read_text())
    config["total_timesteps"] = config["ppo"]["n_steps"] * config["vector"]["num_envs"]
    if evaluation == "config":
        config["eval"]["every"] = 10 * config["total_timesteps"]
    else:
        config["eval"] = {"every": 10 * config["total_timesteps"], "games": 16, "opponents": {"vs_random": ["random"]}}
    path = folder / f"{name}.yaml"
    path.write_text(yaml.safe_dump(config))
    return path


def main(argv: list[str] | None = None) -> dict:
    from ckc_env import cli
    from ckc_env.files import write_atomic

    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--configs", nargs="+", choices=CONFIGS, default=list(CONFIGS))
    parser.add_argument(
        "--evaluation",
        choices=("small", "config"),
        default="small",
        help="the first evaluation: 16 games against random (small), or the config's own tables and reference",
    )
    parser.add_argument("--json", metavar="FILE", help="write the figures to FILE")
    args = parser.parse_args(argv)
    cli.check_outputs(parser, json=args.json)
    out: dict = {
        "command": "python benchmarks/bench_compile.py " + shlex.join(argv or sys.argv[1:]),
        "evaluation": args.evaluation,
        "runs": {},
    }
    with tempfile.TemporaryDirectory() as scratch:
        folder = Path(scratch)
        for name in args.configs:  # each config from an empty cache: what its first run compiles alone
            cache = folder / f"cache_{name}"
            cache.mkdir(mode=0o700)
            env = {**os.environ, "CKC_COMPILE_CACHE": str(cache), "OPENBLAS_NUM_THREADS": "1"}
            config = trimmed(name, folder, args.evaluation)
            for attempt in ("first", "cached"):
                run = folder / f"{name}_{attempt}"
                started = time.perf_counter()
                command = [sys.executable, "-m", "ckc_env.training.commands.train", str(config), "--run-dir", str(run)]
                done = subprocess.run([*command, "--no-progress"], env=env, cwd=ROOT, capture_output=True, text=True)
                seconds = time.perf_counter() - started
                if done.returncode != 0:
                    sys.exit(f"{name} ({attempt}) failed:\n{done.stderr[-3000:]}")
                summary = json.loads((run / "summary.json").read_text())
                compile_times = summary["compile"]
                total = sum(entry["seconds"] for entry in compile_times.values())
                out["runs"][f"{name}, {attempt}"] = {
                    "wall_seconds": round(seconds, 1),
                    "compile_seconds": round(total, 1),
                    "programs": compile_times,
                    "device": summary["device"],
                }
                print(f"{name:14s} {attempt:7s} compile {total:6.1f} s, the whole run {seconds:6.1f} s", flush=True)
                for what, entry in compile_times.items():
                    print(f"    {what}: {entry['seconds']:.1f} s ({entry['cache']})", flush=True)
    if args.json:
        write_atomic(Path(args.json), json.dumps(out, indent=2))
        print(f"wrote {args.json}")
    return out


if __name__ == "__main__":
    main()
