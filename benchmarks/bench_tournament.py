"""Tournament games per second: the batched engine against the scalar one, in the same run.

``run_tournament`` plays the same lineup, seats rotated, once with ``engine="scalar"`` (one game at
a time in this process, ``workers=1``; with ``--workers 2`` the scalar path gets both cores) and
once with ``engine="batched"`` (every game at once, each player deciding for all the games where it
is to act in one call; a checkpoint in one forward pass). Repeats go round-robin; the ratio is the
median over repeats of the batched rate over the scalar rate of the same round.

    python benchmarks/bench_tournament.py                       # bayes_v1 x 5, and ppo_5p_distilled with 4 bayes_v1
    python benchmarks/bench_tournament.py --repeats 5 --json docs/results/bench_tournament.json
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

from ckc_env import cli
from ckc_env.evaluation.tournament import run_tournament
from ckc_env.files import write_atomic

ROOT = Path(__file__).resolve().parents[1]
LINEUPS = {
    "bayes_v1 x 5": ["bayes_v1"] * 5,
    "ppo_5p_distilled + 4 bayes_v1": [str(ROOT / "checkpoints" / "ppo_5p_distilled"), *["bayes_v1"] * 4],
}


def games_per_second(lineup: list[str], games: int, engine: str, workers: int) -> float:
    start = time.perf_counter()
    result = run_tournament(lineup, games=games, seed=0, engine=engine, workers=workers)
    return result.games / (time.perf_counter() - start)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--scalar-games", type=cli.integer(1), default=100, help="games per scalar measurement")
    parser.add_argument("--batched-games", type=cli.integer(1), default=2000, help="games per batched measurement")
    parser.add_argument("--workers", type=cli.integer(1), default=1, help="processes of the scalar path")
    parser.add_argument("--repeats", type=cli.integer(1), default=3)
    parser.add_argument("--json", metavar="FILE", help="write the rates and ratios to FILE")
    args = parser.parse_args(argv)
    cli.check_outputs(parser, json=args.json)

    rates: dict[str, dict[str, list[float]]] = {name: {"scalar": [], "batched": []} for name in LINEUPS}
    for _ in range(args.repeats):
        for name, lineup in LINEUPS.items():
            rates[name]["scalar"].append(games_per_second(lineup, args.scalar_games, "scalar", args.workers))
            rates[name]["batched"].append(games_per_second(lineup, args.batched_games, "batched", 1))
    out = {}
    for name, both in rates.items():
        ratio = statistics.median(b / s for b, s in zip(both["batched"], both["scalar"], strict=True))
        scalar, batched = statistics.median(both["scalar"]), statistics.median(both["batched"])
        out[name] = {"scalar_games_per_s": scalar, "batched_games_per_s": batched, "ratio": ratio, "rates": both}
        print(f"{name:32s} scalar {scalar:8.1f} games/s   batched {batched:8.1f} games/s   x{ratio:.1f}")
    if args.json:
        command = "python benchmarks/bench_tournament.py " + " ".join(argv or sys.argv[1:])
        write_atomic(args.json, json.dumps({"command": command, "repeats": args.repeats, "lineups": out}, indent=2))


if __name__ == "__main__":
    main()
