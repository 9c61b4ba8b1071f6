"""Decisions per second of the batched engine against the AEC environment, in the same run.

The AEC environment is driven as ``bench_env.py`` drives it (``ckc_env.env()`` with its wrappers,
``agent_iter``, ``last``, a uniformly random legal action from the mask, ``step``). The batched
engine plays B games in lockstep with uniformly random legal actions and the automatic reset
(``batch.step(state, actions, autoreset=True)``), once without and once with the observation of
every game's acting seat computed at every step (``batch.observe`` into a reused array, the same
736 numbers the AEC environment computes at every ``last``). Repeats go round-robin over all of them; each ratio is
the median over repeats of (batched decisions/s) / (AEC decisions/s) measured in the same round.

``--memory`` also plays B = 4096 games of one random seat against four batched bayes_v1 (beliefs
observations every step) in a fresh process and reports its peak resident memory.

**The check of the players' decisions.** Every decision a batched player makes is checked before
the engine applies it (``ckc_env.table.batched.check_actions``: a range test, one legal-action mask
per pass, of only the acting games' rows when they are fewer than half the batch, and one fancy
index into it). Its cost is measured at B = 4096 on the loops that play batched players: a batched
tournament's 4096 games of five random players played to their end, and steps of the vector
environment (a random learner against random or bayes_v1 opponents: many small passes per step).
Each runs twice on the same seed (the same games: legal play is unchanged), with the check and
with the actions assembled unchecked as before it, in alternating order, and the time spent
assembling the actions is clocked in both (CPU time of the process). Reported, as medians over
repeats: the check's share of the checked loop, and its cost, the time it adds (less the unchecked
assembly's) over the unchecked loop's time. On a shared 2-core machine (``--check-only --repeats
7``) the check costs +3.3% of the tournament, +3.4% of the vector environment's steps against
random opponents and +3.3% against bayes_v1 (shares 3.4-3.5%); the two loops' total times, also
in the JSON (``slowdown``), move by 5-15% from run to run on such a machine, far more than that.

    python benchmarks/bench_batch.py                      # 5 repeats, 5 players
    python benchmarks/bench_batch.py --repeats 9 --memory --json results.json
    python benchmarks/bench_batch.py --check-only --repeats 7   # the check's cost alone
"""

from __future__ import annotations

import argparse
import json
import resource
import statistics
import subprocess
import sys
import time
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
from bench_env import drive

from ckc_env import batch, cli
from ckc_env.batch.agents import decide, make_batch_agent, uniform_legal
from ckc_env.batch.state import BatchState
from ckc_env.config import GameConfig
from ckc_env.envs.vector import CheckpointCharlieVectorEnv
from ckc_env.files import write_atomic
from ckc_env.observation import OBSERVATION, OBSERVATION_WITH_BELIEFS
from ckc_env.seeding import derive_seed
from ckc_env.table import batched

BATCH_SIZES = (1, 64, 1024, 4096)


def play_batch(config: GameConfig, size: int, steps: int, seed: int, observe: bool) -> tuple[int, float]:
    """Random legal play with the automatic reset: (decisions, seconds)."""
    state = batch.init(config, batch_size=size, seed=seed)
    player = make_batch_agent("random", seed=seed)
    games = np.arange(size)
    observations = np.empty((size, OBSERVATION.size), dtype=np.float32)  # reused, as a vector env would
    decisions = 0
    start = time.perf_counter()
    for _ in range(steps):
        decisions += int((state.pending_kind >= 0).sum())
        batch.apply(state, player.act(state, games), autoreset=True)  # random legal actions: no check needed
        if observe:
            batch.observe(state, out=observations)
    return decisions, time.perf_counter() - start


CHECK_BATCH = 4096
CLOCK = time.process_time  # this process's CPU time: the machine's other load moves it less than wall time


def unchecked(state: BatchState, answers) -> np.ndarray:
    """The play loop's actions assembled as before the check: what the measurement without it runs."""
    actions = np.zeros(state.batch_size, dtype=np.int64)
    for _, games, chosen in answers:
        actions[games] = chosen
    return actions


def play_tournament(config: GameConfig, seed: int) -> float:
    """Seconds for ``table.batched.play`` to play 4096 games of random players to their end."""
    state = batch.init(config, batch_size=CHECK_BATCH, seed=seed)
    lineup = [make_batch_agent("random", seed=derive_seed(seed, "seat", s)) for s in range(config.num_players)]
    start = CLOCK()
    batched.play(state, lineup, lambda: np.flatnonzero(state.pending_kind >= 0), lambda g: state.pending_seat[g])
    return CLOCK() - start


def vector_env_steps(opponents: str, steps: int) -> Callable[[GameConfig, int], float]:
    """Seconds for ``steps`` steps of the vector environment: a random learner against ``opponents``."""

    def run(config: GameConfig, seed: int) -> float:
        env = CheckpointCharlieVectorEnv(CHECK_BATCH, opponents=opponents, num_players=config.num_players)
        env.reset(seed=seed)
        rng = np.random.default_rng(seed)
        start = CLOCK()
        for _ in range(steps):
            env.step(uniform_legal(env.action_masks().astype(np.int8), rng))
        return CLOCK() - start

    return run


CHECK_LOOPS = {
    f"tournament, {CHECK_BATCH} random games": play_tournament,
    f"vector env, B={CHECK_BATCH}, random, 20 steps": vector_env_steps("random", 20),
    f"vector env, B={CHECK_BATCH}, bayes_v1, 5 steps": vector_env_steps("bayes_v1", 5),
}


def measure_check(config: GameConfig, repeats: int, seed: int) -> dict[str, dict[str, float]]:
    """Each loop with and without the check on the same seed (the same games), alternating which
    goes first, the time spent assembling the actions (checked or not) clocked in both. Medians over
    repeats: ``share``, the checked loop's time spent in ``check_actions``; ``cost``, what the check
    adds (its time less the unchecked assembly's) over the unchecked loop's time; ``slowdown``, the
    ratio of the two loops' times less 1, which on a shared machine moves by far more than the
    check costs (kept in the JSON only)."""
    checked = batched.check_actions
    inside = [0.0]

    def clocked(assemble: Callable[[BatchState, list], np.ndarray]) -> Callable[[BatchState, list], np.ndarray]:
        def run(state: BatchState, answers: list) -> np.ndarray:
            start = CLOCK()
            try:
                return assemble(state, answers)
            finally:
                inside[0] += CLOCK() - start

        return run

    figures: dict[str, dict[str, list[float]]] = {}
    for name, loop in CHECK_LOOPS.items():
        loop(config, seed)  # warm-up
        runs: dict[bool, list[tuple[float, float]]] = {True: [], False: []}
        for repeat in range(repeats):
            for check in (True, False) if repeat % 2 == 0 else (False, True):
                inside[0] = 0.0
                batched.check_actions = clocked(checked if check else unchecked)
                try:
                    total = loop(config, derive_seed(seed, "check", repeat))
                finally:
                    batched.check_actions = checked
                runs[check].append((total, inside[0]))
        pairs = list(zip(runs[True], runs[False], strict=True))
        figures[name] = {
            "share": [mine / total for (total, mine), _ in pairs],
            "cost": [(mine - theirs) / their_total for (_, mine), (their_total, theirs) in pairs],
            "slowdown": [total / their_total - 1 for (total, _), (their_total, _) in pairs],
            "seconds_with_check": [total for (total, _), _ in pairs],
        }
    return {name: {key: statistics.median(values) for key, values in f.items()} for name, f in figures.items()}


def report_check(config: GameConfig, repeats: int, seed: int) -> dict[str, dict[str, float]]:
    results = measure_check(config, repeats, seed)
    title = "check of the players' decisions, CPU"
    print(f"\n{title:40s} {'with it':>12s} {'its share':>10s} {'its cost':>10s}  (median over rounds)")
    for name, result in results.items():
        print(f"{name:40s} {result['seconds_with_check']:11.3f}s {result['share']:10.1%} {result['cost']:+10.1%}")
    return results


def steps_for(size: int, decisions: int) -> int:
    return int(np.clip(decisions // size, 50, 2000))


def memory_child(size: int, steps: int) -> None:
    """Runs in a fresh process: one random seat against four bayes_v1, beliefs observations."""
    state = batch.init(GameConfig(num_players=5), batch_size=size, seed=0)
    lineup = [make_batch_agent("random", seed=0)] + [make_batch_agent("bayes_v1", seed=s) for s in range(1, 5)]
    start = time.perf_counter()
    decisions = 0
    for _ in range(steps):
        decisions += int((state.pending_kind >= 0).sum())
        batch.step(state, decide(state, lineup), autoreset=True)
        batch.observe(state, layout=OBSERVATION_WITH_BELIEFS)
    seconds = time.perf_counter() - start
    peak_mib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps({"batch_size": size, "peak_rss_mib": peak_mib, "decisions_per_s": decisions / seconds}))


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeats", type=int, default=5, help="timed rounds (medians reported)")
    parser.add_argument("--num-players", type=int, default=5)
    parser.add_argument("--decisions", type=int, default=100_000, help="about this many per batched measurement")
    parser.add_argument("--aec-steps", type=int, default=20_000, help="about this many AEC steps per round")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--memory", action="store_true", help="also measure B=4096 against four bayes_v1")
    parser.add_argument("--memory-child", type=int, default=0, help=argparse.SUPPRESS)
    parser.add_argument("--json", default=None, help="also write the results to this file")
    parser.add_argument("--check-only", action="store_true", help="measure only the cost of the decisions' check")
    args = parser.parse_args(argv)
    cli.check_outputs(parser, json=args.json)
    if args.memory_child:
        memory_child(args.memory_child, steps=300)
        return {}
    warnings.filterwarnings("ignore")
    import ckc_env

    config = GameConfig(num_players=args.num_players)
    if args.check_only:
        results = {"repeats": args.repeats, "num_players": args.num_players}
        results["check"] = report_check(config, args.repeats, args.seed)
        if args.json:
            write_atomic(args.json, json.dumps(results, indent=2))
        return results
    aec_name = f"AEC env ({args.num_players}p)"
    steps, _ = drive(lambda: ckc_env.env(num_players=args.num_players), games=20, seed=args.seed)
    aec_games = max(1, round(args.aec_steps / (steps / 20)))
    runs = [(size, observe) for size in BATCH_SIZES for observe in (False, True)]
    for size, observe in runs:  # warm-up
        play_batch(config, size, 5, args.seed, observe)
    rates: dict[str, list[float]] = {aec_name: []} | {_name(s, o): [] for s, o in runs}
    for repeat in range(args.repeats):
        seed = derive_seed(args.seed, "repeat", repeat)
        steps, seconds = drive(lambda: ckc_env.env(num_players=args.num_players), games=aec_games, seed=seed)
        rates[aec_name].append(steps / seconds)
        for size, observe in runs:
            decisions, seconds = play_batch(config, size, steps_for(size, args.decisions), seed, observe)
            rates[_name(size, observe)].append(decisions / seconds)
    results: dict[str, Any] = {"repeats": args.repeats, "num_players": args.num_players, "runs": {}}
    aec = rates[aec_name]
    print(f"{aec_name:34s} {statistics.median(aec):12,.0f} decisions/s")
    results["runs"][aec_name] = {"decisions_per_s": statistics.median(aec)}
    print(f"\n{'batched, random legal play':34s} {'decisions/s':>12s} {'x AEC env':>10s}  (median over rounds)")
    for size, observe in runs:
        name = _name(size, observe)
        ratio = statistics.median(mine / theirs for mine, theirs in zip(rates[name], aec, strict=True))
        rate = statistics.median(rates[name])
        results["runs"][name] = {"decisions_per_s": rate, "ratio_to_aec": ratio}
        print(f"{name:34s} {rate:12,.0f} {ratio:10.1f}")
    results["check"] = report_check(config, args.repeats, args.seed)
    if args.memory:
        done = subprocess.run(
            [sys.executable, __file__, "--memory-child", "4096"], capture_output=True, text=True, check=True
        )
        memory = json.loads(done.stdout.strip().splitlines()[-1])
        results["memory"] = memory
        print(
            f"\nB=4096, one random seat against four bayes_v1, beliefs observations: peak resident memory "
            f"{memory['peak_rss_mib']:.0f} MiB, {memory['decisions_per_s']:,.0f} decisions/s"
        )
    if args.json:
        write_atomic(args.json, json.dumps(results, indent=2))
    return results


def _name(size: int, observe: bool) -> str:
    return f"B={size:<5d} {'with observations' if observe else 'engine only'}"


if __name__ == "__main__":
    main()
