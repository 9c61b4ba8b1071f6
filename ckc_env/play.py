"""Play seeded games between uniformly random legal agents and show them.

python -m ckc_env.play --players 5 --seed 0             # one game, round summaries
python -m ckc_env.play --players 4 --rules stasi --render
python -m ckc_env.play --games 200 --seed 1              # many games, totals only
"""

from __future__ import annotations

import argparse
from typing import Any

import numpy as np

from . import configs
from .checkpoint_charlie import raw_env
from .config import GameConfig
from .engine.cards import cat_name, clue_name
from .seeding import derive_seed


def play_game(aec: raw_env, seed: int, rng: np.random.Generator, render: bool = False) -> list[dict]:
    """Play one game with uniformly random legal actions; returns the round summaries."""
    aec.reset(seed=seed)
    summaries = []
    for agent in aec.agent_iter():
        obs, _, terminated, truncated, info = aec.last()
        if "round_summary" in info and agent == "player_0":
            summaries.append(info["round_summary"])
        if terminated or truncated:
            aec.step(None)
            continue
        if render:
            print(aec.render(), end="\n\n")
        aec.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    return aec.unwrapped.game.summaries


def describe_round(summary: dict[str, Any]) -> str:
    lines = [
        f"round {summary['round']}: clues "
        + ", ".join(f"player_{s} {clue_name(c)}" for s, c in enumerate(summary["clues"]))
        + (
            f"; bag {', '.join(clue_name(c) for c in summary['public_clues'] + summary['bag_clues'])}"
            if summary["bag_clues"] or summary["public_clues"]
            else ""
        )
    ]
    lines.append(
        f"  chief: cat {summary['chief']} ({cat_name(summary['chief'])}), {'drawn' if summary['chief_drawn'] else 'still in the deck'}"
    )
    for acc in summary["accusations"]:
        got = acc["colour"] if acc["received"] else f"no chip ({acc['colour']} ran out)"
        lines.append(f"  player_{acc['seat']} accused cat {acc['cat']} ({cat_name(acc['cat'])}): {got}")
    for non in summary["non_accusers"]:
        got = non["colour"] if non["received"] else f"no chip ({non['colour']} ran out)"
        lines.append(f"  player_{non['seat']} did not accuse: {got}")
    if summary.get("stasi_taken_by") is not None:
        lines.append(f"  player_{summary['stasi_taken_by']} took the Stasi chip")
    for swap in summary["swaps"]:
        lines.append(f"  player_{swap['seat']} swapped a {swap['colour']} Cafe Adler chip with player_{swap['with']}")
    if summary["game_over"]:
        totals = ", ".join(
            f"player_{s} {t} ({g} gold)"
            for s, (t, g) in enumerate(zip(summary["totals"], summary["gold"], strict=True))
        )
        lines.append(f"game over ({', '.join(summary['reasons'])}): {totals}; winners {summary['winners']}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--players", type=int, default=5, choices=(3, 4, 5))
    parser.add_argument("--rules", default=None, help="a rules preset (base, stasi, adler, both) or a YAML file")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--games", type=int, default=1)
    parser.add_argument("--render", action="store_true", help="print the table before every decision")
    args = parser.parse_args(argv)
    if args.games <= 0:
        parser.error(f"--games must be a positive number of games, got {args.games}")
    config = (
        GameConfig.from_yaml(configs.preset("rules", args.rules), num_players=args.players)
        if args.rules
        else GameConfig(num_players=args.players)
    )
    aec = raw_env(render_mode="ansi", **config.to_dict())
    rng = np.random.default_rng(args.seed)
    wins = np.zeros(args.players)
    totals = np.zeros(args.players)
    rounds = 0
    for game_index in range(args.games):
        summaries = play_game(aec, seed=derive_seed(args.seed, "game", game_index), rng=rng, render=args.render)
        final = summaries[-1]
        rounds += len(summaries)
        for seat in final["winners"]:
            wins[seat] += 1 / len(final["winners"])
        totals += final["totals"]
        if args.games == 1:
            print("\n\n".join(describe_round(s) for s in summaries))
    if args.games > 1:
        print(f"{args.games} games of random players, {rounds / args.games:.2f} rounds per game")
        for seat in range(args.players):
            print(
                f"  player_{seat}: win share {wins[seat] / args.games:.3f}, mean points {totals[seat] / args.games:.2f}"
            )


if __name__ == "__main__":
    main()
