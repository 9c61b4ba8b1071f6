"""Play seeded games and show them: uniformly random legal players by default, or any lineup of
player specs (scripted agents, trained checkpoints: ``ckc_env.specs``).

ckc-play --players 5 --seed 0                                   # one game, round summaries
ckc-play --players 4 --rules stasi --render
ckc-play --games 200 --seed 1                                   # many games, totals only
ckc-play --lineup checkpoints/ppo_5p_distilled bayes_v1 bayes_v1 eager random --seed 3

(``ckc-play`` is ``python -m ckc_env.play``.) A stable-baselines3 ``.zip`` in the lineup loads
only with ``--trust-checkpoint`` (its loading unpickles); safe agent files need no trust.
"""

from __future__ import annotations

import argparse
from typing import Any

import numpy as np

from . import configs, specs
from .agents import Agent
from .checkpoint_charlie import raw_env
from .config import GameConfig
from .engine.cards import cat_name, clue_name
from .engine.view import PlayerView
from .seeding import derive_seed


def play_game(aec: raw_env, seed: int, agents: list[Agent], render: bool = False) -> list[dict]:
    """Play one game with ``agents[s]`` at seat s; returns the round summaries."""
    aec.reset(seed=seed)
    for seat, agent in enumerate(agents):
        agent.reset(seat, aec.config)
    views = [PlayerView(aec.game, seat) for seat in range(len(agents))]
    for name in aec.agent_iter():
        obs, _, terminated, truncated, _ = aec.last()
        if terminated or truncated:
            aec.step(None)
            continue
        if render:
            print(aec.render(), end="\n\n")
        seat = aec.possible_agents.index(name)
        aec.step(agents[seat].act(views[seat], obs))
    return aec.game.summaries


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
    parser.add_argument("--players", type=int, default=5, choices=(3, 4, 5), help="seats of random players")
    parser.add_argument("--lineup", nargs="+", metavar="PLAYER", help="3 to 5 player specs, one per seat")
    parser.add_argument(
        "--trust-checkpoint",
        action="store_true",
        help="let stable-baselines3 .zip players load: loading a zip unpickles it, which can run code",
    )
    parser.add_argument("--rules", default=None, help="a rules preset (base, stasi, adler, both) or a YAML file")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--games", type=int, default=1)
    parser.add_argument("--render", action="store_true", help="print the table before every decision")
    args = parser.parse_args(argv)
    if args.games <= 0:
        parser.error(f"--games must be a positive number of games, got {args.games}")
    lineup = [specs.from_text(p) for p in args.lineup] if args.lineup else ["random"] * args.players
    try:
        if not 3 <= len(lineup) <= 5:
            raise ValueError(f"--lineup takes 3 to 5 players, got {len(lineup)}")
        for spec in lineup:
            specs.validate(spec, trust_checkpoint=args.trust_checkpoint)
    except ValueError as exc:
        parser.error(str(exc))
    args.players = len(lineup)
    config = (
        GameConfig.from_yaml(configs.preset("rules", args.rules), num_players=args.players)
        if args.rules
        else GameConfig(num_players=args.players)
    )
    aec = raw_env(render_mode="ansi", **config.to_dict())
    wins = np.zeros(args.players)
    totals = np.zeros(args.players)
    rounds = 0
    for game_index in range(args.games):
        agents = [
            specs.build(spec, derive_seed(args.seed, "agent", game_index, seat), trust_checkpoint=args.trust_checkpoint)
            for seat, spec in enumerate(lineup)
        ]
        seed = derive_seed(args.seed, "game", game_index)
        summaries = play_game(aec, seed, agents, render=args.render)
        final = summaries[-1]
        rounds += len(summaries)
        for seat in final["winners"]:
            wins[seat] += 1 / len(final["winners"])
        totals += final["totals"]
        if args.games == 1:
            print("\n\n".join(describe_round(s) for s in summaries))
    if args.games > 1:
        print(f"{args.games} games, {rounds / args.games:.2f} rounds per game")
        for seat in range(args.players):
            print(
                f"  player_{seat} ({specs.label(lineup[seat])}): win share {wins[seat] / args.games:.3f}, "
                f"mean points {totals[seat] / args.games:.2f}"
            )


if __name__ == "__main__":
    main()
