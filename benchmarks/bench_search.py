"""What the ``search`` player costs on this machine: seconds per searched decision, by player count.

``search`` (default parameters unless ``--params``) sits at seat 0 of a table of bayes_v2 players
for whole seeded games, one process; its ``act`` calls are timed, those that searched apart from
those that did not (the gate shut: the agent file's decision alone). Beside them: the share of its
window decisions it searched, and a whole game's seconds with it at seat 0 against the same game
with the agent file there (the same deals and opponents).

Then its batched form (``ckc_env.batch.search``) in a tournament of ``--batched-games`` games on the
batched engine (one process, every game at once, seats rotated): seconds per game with search and
with the agent file in its seat, and the difference per searched decision (what the search adds).

    python benchmarks/bench_search.py --games 60 --batched-games 1000 --json docs/results/search/bench_search_cpu.json
"""

from __future__ import annotations

import argparse
import json
import platform
import shlex
import statistics
import sys
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path

import ckc_env
from ckc_env import cli
from ckc_env.agents import Agent, make_agent
from ckc_env.agents.search import DEFAULT_AGENT, SearchParams
from ckc_env.batch.search import BatchSearchAgent
from ckc_env.engine.view import PlayerView
from ckc_env.evaluation.tournament import play_batched
from ckc_env.files import write_atomic
from ckc_env.players import specs
from ckc_env.players.build import build
from ckc_env.seeding import derive_seed


def play(first: Callable[..., Agent], n: int, games: int, seed: int) -> dict:
    """Seat 0's decisions timed over ``games`` games against bayes_v2 (``first(seed=...)`` at seat
    0), and the games' seconds."""
    env = ckc_env.raw_env(num_players=n)
    searched, plain, whole = [], [], 0.0
    for g in range(games):
        env.reset(seed=derive_seed(seed, "game", g))
        players = [first(seed=derive_seed(seed, "first", g))] + [
            make_agent("bayes_v2", seed=derive_seed(seed, "agent", g, s)) for s in range(1, n)
        ]
        for s, player in enumerate(players):
            player.reset(s, env.config)
        game = env.game
        begun = time.perf_counter()
        while not game.game_over:
            seat = game.current_seat
            view, obs = PlayerView(game, seat), env.observe_lazily(env.possible_agents[seat])
            before = getattr(players[0], "searched", 0)
            start = time.perf_counter()
            action = players[seat].act(view, obs)
            if seat == 0:
                (searched if getattr(players[0], "searched", 0) > before else plain).append(time.perf_counter() - start)
            env.step(action)
        whole += time.perf_counter() - begun
    return {"searched": searched, "plain": plain, "seconds_per_game": whole / games}


def batched(n: int, games: int, seed: int, params: dict) -> dict:
    """Seconds per game of a batched tournament against bayes_v2 with search, then the agent file,
    in its seat (the same deals, seats rotated), and what search adds per searched decision."""
    player = BatchSearchAgent(seed=seed, **params)
    opponents = ["bayes_v2"] * (n - 1)
    timed = {}
    for label, first in (("search", player), ("agent file", params.get("agent", DEFAULT_AGENT))):
        begun = time.perf_counter()
        play_batched([first, *opponents], {"num_players": n}, seed, range(games))
        timed[label] = time.perf_counter() - begun
    return {
        "games": games,
        "searched decisions": player.searched,
        "window decisions": player.decisions,
        "departures from the policy": player.departed,
        "seconds per game with search": timed["search"] / games,
        "seconds per game with the agent file": timed["agent file"] / games,
        "seconds per searched decision (added)": (timed["search"] - timed["agent file"]) / max(player.searched, 1),
    }


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--num-players", type=cli.integer(3, 5), nargs="+", default=[3, 4, 5], metavar="N")
    parser.add_argument("--games", type=cli.integer(1, 100_000), default=40, help="games per player count")
    parser.add_argument(
        "--batched-games", type=cli.integer(0, 100_000), default=1000, help="games of the batched tournament (0: none)"
    )
    parser.add_argument("--seed", type=cli.integer(0), default=0)
    parser.add_argument("--params", default="", help="search's parameters, as on the command line: worlds=64,top=4")
    parser.add_argument("--json", metavar="FILE", help="write the figures to FILE")
    args = parser.parse_args(argv)
    cli.check_outputs(parser, json=args.json)
    try:  # refused by name before any game is played
        spec = specs.from_text("search" + (":" + args.params if args.params else ""))
        params = {k: v for k, v in spec.items() if k != "name"} if isinstance(spec, dict) else {}
        SearchParams.of("search", params)
        make_agent("search", seed=0, **params)
    except (OSError, ValueError) as error:
        parser.error(str(error))
    agent = params.get("agent", DEFAULT_AGENT)
    rows = {}
    for n in args.num_players:
        seeds = derive_seed(args.seed, "bench_search", n)
        with_search = play(partial(make_agent, "search", **params), n, args.games, seeds)
        alone = play(partial(build, agent), n, args.games, seeds)
        timed = with_search["searched"]
        decisions = len(timed) + len(with_search["plain"])
        rows[str(n)] = {
            "searched decisions": len(timed),
            "seat 0 decisions": decisions,
            "searched share": len(timed) / max(decisions, 1),
            "seconds per searched decision (median)": statistics.median(timed) if timed else None,
            "seconds per searched decision (mean)": statistics.fmean(timed) if timed else None,
            "seconds per searched decision (max)": max(timed) if timed else None,
            "seconds per other decision (median)": statistics.median(with_search["plain"]),
            "seconds per game with search": with_search["seconds_per_game"],
            "seconds per game with the agent file": alone["seconds_per_game"],
        }
        row = rows[str(n)]
        if args.batched_games:
            row["batched"] = batched(n, args.batched_games, seeds, params)
        print(
            f"{n} players: {len(timed)} of {decisions} decisions searched, "
            f"{row['seconds per searched decision (median)'] or 0:.3f} s each (median), "
            f"{row['seconds per game with search']:.2f} s a game "
            f"({row['seconds per game with the agent file']:.2f} with the agent file)",
            flush=True,
        )
        if args.batched_games:
            b = row["batched"]
            print(
                f"  batched, {b['games']} games: {b['searched decisions']} searched, "
                f"{b['seconds per searched decision (added)']:.4f} s added each, {b['seconds per game with search']:.3f} s "
                f"a game ({b['seconds per game with the agent file']:.3f} with the agent file)",
                flush=True,
            )
    out = {
        "command": "python benchmarks/bench_search.py " + shlex.join(argv if argv is not None else sys.argv[1:]),
        "machine": f"{platform.machine()}, {platform.python_implementation()} {platform.python_version()}",
        "games": args.games,
        "params": params,
        "by_players": rows,
    }
    if args.json:
        write_atomic(Path(args.json), json.dumps(out, indent=2) + "\n")
    return out


if __name__ == "__main__":
    main()
