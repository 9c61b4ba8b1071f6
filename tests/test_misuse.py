"""Misuse gets a message naming the problem: the environment used out of order or with an action
out of range, and the benchmarks' arguments out of range."""

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import ckc_env
from ckc_env.envs.aec import ActionOutOfRangeError

ROOT = Path(__file__).resolve().parents[1]


def finish(aec) -> None:
    """Play random legal actions to the end, stepping every finished agent out (as agent_iter does)."""
    rng = np.random.default_rng(0)
    for _ in aec.agent_iter():
        observation, _, terminated, truncated, _ = aec.last()
        aec.step(None if terminated or truncated else int(rng.choice(np.flatnonzero(observation["action_mask"]))))


@pytest.mark.parametrize("call", ["step", "observe", "last", "state"])
def test_raw_env_before_reset(call):
    aec = ckc_env.raw_env()
    with pytest.raises(RuntimeError, match=r"has not been reset: call reset\(\) first"):
        {"step": lambda: aec.step(0), "observe": lambda: aec.observe("player_0"), "last": aec.last, "state": aec.state}[
            call
        ]()


def test_raw_env_stepped_after_the_game_is_over():
    aec = ckc_env.raw_env()
    aec.reset(seed=3)
    finish(aec)
    assert aec.agents == []
    for action in (0, None):  # was KeyError: 'player_1'
        with pytest.raises(RuntimeError, match=r"the game is over .* call reset\(\) to play again"):
            aec.step(action)
    aec.reset(seed=3)  # and it plays again
    assert aec.agents


@pytest.mark.parametrize("action", [40, -1, 3.5, "pass", np.int64(99)])
def test_env_with_an_action_out_of_range(action):
    """env() checks what PettingZoo's AssertOutOfBoundsWrapper checks, with a message that names
    the action, the range and the legal actions; the error is both an AssertionError, as the wrapper
    raises, and a ValueError."""
    aec = ckc_env.env()
    aec.reset(seed=0)
    assert isinstance(aec, ckc_env.envs.aec.CheckedEnv) and aec.unwrapped is aec
    with pytest.raises(ActionOutOfRangeError, match=r"out of range for player_\d: actions are integers 0..39") as info:
        aec.step(action)
    assert isinstance(info.value, AssertionError) and isinstance(info.value, ValueError)
    assert "legal now: 0 (pass)" in str(info.value)


@pytest.mark.parametrize(
    ("script", "argv", "message"),
    [
        (
            "bench_env.py",
            ["--repeats", "0"],
            "argument --repeats: 0 is out of range: accepted values are integers >= 1",
        ),
        ("bench_env.py", ["--seed", "-1"], "argument --seed: -1 is out of range: accepted values are integers >= 0"),
        ("bench_env.py", ["--steps", "ten"], "argument --steps: 'ten' is not an integer"),
        ("bench_beliefs.py", ["--positions", "0"], "argument --positions: 0 is out of range"),
        ("bench_training.py", ["--repeats", "-2"], "argument --repeats: -2 is out of range"),
        ("bench_training.py", ["--jax-num-envs", "0"], "argument --jax-num-envs: 0 is out of range"),
        ("bench_jax.py", ["--numpy-max-batch", "-1"], "argument --numpy-max-batch: -1 is out of range"),
        ("bench_jax.py", ["--batches", "0"], "argument --batches: 0 is out of range"),
        ("bench_ppo_update.py", ["--torch-threads", "0"], "argument --torch-threads: 0 is out of range"),
        ("bench_eval_tables.py", ["--repeats", "0"], "argument --repeats: 0 is out of range"),
    ],
)
def test_benchmark_arguments_are_checked(script, argv, message):
    done = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / script), *argv], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 2
    assert message in done.stderr and "Traceback" not in done.stderr
