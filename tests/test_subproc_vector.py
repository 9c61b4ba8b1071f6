"""The vector environment with its slots split across worker processes (ckc_env.envs.subproc_vector):
the same games, rewards, masks and infos as in-process shards with the same seeds, refusals raised
in the parent, a clean close, and learners that take it unchanged."""

from __future__ import annotations

import numpy as np
import pytest

from ckc_env.batch.agents import uniform_legal
from ckc_env.envs.subproc_vector import SubprocVectorEnv, WorkerError
from ckc_env.envs.vector import CheckpointCharlieVectorEnv
from ckc_env.seeding import derive_seed

RULES = {"opponents": "bayes_v1", "belief_features": True, "reward": "margin"}


@pytest.fixture
def sharded():
    env = SubprocVectorEnv(11, workers=3, **RULES)
    yield env
    env.close()


@pytest.mark.slow
def test_the_shards_are_in_process_environments_with_derived_seeds(sharded):
    """Slots 0-3, 4-7 and 8-10 play exactly what in-process environments of 4, 4 and 3 slots play
    when reset with ``derive_seed(seed, "shard", i)``, through many finished games."""
    shards = [CheckpointCharlieVectorEnv(size, **RULES) for size in (4, 4, 3)]
    bounds = [0, 4, 8, 11]
    observations, infos = sharded.reset(seed=5)
    expected = [shard.reset(seed=derive_seed(5, "shard", i)) for i, shard in enumerate(shards)]
    assert np.array_equal(observations, np.concatenate([obs for obs, _ in expected]))
    assert np.array_equal(infos["seat"], np.concatenate([info["seat"] for _, info in expected]))
    rng = np.random.default_rng(0)
    finished = 0
    for _ in range(100):
        actions = uniform_legal(sharded.action_masks().astype(np.int8), rng)
        observations, rewards, terminated, truncated, infos = sharded.step(actions)
        parts = [shard.step(actions[bounds[i] : bounds[i + 1]]) for i, shard in enumerate(shards)]
        assert observations.dtype == np.float32 and observations.shape == (11, 850)
        assert np.array_equal(observations, np.concatenate([p[0] for p in parts]))
        assert np.array_equal(rewards, np.concatenate([p[1] for p in parts]))
        assert np.array_equal(terminated, np.concatenate([p[2] for p in parts]))
        assert not truncated.any()
        assert np.array_equal(sharded.action_masks(), np.concatenate([s.action_masks() for s in shards]))
        assert np.array_equal(np.stack(sharded.call("action_masks")), sharded.action_masks())
        assert np.array_equal(infos["seat"], np.concatenate([p[4]["seat"] for p in parts]))
        if terminated.any():
            finished += int(terminated.sum())
            assert np.array_equal(infos["_final_obs"], terminated)
            for i, part in enumerate(parts):
                for slot in range(bounds[i], bounds[i + 1]):
                    local = slot - bounds[i]
                    if "final_obs" in part[4] and part[4]["_final_obs"][local]:
                        assert np.array_equal(infos["final_obs"][slot], part[4]["final_obs"][local])
                        for key in ("points", "margin", "win_share", "is_winner", "illegal_action"):
                            assert infos["final_info"][key][slot] == part[4]["final_info"][key][local]
                    else:
                        assert infos["final_obs"][slot] is None
                        assert not infos["final_info"]["_points"][slot]
    assert finished > 5
    for shard in shards:
        shard.close()


def test_one_seed_one_run_and_illegal_actions_as_in_process():
    first, second = (SubprocVectorEnv(6, workers=2, opponents="random") for _ in range(2))
    try:
        a, _ = first.reset(seed=9)
        b, _ = second.reset(seed=9)
        assert np.array_equal(a, b)
        actions = np.full(6, 39)  # a Cafe Adler swap: illegal at every first decision (a window)
        legal = first.action_masks()[np.arange(6), actions]
        assert not legal.any()
        _, rewards, terminated, _, infos = first.step(actions)
        assert np.array_equal(terminated[~legal], np.ones((~legal).sum(), bool))
        assert np.all(rewards[~legal] == -1.0) and infos["final_info"]["illegal_action"][~legal].all()
    finally:
        first.close()
        second.close()


def test_refusals_name_the_problem(rllib_checkpoint):
    with pytest.raises(ValueError, match=r"invalid workers=0: accepted values are integers from 1 to num_envs=4"):
        SubprocVectorEnv(4, workers=0)
    with pytest.raises(ValueError, match=r"invalid workers=5"):
        SubprocVectorEnv(4, workers=5)
    with pytest.raises(ValueError, match="invalid start_method='teleport'"):
        SubprocVectorEnv(4, workers=2, start_method="teleport")
    with pytest.raises(ValueError, match="no batched form"):  # the worker's refusal, raised here
        SubprocVectorEnv(4, workers=2, opponents=rllib_checkpoint, trust_checkpoint=True)
    env = SubprocVectorEnv(4, workers=2, opponents="random")
    try:
        with pytest.raises(RuntimeError, match="before reset"):
            env.step(np.zeros(4, dtype=np.int64))
        env.reset(seed=0)
        with pytest.raises(ValueError, match=r"actions must be integers of shape \(4,\)"):
            env.step(np.zeros(3, dtype=np.int64))
        with pytest.raises(ValueError, match="takes no reset options"):
            env.reset(seed=0, options={"deal": 1})
        env.reset(seed=0)  # the workers go on after an error
        env.step(uniform_legal(env.action_masks().astype(np.int8), np.random.default_rng(0)))
    finally:
        env.close()
    env.close()  # twice: nothing happens
    assert all(not process.is_alive() for process in env._processes)
    with pytest.raises(RuntimeError, match="closed"):
        env.reset(seed=0)
    assert issubclass(WorkerError, RuntimeError)


def test_maskable_ppo_trains_on_it_through_the_sb3_adapter():
    pytest.importorskip("sb3_contrib")
    import torch
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.vec_env import VecMonitor

    from ckc_env.training.trainers.sb3.vec_env import SB3VecEnv

    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    venv = VecMonitor(SB3VecEnv(SubprocVectorEnv(16, workers=2, opponents="random", reward="margin")))
    try:
        venv.seed(0)
        model = MaskablePPO("MlpPolicy", venv, n_steps=8, batch_size=64, n_epochs=1, seed=0, device="cpu")
        model.learn(256)
        assert model.num_timesteps >= 256 and len(model.ep_info_buffer) > 0
    finally:
        venv.close()
        torch.set_num_threads(threads)
