"""What a training run's evaluation tables cost to compile on the JAX engine: each table's players
compiled into a loop of their own, against one loop holding every table's players (``run_tournament``'s
``companions``, as ``training/evaluation`` plays them), in the same run.

Each way runs in a fresh process with no compile cache (``CKC_COMPILE_CACHE=off``), the ways in turn
``--repeats`` times: an agent file (``--agent``, default the 5-player scratch agent) first against four
bayes_v1 and then against four random, 20 games each, as ``scratch_jax.yaml``'s first evaluation
seats them; the seconds of each table's first call (its compiling, the deal's included, and 20
games) and of a third call of the first table (the games alone). Medians.

    OPENBLAS_NUM_THREADS=1 python benchmarks/bench_eval_tables.py --json docs/results/bench_eval_tables_cpu.json
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from ckc_env import cli  # noqa: E402

ONE_WAY = """
import json, sys, time
from ckc_env.evaluation.tournament import run_tournament
agent, together = sys.argv[1], sys.argv[2] == "together"
tables = [[agent] + ["bayes_v1"] * 4, [agent] + ["random"] * 4]
extra = {"companions": ["bayes_v1", "random"]} if together else {}
def timed(lineup):
    start = time.perf_counter()
    run_tournament(lineup, 20, seed=3, engine="jax", fixed_first=True, **extra)
    return time.perf_counter() - start
print(json.dumps([timed(tables[0]), timed(tables[1]), timed(tables[0])]))
"""


def main(argv: list[str] | None = None) -> dict:
    from ckc_env.files import write_atomic

    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--agent", default="checkpoints/ppo_5p_scratch", help="the learner's agent file")
    parser.add_argument("--repeats", type=cli.integer(1), default=3)
    parser.add_argument("--json", metavar="FILE", help="write the figures to FILE")
    args = parser.parse_args(argv)
    cli.check_outputs(parser, json=args.json)
    env = {**os.environ, "CKC_COMPILE_CACHE": "off", "OPENBLAS_NUM_THREADS": "1"}
    seconds: dict[str, list[list[float]]] = {"apart": [], "together": []}
    for _ in range(args.repeats):
        for way in seconds:
            done = subprocess.run(
                [sys.executable, "-c", ONE_WAY, args.agent, way], env=env, cwd=ROOT, capture_output=True, text=True
            )
            if done.returncode != 0:
                sys.exit(f"{way} failed:\n{done.stderr[-3000:]}")
            seconds[way].append(json.loads(done.stdout.strip().splitlines()[-1]))
    out: dict = {
        "command": "python benchmarks/bench_eval_tables.py " + shlex.join(argv if argv is not None else sys.argv[1:]),
        "agent": args.agent,
        "seconds": seconds,
        "medians": {},
    }
    for way, runs in seconds.items():
        first, second, again = (statistics.median(run[k] for run in runs) for k in range(3))
        out["medians"][way] = {"against four bayes_v1": first, "against four random": second, "games alone": again}
        print(
            f"{way:9s} against four bayes_v1 {first:5.1f} s, then against four random {second:5.1f} s "
            f"(both {first + second:5.1f} s; the games alone {again:.2f} s)",
            flush=True,
        )
    if args.json:
        write_atomic(Path(args.json), json.dumps(out, indent=2))
        print(f"wrote {args.json}")
    return out


if __name__ == "__main__":
    main()
