"""What ``exact=1`` costs the bayes players: tournaments of bayes_v1 (and of bayes_v2) with the rule
in float64 and in integers, in the same run, on the batched engine and (with the ``jax`` extra) the
JAX one.

Each measurement plays the same games (same seed) to their end with ``run_tournament``; repeats go
round-robin over the lineups, and each line reports the median seconds per 1000 games and the
ratio exact / float measured in the same round (median over repeats). The JAX lines run once first,
untimed, so that their compilation is left out.

    python benchmarks/bench_exact.py                          # 3 repeats, 5 players, 400 games
    python benchmarks/bench_exact.py --repeats 5 --json docs/results/bench_exact_cpu.json
"""

from __future__ import annotations

import argparse
import json
import platform
import statistics
import sys
import time
from pathlib import Path

from ckc_env import cli
from ckc_env.evaluation.tournament import run_tournament
from ckc_env.files import write_atomic

PLAYERS = ("bayes_v1", "bayes_v2")


def lineup(player: str, exact: bool, n: int) -> list:
    return [{"name": player, "exact": True} if exact else player] * n


def seconds(player: str, exact: bool, n: int, games: int, seed: int, engine: str) -> float:
    start = time.perf_counter()
    run_tournament(lineup(player, exact, n), games, seed=seed, engine=engine, workers=1)
    return time.perf_counter() - start


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeats", type=cli.integer(1, 100), default=3, help="timed rounds (medians reported)")
    parser.add_argument("--num-players", type=cli.integer(3, 5), default=5)
    parser.add_argument("--games", type=cli.integer(1, 100_000), default=400, help="games per tournament")
    parser.add_argument("--seed", type=cli.integer(0), default=0)
    parser.add_argument("--engines", nargs="+", choices=("batched", "jax"), default=["batched", "jax"])
    parser.add_argument("--json", metavar="FILE", help="write the figures to FILE")
    args = parser.parse_args(argv)
    cli.check_outputs(parser, json=args.json)

    engines = list(args.engines)
    if "jax" in engines:
        try:
            import jax  # noqa: F401
        except ImportError:
            print("jax is not installed: the JAX lines are left out")
            engines.remove("jax")
    lines = [(engine, player) for engine in engines for player in PLAYERS]
    for engine, player in lines:
        if engine == "jax":  # compile both forms, untimed
            for exact in (False, True):
                seconds(player, exact, args.num_players, args.games, args.seed, engine)
    times: dict[tuple[str, str, bool], list[float]] = {(e, p, x): [] for e, p in lines for x in (False, True)}
    ratios: dict[tuple[str, str], list[float]] = {line: [] for line in lines}
    for _ in range(args.repeats):
        for engine, player in lines:
            rounded = seconds(player, False, args.num_players, args.games, args.seed, engine)
            exact = seconds(player, True, args.num_players, args.games, args.seed, engine)
            times[engine, player, False].append(rounded)
            times[engine, player, True].append(exact)
            ratios[engine, player].append(exact / rounded)
    out = {
        "command": "python benchmarks/bench_exact.py " + " ".join(sys.argv[1:] if argv is None else argv),
        "machine": platform.processor() or platform.machine(),
        "num_players": args.num_players,
        "games": args.games,
        "repeats": args.repeats,
        "lines": [],
    }
    print("| engine | player | float64: s / 1000 games | exact=1: s / 1000 games | exact / float |")
    print("|---|---|---|---|---|")
    for engine, player in lines:
        per_k = {x: 1000 * statistics.median(times[engine, player, x]) / args.games for x in (False, True)}
        ratio = statistics.median(ratios[engine, player])
        out["lines"].append(
            {
                "engine": engine,
                "player": player,
                "float_s_per_1000": per_k[False],
                "exact_s_per_1000": per_k[True],
                "ratio": ratio,
            }
        )
        print(f"| {engine} | {player} | {per_k[False]:.1f} | {per_k[True]:.1f} | {ratio:.2f} |")
    if args.json:
        write_atomic(Path(args.json), json.dumps(out, indent=2) + "\n")
    return out


if __name__ == "__main__":
    main()
