"""Decision time of the scripted players: milliseconds per decision, by player count.

Each player sits at seat 0 of a table of bayes_v1 players (the ladder's usual company) for whole
seeded games; only seat 0's ``act`` calls are timed, and the figure is the median over repeats of
the mean time per decision (caches warm, as in a tournament). The ladder states bayes_v2's budget:
at most 5 ms a decision on the 2-core development machine.

    python benchmarks/bench_agents.py                       # every scripted player, 3-5 players
    python benchmarks/bench_agents.py --agents bayes_v2 --games 200 --repeats 5 --json out.json
"""

from __future__ import annotations

import argparse
import json
import statistics
import time

import ckc_env
from ckc_env import cli
from ckc_env.agents import REGISTRY, make_agent
from ckc_env.engine.view import PlayerView
from ckc_env.files import write_atomic
from ckc_env.seeding import derive_seed


def time_decisions(name: str, n: int, games: int, seed: int) -> tuple[float, int]:
    """Mean seconds per decision of ``name`` at seat 0, and the number of decisions timed."""
    env = ckc_env.raw_env(num_players=n)
    spent, decisions = 0.0, 0
    for g in range(games):
        env.reset(seed=derive_seed(seed, "game", g))
        agents = [make_agent(name if s == 0 else "bayes_v1", seed=derive_seed(seed, "agent", g, s)) for s in range(n)]
        for s, agent in enumerate(agents):
            agent.reset(s, env.config)
        game = env.game
        while not game.game_over:
            seat = game.current_seat
            view, obs = PlayerView(game, seat), env.observe_lazily(env.possible_agents[seat])
            if seat == 0:
                start = time.perf_counter()
                action = agents[0].act(view, obs)
                spent += time.perf_counter() - start
                decisions += 1
            else:
                action = agents[seat].act(view, obs)
            env.step(action)
    return spent / max(decisions, 1), decisions


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--agents", nargs="+", default=sorted(REGISTRY), help="registered players to time")
    parser.add_argument("--games", type=int, default=100, help="games per repeat and player count (default 100)")
    parser.add_argument("--repeats", type=int, default=3, help="repeats; the median is reported (default 3)")
    parser.add_argument("--seed", type=int, default=0, help="root seed (default 0)")
    parser.add_argument("--json", default=None, help="also write the results to this file")
    args = parser.parse_args(argv)
    cli.check_outputs(parser, json=args.json)
    for flag in ("games", "repeats"):
        if getattr(args, flag) < 1:
            parser.error(f"--{flag} must be a positive integer, got {getattr(args, flag)}")
    if args.seed < 0:
        parser.error(f"--seed must be a non-negative integer, got {args.seed}")
    unknown = sorted(set(args.agents) - set(REGISTRY))
    if unknown:
        parser.error(f"unknown player(s) {unknown}: registered players are {sorted(REGISTRY)}")
    time_decisions(args.agents[0], 5, 3, args.seed)  # warm-up: imports, caches
    results: dict[str, dict[str, float]] = {}
    print(f"{'player':12s} " + " ".join(f"{n}p ms/decision".rjust(18) for n in (3, 4, 5)))
    for name in args.agents:
        results[name] = {}
        for n in (3, 4, 5):
            runs = [time_decisions(name, n, args.games, derive_seed(args.seed, r)) for r in range(args.repeats)]
            results[name][f"{n}p"] = statistics.median(seconds for seconds, _ in runs) * 1e3
        print(f"{name:12s} " + " ".join(f"{results[name][f'{n}p']:18.3f}" for n in (3, 4, 5)), flush=True)
    if args.json:
        write_atomic(args.json, json.dumps(results, indent=2))
    return results


if __name__ == "__main__":
    main()
