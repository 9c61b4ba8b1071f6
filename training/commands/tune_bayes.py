"""Tune bayes_v1's parameters by coordinate search in self-play.

Each candidate plays a seat-rotated 5-player table against four copies of the current best
parameters, on the same seeded deals for every candidate (common random numbers, so candidates
are compared on identical games); a value replaces the current one only if its win rate beats the
current value's by more than ``--min-gain``. Parameters are visited in turn, for ``--passes``
passes. The search writes its log and the winning parameters as JSON.

    python training/tune_bayes.py --games 600 --passes 2 --out docs/bayes_v1_tuning.json
"""

from __future__ import annotations

import argparse
import json
import time

from ckc_env import cli
from ckc_env.agents import BayesParams
from ckc_env.evaluation.tournament import run_tournament
from ckc_env.files import write_atomic

GRID: dict[str, list[float]] = {
    "sure": [0.3, 0.4, 0.5, 0.6, 0.75, 0.9],
    "bar_early": [1.0, 1.5, 2.0, 2.5, 3.0, 3.5],
    "bar_late": [0.0, 0.4, 0.8, 1.2, 1.6, 2.0],
    "margin_last": [-1.0, -0.5, 0.0, 0.5, 1.0],
}


def win_rate(candidate: dict[str, float], field: dict[str, float], games: int, seed: int, workers: int | None) -> float:
    lineup = [{"name": "bayes_v1", **candidate}] + [{"name": "bayes_v1", **field}] * 4
    result = run_tournament(lineup, games=games, seed=seed, workers=workers)
    return result.stats()[0]["win"].mean


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        description=cli.plain(__doc__), formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--games", type=cli.games(), default=600, help="games per candidate")
    parser.add_argument("--passes", type=cli.integer(1), default=2)
    parser.add_argument("--seed", type=cli.seed(), default=12345)
    parser.add_argument(
        "--min-gain", type=cli.number(0.0, 1.0), default=0.01, help="win-rate gain needed to change a value"
    )
    parser.add_argument("--workers", type=cli.integer(1, cli.MAX_WORKERS), default=None)
    parser.add_argument("--out", default="docs/bayes_v1_tuning.json")
    args = parser.parse_args(argv)
    cli.check_outputs(parser, out=args.out)

    best = {name: getattr(BayesParams(), name) for name in BayesParams.names()}
    log = []
    start = time.time()
    for sweep in range(args.passes):
        for name, values in GRID.items():
            field = dict(best)
            scores = {}
            for value in values:
                candidate = {**best, name: value}
                scores[value] = win_rate(candidate, field, args.games, args.seed, args.workers)
                log.append(
                    {"pass": sweep, "parameter": name, "value": value, "win_rate": scores[value], "field": field}
                )
                print(f"pass {sweep} {name}={value}: win rate {scores[value]:.3f} against {field}", flush=True)
            incumbent = scores.get(best[name], win_rate(best, field, args.games, args.seed, args.workers))
            value, score = max(scores.items(), key=lambda item: item[1])
            if score > incumbent + args.min_gain:
                best[name] = value
            print(f"-> {name} = {best[name]}", flush=True)
    out = {
        "best": best,
        "games_per_candidate": args.games,
        "seed": args.seed,
        "min_gain": args.min_gain,
        "passes": args.passes,
        "grid": GRID,
        "seconds": round(time.time() - start),
        "log": log,
    }
    write_atomic(args.out, json.dumps(out, indent=2))
    print(json.dumps(best))


if __name__ == "__main__":
    main()
