"""Where a step of the device trainer's table view goes (``ckc_env.jax.table_env``, ``vector.loop:
decision``): its parts timed apart at the trainer's batch, after the games have been played a while.

The setup is ``bench_training.py``'s "jax decisions env only" line: a training config with
``engine: jax`` (default ``configs/train/scratch_jax.yaml``, 2048 games) against four of one
opponent, a random learner. The games are first played ``--warmup`` steps (one compiled
``lax.scan``), then each part is compiled alone and called on that position, the parts in turn
``--repeats`` times (round-robin; medians, milliseconds):

- ``table step``: the whole ``table_env.step`` (the opponents' decisions, the game's step, the
  rewards, the deals of the games that ended);
- ``game step``: ``jax.game.step`` alone, with its ``suspicion loop`` (the action applied and the
  draws and windows up to the next decision, vmapped over every game) and the ``round ends``
  (scoring and the next deal, gathered for the games that need them) apart;
- ``opponents``: the opponents' decisions where their seats act (``tournament.decide_where``);
- ``deals``: the next games of the slots whose game ended (``table_env``'s deal, for as many
  games as ended in the scan's last step);
- ``learner's observations``: ``table_env.observe`` where the learner acts;
- ``world counts``: what a bayes_v1 decision counts of its posterior (``jax.beliefs``: the acting
  seat's slot candidates and the worlds per chief), for every game: what keeping the posterior
  in the players' carry, event by event, could save at most.

The parts are compiled apart, so they do not add up to the step exactly (XLA fuses across them
inside the step), and a part that returns the games (the table step, the game step, the suspicion
loop, the round ends, the deals) pays for writing them out, which a step inside a ``lax.scan`` does
not: ``the games returned`` times that alone (the games' arrays copied out). Numbers move with the
machine's load: run it on an idle machine.

    OPENBLAS_NUM_THREADS=1 python benchmarks/bench_table_step.py --json docs/results/bench_table_step_cpu.json
"""

from __future__ import annotations

import argparse
import json
import shlex
import statistics
import sys
import time
from functools import partial
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]


def timed(parts: dict[str, tuple], repeats: int) -> dict[str, float]:
    """The median milliseconds of each ``fun(*args)`` of ``parts`` (name: (fun, *args)) after a
    first (compiling) call, the parts timed in turn within each repeat (round-robin): a slow spell
    of the machine then touches every part alike."""
    import jax

    for fun, *args in parts.values():
        jax.block_until_ready(fun(*args))
    times: dict[str, list[float]] = {name: [] for name in parts}
    for _ in range(repeats):
        for name, (fun, *args) in parts.items():
            start = time.perf_counter()
            jax.block_until_ready(fun(*args))
            times[name].append(time.perf_counter() - start)
    return {name: 1e3 * statistics.median(spent) for name, spent in times.items()}


def _relative(path: str) -> str:
    """``path`` from the repository's root where it lies inside it."""
    resolved = Path(path).resolve()
    return str(resolved.relative_to(ROOT)) if resolved.is_relative_to(ROOT) else path


def main(argv: list[str] | None = None) -> dict:
    from ckc_env import cli
    from ckc_env.files import write_atomic

    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--config", default=str(ROOT / "configs/train/scratch_jax.yaml"), help="engine: jax config")
    parser.add_argument("--opponent", default="bayes_v1", help="the four opponents (a player with a JAX form)")
    parser.add_argument("--warmup", type=cli.integer(1), default=300, help="steps played before the timings")
    parser.add_argument("--repeats", type=cli.integer(1), default=21)
    parser.add_argument("--json", metavar="FILE", help="write the figures to FILE")
    args = parser.parse_args(argv)
    cli.check_outputs(parser, json=args.json)

    import jax
    import jax.numpy as jnp
    from bench_training import on_loop

    from ckc_env.jax import game, table_env
    from ckc_env.jax.beliefs import count_worlds, slot_candidates
    from ckc_env.jax.tournament import decide_where
    from ckc_env.training.config import load_config
    from ckc_env.training.trainers.jax.trainer import build_env

    try:  # a bad config or opponent is refused by name before anything is compiled
        config = load_config(args.config)
        if config.engine != "jax":
            parser.error(f"--config {args.config} does not say engine: jax")
        setup = on_loop(config, args.opponent, "decision")
        env = build_env(setup)
    except (OSError, ValueError) as error:
        parser.error(str(error))
    rules, size = env.rules, setup.vector.num_envs
    ts = table_env.reset(env, jax.random.key(0), size, jnp.ones(env.members))

    def one(state: Any, key: Any) -> tuple[Any, Any]:
        _, mask = table_env.observe(env, state, where=table_env.acting(state)[1])
        state, out = table_env.step(env, state, jax.random.categorical(key, jnp.where(mask, 0.0, -1e9)))
        return state, (out.learner.sum(), out.done)

    ts, (learner, done) = jax.jit(lambda s, k: jax.lax.scan(one, s, jax.random.split(k, args.warmup)))(
        ts, jax.random.key(1)
    )
    games = ts.games
    seat, learner_acts = table_env.acting(ts)
    live = games.pending_kind >= 0
    who = ts.role[jnp.arange(size), seat]
    actions = jnp.argmax(game.legal_action_mask(rules, games), axis=-1).astype(jnp.int32)

    def world_counts(one: Any, seat: Any) -> Any:  # bayes_v1's posterior of the acting seat, as counted per decision
        return count_worlds(slot_candidates(one, seat), clues=False)[0]

    suspicion_loop = partial(game.suspicion_steps, rules)
    settled = jax.jit(suspicion_loop)(games, actions)
    form, carry = env.forms[0], ts.carries[0]
    decide = partial(form.act, rules, weights=form.weights())
    finished = done[-1]
    parts = timed(
        {
            "table step": (jax.jit(partial(table_env.step, env)), ts, actions),
            "game step": (jax.jit(partial(game.step, rules)), games, actions),
            "suspicion loop": (jax.jit(suspicion_loop), games, actions),
            "round ends": (jax.jit(partial(game.end_rounds, rules)), live, settled),
            "opponents": (
                jax.jit(lambda g, c, f: decide_where(f, decide, g, c, env.opponent_chunk(size, 0))),
                games,
                carry,
                live & (who == 0),
            ),
            "deals": (jax.jit(partial(table_env._deal_again, env)), ts, finished),
            "learner's observations": (jax.jit(lambda t: table_env.observe(env, t, where=table_env.acting(t)[1])), ts),
            "the games returned": (jax.jit(lambda g: jax.tree_util.tree_map(jnp.copy, g)), games),
            "world counts": (jax.jit(jax.vmap(world_counts)), games, seat),
        },
        args.repeats,
    )
    counts = {
        "games": size,
        "learner decisions per step (warm-up mean)": float(learner.mean()),
        "games ending a round at the timed step": int(game.round_ending(live, settled).sum()),
        "games dealt again at the timed step": int(finished.sum()),
        "learner's decisions at the timed step": int(learner_acts.sum()),
    }
    device = [str(d) for d in jax.devices()]
    print(f"jax {jax.__version__} on {jax.default_backend()}: {device}; {size} games vs 4 {args.opponent}")
    for name, ms in parts.items():
        print(f"  {name:<24} {ms:7.2f} ms")
    for name, value in counts.items():
        print(f"  {name}: {value:g}")
    out = {
        "command": "python benchmarks/bench_table_step.py " + shlex.join(argv if argv is not None else sys.argv[1:]),
        "config": _relative(args.config),
        "opponent": args.opponent,
        "jax": jax.__version__,
        "device": device,
        "repeats": args.repeats,
        "milliseconds": parts,
        "counts": counts,
    }
    if args.json:
        write_atomic(Path(args.json), json.dumps(out, indent=2) + "\n")
    return out


if __name__ == "__main__":
    main()
