"""Time per exact posterior (``ckc_env.reading.beliefs.beliefs``) on mid-round positions, 3, 4 and 5 players.

Positions are collected by random play (``ckc_env.raw_env``, base rules, accusation windows
mostly passed), at random accusation decisions (windows and forced accusations), one random seat
per position. For each player count, and in every repeat, three timings per position:

- **first sight**: the posterior cache is cleared before every call
  (``ckc_env.reading.beliefs.clear_caches()``), so every call enumerates its information set;
  the small cache of seat-to-feature maps (``_maps``) stays warm, as it would after a few calls;
- **steady state**: the same positions again with the cache warm (it was filled by a pass over
  them), as during training, where the same information sets recur constantly;
- **brute force**: the independent reference of ``tests/test_beliefs.py`` (enumerating every
  complete hidden deal) on the same positions, as a same-run yardstick.

Each call is timed on its own with ``time.perf_counter_ns`` (the timer adds well under 1 µs); the
figures are the median over positions, then the median over repeats (repeats go round-robin over
the player counts). ``steady mean`` is the mean of one untimed-loop pass, for throughput.

    python benchmarks/bench_beliefs.py                     # 2000 positions per player count, 5 repeats
    python benchmarks/bench_beliefs.py --positions 500 --repeats 3 --json beliefs.json
"""

from __future__ import annotations

import argparse
import json
import pickle
import statistics
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

import ckc_env
import ckc_env.reading.beliefs as belief_module
from ckc_env import cli
from ckc_env.engine.actions import FORCED_ACCUSATION, PASS, WINDOW
from ckc_env.engine.game import legal_actions
from ckc_env.engine.view import PlayerView
from ckc_env.files import write_atomic
from ckc_env.reading.beliefs import beliefs
from ckc_env.seeding import derive_seed

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
from test_beliefs import brute_force, info_set  # the tests' independent reference


def collect(n: int, count: int, seed: int) -> list[PlayerView]:
    """``count`` mid-round positions of random ``n``-player games, each seen by a random seat."""
    rng = np.random.default_rng(seed)
    env = ckc_env.raw_env(num_players=n)
    views: list[PlayerView] = []
    episode = 0
    while len(views) < count:
        env.reset(seed=derive_seed(seed, "game", episode))
        game = env.unwrapped.game
        pass_prob = (0.9, 0.97, 0.995)[episode % 3]
        episode += 1
        while not game.game_over and len(views) < count:
            kind = game.pending_kind
            if kind in (WINDOW, FORCED_ACCUSATION) and rng.random() < 0.1:
                snapshot = pickle.loads(pickle.dumps(game))
                views.append(PlayerView(snapshot, int(rng.integers(n))))
            legal = legal_actions(game)
            if kind == WINDOW and rng.random() < pass_prob:
                action = PASS
            else:
                options = legal[1:] if kind == WINDOW else legal
                action = options[rng.integers(len(options))]
            env.step(action)
    return views


def time_calls(views: list[PlayerView], call, clear: bool = False) -> list[float]:
    """Seconds per call, each call timed on its own."""
    clock = time.perf_counter_ns
    cache_clear = belief_module.clear_caches
    out = []
    for view in views:
        if clear:
            cache_clear()
        start = clock()
        call(view)
        out.append((clock() - start) * 1e-9)
    return out


def brute(view: PlayerView) -> Any:
    return brute_force(info_set(view))


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--positions", type=cli.integer(1), default=2000, help="positions per player count")
    parser.add_argument("--repeats", type=cli.integer(1), default=5, help="timed repeats (median reported)")
    parser.add_argument("--seed", type=cli.integer(0), default=0)
    parser.add_argument("--json", default=None, help="also write the results to this file")
    args = parser.parse_args(argv)
    cli.check_outputs(parser, json=args.json)

    players = (3, 4, 5)
    views = {n: collect(n, args.positions, derive_seed(args.seed, "positions", n)) for n in players}
    runs: dict[int, dict[str, list[float]]] = {n: {} for n in players}
    info: dict[int, dict[str, Any]] = {}
    for n in players:  # distinct information sets and the spread of their sizes
        belief_module.clear_caches()
        sizes = [beliefs(view).assignments for view in views[n]]
        info[n] = {
            "distinct_information_sets": belief_module.cached_information_sets(),
            "assignments_median": statistics.median(sizes),
            "assignments_max": max(sizes),
        }
    for _ in range(args.repeats):
        for n in players:
            run = runs[n]
            first = time_calls(views[n], beliefs, clear=True)
            belief_module.clear_caches()
            for view in views[n]:  # warm the cache
                beliefs(view)
            steady = time_calls(views[n], beliefs)
            start = time.perf_counter()
            for view in views[n]:
                beliefs(view)
            steady_mean = (time.perf_counter() - start) / len(views[n])
            reference = time_calls(views[n], brute)
            for key, value in (
                ("first_sight", statistics.median(first)),
                ("steady", statistics.median(steady)),
                ("steady_p90", float(np.percentile(steady, 90))),
                ("steady_mean", steady_mean),
                ("brute_force", statistics.median(reference)),
            ):
                run.setdefault(key, []).append(value)
            run.setdefault("brute_over_steady", []).append(statistics.median(reference) / statistics.median(steady))
            run.setdefault("brute_over_first", []).append(statistics.median(reference) / statistics.median(first))

    results: dict[str, Any] = {"positions": args.positions, "repeats": args.repeats, "seed": args.seed, "players": {}}
    print(f"median µs per posterior, {args.positions} mid-round positions per player count, {args.repeats} repeats")
    header = (
        f"{'players':>7} {'first sight':>11} {'steady':>8} {'steady p90':>10} {'steady mean':>11}"
        f" {'brute force':>11} {'brute/steady':>12} {'brute/first':>11} {'info sets':>9}"
    )
    print(header)
    for n in players:
        med = {key: statistics.median(values) for key, values in runs[n].items()}
        results["players"][str(n)] = {**med, **info[n]}
        print(
            f"{n:>7} {med['first_sight'] * 1e6:11.1f} {med['steady'] * 1e6:8.2f} {med['steady_p90'] * 1e6:10.2f}"
            f" {med['steady_mean'] * 1e6:11.2f} {med['brute_force'] * 1e6:11.0f} {med['brute_over_steady']:12.0f}"
            f" {med['brute_over_first']:11.1f} {info[n]['distinct_information_sets']:9d}"
        )
    goal = max(results["players"][str(n)]["steady"] for n in players) * 1e6
    print(f"goal: under 50 µs per posterior in steady state; measured median at most {goal:.2f} µs")
    if args.json:
        write_atomic(args.json, json.dumps(results, indent=2))
    return results


if __name__ == "__main__":
    main()
