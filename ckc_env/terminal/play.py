"""Play Checkpoint Charlie in the terminal: sit at the table with scripted players or checkpoints,
watch seeded games between them, or replay a game step by step.

    ckc-play --seat 0 --opponents bayes_v1 eager random        # you at seat 0 of a 4-player game
    ckc-play --seat 2 --players 5 --rules stasi                # you against four bayes_v1, Stasi variant
    ckc-play --seat 1 --opponents checkpoints/ppo_all_counts_mixed_34p bayes_v1 bayes_v1 bayes_v1  # the strongest agent
    ckc-play --replay replays/seed123.json                     # a finished game, step by step
    ckc-play --replay replays/seed123.json --video game.mp4    # ... as a video, the spectator's view (or .gif)
    ckc-play --players 5 --seed 0                              # a game between random players, round by round
    ckc-play --players 4 --rules stasi --render                # ... with the table before every decision
    ckc-play --games 200 --seed 1                              # many games, totals only

(``ckc-play`` is ``python -m ckc_env.terminal.play``.)

Players are specs (:mod:`ckc_env.players.specs`): the name of a registered agent
(:data:`ckc_env.agents.REGISTRY`: AGENT_NAMES),
``NAME:KEY=VALUE`` for parameters, or checkpoints (safe agent files; a stable-baselines3 ``.zip``
loads only with ``--trust-checkpoint``). ``--opponents`` gives one spec for every other seat or
one per other seat in seat order (default: ``bayes_v1`` with a person at the table, ``random``
otherwise); their count sets the number of players unless ``--players`` does.

A person's game is seeded at random unless ``--seed`` is given; the seed is printed, and the
game is written as a replay file (JSON: the rules, the seed and the actions, :mod:`ckc_env.terminal.replay`)
to ``replays/`` or to ``--save-replay FILE``, also when the person quits. Any single game can be
saved with ``--save-replay``. Bad input ends with a usage message and exit status 2.
"""

from __future__ import annotations

import argparse
import secrets
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
from rich.console import Console
from rich.markup import escape

from .. import cli, configs
from ..agents import REGISTRY, Agent
from ..config import MAX_PLAYERS, MIN_PLAYERS, GameConfig, load_rules
from ..engine.actions import action_to_string
from ..engine.cards import cat_name, clue_name
from ..engine.state import SWAPPING
from ..engine.summary import round_summary
from ..engine.view import PlayerView
from ..evaluation.statistics import wilson
from ..files import printable
from ..observation import OBSERVATION
from ..players import build as build_player
from ..players import specs
from ..players import validate as validate_player
from ..render import render_text
from ..seeding import derive_seed
from ..table.scalar import Table
from .human import REASONS, HumanAgent, PlayerQuitError, shown
from .replay import Replay

RoundWatcher = Callable[[dict[str, Any], Any], None]

AGENT_NAMES = ", ".join(sorted(REGISTRY))
"""The agents a player spec may name, from the registry (the help lists them: it cannot drift)."""
__doc__ = __doc__.replace("AGENT_NAMES", AGENT_NAMES)


def play_game(
    config: GameConfig,
    agents: Sequence[Agent],
    seed: int,
    labels: Sequence[str],
    on_round: RoundWatcher | None = None,
    before_decision: Callable[[Any], None] | None = None,
    replay: Replay | None = None,
) -> Replay:
    """One game with ``agents[s]`` at seat s, recorded as a replay.

    ``on_round(summary, game)`` is called at each round's end, ``before_decision(game)`` before each
    decision. If a player raises (a person quitting), ``replay`` (when given) holds the actions so far.
    """
    table = Table(config, OBSERVATION)
    game = table.deal(seed)
    replay = replay if replay is not None else Replay(config, seed, list(labels))
    for seat, agent in enumerate(agents):
        agent.reset(seat, config)
    rounds_seen = 0
    while not game.game_over:
        if before_decision is not None:
            before_decision(game)
        seat = game.current_seat
        action = int(agents[seat].act(table.views[seat], table.lazy_observation(seat)))
        if not table.is_legal(action):
            raise ValueError(f"illegal action {action} for player_{seat}: legal actions are {table.legal_text()}")
        table.apply(action)
        replay.actions.append(action)
        while rounds_seen < len(game.summaries):
            if on_round is not None:
                on_round(game.summaries[rounds_seen], game)
            rounds_seen += 1
    replay.finished = True
    replay.result = {key: game.final[key] for key in ("totals", "gold", "winners", "reasons")}
    return replay


def describe_round(summary: dict[str, Any]) -> str:
    """A round's public record as plain text (random games, replays)."""
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
        reasons = "; ".join(REASONS.get(r, r) for r in summary["reasons"])
        winners = " and ".join(f"player_{s}" for s in summary["winners"])
        lines.append(
            f"game over ({reasons}): {totals}; {winners} {'wins' if len(summary['winners']) == 1 else 'share the win'}"
        )
    return "\n".join(lines)


# ---------------------------------------------------------------------- a person at the table
def play_human(
    config: GameConfig,
    seat: int,
    opponents: Sequence[specs.PlayerSpec],
    seed: int,
    console: Console,
    ask: Callable[[str], str] | None = None,
    replay_path: Path | None = None,
    trust_checkpoint: bool = False,
    pause: bool = False,
) -> Replay:
    """A person at ``seat`` against ``opponents`` (the other seats in order); the replay is saved.
    With ``pause``, the person reads each round's end before the next round starts (Enter)."""
    others = [
        build_player(spec, seed=derive_seed(seed, "agent", s), trust_checkpoint=trust_checkpoint)
        for s, spec in enumerate(opponents)
    ]
    agents: list[Agent] = []
    labels: list[str] = []
    human = HumanAgent(console, ask)
    for s in range(config.num_players):
        if s == seat:
            agents.append(human)
            labels.append("human")
        else:
            k = s if s < seat else s - 1
            agents.append(others[k])
            labels.append(specs.label(opponents[k]))
    human.labels = labels
    console.print(
        f"[bold]Checkpoint Charlie[/], {config.num_players} players, seed {seed}. You are player_{seat}; "
        + ", ".join(f"player_{s}: {shown(labels[s])}" for s in range(config.num_players) if s != seat)
        + ". Type ? for help."
    )
    replay = Replay(config, seed, labels)
    path = replay_path or _free_path(Path("replays") / f"seed{seed}-{time.strftime('%Y%m%d-%H%M%S')}.json")

    def on_round(summary: dict[str, Any], game: Any) -> None:
        if game.game_over:  # every chip is turned over
            human.final_chips = [[game.pool.points[chip] for chip in game.holdings[s]] for s in range(game.n)]
        human.show_round(summary, PlayerView(game, seat))
        if pause and not game.game_over:  # at 80 columns the summary would scroll away with the next round
            human.pause("[dim]Enter: next round[/] ")  # text typed here answers the next question

    def before_decision(game: Any) -> None:
        if game.phase == SWAPPING and game.current_seat == seat and human._scored != game.round_index + 1:
            human.show_scoring(round_summary(game, []), PlayerView(game, seat))  # before a Cafe Adler decision

    try:
        play_game(config, agents, seed, labels, on_round=on_round, before_decision=before_decision, replay=replay)
    except (PlayerQuitError, EOFError, KeyboardInterrupt):
        replay.save(path)
        console.print(f"\nGame left after {len(replay.actions)} decisions; the replay so far: {shown(str(path))}")
        raise
    replay.save(path)
    console.print(f"Replay: {shown(str(path))}  (ckc-play --replay {shown(str(path))})")
    return replay


def _free_path(path: Path) -> Path:
    k, candidate = 1, path
    while candidate.exists():
        k += 1
        candidate = path.with_name(f"{path.stem}_{k}{path.suffix}")
    return candidate


# ---------------------------------------------------------------------- replays
def replay_video(
    replay: Replay, path: str | Path, seat: int | None = None, fps: int = 2, source: str = "replay"
) -> Path:
    """Write a replay as a video (``.mp4``, or ``.gif``), one frame per step: the table before each
    decision, then at the end, as the spectator (or ``seat``) may see it, a progress bar along the
    bottom (:mod:`ckc_env.picture`, the ``render`` extra)."""
    cli.need_extra("render", "PIL")
    from ..picture import frames_of, save_video

    n = replay.config.num_players
    if seat is not None and not 0 <= seat < n:
        raise ValueError(f"--seat {seat} is not a seat of this {n}-player replay: seats are 0 to {n - 1}")
    try:
        frames = frames_of((state for _, state in replay.states(source)), seat, total=len(replay.actions) + 1)
        return save_video(frames, path, fps)
    except OSError as exc:
        raise ValueError(f"cannot write the video {path}: {exc}") from None


def show_replay(replay: Replay, console: Console, pause: bool, source: str = "replay") -> None:
    """A recorded game step by step: each decision, the table before it (everything revealed:
    this is after the game), and each round's end."""
    config = replay.config
    console.print(
        f"[bold]Replay[/] of a {config.num_players}-player game, seed {replay.seed}, {len(replay.actions)} decisions: "
        + ", ".join(f"player_{s} {shown(p)}" for s, p in enumerate(replay.players))
    )
    rounds_seen = 0
    for step, state in replay.states(source):
        while rounds_seen < len(state.summaries):
            console.print(describe_round(state.summaries[rounds_seen]), markup=False, soft_wrap=True)
            rounds_seen += 1
        if step == len(replay.actions):
            break
        seat = state.current_seat
        console.rule(f"step {step + 1}/{len(replay.actions)}")
        console.print(render_text(state), markup=False, soft_wrap=True)
        hidden = ", ".join(
            f"player_{s} {clue_name(c)}" if c >= 0 else f"player_{s} ?" for s, c in enumerate(state.clues)
        )
        console.print(
            f"hidden clues: {hidden}; bag: {', '.join(clue_name(c) for c in state.bag) or '-'}",
            markup=False,
            soft_wrap=True,
        )
        action = replay.actions[step]
        console.print(f"[bold]player_{seat}[/] ({shown(replay.players[seat])}): {escape(action_to_string(action))}")
        if pause:
            answer = console.input("[dim]Enter: next step, c: to the end, q: quit[/] ").strip().lower()
            if answer == "q":
                return
            if answer == "c":
                pause = False
    if not replay.finished:
        console.print(f"(the game was left after {len(replay.actions)} decisions)")


# ---------------------------------------------------------------------- the command
def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="ckc-play",
        description=cli.plain(__doc__.split("\n\n")[0]),
        epilog=cli.plain(__doc__.split("\n\n", 1)[1]),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "--seat",
        type=cli.integer(0),
        help="sit at this seat yourself (0 to players-1); with --replay --video, whose view the video shows",
    )
    parser.add_argument(
        "--opponents",
        nargs="+",
        metavar="PLAYER",
        help=f"the other seats: one spec for all or one per seat ({AGENT_NAMES}, or a checkpoint)",
    )
    parser.add_argument(
        "--players",
        type=cli.integer(MIN_PLAYERS, MAX_PLAYERS),
        help=f"number of players, {MIN_PLAYERS} to {MAX_PLAYERS} (default 5)",
    )
    parser.add_argument(
        "--rules", metavar="PRESET", help=f"rules preset ({', '.join(configs.names('rules'))}) or a YAML file"
    )
    parser.add_argument(
        "--seed",
        type=cli.seed(),
        help=f"the game's seed, 0 to {cli.MAX_SEED} (default: random with --seat, else 0)",
    )
    parser.add_argument(
        "--games",
        type=cli.games(),
        default=1,
        help=f"games between computer players, 1 to {cli.MAX_GAMES:,} (default 1)",
    )
    parser.add_argument("--render", action="store_true", help="print the table before every decision")
    parser.add_argument("--save-replay", metavar="FILE", help="write the game's replay here (one game)")
    parser.add_argument("--replay", metavar="FILE", help="show a replay file step by step")
    parser.add_argument("--no-pause", action="store_true", help="replay without waiting for Enter")
    parser.add_argument(
        "--video",
        metavar="FILE",
        help="with --replay: write it as a video instead, one frame per step (.mp4, or .gif), the spectator's "
        "view, or with --seat that seat's view (needs the render extra)",
    )
    parser.add_argument("--fps", type=cli.integer(1, 60), help="frames per second of --video, 1 to 60 (default 2)")
    parser.add_argument(
        "--trust-checkpoint",
        action="store_true",
        help="let stable-baselines3 .zip players load: loading a zip unpickles it, which can run code",
    )
    return parser


def main(
    argv: Sequence[str] | None = None, console: Console | None = None, ask: Callable[[str], str] | None = None
) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    console = console or Console(highlight=False)
    try:
        check_outputs(args)
        if args.replay:
            replay = Replay.load(args.replay)
            replay.check(args.replay)  # every action, before the first step is shown
            if args.video:
                path = replay_video(replay, args.video, args.seat, args.fps or 2, args.replay)
                view = "spectator" if args.seat is None else f"player_{args.seat}"
                console.print(
                    f"video: {printable(str(path))} ({len(replay.actions) + 1} frames, {view}'s view)", markup=False
                )
                return 0
            if args.seat is not None or args.fps:
                raise ValueError("--seat and --fps with --replay go with --video (the view and pace of the video)")
            show_replay(replay, console, pause=not args.no_pause and sys.stdin.isatty(), source=args.replay)
            return 0
        config, opponents = _table(args)
        if args.seat is not None:
            seed = args.seed if args.seed is not None else secrets.randbelow(2**31)
            path = Path(args.save_replay) if args.save_replay else None
            try:
                pause = ask is None and sys.stdin.isatty()
                play_human(config, args.seat, opponents, seed, console, ask, path, args.trust_checkpoint, pause)
            except (PlayerQuitError, EOFError, KeyboardInterrupt):
                return 1
            return 0
        watch(config, opponents, args, console)
        return 0
    except ValueError as exc:
        cli.fail(parser, exc)


def check_outputs(args: argparse.Namespace) -> None:
    """The files the command will write, checked before the game or the replay: ``--video`` (its
    suffix, the render extra) and ``--save-replay`` can be written (a folder or a FIFO in the way, a
    file where a folder must be, a folder that is not writable are refused now, not after the game)."""
    from ..files import check_output

    if args.video:
        cli.need_extra("render", "PIL")
        from ..picture import check_video

        check_video(args.video)
    if args.save_replay:
        check_output(args.save_replay, "--save-replay")


def _table(args: argparse.Namespace) -> tuple[GameConfig, list[specs.PlayerSpec]]:
    """The game's rules and the computer players, checked (ValueError names what is wrong)."""
    if args.replay is None and args.no_pause:
        raise ValueError("--no-pause goes with --replay")
    if args.replay is None and (args.video or args.fps):
        raise ValueError("--video (and --fps) go with --replay: write a game with --save-replay, then its video")
    human = args.seat is not None
    given = [specs.from_text(p) for p in args.opponents] if args.opponents else ["bayes_v1" if human else "random"]
    path = configs.preset("rules", args.rules) if args.rules else None
    rules = load_rules(path) if path is not None else {}  # every value checked, num_players too
    if args.players is not None:
        players, source = args.players, f"--players {args.players}"
    elif len(given) > 1:
        players = len(given) + int(human)
        source = f"{len(given)} opponents and you" if human else f"{len(given)} players"
        if not MIN_PLAYERS <= players <= MAX_PLAYERS:
            raise ValueError(
                f"{source} make {players} players: a game has {MIN_PLAYERS} to {MAX_PLAYERS} (or give one spec for all seats)"
            )
    else:
        players, source = rules.get("num_players", 5), None
    if source is not None and rules.get("num_players", players) != players:
        raise ValueError(
            f"{source} make {players} players, but the rules file {path} says num_players: {rules['num_players']}"
        )
    try:
        config = GameConfig.from_dict({**rules, "num_players": players})
    except ValueError as exc:
        raise ValueError(f"{path}: {exc}" if path is not None else exc) from None
    if human and args.seat >= players:
        raise ValueError(f"--seat {args.seat} is not a seat of a {players}-player game: seats are 0 to {players - 1}")
    others = players - int(human)
    opponents = specs.for_seats(given, others, what="opponents" if human else "players")
    for spec in opponents:
        validate_player(spec, trust_checkpoint=args.trust_checkpoint)
    if human and args.render:
        raise ValueError("--render is for games between computer players: a person sees the table anyway")
    if human and args.games != 1:
        raise ValueError("--games is for games between computer players: a person plays one game")
    if args.save_replay and args.games != 1:
        raise ValueError("--save-replay saves one game: leave out --games")
    return config, opponents


def watch(config: GameConfig, players: list[specs.PlayerSpec], args: argparse.Namespace, console: Console) -> None:
    """Games between computer players: one shown round by round, or many summed up."""
    seed = args.seed if args.seed is not None else 0
    n = config.num_players
    labels = [specs.label(p) for p in players]
    wins, totals, rounds = np.zeros(n), np.zeros(n), [0]
    single = args.games == 1

    def on_round(summary: dict[str, Any], game: Any) -> None:
        rounds[0] += 1
        if single:
            console.print(describe_round(summary) + "\n", markup=False, soft_wrap=True)

    def before(game: Any) -> None:
        console.print(render_text(game) + "\n", markup=False, soft_wrap=True)

    for g in range(args.games):
        agents = [
            build_player(spec, seed=derive_seed(seed, "agent", g, s), trust_checkpoint=args.trust_checkpoint)
            for s, spec in enumerate(players)
        ]
        game_seed = derive_seed(seed, "game", g)
        replay = play_game(config, agents, game_seed, labels, on_round, before if args.render else None)
        if args.save_replay:
            console.print(f"replay: {shown(str(replay.save(args.save_replay)))}")
        for seat in replay.result["winners"]:
            wins[seat] += 1 / len(replay.result["winners"])
        totals += replay.result["totals"]
    if not single:
        console.print(f"{args.games} games of {', '.join(labels)}: {rounds[0] / args.games:.2f} rounds per game")
        for seat in range(n):
            low, high = wilson(wins[seat] / args.games, args.games)
            console.print(
                f"  player_{seat} ({labels[seat]}): win share {wins[seat] / args.games:.3f} [{low:.3f}, {high:.3f}], "
                f"mean points {totals[seat] / args.games:.2f}",
                markup=False,
            )
        console.print("(seats are not rotated here: for comparing players, use ckc-evaluate)")


if __name__ == "__main__":
    sys.exit(main())
