"""Simulation speed of checkpoint_charlie_v2 against PettingZoo's classic games, in the same run.

Every environment is driven by the same loop (``env()`` as users build it, ``agent_iter``,
``last``, a uniformly random legal action from the action mask, ``step``), for a fixed number of
games, repeated round-robin; the figures are medians over the repeats and the ratios compare
each of our player counts with each reference measured in the same rounds of this same process,
so they hold on any machine.

    pip install -e ".[bench]"
    python benchmarks/bench_env.py                 # default: 5 repeats
    python benchmarks/bench_env.py --repeats 9 --json results.json
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np

from ckc_env import cli
from ckc_env.files import write_atomic
from ckc_env.seeding import derive_seed


def drive(make_env: Callable[[], Any], games: int, seed: int) -> tuple[int, float]:
    """Play ``games`` full games with uniformly random legal actions; returns (steps, seconds)."""
    aec = make_env()
    rng = np.random.default_rng(seed)
    steps = 0
    start = time.perf_counter()
    for game in range(games):
        aec.reset(seed=derive_seed(seed, "game", game))
        for _agent in aec.agent_iter():
            obs, _, terminated, truncated, _ = aec.last()
            if terminated or truncated:
                aec.step(None)
                continue
            legal = np.flatnonzero(obs["action_mask"])
            aec.step(int(legal[rng.integers(len(legal))]))
            steps += 1
    return steps, time.perf_counter() - start


def references() -> dict[str, Callable[[], Any]]:
    from pettingzoo.classic import connect_four_v3, leduc_holdem_v4, texas_holdem_v4

    return {
        "connect_four_v3": connect_four_v3.env,
        "leduc_holdem_v4": leduc_holdem_v4.env,
        "texas_holdem_v4": texas_holdem_v4.env,
    }


def ours() -> dict[str, Callable[[], Any]]:
    import ckc_env

    return {f"checkpoint_charlie_v2 ({n}p)": (lambda n=n: ckc_env.env(num_players=n)) for n in (3, 4, 5)}


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument(
        "--repeats", type=cli.integer(1), default=5, help="timed repeats per environment (median reported)"
    )
    parser.add_argument("--steps", type=cli.integer(1), default=20_000, help="about this many steps per repeat")
    parser.add_argument("--seed", type=cli.integer(0), default=0)
    parser.add_argument("--json", default=None, help="also write the results to this file")
    args = parser.parse_args(argv)
    cli.check_outputs(parser, json=args.json)
    warnings.filterwarnings("ignore")

    envs = {**ours(), **references()}
    games: dict[str, int] = {}
    for name, make_env in envs.items():
        steps, _ = drive(make_env, games=20, seed=args.seed)  # warm-up, and steps per game
        games[name] = max(1, round(args.steps / (steps / 20)))
    # Repeats go round-robin over the environments, so a slower or faster spell of the machine
    # touches every environment alike; ratios are taken within each round, then the median.
    rates: dict[str, list[tuple[float, float, float]]] = {name: [] for name in envs}
    for repeat in range(args.repeats):
        for name, make_env in envs.items():
            steps, seconds = drive(make_env, games=games[name], seed=derive_seed(args.seed, "repeat", repeat))
            rates[name].append((steps / seconds, games[name] / seconds, steps / games[name]))
    results: dict[str, dict[str, float]] = {}
    for name in envs:
        results[name] = {
            "steps_per_s": statistics.median(r[0] for r in rates[name]),
            "games_per_s": statistics.median(r[1] for r in rates[name]),
            "steps_per_game": statistics.mean(r[2] for r in rates[name]),
        }
        print(
            f"{name:30s} {results[name]['steps_per_s']:9.0f} steps/s  {results[name]['games_per_s']:8.1f} games/s"
            f"  ({results[name]['steps_per_game']:.1f} steps/game)"
        )

    print("\nsteps/s ratio (ours / reference), median over rounds of the same run:")
    refs = list(references())
    print(f"{'':30s} " + " ".join(f"{r:>16s}" for r in refs))
    for name in ours():
        ratios = [
            statistics.median(mine[0] / theirs[0] for mine, theirs in zip(rates[name], rates[r], strict=True))
            for r in refs
        ]
        results[name]["ratio_to"] = dict(zip(refs, ratios, strict=True))
        print(f"{name:30s} " + " ".join(f"{x:16.2f}" for x in ratios))
    if args.json:
        write_atomic(args.json, json.dumps(results, indent=2))
    return results


if __name__ == "__main__":
    main()
