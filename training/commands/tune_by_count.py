"""Tune bayes_v2's parameters for one player count, against tables of bayes_v2 itself.

bayes_v1's parameters, which bayes_v2 shares, were searched once at 5 players (training/tune_bayes.py,
1000 games a candidate, an interval of about +-0.025). At 3 and 4 players the round is shorter (it
ends after 2 or 3 accusations) and the same bars may be set wrong. This search asks, for one
count, which parameters win most in a seat of an all-bayes_v2 table:

- each candidate sits in the first slot of a balanced seating design (``fixed_first``) against
  n - 1 default bayes_v2 players, on the same seeded deals as the incumbent, so each candidate is
  judged by a *paired* difference with the incumbent (duplicate play, about +-0.012 at 2000 games);
- a coordinate search visits the parameters in turn; a value replaces the incumbent's when its
  paired difference is above ``--min-gain``;
- the result is then checked on deals the search never saw (``--check-seed``, ``--check-games``):
  the tuned player against default bayes_v2 in the same seat, paired. That check, not the search's
  own differences (chosen as the best of several, so biased upwards), is the figure to quote.

    python training/tune_by_count.py --players 3 --out docs/results/tune_bayes_v2_3p.json
"""

from __future__ import annotations

import argparse
import json
import time

from ckc_env import cli
from ckc_env.agents.bayes_v2 import BayesV2Params
from ckc_env.config import MAX_PLAYERS, MIN_PLAYERS
from ckc_env.evaluation.paired import PairedResult, compare
from ckc_env.evaluation.tournament import TournamentResult, run_tournament
from ckc_env.files import write_atomic

GRID: dict[str, list[float]] = {
    "sure": [0.2, 0.25, 0.3, 0.35, 0.4, 0.5],
    "bar_early": [0.5, 0.75, 1.0, 1.25, 1.5, 2.0],
    "bar_late": [1.0, 1.5, 2.0, 2.5, 3.0],
    "margin_last": [-0.5, -0.25, 0.0, 0.25, 0.5],
    "follow": [0.6, 0.7, 0.8, 0.9, 0.95],
}


def used(name: str, players: int) -> bool:
    """At 3 players the bar is always ``bar_early`` (one other player besides the last may accuse,
    at most), so ``bar_late`` changes nothing there."""
    return not (name == "bar_late" and players == 3)


def play(params: dict[str, float], players: int, games: int, seed: int) -> TournamentResult:
    lineup = [{"name": "bayes_v2", **params}] + ["bayes_v2"] * (players - 1)
    return run_tournament(lineup, games, seed=seed, fixed_first=True)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        description=cli.plain(__doc__), formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--players", type=cli.integer(MIN_PLAYERS, MAX_PLAYERS), required=True)
    parser.add_argument("--games", type=cli.games(), default=2000, help="games per candidate")
    parser.add_argument("--passes", type=cli.integer(1), default=1)
    parser.add_argument("--seed", type=cli.seed(), default=31)
    parser.add_argument(
        "--min-gain", type=cli.number(0.0, 1.0), default=0.005, help="paired win-rate gain needed to change a value"
    )
    parser.add_argument("--check-seed", type=cli.seed(), default=32)
    parser.add_argument("--check-games", type=cli.games(), default=4000)
    parser.add_argument("--out", required=True)
    args = parser.parse_args(argv)
    cli.check_outputs(parser, out=args.out)

    default = {name: getattr(BayesV2Params(), name) for name in BayesV2Params.names()}
    best = dict(default)
    log = []
    incumbents: dict[tuple[float, ...], TournamentResult] = {}
    start = time.time()
    for sweep in range(args.passes):
        for name, values in GRID.items():
            if not used(name, args.players):
                continue
            key = tuple(best.values())
            if key not in incumbents:  # the incumbent changes only when a value is taken
                incumbents[key] = play(best, args.players, args.games, args.seed)
            incumbent = incumbents[key]
            gains = {}
            for value in values:
                if value == best[name]:
                    continue
                candidate = {**best, name: value}
                diff = PairedResult(play(candidate, args.players, args.games, args.seed), incumbent).difference("win")
                gains[value] = diff.mean
                log.append(
                    {"pass": sweep, "parameter": name, "value": value, "incumbent": dict(best),
                     "difference": diff.mean, "low": diff.low, "high": diff.high}
                )  # fmt: skip
                print(f"pass {sweep} {name}={value}: {diff.mean:+.4f} [{diff.low:+.4f}, {diff.high:+.4f}]", flush=True)
            value, gain = max(gains.items(), key=lambda item: item[1])
            if gain > args.min_gain:
                best[name] = value
            print(f"-> {name} = {best[name]}", flush=True)
    check = compare(
        {"name": "bayes_v2", **best}, "bayes_v2", "bayes_v2", args.check_games, seed=args.check_seed,
        num_players=args.players,
    )  # fmt: skip
    diff = check.difference("win")
    print(check.table(), flush=True)
    out = {
        "players": args.players,
        "best": best,
        "default": default,
        "games_per_candidate": args.games,
        "seed": args.seed,
        "min_gain": args.min_gain,
        "passes": args.passes,
        "grid": GRID,
        "check": {
            "seed": args.check_seed,
            "games": check.first.games,
            "tuned_win_rate": check.first.stats()[0]["win"].mean,
            "default_win_rate": check.second.stats()[0]["win"].mean,
            "difference": diff.mean,
            "low": diff.low,
            "high": diff.high,
        },
        "seconds": round(time.time() - start),
        "log": log,
    }
    write_atomic(args.out, json.dumps(out, indent=2) + "\n")
    print(json.dumps(best))


if __name__ == "__main__":
    main()
