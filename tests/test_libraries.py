"""The environment unchanged under the RL libraries' own documented entry points.

Each library is the judge: stable-baselines3's ``make_vec_env`` with the registered id, Tianshou's
``PettingZooEnv`` and ``Collector``, TorchRL's ``PettingZooWrapper`` and ``check_env_specs``.
A test skips when its library is not installed (Tianshou and TorchRL come with the ``tianshou``
and ``torchrl`` extras).
"""

from __future__ import annotations

import runpy
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest
from pettingzoo.test import api_test

import ckc_env

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"

SB3_SCRIPT = """
import numpy as np
import ckc_env  # registers CheckpointCharlie-v1; SubprocVecEnv's workers import this script too
from stable_baselines3.common import vec_env
from stable_baselines3.common.env_util import make_vec_env

if __name__ == "__main__":
    envs = make_vec_env("{env_id}", n_envs=2, seed=0, vec_env_cls=vec_env.{vec_env},
                        env_kwargs={{"num_players": 3, "opponents": "random"}})
    obs = envs.reset()
    episodes = 0
    for _ in range(200):
        masks = np.stack(envs.env_method("action_masks"))
        obs, _, dones, infos = envs.step(np.array([np.flatnonzero(m)[0] for m in masks]))
        episodes += int(dones.sum())
        assert not any(info.get("illegal_action") for info in infos)
    envs.close()
    assert obs.shape == (2, 736) and episodes > 0
    print("games", episodes)
"""


@pytest.mark.slow
@pytest.mark.parametrize(
    ("env_id", "vec_env"),
    [
        ("CheckpointCharlie-v1", "DummyVecEnv"),
        ("CheckpointCharlie-v1", "SubprocVecEnv"),
        ("ckc_env:CheckpointCharlie-v1", "SubprocVecEnv"),
    ],
)
def test_sb3_make_vec_env_with_the_registered_id(tmp_path, env_id, vec_env):
    """A user's script as SB3's docs write it: make_vec_env asks for render_mode="rgb_array" first
    (the view draws pictures with the render extra; without Pillow the refusal is a TypeError and it
    retries without a render mode); its subprocess workers find the id registered."""
    pytest.importorskip("stable_baselines3")
    script = tmp_path / "train_sb3.py"
    script.write_text(SB3_SCRIPT.format(env_id=env_id, vec_env=vec_env))
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.startswith("games ")


def test_unsupported_render_mode_is_a_value_error_and_a_type_error():
    with pytest.raises(ValueError, match=r"render_mode='depth_array'.*'ansi', 'human', 'rgb_array'") as info:
        ckc_env.env(render_mode="depth_array")
    assert isinstance(info.value, TypeError)


def test_api_test_gives_no_reset_option_warning():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        api_test(ckc_env.env(num_players=3), num_cycles=200)
    assert not [w for w in caught if "reset option" in str(w.message)]


def _random_game(env, seed: int) -> list[dict]:
    """Every info of a seeded game with random legal actions."""
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    infos = []
    for _agent in env.agent_iter():
        obs, _, term, trunc, info = env.last()
        infos.append(info)
        env.step(None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    return infos


def test_default_infos_are_empty_and_the_summaries_stay_reachable():
    """Batching collectors need the same keys every step: the default infos are empty, the round
    summaries are the ones summary_infos=True hands out."""
    plain, with_summaries = ckc_env.env(num_players=4), ckc_env.env(num_players=4, summary_infos=True)
    assert all(info == {} for info in _random_game(plain, 7))
    handed_out = [i["round_summary"] for i in _random_game(with_summaries, 7) if "round_summary" in i]
    kept = plain.unwrapped.round_summaries
    assert kept and kept == with_summaries.unwrapped.round_summaries
    assert all(summary in kept for summary in handed_out)
    kept[0]["round"] = -1  # a copy: the game's record is untouched
    assert plain.unwrapped.round_summaries[0]["round"] == 1


def _example(name: str) -> dict:
    """The functions of ``examples/<name>.py``, the file users run."""
    return runpy.run_path(str(EXAMPLES / f"{name}.py"), run_name=f"example_{name}")


def test_tianshou_pettingzoo_env_and_collector():
    """Tianshou's own PettingZooEnv wrapper and Collector play whole games (examples/tianshou_random.py)."""
    pytest.importorskip("tianshou")
    assert _example("tianshou_random")["collect_games"](num_players=3, n_episode=4) >= 4


def test_torchrl_pettingzoo_wrapper_and_check_env_specs():
    """TorchRL's PettingZooWrapper(use_mask=True) passes check_env_specs and rolls out whole games
    with legal actions only (examples/torchrl_rollout.py)."""
    pytest.importorskip("torchrl")
    assert _example("torchrl_rollout")["rollout_games"](num_players=3, steps=60) >= 1


def test_torchrl_collector_with_the_masked_random_policy_takes_legal_actions_only():
    """A TorchRL Collector with policy=None samples from a copy of the spec without the masks
    (illegal actions, each ending its game); the example's masked random policy reads the action
    mask: no illegal action, whole games played (examples/torchrl_rollout.py, the README's TorchRL part)."""
    pytest.importorskip("torchrl")
    games, illegal = _example("torchrl_rollout")["collect_games"](num_players=3, frames=300)
    assert illegal == 0 and games >= 1
