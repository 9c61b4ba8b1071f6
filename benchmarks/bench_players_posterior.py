"""Decisions per second of bayes_v2, scalar (``agents.bayes_v2``, on ``reading.players_posterior``)
against batched (``batch.agents``, on ``batch.players_posterior``), measured in the same run; with
``--agent bayes_v3``, the same for bayes_v3 (``reading.second_order`` against ``batch.second_order``).

The player sits at seat 0 of a table of bayes_v1 players for whole seeded games; only seat 0's
decisions are timed (every decision it takes: windows, forced accusations, and clue faces or Cafe
Adler swaps where the rules ask them). The scalar player decides one game at a time; the batched
one decides for all the games of a batch where it is to act in one call. Each figure is the median
over repeats of decisions / seconds spent deciding (caches warm after a warm-up); the speed-up is
the ratio of the medians of the same run. Busy machines give noisy figures: compare within a run.

    python benchmarks/bench_players_posterior.py                      # 3-5 players, B = 256, 1024, 4096
    python benchmarks/bench_players_posterior.py --players 5 --batch 1024 --repeats 5 --json out.json
    python benchmarks/bench_players_posterior.py --agent bayes_v3 --batch 1024
"""

from __future__ import annotations

import argparse
import json
import statistics
import time

import numpy as np

from ckc_env import batch, cli, engine
from ckc_env.agents import make_agent
from ckc_env.batch.agents import make_batch_agent
from ckc_env.config import GameConfig
from ckc_env.engine.view import PlayerView
from ckc_env.files import write_atomic
from ckc_env.seeding import derive_seed


def scalar_rate(n: int, games: int, seed: int, name: str = "bayes_v2") -> tuple[float, int]:
    """The player's decisions per second at seat 0 of ``games`` scalar games, and the decisions timed."""
    config = GameConfig(num_players=n)
    spent, decisions = 0.0, 0
    for g in range(games):
        game = engine.init(config, seed=derive_seed(seed, "game", g))
        agents = [make_agent(name if s == 0 else "bayes_v1", seed=derive_seed(seed, "agent", g, s)) for s in range(n)]
        for s, agent in enumerate(agents):
            agent.reset(s, config)
        while not game.game_over:
            seat = game.current_seat
            view, observation = PlayerView(game, seat), {"action_mask": engine.legal_mask(game)}
            if seat == 0:
                start = time.perf_counter()
                action = agents[0].act(view, observation)
                spent += time.perf_counter() - start
                decisions += 1
            else:
                action = agents[seat].act(view, observation)
            engine.step(game, action)
    return decisions / spent, decisions


def batched_rate(n: int, size: int, seed: int, name: str = "bayes_v2") -> tuple[float, int]:
    """The batched player's decisions per second at seat 0 of ``size`` games played at once, and the
    decisions timed."""
    state = batch.init(GameConfig(num_players=n), batch_size=size, seed=seed)
    lineup = [make_batch_agent(name if s == 0 else "bayes_v1", seed=derive_seed(seed, "agent", s)) for s in range(n)]
    spent, decisions = 0.0, 0
    while not state.game_over.all():
        actions = np.zeros(size, dtype=np.int64)
        live = state.pending_kind >= 0
        for seat, agent in enumerate(lineup):
            games = np.flatnonzero(live & (state.pending_seat == seat))
            if not len(games):
                continue
            if seat == 0:
                start = time.perf_counter()
                actions[games] = agent.act(state, games)
                spent += time.perf_counter() - start
                decisions += len(games)
            else:
                actions[games] = agent.act(state, games)
        batch.step(state, actions)
    return decisions / spent, decisions


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--agent", choices=["bayes_v2", "bayes_v3"], default="bayes_v2", help="the player timed")
    parser.add_argument("--players", type=int, nargs="+", default=[3, 4, 5], help="player counts (default 3 4 5)")
    parser.add_argument("--batch", type=int, nargs="+", default=[256, 1024, 4096], help="batch sizes")
    parser.add_argument("--games", type=int, default=20, help="scalar games per repeat and count (default 20)")
    parser.add_argument("--repeats", type=int, default=3, help="repeats; the median is reported (default 3)")
    parser.add_argument("--seed", type=int, default=0, help="root seed (default 0)")
    parser.add_argument("--json", default=None, help="also write the results to this file")
    args = parser.parse_args(argv)
    cli.check_outputs(parser, json=args.json)
    if any(n not in (3, 4, 5) for n in args.players):
        parser.error(f"--players must be counts from 3 to 5, got {args.players}")
    for flag in ("games", "repeats"):
        if getattr(args, flag) < 1:
            parser.error(f"--{flag} must be a positive integer, got {getattr(args, flag)}")
    if min(args.batch) < 1:
        parser.error(f"--batch sizes must be positive, got {args.batch}")
    scalar_rate(5, 2, args.seed, args.agent)  # warm-up: imports, caches
    batched_rate(5, 64, args.seed, args.agent)
    results: dict[str, dict[str, float]] = {}
    print(f"{'players':>7} {'engine':>14} {'decisions/s':>12} {'decisions':>10} {'speed-up':>9}")
    for n in args.players:
        runs = [
            scalar_rate(n, args.games, derive_seed(args.seed, "scalar", n, r), args.agent) for r in range(args.repeats)
        ]
        scalar = statistics.median(rate for rate, _ in runs)
        results[f"{n}p"] = {"scalar": scalar}
        print(f"{n:>7} {'scalar':>14} {scalar:12.0f} {runs[0][1]:10d} {1.0:9.2f}", flush=True)
        for size in args.batch:
            runs = [
                batched_rate(n, size, derive_seed(args.seed, "batch", n, size, r), args.agent)
                for r in range(args.repeats)
            ]
            rate = statistics.median(rate for rate, _ in runs)
            results[f"{n}p"][f"batched_{size}"] = rate
            print(f"{n:>7} {f'batched B={size}':>14} {rate:12.0f} {runs[0][1]:10d} {rate / scalar:9.2f}", flush=True)
    if args.json:
        write_atomic(args.json, json.dumps(results, indent=2))
    return results


if __name__ == "__main__":
    main()
