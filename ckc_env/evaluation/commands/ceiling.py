"""``ckc-ceiling``: what any player without the hidden cards can catch against given opponents, an
upper bound on the deals of a paired comparison, beside the players' own games on those deals.

    ckc-ceiling --opponents bayes_v2 --num-players 3 --players bayes_v2 checkpoints/ppo_all_counts_mixed_34p \\
        --told --games 2000 --seed 2101 --out docs/results/ceiling/ceiling_3p

The bound (:mod:`ckc_env.evaluation.ceiling`): the seat told every player's clue, not the tiles
in the bag, at the best of its decisions chosen with hindsight, on the round as it goes while the
seat passes (as every policy's does until it accuses). No player without the hidden cards catches
the chief in that round more often (nor, in the first round, takes a chip worth more in
expectation) in that seat. It is taken from every round's start of each player's own games;
``--told`` adds a player that knows what the bound grants (bayes_v1's rule on it).
Output: Markdown tables on stdout; ``--out PREFIX`` writes ``PREFIX.json``.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path

from ckc_env import cli
from ckc_env.agents import REGISTRY
from ckc_env.config import MAX_PLAYERS, MIN_PLAYERS
from ckc_env.evaluation.ceiling import ceiling
from ckc_env.files import write_atomic
from ckc_env.players import specs


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="ckc-ceiling",
        description="An upper bound on how often a player without the hidden cards catches the chief against "
        "given opponents, round by round (and on the first round's chip's worth), beside the players' own games "
        "on the same deals.",
        epilog=f"registered agents: {', '.join(sorted(REGISTRY))}; parameters as NAME:KEY=VALUE,KEY=VALUE",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "--opponents",
        nargs="+",
        metavar="PLAYER",
        required=True,
        help="the other seats (one player for all, or one per seat), as ckc-evaluate --compare's",
    )
    parser.add_argument(
        "--num-players",
        type=cli.integer(MIN_PLAYERS, MAX_PLAYERS),
        metavar="N",
        help=f"seats per table, {MIN_PLAYERS} to {MAX_PLAYERS} (default: 1 + the opponents given, 3 for one)",
    )
    parser.add_argument(
        "--players",
        nargs="*",
        default=[],
        metavar="PLAYER",
        help="players whose games in the seat are played, each round with its bound",
    )
    parser.add_argument("--games", type=cli.games(), default=2000, help=f"deals, 1 to {cli.MAX_GAMES:,} (default 2000)")
    parser.add_argument(
        "--seed", type=cli.seed(), default=0, help=f"the comparison's root seed, 0 to {cli.MAX_SEED} (default 0)"
    )
    parser.add_argument(
        "--workers",
        type=cli.integer(1, cli.MAX_WORKERS),
        default=None,
        help=f"worker processes, 1 to {cli.MAX_WORKERS} (default: all cores)",
    )
    parser.add_argument(
        "--told",
        action="store_true",
        help="also play a player told every clue but the bag's (bayes_v1's rule on what it is told; it reads "
        "the hidden state, as cheater does)",
    )
    parser.add_argument("--out", metavar="PREFIX", help="write PREFIX.json")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    return parser


def main(argv: Sequence[str] | None = None) -> None:
    parser = build_parser()
    args = parser.parse_args(argv)
    cli.check_outputs(parser, out=None if args.out is None else f"{args.out}.json")
    try:
        opponents = [specs.from_text(p) for p in args.opponents]
        players = [specs.from_text(p) for p in args.players]
        num_players = args.num_players or (len(opponents) + 1 if len(opponents) > 1 else 3)
        result = ceiling(
            opponents if len(opponents) > 1 else opponents[0],
            players,
            games=args.games,
            seed=args.seed,
            num_players=num_players,
            workers=args.workers,
            progress=not args.no_progress,
            told=args.told,
        )
    except ValueError as exc:
        cli.fail(parser, exc)
    print(result.table())
    if args.out:
        path = Path(f"{args.out}.json")
        write_atomic(path, json.dumps(result.to_json(), indent=2))
        cli.say(f"wrote {path}", file=sys.stderr)


if __name__ == "__main__":
    main()
