"""Evaluate players against each other: a command-line front end to :mod:`ckc_env.tournament`.

One table, seats rotated (the game count is rounded up to a multiple of the number of seats)::

    python training/evaluate.py --lineup bayes_v1 random random random random --games 2000 --seed 0
    python training/evaluate.py --lineup bayes_v1 eager passive --rules configs/rules/stasi.yaml \\
        --games 600 --workers 2 --out results/bayes_3p_stasi

A round robin: every table of ``--num-players`` distinct players, the games shared between them::

    python training/evaluate.py --round-robin random passive eager bayes_v1 cheater \\
        --num-players 5 --games 2000 --out results/round_robin_5p

Players are registered agent names (``random``, ``passive``, ``eager``, ``bayes_v1``,
``cheater``) or paths to trained checkpoints. Agent parameters follow the name after a colon,
comma-separated: ``bayes_v1:sure=0.7,bar_late=0.5`` becomes ``{"name": "bayes_v1", "sure": 0.7,
"bar_late": 0.5}``. Values are read as int, float, ``true``/``false`` or else text.

Output: the table (or ranking) is printed as Markdown on stdout. Files are written only when
``--out PREFIX`` is given: ``PREFIX.json`` and ``PREFIX.csv`` for a lineup (``TournamentResult.save``),
``PREFIX.json`` for a round robin (``RoundRobinResult.to_json``). Parent folders are created.

``--rules`` takes a YAML rules preset (see ``configs/rules/``); the number of seats comes from the
lineup (or ``--num-players``). Games run on all cores unless ``--workers`` says otherwise, with a
progress bar on stderr (``--no-progress`` turns it off). Bad input (an unknown agent or
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

from ckc_env.agents import REGISTRY, make_agent
from ckc_env.config import load_yaml_mapping
from ckc_env.tournament import round_robin, run_tournament, validate_spec

RULES_DIR = Path(__file__).resolve().parent.parent / "configs" / "rules"


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="evaluate.py",
        description="Play seeded Checkpoint Charlie tournaments between agents and print win rates with 95% intervals.",
        epilog=f"registered agents: {', '.join(sorted(REGISTRY))}; parameters as NAME:KEY=VALUE,KEY=VALUE",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    mode = parser.add_mutually_exclusive_group(required=True)
    mode.add_argument("--lineup", nargs="+", metavar="PLAYER", help="3 to 5 players, one per seat (seats rotate)")
    mode.add_argument("--round-robin", nargs="+", metavar="PLAYER", help="distinct players for every table")
    parser.add_argument(
        "--num-players",
        type=int,
        metavar="N",
        help="seats per table, 3 to 5 (round robin: default the number of players, at most 5)",
    )
    parser.add_argument("--games", type=int, default=2000, help="games in all (default 2000)")
    parser.add_argument("--seed", type=int, default=0, help="game g is dealt with seed SEED + g (default 0)")
    parser.add_argument("--rules", metavar="YAML", help="rules preset, e.g. configs/rules/stasi.yaml (default: base)")
    parser.add_argument("--workers", type=int, default=None, help="worker processes (default: all cores)")
    parser.add_argument("--out", metavar="PREFIX", help="write PREFIX.json (and PREFIX.csv for a lineup)")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    return parser


def parse_value(text: str) -> Any:
    """``3`` -> 3, ``0.7`` -> 0.7, ``true``/``false`` -> bool, anything else stays text."""
    for convert in (int, float):
        try:
            return convert(text)
        except ValueError:
            pass
    if text.lower() in ("true", "false"):
        return text.lower() == "true"
    return text


def parse_player(text: str) -> str | dict[str, Any]:
    """``bayes_v1`` stays a name; ``bayes_v1:sure=0.7,bar_late=0.5`` becomes a spec with parameters."""
    name, colon, rest = text.partition(":")
    if not colon:
        return text
    spec: dict[str, Any] = {"name": name}
    for item in rest.split(","):
        key, equals, value = item.partition("=")
        if not equals or not key:
            raise ValueError(f"bad parameter {item!r} in {text!r}: write NAME:KEY=VALUE,KEY=VALUE")
        spec[key] = parse_value(value)
    return spec


def check_player(spec: str | dict[str, Any]) -> None:
    """Fail before any game is played: the name, then (for registered agents) the parameters."""
    validate_spec(spec)
    if isinstance(spec, dict) and spec["name"] in REGISTRY:
        params = {k: v for k, v in spec.items() if k != "name"}
        try:
            make_agent(spec["name"], seed=0, **params)
        except TypeError:  # the simple agents take no parameters at all
            raise ValueError(f"agent {spec['name']!r} takes no parameters, got {sorted(params)}") from None


def load_rules(path: str | None) -> dict[str, Any]:
    if path is None:
        return {}
    if not Path(path).is_file():
        presets = ", ".join(f"configs/rules/{p.name}" for p in sorted(RULES_DIR.glob("*.yaml")))
        raise ValueError(f"no rules file {path!r}: give a YAML rules file such as {presets}")
    return load_yaml_mapping(path)


def main(argv: Sequence[str] | None = None) -> None:
    parser = build_parser()
    args = parser.parse_args(argv)
    progress = not args.no_progress
    try:
        config = load_rules(args.rules)
        if args.games <= 0:
            raise ValueError(f"--games must be a positive integer, got {args.games}")
        if args.workers is not None and args.workers <= 0:
            raise ValueError(f"--workers must be a positive integer, got {args.workers}")
        if args.lineup is not None:
            lineup = [parse_player(p) for p in args.lineup]
            if args.num_players is not None:
                config["num_players"] = args.num_players  # must agree with the lineup
            for spec in lineup:
                check_player(spec)
            result = run_tournament(lineup, args.games, args.seed, config, args.workers, progress)
            print(result.table())
            if args.out:
                for path in result.save(args.out):
                    print(f"wrote {path}", file=sys.stderr)
        else:
            players = [parse_player(p) for p in args.round_robin]
            num_players = args.num_players if args.num_players is not None else min(len(players), 5)
            if not 3 <= num_players <= 5:
                raise ValueError(f"--num-players must be 3, 4 or 5, got {num_players}")
            for spec in players:
                check_player(spec)
            result = round_robin(players, num_players, args.games, args.seed, config, args.workers, progress)
            print(result.ranking())
            if args.out:
                path = Path(f"{args.out}.json")
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_text(json.dumps(result.to_json(), indent=2))
                print(f"wrote {path}", file=sys.stderr)
    except ValueError as exc:
        parser.error(str(exc))


if __name__ == "__main__":
    main()
