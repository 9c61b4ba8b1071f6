"""Evaluate players against each other: a command-line front end to :mod:`ckc_env.evaluation.tournament`.

One table, seats rotated (the game count is rounded up to a multiple of the number of seats)::

    ckc-evaluate --lineup bayes_v1 random random random random --games 2000 --seed 0
    ckc-evaluate --lineup bayes_v1 eager passive --rules stasi --games 600 --workers 2 --out results/bayes_3p_stasi

A round robin: every table of ``--num-players`` distinct players, the games shared between them::

    ckc-evaluate --round-robin random passive eager bayes_v1 cheater --num-players 5 --games 2000 \\
        --out results/round_robin_5p

(``ckc-evaluate`` is ``python -m ckc_env.evaluation.commands.evaluate``.)

Players are specs (:mod:`ckc_env.players.specs`): registered agent names (``random``, ``passive``,
``eager``, ``bayes_v1``, ``cheater``) or trained checkpoints: a run folder, an agent card
(``.json``) or its ``.safetensors`` (``ckc_env.players.agent_file``: they load without running anything).
A stable-baselines3 ``.zip`` is unpickled when loaded, so it plays only with ``--trust-checkpoint``
(or ``CKC_TRUST_CHECKPOINTS=1``); ``ckc-export`` turns it into a safe file once. Agent parameters
follow the name after a colon, comma-separated: ``bayes_v1:sure=0.7,bar_late=0.5``.

Output: the table (or ranking) is printed as Markdown on stdout. Files are written only when
``--out PREFIX`` is given: ``PREFIX.json`` and ``PREFIX.csv`` for a lineup (``TournamentResult.save``),
``PREFIX.json`` for a round robin (``RoundRobinResult.to_json``). Parent folders are created.
``--plot FILE`` draws each player's win rate with its 95% interval (``ckc-plot``, matplotlib).

``--rules`` takes a rules preset by name (``base``, ``stasi``, ``adler``, ``both``: ``configs/rules/``)
or the path of a YAML file; the number of seats comes from the lineup (or ``--num-players``). When
every player has a batched form (``random``, ``passive``, ``eager``, ``bayes_v1``, ``bayes_v2``,
``cheater``, checkpoints) the games are played on the batched engine, thousands at once in one process (one
chance model deals both engines' games: ``--engine scalar`` gives the same games, game by game);
otherwise they run on all cores unless ``--workers`` says otherwise, with a progress bar on stderr (``--no-progress`` turns it off). Bad input (an unknown agent or
parameter, a wrong number of players, a missing or malformed rules file, ...) ends with a usage
message and exit status 2.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ckc_env import cli, configs, players
from ckc_env.agents import REGISTRY
from ckc_env.config import MAX_PLAYERS, MIN_PLAYERS
from ckc_env.config import load_rules as read_rules
from ckc_env.evaluation.paired import compare
from ckc_env.evaluation.seating import SCHEMES
from ckc_env.evaluation.tournament import ENGINES, Play, round_robin, run_tournament
from ckc_env.files import check_output, write_atomic
from ckc_env.players import specs

from ..plots import plot_results


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="ckc-evaluate",
        description="Play seeded Checkpoint Charlie tournaments between agents and print win rates with 95% intervals.",
        epilog=f"registered agents: {', '.join(sorted(REGISTRY))}; parameters as NAME:KEY=VALUE,KEY=VALUE",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    mode = parser.add_mutually_exclusive_group(required=True)
    mode.add_argument(
        "--lineup", nargs="+", metavar="PLAYER", help=f"{MIN_PLAYERS} to {MAX_PLAYERS} players, one per seat"
    )
    mode.add_argument("--round-robin", nargs="+", metavar="PLAYER", help="distinct players for every table")
    mode.add_argument(
        "--compare",
        nargs=2,
        metavar=("FIRST", "SECOND"),
        help="two players in the same seat on the same deals against --opponents: their difference with a "
        "paired interval",
    )
    parser.add_argument(
        "--opponents",
        nargs="+",
        metavar="PLAYER",
        help="with --compare: the other seats (one player for all, or one per seat)",
    )
    parser.add_argument(
        "--seating",
        choices=SCHEMES,
        default="balanced",
        help="balanced (default): every player in every seat and right after every other equally often, the "
        "lineup's order immaterial; rotate: the lineup's order, rotated",
    )
    parser.add_argument(
        "--num-players",
        type=cli.integer(MIN_PLAYERS, MAX_PLAYERS),
        metavar="N",
        help=f"seats per table, {MIN_PLAYERS} to {MAX_PLAYERS} (round robin: default the number of players, "
        f"at most {MAX_PLAYERS})",
    )
    parser.add_argument(
        "--games", type=cli.games(), default=2000, help=f"games in all, 1 to {cli.MAX_GAMES:,} (default 2000)"
    )
    parser.add_argument(
        "--seed", type=cli.seed(), default=0, help=f"the tournament's root seed, 0 to {cli.MAX_SEED} (default 0)"
    )
    parser.add_argument(
        "--rules",
        metavar="PRESET",
        help=f"rules preset ({', '.join(configs.names('rules'))}) or a YAML file (default: base)",
    )
    parser.add_argument(
        "--workers",
        type=cli.integer(1, cli.MAX_WORKERS),
        default=None,
        help=f"worker processes, 1 to {cli.MAX_WORKERS} (default: all cores)",
    )
    parser.add_argument("--out", metavar="PREFIX", help="write PREFIX.json (and PREFIX.csv for a lineup)")
    parser.add_argument(
        "--plot", metavar="FILE", help="draw the win rates with their intervals to FILE (.png, .svg; needs matplotlib)"
    )
    parser.add_argument(
        "--engine",
        choices=ENGINES,
        default="auto",
        help="auto (default): the batched engine when every player has a batched form, else the scalar one; "
        "batched: insist on it; scalar: one game at a time, as before the batched engine; jax: the JAX engine, "
        "the game loop on the device (the jax extra; the same games)",
    )
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    parser.add_argument(
        "--trust-checkpoint",
        action="store_true",
        help="let stable-baselines3 .zip players load: loading a zip unpickles it, which can run code",
    )
    return parser


def check_outputs(args: argparse.Namespace) -> None:
    """``--out`` and ``--plot`` checked before the first game: a picture format matplotlib writes,
    places they can be written (nothing is created)."""
    if args.plot:
        from ..plots import check_plot

        check_plot(args.plot)
    if args.out:
        for suffix in (".json", ".csv"):
            check_output(f"{args.out}{suffix}", "--out")


def load_rules(name: str | None) -> dict[str, Any]:
    """A rules preset by name (``stasi``) or a YAML file's path, as GameConfig options."""
    return {} if name is None else read_rules(configs.preset("rules", name))


def main(argv: Sequence[str] | None = None) -> None:
    parser = build_parser()
    args = parser.parse_args(argv)
    trust = args.trust_checkpoint
    try:
        check_outputs(args)  # before a game is played: the files it will write
        config = load_rules(args.rules)
        play = Play(  # how every game of this command is played, whichever kind of tournament
            config=config,
            workers=args.workers,
            progress=not args.no_progress,
            trust_checkpoint=trust,
            engine=args.engine,
            seating=args.seating,
        )
        if (args.opponents is not None) != (args.compare is not None):
            raise ValueError("--opponents goes with --compare FIRST SECOND (the players the two meet)")
        if args.compare is not None:
            first, second = (specs.from_text(p) for p in args.compare)
            opponents = [specs.from_text(p) for p in args.opponents]
            for spec in (first, second, *opponents):
                players.validate(spec, trust_checkpoint=trust)
            others = opponents if len(opponents) > 1 else opponents[0]
            paired = compare(first, second, others, args.games, args.seed, args.num_players, **play)
            print(paired.table())
            if args.out:
                cli.say(f"wrote {paired.save(args.out)}", file=sys.stderr)
            return
        if args.lineup is not None:
            lineup = [specs.from_text(p) for p in args.lineup]
            if args.num_players is not None:
                config["num_players"] = args.num_players  # must agree with the lineup
            for spec in lineup:
                players.validate(spec, trust_checkpoint=trust)
            result = run_tournament(lineup, args.games, args.seed, **play)
            print(result.table())
            if args.out:
                for path in result.save(args.out):
                    cli.say(f"wrote {path}", file=sys.stderr)
            if args.plot:
                cli.say(f"wrote {plot_results([result.to_json()], args.plot)}", file=sys.stderr)
        else:
            entrants = [specs.from_text(p) for p in args.round_robin]
            num_players = args.num_players if args.num_players is not None else min(len(entrants), MAX_PLAYERS)
            if not MIN_PLAYERS <= num_players <= MAX_PLAYERS:
                raise ValueError(f"--num-players must be from {MIN_PLAYERS} to {MAX_PLAYERS}, got {num_players}")
            for spec in entrants:
                players.validate(spec, trust_checkpoint=trust)
            result = round_robin(entrants, num_players, args.games, args.seed, **play)
            print(result.ranking())
            if args.out:
                path = Path(f"{args.out}.json")
                write_atomic(path, json.dumps(result.to_json(), indent=2))
                cli.say(f"wrote {path}", file=sys.stderr)
            if args.plot:
                cli.say(f"wrote {plot_results([result.to_json()], args.plot)}", file=sys.stderr)
    except ValueError as exc:
        cli.fail(parser, exc)


if __name__ == "__main__":
    main()
