"""gymnasium's vector API end to end, through gymnasium's own calls: every vectorization mode of
``gymnasium.make_vec`` with every rules variant (and the single-agent view's summary infos on or
off), gymnasium's vector wrappers on the batched vector environment in its NEXT_STEP autoreset
mode, and the presence masks of its infos."""

import gymnasium
import numpy as np
import pytest
from gymnasium.vector import AutoresetMode

import ckc_env
from ckc_env.envs.vector import CheckpointCharlieVectorEnv

VARIANTS = {
    "base": {},
    "stasi": {"stasi": True},
    "adler": {"cafe_adler": True},
    "both-choose": {"stasi": True, "cafe_adler": True, "clue_face": "choose", "num_players": 3},
}


def masks_of(envs) -> np.ndarray:
    if hasattr(envs, "action_masks"):
        return envs.action_masks()
    return np.stack(envs.call("action_masks"))


def drive(envs, steps: int, seed: int = 0) -> int:
    """Random legal actions for ``steps`` steps; returns the episodes finished."""
    rng = np.random.default_rng(seed)
    envs.reset(seed=seed)
    finished = 0
    for _ in range(steps):
        masks = masks_of(envs)
        actions = np.array([rng.choice(np.flatnonzero(m)) if m.any() else 0 for m in masks])
        _, rewards, terminated, truncated, _ = envs.step(actions)
        assert rewards.shape == (envs.num_envs,) and not truncated.any()
        finished += int(terminated.sum())
    return finished


@pytest.mark.slow
@pytest.mark.parametrize("variant", list(VARIANTS))
@pytest.mark.parametrize("summary_infos", [False, True])
def test_sync_and_async_vectorization_run_every_variant(variant, summary_infos):
    for mode in ("sync", "async"):
        envs = gymnasium.make_vec(
            "CheckpointCharlie-v1",
            num_envs=3,
            vectorization_mode=mode,
            # workers from a forkserver: a fork of this process would copy JAX's running threads
            vector_kwargs={"context": "forkserver"} if mode == "async" else {},
            opponents="random",
            summary_infos=summary_infos,
            **VARIANTS[variant],
        )
        try:
            assert drive(envs, 120) > 0
        finally:
            envs.close()


@pytest.mark.slow
@pytest.mark.parametrize("variant", list(VARIANTS))
def test_the_vector_entry_point_is_the_batched_engine(variant):
    envs = gymnasium.make_vec(
        "CheckpointCharlie-v1",
        num_envs=8,
        vectorization_mode="vector_entry_point",
        opponents="random",
        **VARIANTS[variant],
    )
    assert isinstance(envs.unwrapped, CheckpointCharlieVectorEnv)
    assert envs.metadata["autoreset_mode"] == AutoresetMode.NEXT_STEP  # gymnasium's default
    assert drive(envs, 150) > 0
    envs.close()


def test_next_step_autoreset_follows_gymnasiums_contract():
    """An episode's last step returns its last observation and result; the next step starts the
    slot's next game whatever its action, with reward 0 and no termination."""
    env = CheckpointCharlieVectorEnv(6, opponents="random", autoreset_mode=AutoresetMode.NEXT_STEP, num_players=3)
    env.reset(seed=2)
    rng = np.random.default_rng(2)
    checked = 0
    ended = np.zeros(6, dtype=bool)
    for _ in range(300):
        masks = env.action_masks()
        actions = np.array([rng.choice(np.flatnonzero(m)) if m.any() else 0 for m in masks])
        _, rewards, terminated, _, infos = env.step(actions)
        assert not (terminated & ended).any() and (rewards[ended] == 0).all()  # the reset steps
        assert masks[ended].all()  # any action: it is ignored
        if terminated.any():
            assert infos["_points"][terminated].all() and not infos["_points"][~terminated].any()
            assert "final_obs" not in infos
            checked += 1
        ended = terminated
    assert checked > 5


def test_gymnasiums_vector_wrappers_take_it():
    env = CheckpointCharlieVectorEnv(4, opponents="random", autoreset_mode="NextStep")
    wrapped = gymnasium.wrappers.vector.RecordEpisodeStatistics(gymnasium.wrappers.vector.NormalizeObservation(env))
    rng = np.random.default_rng(0)
    wrapped.reset(seed=0)
    episodes = 0
    for _ in range(200):
        masks = env.action_masks()
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in masks])
        observations, _, terminated, _, infos = wrapped.step(actions)
        assert np.isfinite(observations).all()
        episodes += int(terminated.sum())
        if "episode" in infos:
            assert infos["_episode"].any()
    assert episodes > 0
    with pytest.raises(ValueError, match="autoreset_mode"):
        CheckpointCharlieVectorEnv(2, autoreset_mode="sometimes")


def test_infos_carry_gymnasiums_presence_masks():
    env = CheckpointCharlieVectorEnv(5, opponents="random")
    _, infos = env.reset(seed=0)
    for key in ("seat", "num_players"):
        assert infos[f"_{key}"].dtype == bool and infos[f"_{key}"].all() and infos[key].shape == (5,)


def test_the_package_exposes_the_versioned_module():
    import importlib

    assert ckc_env.checkpoint_charlie_v2.env is ckc_env.env
    with pytest.raises(ImportError, match="replaced by checkpoint_charlie_v2"):
        importlib.import_module("ckc_env.checkpoint_charlie_v1")
