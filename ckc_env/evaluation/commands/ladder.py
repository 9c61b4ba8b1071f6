"""Rate players on a ladder: OpenSkill ratings with their uncertainty, from balanced multi-player
tables, checked against held-out tables (:mod:`ckc_env.evaluation.rating`).

    ckc-ladder random passive eager bayes_v1 bayes_v2 cheater checkpoints/ppo_all_counts_mixed_34p \\
        --num-players 3 4 5 --tables 60 --games-per-table 60 --held-out 30 --seed 36 \\
        --out docs/results/rated --plot docs/rated_ladder.png

(``ckc-ladder`` is ``python -m ckc_env.evaluation.commands.ladder``; the ``rating`` extra brings OpenSkill.)

For each player count a ladder of its own (a player's strength is not the same at 3 and at 5
players; an agent file joins the ladders of the counts its card names): ``--tables`` tables of distinct players, ``--games-per-table`` games each (rounded up to
the seating design: 6, 24 or 20), rated game by game; then ``--held-out`` tables drawn with
replacement on other deals, whose win shares the ratings predict. The ratings (mu, sigma and the
conservative mu - 3 sigma) print as a Markdown table per count; ``--out PREFIX`` writes
``PREFIX_<n>p.json`` (every rated table, every rating, every held-out table's predictions beside its
observed win shares); ``--plot FILE`` draws mu with its 95% interval (mu ± 1.96 sigma) per count.
Players are specs as in ``ckc-evaluate``. Bad input ends with exit status 2 before a game is played.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path

from ckc_env import cli, players
from ckc_env.agents import REGISTRY
from ckc_env.config import MAX_PLAYERS, MIN_PLAYERS
from ckc_env.evaluation.rating import TAU, rated_ladder
from ckc_env.evaluation.tournament import ENGINES
from ckc_env.files import check_output, write_atomic
from ckc_env.players import specs

from ..plots import plot_ladders
from .evaluate import load_rules

MAX_TABLES = 10_000


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="ckc-ladder", description=cli.plain(__doc__), formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("players", nargs="+", metavar="PLAYER", help="distinct players to rate")
    parser.add_argument(
        "--num-players",
        nargs="+",
        type=cli.integer(MIN_PLAYERS, MAX_PLAYERS),
        default=[3],
        metavar="N",
        help=f"seats per table, one ladder per count, {MIN_PLAYERS} to {MAX_PLAYERS} (default 3)",
    )
    parser.add_argument(
        "--tables", type=cli.integer(1, MAX_TABLES), default=60, help="rated tables per count (default 60)"
    )
    parser.add_argument(
        "--games-per-table",
        type=cli.integer(1, 100_000),
        default=60,
        help="games at each table, rounded up to the seating design (default 60)",
    )
    parser.add_argument(
        "--held-out",
        type=cli.integer(0, MAX_TABLES),
        default=30,
        help="tables the ratings predict, per count, never rated (default 30; 0: none)",
    )
    parser.add_argument("--seed", type=cli.seed(), default=0, help="the ladder's root seed (default 0)")
    parser.add_argument(
        "--tau",
        type=cli.number(0.0, 10.0),
        default=TAU,
        help="OpenSkill's skill drift per game, 0 to 10 (default 0: fixed policies do not change; "
        "the package's own default, 25/300, is for people)",
    )
    parser.add_argument("--rules", metavar="PRESET", help="rules preset or YAML file (default: base)")
    parser.add_argument("--engine", choices=ENGINES, default="auto", help="as ckc-evaluate's --engine")
    parser.add_argument("--out", metavar="PREFIX", help="write PREFIX_<n>p.json for each count")
    parser.add_argument("--plot", metavar="FILE", help="draw the ratings with their intervals (.png, .svg)")
    parser.add_argument("--no-progress", action="store_true")
    parser.add_argument("--trust-checkpoint", action="store_true", help="let stable-baselines3 .zip players load")
    return parser


def plays(spec: specs.PlayerSpec, num_players: int) -> bool:
    """Whether a player plays tables of ``num_players``: every scripted player does; an agent file, at
    the counts its card names (a 5-player agent sits out the other ladders)."""
    if not isinstance(spec, str) or spec in REGISTRY:
        return True
    from ckc_env.players import agent_file

    try:
        return num_players in agent_file.read_card(agent_file.card_path(spec)).players
    except (ValueError, OSError):  # a stable-baselines3 zip or an RLlib checkpoint: its own checks say
        return True


def main(argv: Sequence[str] | None = None) -> None:
    parser = build_parser()
    args = parser.parse_args(argv)
    trust = args.trust_checkpoint
    try:
        if args.plot:
            from ..plots import check_plot

            check_plot(args.plot)
        for n in dict.fromkeys(args.num_players):
            if args.out:
                check_output(f"{args.out}_{n}p.json", "--out")
        cli.need_extra("rating", "openskill")
        config = load_rules(args.rules)
        entrants = [specs.from_text(p) for p in args.players]
        labels = [specs.label(p) for p in entrants]
        if len(set(labels)) != len(labels):
            raise ValueError(f"the players must be distinct, got {labels}")
        for spec in entrants:
            players.validate(spec, trust_checkpoint=trust)
        counts = list(dict.fromkeys(args.num_players))
        seated = {n: [spec for spec in entrants if plays(spec, n)] for n in counts}
        for n, entrants_n in seated.items():
            if len(entrants_n) < n:
                raise ValueError(
                    f"--num-players {n} needs at least {n} players who play {n}, got {[specs.label(p) for p in entrants_n]}"
                )
        ladders = []
        for n in counts:
            ladder = rated_ladder(
                seated[n],
                n,
                args.tables,
                args.games_per_table,
                seed=args.seed,
                held_out=args.held_out,
                config=config,
                trust_checkpoint=trust,
                engine=args.engine,
                progress=not args.no_progress,
                tau=args.tau,
            )
            print(ladder.table() + "\n")
            record = ladder.to_json()
            ladders.append(record)
            if args.out:
                path = Path(f"{args.out}_{n}p.json")
                write_atomic(path, json.dumps(record, indent=2))
                cli.say(f"wrote {path}", file=sys.stderr)
        if args.plot:
            cli.say(f"wrote {plot_ladders(ladders, args.plot)}", file=sys.stderr)
    except ValueError as exc:
        cli.fail(parser, exc)


if __name__ == "__main__":
    main()
