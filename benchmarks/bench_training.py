"""Training throughput: MaskablePPO learner steps per second on the scalar single-agent view and on
the batched vector environment, against four random and against four bayes_v1 opponents, side by
side in one process (round-robin repeats, medians), with a trivial one-step environment as the
same-run reference for PPO's own cost.

The models and environments are built by training/commands/train.py from two training configs (default:
configs/train/full.yaml, the shipped agent's, and configs/train/full_vector.yaml, the same recipe
on the batched engine: 2048 games stepped at once, n_steps 8 per slot, two torch threads), so the figures are those of
the training script; only the opponents differ between the lines. "env only" lines step the
environments with uniformly random legal learner actions and no learner at all: what the
environment costs per learner step.

    python benchmarks/bench_training.py                                   # 3 repeats
    python benchmarks/bench_training.py --repeats 5 --json docs/results/bench_training.json
    python benchmarks/bench_training.py --workers 1   # also the vector config in one process

The device path (``--jax-config``, default configs/train/scratch_jax.yaml: training/trainers/jax/,
the whole PPO iteration compiled in JAX on the device JAX picks) is measured in the same run, the
same recipe with four random and four bayes_v1: whole iterations (rollout and updates) after a
compiled warm-up, and its environment alone (random legal learner actions, ``lax.scan`` over
:func:`ckc_env.jax.vector_env.step`). The JSON names the device.

    python benchmarks/bench_training.py --jax-only      # the device path alone (a GPU machine's quick check)

The project's aims: against bayes_v1 within 25% of the rate against random (ratio >= 0.75); the
vector path at least 5 times the scalar path's learner steps/s (the same run's ratio); on one
H100/H200 the device path at least 100k learner steps/s against four bayes_v1.
"""

from __future__ import annotations

import argparse
import json
import shlex
import statistics
import sys
import time
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np

from ckc_env import cli

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # run as a script: make the repository (and training/) importable


class Trivial(gym.Env):
    """One decision per episode, 40 actions, the same observation size: PPO's cost alone.

    Observations and rewards are random, as in a real game: with all-zero inputs and rewards PPO's
    backward pass ran about ten times slower (most likely denormal floats in the vanishing
    gradients), and the reference fell below the game environments.
    """

    def __init__(self, size: int) -> None:
        self.observation_space = gym.spaces.Box(-3.0, 15.0, (size,), np.float32)
        self.action_space = gym.spaces.Discrete(40)
        rng = np.random.default_rng(0)
        self._observations = rng.random((256, size), dtype=np.float32)
        self._rewards = rng.normal(size=256)
        self._k = 0

    def reset(self, seed=None, options=None):
        super().reset(seed=seed)
        self._k = (self._k + 1) % 256
        return self._observations[self._k], {}

    def step(self, action):
        return self._observations[self._k], float(self._rewards[self._k]), True, False, {}

    def action_masks(self):
        return np.ones(40, bool)


def rate(config, make_env, steps: int, threads: int = 1) -> float:
    """Learner steps/s of MaskablePPO on one scalar environment, after a warm-up rollout and update,
    with ``threads`` torch threads (training/commands/train.py gives the scalar path one)."""
    import torch
    from stable_baselines3.common.vec_env import DummyVecEnv

    from ckc_env.training.trainers.sb3.trainer import build_model

    torch.set_num_threads(threads)
    model = build_model(config, DummyVecEnv([make_env]))
    model.learn(config.ppo.get("n_steps", 2048))  # warm-up: the first rollout and update, imports, caches
    start = time.perf_counter()
    model.learn(steps, reset_num_timesteps=False)
    elapsed = time.perf_counter() - start
    torch.set_num_threads(1)
    return steps / elapsed


def vector_rate(config, steps: int, label: str) -> float:
    """Learner steps/s of MaskablePPO on the vector environment (``vector`` config), as train.py builds it."""
    import torch
    from stable_baselines3.common.vec_env import VecMonitor

    from ckc_env.training.envs import make_vector_env
    from ckc_env.training.trainers.sb3.trainer import build_model
    from ckc_env.training.trainers.sb3.vec_env import SB3VecEnv

    torch.set_num_threads(config.vector.threads)
    env = VecMonitor(SB3VecEnv(make_vector_env(config)))
    model = build_model(config, env)
    rollout = config.ppo.get("n_steps", 2048) * config.vector.num_envs
    model.learn(rollout)  # warm-up
    steps = max(rollout, steps // rollout * rollout)
    update = model.train
    spent = [0.0]

    def timed_update() -> None:
        started = time.perf_counter()
        update()
        spent[0] += time.perf_counter() - started

    model.train = timed_update
    start = time.perf_counter()
    model.learn(steps, reset_num_timesteps=False)
    elapsed = time.perf_counter() - start
    env.close()
    torch.set_num_threads(1)
    UPDATE_SHARE.setdefault(label, []).append(spent[0] / elapsed)
    return steps / elapsed


UPDATE_SHARE: dict[str, list[float]] = {}
"""The share of each vector measurement's time spent in PPO's gradient steps (``model.train``)."""


def env_rate(config, steps: int) -> float:
    """Learner steps/s of the environment alone, the learner's actions uniformly random and legal:
    the scalar single-agent view for a config without ``vector``, else the vector environment."""
    from ckc_env.batch.agents import uniform_legal

    rng = np.random.default_rng(0)
    if config.vector is None:
        from ckc_env.training.envs import make_single_env

        env = make_single_env(config, rank=0, snapshot_dir=None)
        env.reset(seed=0)
        start = time.perf_counter()
        for _ in range(steps):
            _, _, done, _, _ = env.step(int(rng.choice(np.flatnonzero(env.action_masks()))))
            if done:
                env.reset()
        return steps / (time.perf_counter() - start)
    from ckc_env.training.envs import make_vector_env

    env = make_vector_env(config)
    env.reset(seed=0)
    rounds = max(1, steps // env.num_envs)
    start = time.perf_counter()
    for _ in range(rounds):
        env.step(uniform_legal(env.action_masks().astype(np.int8), rng))
    elapsed = time.perf_counter() - start
    env.close()
    return rounds * env.num_envs / elapsed


SNAPSHOT = str(ROOT / "checkpoints/ppo_5p_scratch/best_model.json")
"""A learner's snapshot for SB3's self-play cost: a shipped 5-player agent file, net_arch [256, 256]."""

DECISION_WARMUP = 320
"""Table steps the one-decision loop plays untimed first: every game is dealt at once at the
start, so their first round's phases run in step for a while (the learner acts in fewer of them,
whole-batch deals and round ends come together); timed from there, a measurement sees the games
drifted apart, as in a run."""

JAX_CHUNKS: dict[tuple[str, str], tuple] = {}
"""The device path's compiled iterations and runner, per recipe and opponent (compiled once per run)."""
UNKEPT: dict[str, list[int]] = {}
"""The one-decision loop's learner decisions played and not learned from in each timed call (the
rollout's rows full: ``decisions.kept_rows``), per line: none, or the line's rate counts them."""


def on_loop(config, opponent: str, loop: str = "learner"):
    """The device config against four ``opponent`` (``self``: the learner at every seat) on ``loop``."""
    vector = config.vector.model_copy(update={"loop": loop})
    self_play = config.self_play.model_copy(update={"shared": opponent == "self"})
    return config.replace(opponents=[opponent], vector=vector, self_play=self_play)


def at_size(config: Any, num_envs: int) -> Any:
    """``config`` with ``num_envs`` games, its minibatch scaled by as much (at least one game's
    decisions), so that an iteration takes as many gradient steps as the config's."""
    batch = max(config.ppo.get("n_steps", 2048), config.ppo["batch_size"] * num_envs // config.vector.num_envs)
    return config.replace(
        vector=config.vector.model_copy(update={"num_envs": num_envs}), ppo={**config.ppo, "batch_size": batch}
    )


def jax_rate(config, opponent: str, iterations: int, loop: str = "learner") -> float:
    """Learner steps/s of the device path (training/trainers/jax/): ``iterations`` whole PPO iterations
    in one compiled call, timed after a first (compiling) call; on the one-decision loop the learner
    steps are the learner's decisions in them."""
    import jax

    from ckc_env.jax import compiled
    from ckc_env.training.trainers.jax.network import Hyper, rollout_size
    from ckc_env.training.trainers.jax.trainer import build_env, start_runner
    from ckc_env.training.trainers.jax.update import compile_chunk

    key = (repr(config), opponent, loop)
    if key not in JAX_CHUNKS:
        setup = on_loop(config, opponent, loop)
        env = build_env(setup)
        runner = start_runner(setup, env, np.ones(1))
        chunk = compile_chunk(env, setup, iterations)
        with compiled.compiling(f"the training iteration vs 4 {opponent} ({loop} loop)"):
            chunk.lower(runner).compile()
        played = 0
        while True:  # untimed: the first call, and on the one-decision loop until the games have
            runner, figures = chunk(runner)  # drifted apart from their common first deal
            jax.block_until_ready(figures)
            played += iterations * Hyper.of(setup).n_steps
            if loop != "decision" or played >= DECISION_WARMUP:
                break
        JAX_CHUNKS[key] = (chunk, runner, rollout_size(setup))
    chunk, runner, rollout = JAX_CHUNKS[key]
    start = time.perf_counter()
    runner, figures = chunk(runner)
    jax.block_until_ready(figures)
    elapsed = time.perf_counter() - start
    JAX_CHUNKS[key] = (chunk, runner, rollout)
    steps = float(np.sum(figures["learner_steps"])) if "learner_steps" in figures else iterations * rollout
    if "unkept_decisions" in figures:
        UNKEPT.setdefault(f"{loop} loop vs 4 {opponent}", []).append(int(np.sum(figures["unkept_decisions"])))
    return steps / elapsed


def uniform_actions(key, mask):
    """(B,) a uniformly random legal action of each game, picked as the NumPy line picks them
    (``batch.agents.uniform_legal``: one random word per game, its k-th legal action), not with a
    Gumbel draw per action of every game: on the one-decision loop that cost 0.7 ms of a 4.4 ms
    step, for the few games where the learner acts."""
    import jax

    from ckc_env.jax.players import uniform_legal

    words = jax.random.bits(key, (mask.shape[0], 2), np.uint32)
    return jax.vmap(uniform_legal)(mask, words[:, 0], words[:, 1])


def jax_env_rate(config, opponent: str, steps: int, loop: str = "learner") -> float:
    """Learner steps/s of the device path's environment alone: ``lax.scan`` over its step with
    uniformly random legal learner actions, timed after a compiling call (the learner's view:
    ``vector_env.step``, a learner step each; the table's: ``table_env.step``, a decision of every
    game each, the learner's counted; the actions: :func:`uniform_actions`). The learner's
    observations are summed into the output, so that XLA computes them as the trainer and the NumPy
    environment do."""
    import jax
    import jax.numpy as jnp

    from ckc_env.jax import table_env, vector_env
    from ckc_env.training.trainers.jax.trainer import build_env

    setup = on_loop(config, opponent, loop)
    key = (repr(setup), "env only", loop)
    size = setup.vector.num_envs
    if key not in JAX_CHUNKS:
        env = build_env(setup)
        if loop == "decision":
            length = max(1, steps // size) * 5  # about as many learner steps as the learner's view takes

            def one(state, step_key):  # the learner's observation where it acts, as the trainer computes it
                obs, mask = table_env.observe(env, state, where=table_env.acting(state)[1])
                action = uniform_actions(step_key, mask)
                state, out = table_env.step(env, state, action)
                return state, (out.learner.sum(), obs.sum())  # the observation used: not compiled away

            state = table_env.reset(env, jax.random.key(0), size, jnp.ones(1))
            scan = jax.jit(lambda state, k: jax.lax.scan(one, state, jax.random.split(k, length)))
        else:
            length = max(1, steps // size)
            state, _, mask = vector_env.reset(env, jax.random.key(0), size, jnp.ones(1))

            def one(carry, step_key):
                state, mask = carry
                action = uniform_actions(step_key, mask)
                state, out = vector_env.step(env, state, action)
                return (state, out.mask), (jnp.int32(size), out.obs.sum())  # the observation used

            state = (state, mask)
            scan = jax.jit(lambda state, k: jax.lax.scan(one, state, jax.random.split(k, length)))
        for warm in range(1 if loop != "decision" else -(-DECISION_WARMUP // length)):  # as jax_rate
            state, (counted, _) = scan(state, jax.random.key(1 + 100 * warm))
            jax.block_until_ready(counted)
        JAX_CHUNKS[key] = (scan, state)
    scan, state = JAX_CHUNKS[key]
    start = time.perf_counter()
    state, (counted, _) = scan(state, jax.random.key(2))
    total = int(jax.device_get(counted).sum())
    elapsed = time.perf_counter() - start
    JAX_CHUNKS[key] = (scan, state)
    return total / elapsed


def main(argv: list[str] | None = None) -> None:
    import torch

    from ckc_env.observation import OBSERVATION, OBSERVATION_WITH_BELIEFS
    from ckc_env.training.config import TrainConfig, load_config
    from ckc_env.training.trainers.sb3.trainer import single_env

    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--config", default=str(ROOT / "configs/train/full.yaml"), help="a training config")
    parser.add_argument(
        "--vector-config",
        default=str(ROOT / "configs/train/full_vector.yaml"),
        help="a training config with a vector section ('none': the scalar path only)",
    )
    parser.add_argument("--steps", type=cli.integer(1), default=4096, help="learner steps per scalar measurement")
    parser.add_argument(
        "--vector-steps",
        type=cli.integer(1),
        default=32768,
        help="learner steps per vector measurement (whole rollouts)",
    )
    parser.add_argument(
        "--workers",
        type=cli.integer(0),
        default=0,
        help="also measure the vector config with its games in this many processes (0: not)",
    )
    parser.add_argument(
        "--jax-config",
        default=str(ROOT / "configs/train/scratch_jax.yaml"),
        help="a training config with engine: jax, measured on the device JAX picks ('none': not)",
    )
    parser.add_argument(
        "--jax-iterations", type=cli.integer(1), default=2, help="PPO iterations per device-path measurement"
    )
    parser.add_argument(
        "--jax-num-envs",
        type=cli.integer(1),
        default=None,
        help="the device path's games (vector.num_envs; default: the config's), its minibatch scaled alike "
        "so that an iteration keeps its gradient steps: a GPU's batch",
    )
    parser.add_argument("--jax-only", action="store_true", help="the device path alone")
    parser.add_argument(
        "--jax-loop",
        choices=("learner", "decision", "both"),
        default="both",
        help="the device path's rollout: the learner's view, one decision per step (vector.loop), or both",
    )
    parser.add_argument("--only", nargs="+", metavar="NAME", help="measure these lines alone (their names as printed)")
    parser.add_argument("--repeats", type=cli.integer(1), default=3)
    parser.add_argument("--json", metavar="FILE", help="write the rates and ratios to FILE")
    args = parser.parse_args(argv)
    cli.check_outputs(parser, json=args.json)

    torch.set_num_threads(1)  # as training/commands/train.py
    config = load_config(args.config)
    vector = None if args.vector_config == "none" else load_config(args.vector_config)
    on_device = None if args.jax_config == "none" else load_config(args.jax_config)
    if on_device is not None and on_device.engine != "jax":
        parser.error(f"--jax-config {args.jax_config} does not say engine: jax")
    if on_device is not None and args.jax_num_envs is not None:
        on_device = at_size(on_device, args.jax_num_envs)
    if vector is not None and vector.vector is None:
        parser.error(f"--vector-config {args.vector_config} has no vector section")
    size = (OBSERVATION_WITH_BELIEFS if config.belief_features else OBSERVATION).size

    def versus(base: TrainConfig, name: str) -> TrainConfig:
        return base.replace(opponents=[name])

    setups = {
        "trivial env": lambda: rate(config, lambda: Trivial(size), args.steps),
        "vs 4 random": lambda: rate(config, single_env(versus(config, "random"), 0, None), args.steps),
        "vs 4 bayes_v1": lambda: rate(config, single_env(versus(config, "bayes_v1"), 0, None), args.steps),
        "env only, vs 4 bayes_v1": lambda: env_rate(versus(config, "bayes_v1"), args.steps),
    }
    if vector is not None:
        setups.update(
            {
                "vector vs 4 random": lambda: vector_rate(versus(vector, "random"), args.vector_steps, "vs 4 random"),
                "vector vs 4 bayes_v1": lambda: vector_rate(
                    versus(vector, "bayes_v1"), args.vector_steps, "vs 4 bayes_v1"
                ),
                "vector env only, vs 4 bayes_v1": lambda: env_rate(versus(vector, "bayes_v1"), args.vector_steps),
                # what self-play costs SB3's path: four network opponents of the learner's shape (its
                # snapshots), here a shipped agent file of the same architecture
                "vector vs 4 snapshots": lambda: vector_rate(
                    versus(vector, SNAPSHOT), args.vector_steps, "vs 4 snapshots"
                ),
            }
        )
    if vector is not None and vector.vector.threads != 1:  # the scalar path given the same torch threads
        threads = vector.vector.threads
        setups[f"vs 4 bayes_v1, {threads} torch threads"] = lambda: rate(
            config, single_env(versus(config, "bayes_v1"), 0, None), args.steps, threads
        )
    processes = f"{args.workers} worker{'s' if args.workers != 1 else ''}"
    if vector is not None and args.workers:
        split = vector.replace(vector=vector.vector.model_copy(update={"workers": args.workers}))
        setups.update(
            {
                f"vector vs 4 bayes_v1, {processes}": lambda: vector_rate(
                    versus(split, "bayes_v1"), args.vector_steps, f"vs 4 bayes_v1, {processes}"
                ),
                f"vector env only, vs 4 bayes_v1, {processes}": lambda: env_rate(
                    versus(split, "bayes_v1"), args.vector_steps
                ),
            }
        )
    device = cache = None
    if on_device is not None:
        import jax

        device = f"{jax.devices()[0].platform}: {jax.devices()[0].device_kind}"
        from ckc_env.jax import compiled

        cache = compiled.prepare()  # the persistent compile cache; each program's compile time goes to the JSON
        steps = args.jax_iterations * on_device.ppo.get("n_steps", 2048) * on_device.vector.num_envs
        jax_setups = {}
        if args.jax_loop in ("learner", "both"):
            jax_setups.update(
                {
                    "jax vs 4 bayes_v1": lambda: jax_rate(on_device, "bayes_v1", args.jax_iterations),
                    "jax vs 4 random": lambda: jax_rate(on_device, "random", args.jax_iterations),
                    "jax env only, vs 4 bayes_v1": lambda: jax_env_rate(on_device, "bayes_v1", steps),
                }
            )
        if args.jax_loop in ("decision", "both"):
            jax_setups.update(
                {
                    "jax decisions, self-play": lambda: jax_rate(on_device, "self", args.jax_iterations, "decision"),
                    "jax decisions vs 4 bayes_v1": lambda: jax_rate(
                        on_device, "bayes_v1", args.jax_iterations, "decision"
                    ),
                    "jax decisions vs 4 random": lambda: jax_rate(on_device, "random", args.jax_iterations, "decision"),
                    "jax decisions env only, vs 4 bayes_v1": lambda: jax_env_rate(
                        on_device, "bayes_v1", steps, "decision"
                    ),
                }
            )
        setups = jax_setups if args.jax_only else {**setups, **jax_setups}
        print(f"jax config {args.jax_config}: num_envs={on_device.vector.num_envs} on {device}")
    if args.only:
        unknown = sorted(set(args.only) - set(setups))
        if unknown:
            parser.error(f"--only: unknown line(s) {unknown}: accepted: {sorted(setups)}")
        setups = {name: measure for name, measure in setups.items() if name in args.only}
    print(f"config {args.config}: {config.game_config.num_players} players, belief_features={config.belief_features}")
    if vector is not None:
        print(f"vector config {args.vector_config}: num_envs={vector.vector.num_envs}, n_steps={vector.ppo['n_steps']}")
    rates: dict[str, list[float]] = {name: [] for name in setups}
    for _ in range(args.repeats):
        for name, measure in setups.items():
            rates[name].append(measure())
            print(f"  {name}: {rates[name][-1]:.0f} learner steps/s", flush=True)
    medians = {name: statistics.median(values) for name, values in rates.items()}
    for name, value in medians.items():
        print(f"{name:32s} {value:9.0f} learner steps/s")

    def ratio(top: str, bottom: str) -> float | None:
        if top not in rates or bottom not in rates:  # a line not measured (--only, --jax-only)
            return None
        return statistics.median(a / b for a, b in zip(rates[top], rates[bottom], strict=True))

    ratios = {} if args.jax_only else {"bayes_v1 / random": ratio("vs 4 bayes_v1", "vs 4 random")}
    # each ratio of two rates measured in this run: the same round's pair, the median over rounds
    pairs = {
        "jax bayes_v1 / random": ("jax vs 4 bayes_v1", "jax vs 4 random"),
        "jax / scalar, vs 4 bayes_v1": ("jax vs 4 bayes_v1", "vs 4 bayes_v1"),
        "jax / vector, vs 4 bayes_v1": ("jax vs 4 bayes_v1", "vector vs 4 bayes_v1"),
        "jax / vector, vs 4 random": ("jax vs 4 random", "vector vs 4 random"),
        "jax decisions / vector, vs 4 bayes_v1": ("jax decisions vs 4 bayes_v1", "vector vs 4 bayes_v1"),
        "jax decisions / vector, vs 4 random": ("jax decisions vs 4 random", "vector vs 4 random"),
        "jax decisions self-play / vector vs 4 snapshots": ("jax decisions, self-play", "vector vs 4 snapshots"),
        "jax decisions self-play / vector vs 4 random": ("jax decisions, self-play", "vector vs 4 random"),
        "jax decisions / jax learner's view, vs 4 bayes_v1": ("jax decisions vs 4 bayes_v1", "jax vs 4 bayes_v1"),
        "jax decisions env / vector env, vs 4 bayes_v1": (
            "jax decisions env only, vs 4 bayes_v1",
            "vector env only, vs 4 bayes_v1",
        ),
        "jax env / vector env, vs 4 bayes_v1": ("jax env only, vs 4 bayes_v1", "vector env only, vs 4 bayes_v1"),
    }
    for name, (top, bottom) in pairs.items():
        if top in rates and bottom in rates:
            ratios[name] = ratio(top, bottom)
    if vector is not None and not args.jax_only:
        ratios["vector / scalar, vs 4 bayes_v1"] = ratio("vector vs 4 bayes_v1", "vs 4 bayes_v1")
        ratios["vector / scalar, vs 4 random"] = ratio("vector vs 4 random", "vs 4 random")
        ratios["vector / scalar, env only"] = ratio("vector env only, vs 4 bayes_v1", "env only, vs 4 bayes_v1")
        ratios["vector bayes_v1 / random"] = ratio("vector vs 4 bayes_v1", "vector vs 4 random")
        if vector.vector.threads != 1:
            ratios[f"vector / scalar, vs 4 bayes_v1, both {vector.vector.threads} torch threads"] = ratio(
                "vector vs 4 bayes_v1", f"vs 4 bayes_v1, {vector.vector.threads} torch threads"
            )
        if args.workers:
            ratios[f"{processes} / the config's, vs 4 bayes_v1"] = ratio(
                f"vector vs 4 bayes_v1, {processes}", "vector vs 4 bayes_v1"
            )
            ratios[f"{processes} / the config's, env only"] = ratio(
                f"vector env only, vs 4 bayes_v1, {processes}", "vector env only, vs 4 bayes_v1"
            )
    ratios = {name: value for name, value in ratios.items() if value is not None}
    for name, value in ratios.items():
        print(f"{name:32s} {value:9.2f}")
    for name, shares in UPDATE_SHARE.items():
        print(f"vector path {name}: share of the time in PPO's gradient steps {statistics.median(shares):.2f}")
    for name, counts in UNKEPT.items():
        print(f"{name}: learner decisions not kept in the timed calls {counts}")
    if args.json:
        from ckc_env.files import write_atomic

        write_atomic(
            Path(args.json),
            json.dumps(
                {
                    "command": "python benchmarks/bench_training.py " + shlex.join(argv or sys.argv[1:]),
                    "config": _relative(args.config),
                    "vector_config": _relative(args.vector_config),
                    "repeats": args.repeats,
                    "rates": rates,
                    "medians": medians,
                    "ratios": ratios,
                    "workers": args.workers,
                    "vector_update_share": UPDATE_SHARE,
                    "jax_config": None if on_device is None else _relative(args.jax_config),
                    "jax_num_envs": None if on_device is None else on_device.vector.num_envs,
                    "jax_batch_size": None if on_device is None else on_device.ppo["batch_size"],
                    "jax_device": device,
                    "jax_compile_cache": None if cache is None else str(cache),
                    "jax_compile": _compile_times(),
                    "unkept_decisions": UNKEPT,
                },
                indent=2,
            ),
        )


def _compile_times() -> dict[str, Any]:
    """The seconds each device program took to compile (or to read from the cache), if any ran."""
    if "ckc_env.jax.compiled" not in sys.modules:
        return {}
    return dict(sys.modules["ckc_env.jax.compiled"].times)


def _relative(path: str) -> str:
    try:
        return str(Path(path).resolve().relative_to(ROOT))
    except ValueError:
        return path


if __name__ == "__main__":
    main()
