"""Approximate best responses: how much a learner trained against a fixed player's table wins over
that player, in the same seat on deals it never saw.

    ckc-best-response bayes_v2 --num-players 3 --steps 1000000 --seed 0
    ckc-best-response checkpoints/ppo_all_counts_mixed_34p --num-players 3 --start self --steps 500000

(``ckc-best-response`` is ``python -m ckc_env.training.commands.best_response``.)

Exploitability, the distance of a policy from a best response to the table it sits at, is what
OpenSpiel reports for small games; for a game of this size the field trains an approximate best
response instead (Timbers et al., "Approximate exploitability", arXiv 2004.09677): a learner
against a table of the fixed player, every other seat that player. Its gain over the player, in the
learner's seat on the same deals, is a lower bound on what the table leaves to win against that
player, for the learner's class of policy and budget: a clear gain shows the player exploitable
by that much; a gain of zero says only that this learner, with this budget, found nothing.

The learner is MaskablePPO on the batched engine (a ``ckc-train`` run: ``configs/train/
best_response_scratch.yaml`` from nothing, ``best_response_finetune.yaml`` from an agent file,
``--engine jax`` for the device trainer), its seat drawn per game. ``--start`` is ``scratch``,
``self`` (the fixed player's own agent file) or any agent file; the run takes that file's observation
layout and network. The budget is spent in whole rollouts (``--steps`` rounded up, said when it is). Its
evaluations (about every ``steps / 5``, in whole rollouts, 2000 games on the training deals' evaluation
seeds) pair the learner with the fixed player in its seat (``eval.reference``): the learning curve.
Then the best model of the run (picked on those evaluation deals) and the final one each play
``--games`` held-out deals from a seed of their own, paired with the fixed player in the same seat
(:func:`ckc_env.evaluation.paired.compare`'s design): the published gain.

The folder (``--out``, default ``runs/best_response/<player>_<n>p_<start>_seed<seed>``) is a
``ckc-train`` run folder (``config.yaml``, ``command.txt``, the models, ``evaluations.json``) with
``held_out_best.json`` and ``held_out_final.json`` (the paired results) and ``best_response.json``:
the player, the start, the budget, the held-out gains with their intervals, the curve and the wall
times. ``--resume OUT`` finishes an interrupted one (the training where it stopped, then the
held-out games). Bad input ends with exit status 2 before anything is written.
"""

from __future__ import annotations

import argparse
import json
import shlex
import sys
import time
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from ckc_env import cli, configs, players
from ckc_env.agents import REGISTRY
from ckc_env.config import MAX_PLAYERS, MIN_PLAYERS, load_yaml_mapping
from ckc_env.files import InputError, printable, read_json, write_atomic
from ckc_env.players import specs
from ckc_env.seeding import derive_seed

from ..config import TrainConfig, load_config, parse_config
from ..config.limits import MAX_TIMESTEPS
from ..evaluation.best_response import curve, describe, held_out
from ..run import folder as run_folder
from .checks import check_players, need_extras
from .train import TRAINER, train

RECIPES = {"scratch": "best_response_scratch", "agent": "best_response_finetune"}
"""The shipped recipe of each kind of start (``configs/train/``)."""
RESULT = "best_response.json"
EVALUATIONS = 5
"""Evaluations along the run (and one of the start): the learning curve's points."""
ENGINES = ("sb3", "jax")
NEW_RUN = {"steps": 1_000_000, "start": "scratch", "seed": 0, "eval_games": 2000, "engine": "sb3"}
"""A new run's options and their defaults (``--resume`` takes them from the run's plan)."""
TRAINING = (*NEW_RUN, "num_players", "recipe")


def agent_card(spec: Any, what: str):
    """The card of a safe agent file named by ``spec`` (an InputError naming ``what`` otherwise)."""
    from ckc_env.players import agent_file

    try:
        return agent_file.read_card(agent_file.card_path(str(spec)))
    except (InputError, OSError, ValueError) as exc:
        raise InputError(f"{what}={spec}: not a safe agent file ({exc})") from None


def start_file(player: Any, start: str) -> str | None:
    """The agent file ``--start`` names (None: from scratch); ``self`` is the fixed player's own."""
    if start == "scratch":
        return None
    if start == "self":
        if not isinstance(player, str) or player in REGISTRY:
            raise InputError(
                f"--start self: {specs.label(player)} is a scripted player, not an agent file: start from scratch or "
                "from an agent file (--start checkpoints/ppo_all_counts_mixed_34p)"
            )
        return player
    return start


def build_config(
    player: Any,
    num_players: int,
    steps: int,
    seed: int,
    start: str | None,
    recipe: Path,
    engine: str,
    eval_games: int = 2000,
) -> TrainConfig:
    """The run's config: ``recipe`` with the fixed player at every other seat, the budget, the seed,
    the evaluations (the fixed player's table, paired with it in the learner's seat) and, from an
    agent file, its layout and network."""
    data = load_yaml_mapping(recipe)
    data.update(
        seed=seed,
        total_timesteps=steps,
        game={**data.get("game", {}), "num_players": num_players},
        opponents=[player],
        eval={
            "every": 1,  # set below, in whole rollouts
            "games": eval_games,
            "opponents": {"vs_player": [player]},
            "reference": player,
        },
    )
    data.pop("population", None)
    if start is not None:
        card = agent_card(start, "--start")
        pi, vf = ([layer.outputs for layer in net[:-1]] for net in (card.policy, card.value))
        activation = {layer.activation for layer in card.policy[:-1]} or {"tanh"}
        data.update(
            init_from=str(start),
            belief_features=card.belief_features,
            policy={"net_arch": pi if pi == vf else {"pi": pi, "vf": vf}, "activation_fn": activation.pop()},
        )
    if engine == "jax":  # the device trainer: one process, its own batch of games
        data.update(engine="jax", vector={"num_envs": data.get("vector", {}).get("num_envs", 1024)})
    rollout = parse_config(data).rollout_steps
    rollouts = -(-steps // rollout)  # a budget is spent in whole rollouts, each ending in an update
    data.update(total_timesteps=rollouts * rollout)
    data["eval"]["every"] = rollout * -(-rollouts // EVALUATIONS)  # every evaluation after an update
    return parse_config(data)


def rounded_note(asked: int, config: TrainConfig) -> str | None:
    """What a user is told when the budget they gave is not a whole number of rollouts."""
    if config.total_timesteps == asked:
        return None
    return (
        f"--steps {asked:,} rounds up to whole rollouts of {config.rollout_steps:,} learner steps "
        f"(n_steps x game slots): the run trains {config.total_timesteps:,} steps, evaluating every "
        f"{config.eval.every:,}"
    )


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="ckc-best-response", description=cli.plain(__doc__), formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("player", nargs="?", help="the fixed player: a registered name or an agent file")
    parser.add_argument(
        "--num-players", type=cli.integer(MIN_PLAYERS, MAX_PLAYERS), metavar="N", help="seats at the table"
    )
    parser.add_argument(
        "--steps",
        type=cli.integer(1, MAX_TIMESTEPS),
        default=None,
        help="the learner's budget in decisions (default 1,000,000), rounded up to whole rollouts (n_steps x "
        "game slots: 16,384 for the shipped recipes) so that it ends with an update; the run's evaluations (at most "
        "five along it) fall after updates too",
    )
    parser.add_argument(
        "--start", default=None, help="scratch (default), self (the player's own agent file), or an agent file"
    )
    parser.add_argument("--seed", type=cli.seed(), default=None, help="the run's seed (default 0)")
    parser.add_argument(
        "--games",
        type=cli.games(),
        default=None,
        help="held-out games for each model, rounded up to the seating design (default 2000; with --resume, "
        "the run's own unless given: its held-out games played again at that size)",
    )
    parser.add_argument(
        "--eval-games",
        type=cli.games(),
        default=None,
        help="games of each evaluation along the run, the learning curve's points (default 2000)",
    )
    parser.add_argument("--engine", choices=ENGINES, default=None, help="sb3 (default, the batched engine) or jax")
    parser.add_argument("--recipe", help="a training YAML to use instead of the shipped recipe of the start")
    parser.add_argument("--out", help="the run folder (default runs/best_response/<player>_<n>p_<start>_seed<seed>)")
    parser.add_argument("--force", action="store_true", help="replace the best response an existing --out holds")
    parser.add_argument("--resume", metavar="OUT", help="finish an interrupted best response")
    parser.add_argument("--no-progress", action="store_true")
    parser.add_argument("--trust-checkpoint", action="store_true", help="let stable-baselines3 .zip players load")
    return parser


def default_out(player: Any, num_players: int, start: str, seed: int) -> str:
    name = Path(specs.label(player)).name.replace("(", "_").replace(")", "").replace(",", "_").replace("=", "")
    begin = start if start in ("scratch", "self") else "from_" + Path(start).stem
    return f"runs/best_response/{name}_{num_players}p_{begin}_seed{seed}"


PLAN = "best_response_plan.json"
PLAN_KEYS = ("player", "num_players", "start", "steps", "seed", "engine", "recipe", "held_out_games", "command")


def read_plan(run_dir: Path, trust: bool) -> dict[str, Any]:
    """A best response's plan (``best_response_plan.json``), checked as a file from a stranger
    before anything runs: a mapping of exactly the keys a new run writes, each of its type and in
    its range, the player a valid one (a zip only with trust). :class:`InputError` naming the file
    and the key otherwise."""
    from ckc_env.files import keys_text, short, unknown_keys

    path = run_dir / PLAN
    what = f"the best response's plan {printable(str(path))}"
    record = read_json(path, "the best response's plan", limit=1 << 20)
    if not isinstance(record, dict):
        raise InputError(f"{what} is not a mapping of {list(PLAN_KEYS)}")
    unknown = unknown_keys(record, PLAN_KEYS)
    missing = [key for key in PLAN_KEYS[:-1] if key not in record]
    if unknown or missing:
        problems = [f"unknown key(s) {keys_text(unknown)}"] if unknown else []
        problems += [f"missing key(s) {missing}"] if missing else []
        raise InputError(f"{what}: {'; '.join(problems)} (a plan holds {list(PLAN_KEYS)})")

    def count(key: str, low: int, high: int) -> None:
        value = record[key]
        if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
            raise InputError(f"{what}: {key}={short(value)}: accepted values are integers from {low} to {high:,}")

    count("num_players", MIN_PLAYERS, MAX_PLAYERS)
    count("steps", 1, MAX_TIMESTEPS)
    count("seed", 0, cli.MAX_SEED)
    count("held_out_games", 1, cli.MAX_GAMES)
    if record["engine"] not in ENGINES:
        raise InputError(f"{what}: engine={short(record['engine'])}: accepted values are {list(ENGINES)}")
    for key in ("start", "recipe", "command"):
        value = record.get(key, "")
        if not isinstance(value, str) or len(value) > 4096 or (key != "command" and not value):
            raise InputError(f"{what}: {key}={short(value)} is not a text of at most 4096 characters")
    try:
        players.validate(record["player"], trust_checkpoint=trust)
    except (ValueError, TypeError) as exc:
        raise InputError(f"{what}: player: {exc}") from None
    return record


def resume_point(run_dir: Path, config: TrainConfig) -> tuple[list[dict[str, Any]], Path | None]:
    """A resumed best response's evaluations (checked) and the model its training continues from
    (None: the training is done, the held-out games are what is left)."""
    from ..evaluation import load_history
    from .checks import jax_resume_point

    history = load_history(run_dir, config)
    if history and history[-1]["timesteps"] >= config.total_timesteps and (run_dir / "final_model.json").is_file():
        return history, None
    if config.engine == "jax":
        return history, jax_resume_point(run_dir, history, config)
    return history, run_folder.resume_point(run_dir, history)[0]


def main(argv: list[str] | None = None) -> Path:
    parser = build_parser()
    args = parser.parse_args(argv)
    trust = args.trust_checkpoint
    lock = note = None
    try:
        if args.resume:
            given = [f"--{k.replace('_', '-')}" for k in TRAINING if getattr(args, k) is not None]
            given += [
                name for name, on in (("a player", args.player), ("--out", args.out), ("--force", args.force)) if on
            ]
            if given:
                raise ValueError(
                    f"--resume OUT continues the best response it names, as it was planned: {', '.join(given)} "
                    "cannot be given with it (no player, --out, --force or training option); --games replays its "
                    "held-out games at another size"
                )
            run_dir = Path(args.resume)
            lock = run_folder.hold(run_dir)
            record = read_plan(run_dir, trust)
            marker = run_folder.open_run(run_dir, TRAINER)
            if args.games is not None:
                record["held_out_games"] = args.games
            config = load_config(run_dir / "config.yaml")
            need_extras(config)
            run_folder.check_config(run_dir, marker, config.to_dict(), TrainConfig().to_dict())
            history, resume_from = resume_point(run_dir, config)
            plan = None
        else:
            if args.player is None or args.num_players is None:
                raise ValueError("give the fixed player and --num-players N (or --resume OUT)")
            for key, value in NEW_RUN.items():  # the defaults of a new run
                if getattr(args, key) is None:
                    setattr(args, key, value)
            player = specs.from_text(args.player)
            players.validate(player, trust_checkpoint=trust)
            num_players = args.num_players
            begin = start_file(player, args.start)
            recipe_name = args.recipe or RECIPES["scratch" if begin is None else "agent"]
            recipe = configs.preset("train", recipe_name)
            config = build_config(
                player, num_players, args.steps, args.seed, begin, recipe, args.engine, args.eval_games
            )
            need_extras(config)
            note = rounded_note(args.steps, config)
            run_dir_text = args.out or default_out(player, num_players, args.start, args.seed)
            plan = run_folder.plan_new(run_dir_text, run_dir_text, args.force, TRAINER)
            run_dir = plan.path
            history, resume_from = [], None
            record = {
                "player": player,
                "num_players": num_players,
                "start": "scratch" if begin is None else str(begin),
                "steps": config.total_timesteps,
                "seed": args.seed,
                "engine": args.engine,
                "recipe": recipe_name,
                "held_out_games": args.games or 2000,
                "command": shlex.join(["ckc-best-response", *(sys.argv[1:] if argv is None else argv)]),
            }
        check_players(config, trust)
    except (ValueError, KeyError, TypeError) as exc:
        if lock is not None:
            lock.release()
        cli.fail(parser, exc)
    if plan is not None and note is not None:
        cli.say(f"ckc-best-response: {note}", file=sys.stderr)
    try:
        return run(args, argv, record, config, run_dir, plan, parser, history, resume_from)
    finally:  # the folder's lock let go, however the command ends
        for held in (lock, plan):
            if held is not None:
                held.release()


def run(
    args: argparse.Namespace,
    argv: list[str] | None,
    record: dict[str, Any],
    config: TrainConfig,
    run_dir: Path,
    plan: run_folder.NewRun | None,
    parser: argparse.ArgumentParser,
    history: list[dict[str, Any]],
    resume_from: Path | None,
) -> Path:
    """The best response, its inputs checked and its folder held: the training (or what is left of
    it: ``resume_from``, None once trained), then the held-out games and ``best_response.json``."""
    trust = args.trust_checkpoint
    player, num_players = record["player"], record["num_players"]
    options = SimpleNamespace(trust_checkpoint=trust, no_progress=args.no_progress)
    started = time.time()
    if plan is not None:
        try:
            plan.begin(config.to_dict(), TrainConfig().to_dict(), TRAINER)
            write_atomic(run_dir / PLAN, json.dumps(record, indent=2))
            train(config, run_dir, options, [], None, plan)
        except BaseException as exc:
            undone = plan.abandon()
            if isinstance(exc, InputError):
                cli.fail(parser, f"{exc} ({run_dir} is as it was before this command)" if undone else exc)
            raise
    elif resume_from is not None:
        train(config, run_dir, options, history, resume_from)
    trained = time.time() - started
    from ..evaluation import load_history

    history = load_history(run_dir, config)
    summary = read_json(run_dir / "summary.json", "the run's summary")
    if not isinstance(summary, dict):
        raise InputError(f"{run_dir / 'summary.json'} is not a mapping")
    seed = derive_seed(record["seed"], "best_response_held_out")
    engine = "jax" if config.engine == "jax" else "auto"
    begin = None if record["start"] == "scratch" else record["start"]
    figures = held_out(
        run_dir, player, num_players, record["held_out_games"], seed, trust, engine, not args.no_progress, begin
    )
    result = {
        **record,
        "player": specs.label(player),
        **(
            {"resumed": shlex.join(["ckc-best-response", *(sys.argv[1:] if argv is None else argv)])}
            if args.resume
            else {}
        ),
        "held_out": figures,
        "curve": curve(history),
        "wall_seconds": {
            "training": summary.get("wall_clock_seconds", round(trained, 1)),
            "held_out": figures["seconds"],
        },
        "model": "best: picked on the evaluation deals; final: the last; both measured on the held-out deals",
    }
    write_atomic(run_dir / RESULT, json.dumps(result, indent=2))
    print(printable(describe(result), keep_newlines=True))
    cli.say(f"wrote {run_dir / RESULT}", file=sys.stderr)
    return run_dir


def command() -> None:
    main()


if __name__ == "__main__":
    command()
