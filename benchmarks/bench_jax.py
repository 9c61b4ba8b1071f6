"""Decisions per second of the JAX engine (``ckc_env.jax``) on this machine's device, beside the
NumPy batched engine and Pgx's games, in the same run.

Every JAX loop is one compiled call: a ``lax.scan`` of ``--steps`` batched steps (``jax.game.step``
with the automatic reset), nothing going back to the host between steps. Three loops, each at every
B of ``--batches``:

- ``random``: random legal play, the 736-number observation (``OBSERVATION``) of every game's acting
  seat computed at every step (``jax.observation.observe``, folded into a checksum so that it is
  computed); decisions/s = decisions taken / seconds.
- ``bayes_v1``, ``bayes_v2``: five players, seat 0 a random legal learner (its observation computed
  at its decisions), seats 1 to 4 the bots (``jax.players``: one carry for the four, restarted where
  a game resets); the figure is the learner's decisions/s, as a vector environment counts them. The
  learner's games are gathered (``jax.tournament.decide_where``), so its observation is computed
  for them only. bayes_v2 needs ``jax.players_posterior``; without it the row says so. On a CPU
  its reading is slow in JAX (each step reads every bot game's round with fixed-shape, vmapped
  loops that run as long as the slowest game's), so it plays only up to ``--bayes-v2-max-batch``.

The reference, measured in the same round at the same B: the NumPy batched engine playing the same
loop (``batch.apply`` with the automatic reset and ``batch.observe``, ``batch.agents`` bots started
afresh in reset games; its games kept between rounds, after ``--warmup`` untimed steps as the JAX loop's),
``--numpy-steps`` (against bots ``--numpy-bot-steps``) steps per round; ``--numpy-max-batch`` caps
its B: above the cap the ratio is to the NumPy figure at the cap, whose per-decision rate no longer
grows with B.
Each ratio is the median over rounds of (JAX rate) / (NumPy rate) of the same round, in decisions
of all seats per second: against bots the learner's share of the decisions swings with the games'
phase (they start together; ``--warmup`` untimed steps first let them drift apart), while both
engines play the same games' dynamics, so in the long run the learner's rates stand in the same
ratio; the learner's own figures are reported beside (and in the JSON). With Pgx
importable, its ``sparrow_mahjong`` and ``leduc_holdem`` run beside, as ``../shared/anchors/bench_pgx.py``
times them (``jit(vmap(auto_reset(step, init)))`` in a ``lax.scan``, a random legal action drawn from
the mask); their rows give the random loop's ratio to them at the same B.

Compile times (``jit(...).lower(...).compile()``) are reported apart and never timed in a round.
The device (``jax.devices()``) is printed and written to the JSON (``--json``). Figures are medians
over ``--repeats`` rounds with the min-max beside; on a machine shared with other work (a CPU
especially) they move with its load, so say so beside them.

    python benchmarks/bench_jax.py --quick                               # a check that it runs
    python benchmarks/bench_jax.py --batches 1024 4096 16384 --json results/bench_jax.json
    python benchmarks/bench_jax.py --batches 4096 65536 262144 --loops random bayes_v1   # a GPU
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
import warnings
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
from ckc_env import batch, cli
from ckc_env.batch.agents import make_batch_agent, seat_keys
from ckc_env.batch.state import subset
from ckc_env.config import GameConfig
from ckc_env.files import write_atomic
from ckc_env.observation import OBSERVATION
from ckc_env.seeding import derive_seed

LOOPS = ("random", "bayes_v1", "bayes_v2")
PGX_GAMES = ("sparrow_mahjong", "leduc_holdem")
LEARNER = 0
Runner = Callable[[Any], tuple[Any, Any]]
"""A compiled loop: its carry in, the carry and the decisions counted out (the learner's, all)."""


# ---------------------------------------------------------------------------------------------- JAX loops
def deal(rules: Any, size: int, seed: int) -> Any:
    """B new games, game b seeded ``derive_seed(seed, "batch", b)`` (as ``batch.init(seed=...)``)."""
    import jax.numpy as jnp

    from ckc_env.jax import game
    from ckc_env.jax.chance import keys_of_seeds

    keys = keys_of_seeds([derive_seed(seed, "batch", b) for b in range(size)])
    return game.init(rules, jnp.asarray(keys))


def random_loop(rules: Any, steps: int) -> Callable[[Any], tuple[Any, Any]]:
    """``steps`` steps of random legal play, every acting seat's observation computed."""
    import jax
    import jax.numpy as jnp

    from ckc_env.jax import game, observation

    observe = jax.vmap(partial(observation.observe, rules, layout=OBSERVATION))

    def one(carry: tuple, _: None) -> tuple[tuple, jax.Array]:
        state, key, checksum = carry
        key, draw = jax.random.split(key)
        checksum = checksum + observe(state).sum()
        mask = game.legal_action_mask(rules, state)
        actions = jax.random.categorical(draw, jnp.where(mask, 0.0, -jnp.inf), axis=-1).astype(jnp.int32)
        decided = jnp.sum(state.pending_kind >= 0)
        return (game.step(rules, state, actions, autoreset=True), key, checksum), jnp.stack([decided, decided])

    def run(carry: tuple) -> tuple[tuple, jax.Array]:
        carry, decided = jax.lax.scan(one, carry, None, length=steps)
        return carry, decided.sum(0)

    return run


def bots_loop(rules: Any, steps: int, bot: str) -> tuple[Callable[[Any], tuple[Any, Any]], Any]:
    """``steps`` steps of a random learner at seat 0 (its observation computed at its decisions)
    against four ``bot`` players; counts the learner's decisions. Returns the loop and the bot player."""
    import jax
    import jax.numpy as jnp

    from ckc_env.jax import game, observation
    from ckc_env.jax import players as jax_players
    from ckc_env.jax import tournament as jt
    from ckc_env.jax.registry import make_player

    player = make_player(bot)

    def learner(states: Any, carry: tuple) -> tuple[jax.Array, tuple]:
        """The learner's observation (into its checksum) and a uniform legal action from its word."""
        checksum, share = carry
        obs = jax.vmap(partial(observation.observe, rules, layout=OBSERVATION))(states)
        mask = jax.vmap(partial(jax_players.legal_mask, rules))(states)
        pick = jnp.floor(share * mask.sum(-1)).astype(jnp.int32)
        actions = jnp.argmax(jnp.cumsum(mask, axis=-1) > pick[:, None], axis=-1).astype(jnp.int32)
        return actions, (checksum + obs.sum(-1), share)

    def bots(states: Any, carries: Any) -> tuple[jax.Array, Any]:
        return jax.vmap(partial(player.act, rules))(states, carries)

    def one(carry: tuple, _: None) -> tuple[tuple, jax.Array]:
        state, carries, key, checksum = carry
        size = checksum.shape[0]
        key, draw = jax.random.split(key)
        live = state.pending_kind >= 0
        mine = live & (state.pending_seat == LEARNER)
        share = jax.random.uniform(draw, (size,))
        mine_actions, (checksum, _) = jt.decide_where(mine, learner, state, (checksum, share), max(1, size // 4))
        bot_actions, carries = jt.decide_where(live & ~mine, bots, state, carries, max(1, size // 4))
        state = game.step(rules, state, mine_actions + bot_actions, autoreset=True)
        fresh = jax.vmap(player.start)(state.key)  # the bots start afresh in the games that reset
        carries = jt.where_games(state.terminated, fresh, carries)
        return (state, carries, key, checksum), jnp.stack([jnp.sum(mine), jnp.sum(live)])

    def run(carry: tuple) -> tuple[tuple, jax.Array]:
        carry, decided = jax.lax.scan(one, carry, None, length=steps)
        return carry, decided.sum(0)

    return run, player


def jax_runner(loop: str, size: int, steps: int, seed: int) -> tuple[Runner, Any, float]:
    """The compiled loop, its first carry and its compile time in seconds."""
    import jax
    import jax.numpy as jnp

    from ckc_env.jax.state import rules_of

    rules = rules_of(GameConfig(num_players=5))
    state = deal(rules, size, seed)
    key = jax.random.PRNGKey(seed)
    if loop == "random":
        run = random_loop(rules, steps)
        carry = (state, key, jnp.float32(0))
    else:
        run, player = bots_loop(rules, steps, loop)
        carry = (state, jax.vmap(player.start)(state.key), key, jnp.zeros(size, jnp.float32))
    start = time.perf_counter()
    compiled = jax.jit(run, donate_argnums=0).lower(carry).compile()
    return compiled, carry, time.perf_counter() - start


def time_jax(runner: Runner, carry: Any, seconds: float) -> tuple[np.ndarray, Any]:
    """(the learner's, all) decisions/s of calls to ``runner`` for about ``seconds`` (at least one
    call), and the carry after."""
    import jax

    decided = np.zeros(2)
    start = time.perf_counter()
    while True:
        carry, count = runner(carry)
        decided += np.asarray(jax.block_until_ready(count))
        elapsed = time.perf_counter() - start
        if elapsed >= seconds:
            return decided / elapsed, carry


# ---------------------------------------------------------------------------------------------- Pgx
def pgx_runner(env_id: str, size: int, steps: int, seed: int) -> tuple[Runner, Any, float]:
    """Pgx's game as ``bench_pgx.py`` runs it: ``jit(vmap(auto_reset(step, init)))`` in a scan."""
    import jax
    import jax.numpy as jnp
    import pgx
    from pgx.experimental import auto_reset

    env = pgx.make(env_id)
    step = jax.vmap(auto_reset(env.step, env.init))

    def one(carry: tuple, _: None) -> tuple[tuple, jax.Array]:
        state, key = carry
        key, draw, stepping = jax.random.split(key, 3)
        logits = jnp.where(state.legal_action_mask, 0.0, -jnp.inf)
        action = jax.random.categorical(draw, logits, axis=-1)
        state = step(state, action, jax.random.split(stepping, size))
        return (state, key), jnp.array([size, size], jnp.int32)

    def run(carry: tuple) -> tuple[tuple, jax.Array]:
        carry, decided = jax.lax.scan(one, carry, None, length=steps)
        return carry, decided.sum(0)

    key = jax.random.PRNGKey(seed)
    carry = (jax.jit(jax.vmap(env.init))(jax.random.split(key, size)), key)
    start = time.perf_counter()
    compiled = jax.jit(run, donate_argnums=0).lower(carry).compile()
    return compiled, carry, time.perf_counter() - start


# ---------------------------------------------------------------------------------------------- NumPy
class NumpyLoop:
    """The same loop on the NumPy batched engine, its games kept between rounds as the JAX carry is
    (so both are timed past the games' first steps): random legal play with every acting seat's
    observation (``bench_batch.play_batch``'s loop), or a random learner at seat 0, observed at its
    decisions, against four ``batch.agents`` bots started afresh in the games that reset."""

    def __init__(self, loop: str, size: int, seed: int) -> None:
        self.loop = loop
        self.state = batch.init(GameConfig(num_players=5), batch_size=size, seed=seed)
        self.learner = make_batch_agent("random", seed=seed)
        self.bots = (
            [] if loop == "random" else [make_batch_agent(loop, seed=derive_seed(seed, "bot", s)) for s in range(1, 5)]
        )
        self.observations = np.empty((size, OBSERVATION.size), dtype=np.float32)  # reused, as a vector env would

    def run(self, steps: int) -> tuple[np.ndarray, float]:
        """(the learner's, all) decisions of ``steps`` steps, and the seconds they took."""
        state, size = self.state, self.state.batch_size
        decided = np.zeros(2)
        start = time.perf_counter()
        for _ in range(steps):
            live = state.pending_kind >= 0
            if not self.bots:
                decided += live.sum()
                batch.apply(state, self.learner.act(state, np.arange(size)), autoreset=True)
                batch.observe(state, out=self.observations)
                continue
            actions = np.zeros(size, dtype=np.int64)
            mine = np.flatnonzero(live & (state.pending_seat == LEARNER))
            if len(mine):
                batch.observe(subset(state, mine), out=self.observations[: len(mine)])
                actions[mine] = self.learner.act(state, mine)
            decided += (len(mine), live.sum())
            for seat, agent in enumerate(self.bots, start=1):
                games = np.flatnonzero(live & (state.pending_seat == seat))
                if len(games):
                    actions[games] = agent.act(state, games)
            batch.apply(state, actions, autoreset=True)  # legal actions: no check needed
            reset = np.flatnonzero(state.terminated)
            if len(reset):
                for agent in self.bots:
                    agent.start(reset, seat_keys(state.key[reset]))
        seconds = time.perf_counter() - start
        return decided, seconds


# ---------------------------------------------------------------------------------------------- the run
def default_batches() -> list[int]:
    """What fits the device: up to 16,384 games on a CPU, 262,144 on an accelerator."""
    import jax

    top = 16_384 if jax.default_backend() == "cpu" else 262_144
    return [b for b in (1024, 4096, 16_384, 65_536, 262_144) if b <= top]


def summary(values: list[float]) -> dict[str, float]:
    return {"median": statistics.median(values), "min": min(values), "max": max(values)}


def measure(args: argparse.Namespace, size: int, loops: list[str], games: list[str]) -> dict[str, Any]:
    """Every loop at one B: compiled (and run once, untimed) first, then ``--repeats`` rounds,
    round-robin, each JAX loop timed beside its NumPy twin in the same round."""
    results: dict[str, Any] = {}
    runners: dict[str, tuple[Runner, Any]] = {}
    twins: dict[str, NumpyLoop] = {}
    numpy_size = min(size, args.numpy_max_batch)
    for name in loops + games:
        try:
            make = pgx_runner if name in games else jax_runner
            runner, carry, compile_s = make(name, size, args.steps, args.seed)
            for _ in range(max(1, -(-args.warmup // args.steps))):  # untimed: the games drift out of step
                carry = time_jax(runner, carry, 0.0)[1]
        except Exception as exc:  # a loop that cannot run (memory, a missing player) is reported
            results[name] = {"error": f"{type(exc).__name__}: {str(exc).splitlines()[0][:200]}"}
            print(f"B={size:<7d} {name:16s} not measured: {results[name]['error']}", flush=True)
            continue
        runners[name] = (runner, carry)
        results[name] = {"compile_s": compile_s, "jax": [], "numpy": []}
        if name in loops and numpy_size:
            twins[name] = NumpyLoop(name, numpy_size, args.seed)
            twins[name].run(args.warmup)  # untimed, as the JAX loop's first calls
    for _ in range(args.repeats):
        for name, (runner, carry) in runners.items():
            rates, carry = time_jax(runner, carry, args.seconds)
            runners[name] = (runner, carry)
            results[name]["jax"].append(rates)
            if name in twins:
                decided, seconds = twins[name].run(args.numpy_steps if name == "random" else args.numpy_bot_steps)
                results[name]["numpy"].append(decided / seconds)
    for name in runners:
        row = results[name]
        jax_rates, numpy_rates = row.pop("jax"), row.pop("numpy")
        row["decisions_per_s"] = summary([r[0] for r in jax_rates])  # the learner's (every decision's in random)
        row["all_decisions_per_s"] = summary([r[1] for r in jax_rates])
        if numpy_rates:
            row["numpy_batch"] = numpy_size
            row["numpy_decisions_per_s"] = summary([r[0] for r in numpy_rates])
            row["numpy_all_decisions_per_s"] = summary([r[1] for r in numpy_rates])
            pairs = zip(jax_rates, numpy_rates, strict=True)
            row["ratio_to_numpy"] = statistics.median(a[1] / b[1] for a, b in pairs)
    mine = results.get("random", {}).get("decisions_per_s")
    for name in games:
        theirs = results[name].get("decisions_per_s")
        if mine and theirs:
            results[name]["ours_random_over_this"] = mine["median"] / theirs["median"]
    return results


def report(size: int, results: dict[str, Any]) -> None:
    for name, row in results.items():
        if "error" in row:
            continue
        rate = row["decisions_per_s"]
        figure = f"{rate['median']:14,.0f} ({rate['min']:,.0f}-{rate['max']:,.0f})"
        if "ratio_to_numpy" in row:
            other = f"{row['numpy_decisions_per_s']['median']:12,.0f} {row['ratio_to_numpy']:9.1f}x"
        elif "ours_random_over_this" in row:
            other = f"{'Pgx':>12s} {row['ours_random_over_this']:9.2f}x"
        else:
            other = f"{'':12s} {'':10s}"
        print(f"B={size:<7d} {name:16s} {figure:40s} {other} {row['compile_s']:9.1f}", flush=True)


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument(
        "--batches", type=cli.integer(1), nargs="+", default=None, help="B values (default: what fits the device)"
    )
    parser.add_argument("--loops", nargs="+", choices=LOOPS, default=list(LOOPS))
    parser.add_argument("--steps", type=cli.integer(1), default=32, help="batched steps per compiled call (a lax.scan)")
    parser.add_argument("--warmup", type=cli.integer(0), default=64, help="untimed steps first, on either engine")
    parser.add_argument(
        "--seconds", type=cli.number(0, low_open=True), default=2.0, help="about this long per timed round"
    )
    parser.add_argument("--repeats", type=cli.integer(1), default=3, help="timed rounds (medians reported)")
    parser.add_argument("--numpy-steps", type=cli.integer(1), default=20, help="NumPy steps per round of random play")
    parser.add_argument("--numpy-bot-steps", type=cli.integer(1), default=10, help="NumPy steps per round against bots")
    parser.add_argument(
        "--numpy-max-batch",
        type=cli.integer(0),
        default=65_536,
        help="the largest B the NumPy reference plays (0: none, the JAX engine alone)",
    )
    parser.add_argument(
        "--bayes-v2-max-batch",
        type=cli.integer(1),
        default=None,
        help="the largest B bayes_v2 plays (default: 1024 on a CPU, where its reading is slow in JAX; any elsewhere)",
    )
    parser.add_argument("--no-pgx", action="store_true", help="leave Pgx's games out")
    parser.add_argument("--seed", type=cli.integer(0), default=0)
    parser.add_argument("--json", default=None, help="also write the results to this file")
    parser.add_argument("--quick", action="store_true", help="B=1024 only, short rounds: a check that it runs")
    args = parser.parse_args(argv)
    cli.check_outputs(parser, json=args.json)
    warnings.filterwarnings("ignore")
    import jax

    if args.quick:
        args.batches = args.batches or [1024]
        args.steps, args.seconds, args.repeats, args.numpy_steps, args.numpy_bot_steps = 8, 0.5, 2, 6, 4
        args.warmup = 8
    batches = args.batches or default_batches()
    games = []
    if not args.no_pgx:
        try:
            import pgx  # noqa: F401

            games = list(PGX_GAMES)
        except ImportError:
            print("pgx is not importable: its games are left out")
    from ckc_env.jax import compiled

    cache = compiled.prepare(announce=False)  # the loops' compile times below: each cached after its first run
    devices = [str(d) for d in jax.devices()]
    print(f"jax {jax.__version__} on {jax.default_backend()}: {devices}; compile cache: {cache}")
    print("decisions/s: the learner's against bots; ratio: decisions of all seats per second, JAX / NumPy (or our")
    print("random loop / Pgx's game), the median over rounds of the same round's ratio; compile time apart")
    print(f"{'':9s} {'loop':16s} {'decisions/s median (min-max)':40s} {'NumPy':>12s} {'ratio':>10s} {'compile s':>9s}")
    out: dict[str, Any] = {
        "jax": jax.__version__,
        "backend": jax.default_backend(),
        "devices": devices,
        "compile_cache": None if cache is None else str(cache),
        "settings": {k: v for k, v in vars(args).items() if k != "json"} | {"batches": batches},
        "runs": {},
    }
    v2_cap = args.bayes_v2_max_batch or (1024 if jax.default_backend() == "cpu" else max(batches))
    for size in batches:
        loops = [name for name in args.loops if name != "bayes_v2" or size <= v2_cap]
        results = measure(args, size, loops, games)
        report(size, results)
        out["runs"][str(size)] = results
    if args.json:
        write_atomic(args.json, json.dumps(out, indent=2))
        print(f"wrote {args.json}")
    return out


if __name__ == "__main__":
    main()
