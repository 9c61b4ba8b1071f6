"""OpenSpiel: information-set MCTS on Checkpoint Charlie, against uniformly random bots.

The game is OpenSpiel's ``checkpoint_charlie`` (``ckc_env.envs.openspiel``); the searcher is
OpenSpiel's own ``ISMCTSBot``, which plans over worlds drawn from its information set with the
game's ``resample_from_infostate``, and evaluates them by random rollouts. Part 1 plays it in
OpenSpiel's terms (a loop over states, chance nodes sampled by their probabilities), the searcher's
seat rotating; part 2 seats it in a ckc_env tournament as the registered player ``openspiel_ismcts``
against ckc_env's ``random`` player. Needs the ``openspiel`` extra (``pip install -e ".[openspiel]"``).

    python examples/openspiel_ismcts.py --games 6 --players 3 --simulations 100
"""

from __future__ import annotations

import argparse
import sys
import time

from ckc_env import cli

try:  # without the extra: its name and the command that installs it, exit status 2
    cli.need_extra("openspiel", "pyspiel", "open_spiel")
except ValueError as exc:
    print(f"openspiel_ismcts.py: {exc}", file=sys.stderr)
    sys.exit(2)

import numpy as np
import pyspiel
from open_spiel.python.bots.uniform_random import UniformRandomBot

from ckc_env import cli
from ckc_env.config import MAX_PLAYERS, MIN_PLAYERS
from ckc_env.envs import openspiel as ckc_openspiel
from ckc_env.evaluation.tournament import run_tournament


def play(game: pyspiel.Game, bots: list, rng: np.random.RandomState) -> list[float]:
    """One game: each bot decides at its seat, chance nodes are sampled; returns each seat's return."""
    state = game.new_initial_state()
    while not state.is_terminal():
        if state.is_chance_node():
            outcomes, probabilities = zip(*state.chance_outcomes(), strict=True)
            state.apply_action(int(rng.choice(outcomes, p=probabilities)))
        else:
            state.apply_action(int(bots[state.current_player()].step(state)))
    return state.returns()


def openspiel_games(players: int, games: int, simulations: int, max_rounds: int, seed: int) -> None:
    game = pyspiel.load_game(ckc_openspiel.GAME_NAME, {"players": players, "max_rounds": max_rounds})
    rng = np.random.RandomState(seed)
    search_points, search_wins, random_points, random_wins = [], 0.0, [], 0.0
    for g in range(games):
        seat = g % players  # the searcher's seat rotates
        bots = [UniformRandomBot(p, np.random.RandomState(seed + 100 * g + p)) for p in range(players)]
        bots[seat] = ckc_openspiel.ismcts_bot(game, np.random.RandomState(seed + g), simulations=simulations)
        start = time.perf_counter()
        returns = play(game, bots, rng)
        best = max(returns)
        winners = [p for p in range(players) if returns[p] == best]  # ties on points: a shared win
        for p in range(players):
            share = 1 / len(winners) if p in winners else 0.0
            if p == seat:
                search_points.append(returns[p])
                search_wins += share
            else:
                random_points.append(returns[p])
                random_wins += share / (players - 1)
        print(f"game {g + 1}: ISMCTS at seat {seat}, points {returns} ({time.perf_counter() - start:.1f} s)")
    print(
        f"\nISMCTS ({simulations} simulations) against {players - 1} random bots, {games} games of at most "
        f"{max_rounds} round(s): ISMCTS points {np.mean(search_points):.2f}, wins {search_wins / games:.2f}; "
        f"a random bot: points {np.mean(random_points):.2f}, wins {random_wins / games:.2f} "
        "(win: highest points; OpenSpiel's returns here are points, without the gold tie-break)"
    )


def tournament(players: int, games: int, simulations: int, max_rounds: int, seed: int) -> None:
    ckc_openspiel.register_agents()  # "openspiel_ismcts" among the players specs name
    lineup = [{"name": ckc_openspiel.ISMCTS_NAME, "simulations": simulations}] + ["random"] * (players - 1)
    result = run_tournament(lineup, games=games, seed=seed, config={"max_rounds": max_rounds}, workers=1)
    if result.games != games:
        print(
            f"\n{games} games asked, {result.games} played: a tournament plays whole rounds of its seating "
            f"design, so that every player sits in every seat equally often"
        )
    print("\n" + result.table())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--games",
        type=cli.games(),
        default=6,
        help=f"games in each part (1..{cli.MAX_GAMES:,}; the tournament rounds up to whole seating designs)",
    )
    parser.add_argument("--players", type=cli.integer(MIN_PLAYERS, MAX_PLAYERS), default=3)
    parser.add_argument(
        "--simulations",
        type=cli.integer(1, ckc_openspiel.MAX_SIMULATIONS),
        default=100,
        help=f"ISMCTS simulations per decision (1..{ckc_openspiel.MAX_SIMULATIONS:,})",
    )
    parser.add_argument("--max-rounds", type=cli.integer(1, 5), default=5, help="rounds at most per game (1..5)")
    # NumPy's RandomState takes seeds below 2**32, and game g of part 1 is seeded seed + g
    parser.add_argument("--seed", type=cli.integer(0, 2**31 - 1), default=0, help="0..2**31 - 1 (default 0)")
    args = parser.parse_args()
    openspiel_games(args.players, args.games, args.simulations, args.max_rounds, args.seed)
    tournament(args.players, args.games, args.simulations, args.max_rounds, args.seed)


if __name__ == "__main__":
    main()
